"""The board readers: where a die is read carefully, its faces are weighed by the board reader and its
siblings alike (a face they dispute is read by none of them surely), and a face both that read and the
second board reader find likeliest is read with both."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from real_throw_fixtures import bench_throw

from referee.throws import CallKind
from vision import dice_model


def test_the_other_board_readers_ship_beside_the_first() -> None:
    for name in (dice_model.BOARD_READER, dice_model.SECOND_BOARD_READER, *dice_model.SIBLING_BOARD_READERS):
        assert (dice_model.MODELS / name).is_file(), name


@pytest.mark.parametrize("siblings", [True, False])
def test_the_siblings_keep_a_misread_off_the_roll(shared_data: Path, monkeypatch, siblings: bool) -> None:
    """`python -m bench.semireal --seed 3`, throw 6: a purple 2 lying against a teal 4 on `test2.jpg`,
    the 2's second pip in the lamp's streak along its edge. The board reader alone reads it as a 1 (below
    `SURE_ROLL`) and the roll 1-4 would be taken; with its siblings weighing the faces no face is likely
    enough to name, and the referee waits."""
    if not siblings:
        monkeypatch.setattr(dice_model, "SIBLING_BOARD_READERS", ())
    t, throw, call = bench_throw(shared_data, 3, 6, in_game=True)
    assert (t.name, throw.kind, throw.values) == ("test2.jpg", "touching", (2, 4))
    if siblings:
        assert call.kind is CallKind.WAIT, call
    else:
        assert (call.kind, sorted(call.dice)) == (CallKind.ROLL, [1, 4]), call


@pytest.mark.parametrize("heeded", [True, False])
def test_a_face_the_siblings_dispute_is_not_named(shared_data: Path, monkeypatch, heeded: bool) -> None:
    """`python -m bench.semireal --seed 2 --light-dice`, throw 192: a pale 2-1 lying flat on `frame0.jpg`.
    The board reader reads the 2 as a 2, both its siblings and the second board reader as a 1; weighed
    alike the four would read it a 1, and the roll 1-1 would be taken. Disputed, the face gets the least
    share any of the three gives it, no face is likely enough to name, and the referee waits."""
    if not heeded:
        monkeypatch.setattr(dice_model, "disputed", lambda p, others: np.zeros(len(p), bool))
    t, throw, call = bench_throw(shared_data, 2, 192, in_game=True, pale=True)
    assert (t.name, throw.kind, throw.values) == ("frame0.jpg", "flat", (2, 1))
    if heeded:
        assert call.kind is CallKind.WAIT, call
    else:
        assert (call.kind, call.dice) == (CallKind.ROLL, (1, 1)), call


@pytest.mark.parametrize("second", [True, False])
def test_a_face_both_readers_find_is_named(shared_data: Path, monkeypatch, second: bool) -> None:
    """`python -m bench.semireal --seed 1`, throw 191: a 4-4 on `test4.jpg`, one die against the rim. The
    board reader alone leaves one 4 below `READABLE` (29 px a die: the referee waits); the second board
    reader also finds 4 likeliest, and the two together read it, so the roll is called. (The board
    reader's siblings are left out here: with them weighing its faces it reads the 4 on its own.)"""
    monkeypatch.setattr(dice_model, "SIBLING_BOARD_READERS", ())
    if not second:
        monkeypatch.setattr(dice_model, "SECOND_BOARD_READER", "no such reader.onnx")
    t, throw, call = bench_throw(shared_data, 1, 191, in_game=True)
    assert (t.name, throw.kind, throw.values) == ("test4.jpg", "rim", (4, 4))
    if second:
        assert (call.kind, call.dice) == (CallKind.ROLL, (4, 4)), call
    else:
        assert call.kind is CallKind.WAIT, call
