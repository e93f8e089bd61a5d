"""The two board readers: a face both find likeliest for a die read carefully is read with both."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_throw_fixtures import bench_throw

from referee.throws import CallKind
from vision import dice_model


def test_the_second_board_reader_ships_beside_the_first() -> None:
    for name in (dice_model.BOARD_READER, dice_model.SECOND_BOARD_READER):
        assert (dice_model.MODELS / name).is_file(), name


@pytest.mark.parametrize("second", [True, False])
def test_a_face_both_readers_find_is_named(shared_data: Path, monkeypatch, second: bool) -> None:
    """`python -m bench.semireal --seed 1`, throw 191: a 4-4 on `test4.jpg`, one die against the rim. The
    board reader alone leaves one 4 below `READABLE` (29 px a die: the referee waits); the second board
    reader also finds 4 likeliest, and the two together read it, so the roll is called."""
    if not second:
        monkeypatch.setattr(dice_model, "SECOND_BOARD_READER", "no such reader.onnx")
    t, throw, call = bench_throw(shared_data, 1, 191, in_game=True)
    assert (t.name, throw.kind, throw.values) == ("test4.jpg", "rim", (4, 4))
    if second:
        assert (call.kind, call.dice) == (CallKind.ROLL, (4, 4)), call
    else:
        assert call.kind is CallKind.WAIT, call
