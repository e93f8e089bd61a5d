"""A die at the field's edge: where the reader cannot tell in from out, the table is asked, never told to
throw a good throw again (``vision.dice_verdict.EDGE_DOUBT``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from real_throw_fixtures import bench_reading, bench_throw

from bgboard.layout import Half, Orientation, Side
from referee.throws import CallKind, call_answer, call_opening, call_roll
from vision.reading import DieReading


@pytest.mark.parametrize("in_game", [True, False])
def test_a_die_against_the_far_rim_is_asked_about_not_thrown_again(shared_data: Path, in_game: bool) -> None:
    """``bench.semireal --light-dice --seed 5`` throw 43: a pale 5 lying against ``test4.jpg``'s far rim,
    where the camera looks in at an angle. Its centre is found 11 px off the pasted face's, towards the
    rim, and its footprint then lay a tenth of a die side beyond the field's edge as the image shows it:
    "landed outside the playing field", a good throw thrown again. At the edge the table is asked."""
    t, throw, reading = bench_reading(shared_data, 5, 43, in_game, pale=True)
    assert (throw.kind, throw.values) == ("rim", (5, 1))
    (edge,) = [d for d in reading.dice if d.at_edge]
    assert (edge.value, edge.outside_field, edge.half) == (5, False, Half.RIGHT)
    assert edge.to_json()["flags"] == ["at_edge"]
    _, _, call = bench_throw(shared_data, 5, 43, in_game, pale=True)
    assert (call.kind, sorted(call.dice)) == (CallKind.ASK, [1, 5])
    assert "a die lies at the edge of the playing field" in call.reason
    assert "if a die leans or lies outside the field, throw both dice again" in call.reason


def _die(value: int, half: Half, at_edge: bool = False) -> DieReading:
    return DieReading(value, (0.0, 0.0), (0.0, 0.0, 1.0, 1.0), 0.99, half=half, at_edge=at_edge)


ORIENTATION = Orientation.BOTTOM_RIGHT


def test_a_die_at_the_edge_is_asked_about_in_every_call() -> None:
    """In a game and at the opening the table is asked whether the die lies inside; in the throw that
    answers an illegal play, where only a clean throw counts, it is thrown again."""
    right = ORIENTATION.throwing_half(Side.LIGHT)
    clear = [_die(5, right), _die(1, right)]
    assert call_roll(clear, Side.LIGHT, ORIENTATION, False, False).kind is CallKind.ROLL
    dice = [_die(5, right, at_edge=True), _die(1, right)]
    call = call_roll(dice, Side.LIGHT, ORIENTATION, False, False)
    assert (call.kind, call.dice) == (CallKind.ASK, (5, 1)) and "edge" in call.reason
    assert call_answer(dice, Side.LIGHT, ORIENTATION, False).kind is CallKind.REROLL
    assert call_answer(clear, Side.LIGHT, ORIENTATION, False).kind is CallKind.ROLL
    opening = [_die(5, right, at_edge=True), _die(3, ORIENTATION.throwing_half(Side.DARK))]
    call = call_opening(opening, ORIENTATION, False)
    assert (call.kind, call.dice) == (CallKind.ASK, (5, 3)) and "its owner alone" in call.reason
    assert (
        call_opening([replace(d, at_edge=False) for d in opening], ORIENTATION, False).kind is CallKind.ROLL
    )
