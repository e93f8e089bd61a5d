"""XGID both ways: the starting position, round trips, errors, and gnubg's own reading of XGIDs."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given, settings
from strategies import match_states, positions

from bgboard.position import START, Position
from referee.notation.match_id import MatchState, decode_match_id, encode_match_id
from referee.notation.position_id import decode_position_id, encode_position_id
from referee.notation.xgid import XgidError, decode_xgid, encode_xgid

START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"


def test_start_position() -> None:
    x = decode_xgid(START_XGID)
    assert x.position == START
    assert x.state == MatchState(on_roll=1, turn=1, dice=(5, 2))
    assert (x.beavers, x.max_cube) == (False, 1024)
    assert encode_xgid(START, MatchState(on_roll=1, turn=1, dice=(5, 2))) == START_XGID
    # the same start with the top player on roll reads the same board from the other side
    top = decode_xgid(START_XGID.replace(":1:52:", ":-1:52:"))
    assert top.position == START and top.state.on_roll == 0


def test_points_and_bars_follow_the_bottom_player() -> None:
    x = decode_xgid("XGID=aa----E-C---eD---c-e----B-:1:-1:1:00:2:4:0:9:8")
    # bottom (player 1) on roll: 13-point has 4; top (player 0) has one on the bar and one on its 24-point
    assert x.position == Position.from_points({6: 5, 8: 3, 13: 4, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 1, 25: 1})
    assert x.state.score == (4, 2)  # gnubg's player 0 is the top player, scored second in the XGID
    assert (x.state.cube, x.state.cube_owner, x.state.dice, x.max_cube) == (2, 0, None, 256)


def test_double_offered_and_money_rules() -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:1:1:-1:D:0:0:3:0:10"
    x = decode_xgid(text)
    assert x.state.double_offered and x.state.on_roll == 0 and x.state.turn == 1
    assert x.state.jacoby and x.beavers
    assert encode_xgid(*x) == text


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:0:0:10", "not an XGID"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:2:52:0:0:0:0:10", "turn -1 or 1"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:57:0:0:0:0:10", "two digits 1-6"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:2:5:10", "rules field"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "is a bar"),
        ("XGID=-b----E-C---eE---c-e----P-:0:0:1:52:0:0:0:0:10", "not an XGID"),
        ("XGID=-b----E-C---eE---c-e---OB-:0:0:1:52:0:0:0:0:10", "checkers on the board"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:9:0:0:5:10", "exceeds the match length"),
    ],
)
def test_bad_xgids_are_refused_clearly(text: str, words: str) -> None:
    with pytest.raises(XgidError, match=words) as info:
        decode_xgid(text)
    assert isinstance(info.value, ValueError)


def test_states_an_xgid_cannot_hold() -> None:
    with pytest.raises(XgidError, match="game in progress"):
        encode_xgid(START, MatchState(game_state=2))
    with pytest.raises(XgidError, match="money-play rules"):
        encode_xgid(START, MatchState(match_length=5, jacoby=True))


@settings(max_examples=150)
@given(positions(), match_states())
def test_gnubg_reads_our_xgids_as_we_do(position: Position, state: MatchState) -> None:
    gnubg = pytest.importorskip("gnubg")
    text = encode_xgid(position, state)
    with contextlib.redirect_stdout(io.StringIO()):
        gnubg.setgnubgid(text)
    pid, mid = gnubg.gnubgid().split(":")
    assert decode_position_id(pid) == position, text
    got = decode_match_id(mid)
    assert got.on_roll == state.on_roll and got.cube == state.cube, text
    assert (got.cube_owner, got.score, got.match_length, got.crawford) == (
        state.cube_owner,
        state.score,
        state.match_length,
        state.crawford,
    ), text
    assert got.dice == (tuple(sorted(state.dice, reverse=True)) if state.dice else None), text
    if not state.match_length:
        assert got.jacoby == state.jacoby, text
    assert encode_position_id(position) == pid and encode_match_id(got) == mid
