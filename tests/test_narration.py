"""Teacher narration: hits, entries, points made, bearing off, results."""

from __future__ import annotations

from bgboard.layout import Side
from bgboard.position import Position
from referee.moves import legal_plays
from referee.narration import describe_play, describe_score


def _play(position: Position, dice: tuple[int, int], text: str):
    return next(p for p in legal_plays(position, dice) if p.text == text)


def test_hit_is_named_from_the_owner_of_the_blot() -> None:
    # dark on roll; light has a blot on light's 5-point = dark's 20-point
    pos = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {5: 1, 6: 4, 8: 3, 13: 5, 24: 2})
    lines = describe_play(Side.DARK, (4, 3), pos, _play(pos, (4, 3), "24/20* 13/10"))
    assert "dark hits the blot on light's 5-point" in lines


def test_entry_from_the_bar_names_the_opponents_point() -> None:
    pos = Position.from_points({25: 1, 13: 5, 8: 3, 6: 5, 24: 1}, {6: 5, 8: 3, 13: 5, 24: 2})
    lines = describe_play(Side.LIGHT, (3, 1), pos, _play(pos, (3, 1), "bar/22 24/23"))
    assert "light enters from the bar on dark's 3-point" in lines


def test_may_now_bear_off_and_bearing_off() -> None:
    pos = Position.from_points({8: 1, 6: 14}, {24: 15})
    lines = describe_play(Side.LIGHT, (2, 1), pos, _play(pos, (2, 1), "8/5"))
    assert "light has all checkers home and may now bear off" in lines
    pos = Position.from_points({6: 2, 1: 13}, {20: 15})
    lines = describe_play(Side.LIGHT, (6, 6), pos, _play(pos, (6, 6), "6/off(2) 1/off(2)"))
    assert "light bears off 4 checkers (4 off)" in lines


def test_no_move_and_results() -> None:
    pos = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3})
    play = legal_plays(pos, (6, 6))[0]
    assert describe_play(Side.LIGHT, (6, 6), pos, play) == ["light cannot move with 6-6"]
    assert describe_score(3, 1, 5) == "match score: light 3, dark 1 (to 5)"
