"""gnubg Position ID: known pairs, errors, and a cross-check against the gnubg package."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from strategies import positions

from bgboard.position import START, Position
from referee.notation.position_id import PositionIdError, decode_position_id, encode_position_id

START_POINTS = {6: 5, 8: 3, 13: 5, 24: 2}


# (not on roll | on roll), each in its own numbering, 25 = bar: the pairs named in the issue
KNOWN = [
    ("4HPwATDgc/ABMA", START_POINTS, START_POINTS),
    ("4HPwAVDgc/ABMA", {6: 5, 8: 3, 13: 5, 24: 1, 25: 1}, START_POINTS),
    ("AQAA8QQAAAAAAA", {1: 1, 24: 1}, {2: 4, 4: 1}),
]


@pytest.mark.parametrize(("pid", "not_on_roll", "on_roll"), KNOWN)
def test_known_ids_both_ways(pid: str, not_on_roll: dict[int, int], on_roll: dict[int, int]) -> None:
    pos = Position.from_points(on_roll, not_on_roll)
    assert encode_position_id(pos) == pid
    assert decode_position_id(pid) == pos


def test_start_and_empty_board() -> None:
    assert encode_position_id(START) == "4HPwATDgc/ABMA"
    empty = Position((0,) * 25, (0,) * 25)
    assert encode_position_id(empty) == "AAAAAAAAAAAAAA"
    assert decode_position_id("  AAAAAAAAAAAAAA\n") == empty


def test_side_order_matters() -> None:
    pos = Position.from_points({2: 4, 4: 1}, {1: 1, 24: 1})
    assert encode_position_id(pos.swap()) != encode_position_id(pos)
    assert decode_position_id(encode_position_id(pos.swap())) == pos.swap()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("4HPwATDgc/AB", "14 characters"),
        ("4HPwATDgc/ABMA=", "14 characters"),
        ("4HPwATDgc!ABMA", "14 characters"),
        ("4HPwATDgc/ABMB", "stray bits"),
        ("/////////////w", "more than 30 checkers"),
        ("27YBANC2bQAABA", "closed boards"),
        ("//8HAAAAAAAAAA", "19 checkers; a side has 15"),
    ],
)
def test_bad_ids_are_refused_clearly(text: str, words: str) -> None:
    with pytest.raises(PositionIdError, match=words) as info:
        decode_position_id(text)
    assert isinstance(info.value, ValueError)


def test_both_on_one_point_is_refused() -> None:
    gnubg = pytest.importorskip("gnubg")
    side = [0] * 25
    side[5] = 1  # the 6-point of one side is the 19-point of the other
    other = [0] * 25
    other[18] = 1
    pid = gnubg.positionid((tuple(side), tuple(other)))
    with pytest.raises(PositionIdError, match="both sides"):
        decode_position_id(pid)


@settings(max_examples=400)
@given(positions())
def test_any_position_matches_gnubg(pos: Position) -> None:
    gnubg = pytest.importorskip("gnubg")
    pid = encode_position_id(pos)
    # gnubg's board is (side not on roll, side on roll)
    assert pid == gnubg.positionid((pos.opponent, pos.player))
    assert decode_position_id(pid) == pos
    not_on_roll, on_roll = gnubg.positionfromid(pid)
    assert (tuple(on_roll), tuple(not_on_roll)) == (pos.player, pos.opponent)
