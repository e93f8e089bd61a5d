"""gnubg Match ID: the issue's examples, the bit layout, errors, and a cross-check with gnubg."""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from referee.notation.match_id import (
    GAME_DROPPED,
    GAME_PLAYING,
    GAME_RESIGNED,
    MatchIdError,
    MatchState,
    decode_match_id,
    encode_match_id,
)


def test_nine_point_match_example() -> None:
    state = decode_match_id("QYkqASAAIAAA")
    assert (state.match_length, state.score) == (9, (2, 4))
    assert (state.cube, state.cube_owner) == (2, 0)
    assert (state.on_roll, state.turn, state.dice) == (1, 1, (5, 2))
    assert state.game_state == GAME_PLAYING and not state.crawford and not state.double_offered
    # this ID predates gnubg's Jacoby bit (bit 66, set when Jacoby is off), so it reads as Jacoby on
    assert state.jacoby
    assert encode_match_id(state) == "QYkqASAAIAAA"
    assert encode_match_id(dataclasses.replace(state, jacoby=False)) == "QYkqASAAIAAE"


def test_money_game_example() -> None:
    state = MatchState(cube=1, cube_owner=None, on_roll=1, turn=1, dice=(5, 2), match_length=0)
    assert encode_match_id(state) == "cIkKAAAAAAAE"
    assert decode_match_id("cIkKAAAAAAAE") == state


def test_dice_are_written_larger_first() -> None:
    low_first = MatchState(on_roll=1, turn=1, dice=(2, 5))
    assert encode_match_id(low_first) == "cIkKAAAAAAAE"


def test_each_field_round_trips() -> None:
    base = MatchState(match_length=11, score=(3, 7))
    variants = [
        {"cube": 64, "cube_owner": 1},
        {"cube": 32768, "cube_owner": 0},
        {"on_roll": 1, "turn": 0, "double_offered": True},
        {"crawford": True, "score": (10, 7)},
        {"game_state": GAME_RESIGNED, "resigned": 3, "turn": 1},
        {"game_state": GAME_DROPPED},
        {"dice": (6, 6)},
        {"match_length": 32767, "score": (32767, 0)},
        {"match_length": 0, "score": (0, 0), "jacoby": True},
    ]
    for changes in variants:
        state = dataclasses.replace(base, **changes)
        assert decode_match_id(encode_match_id(state)) == state, changes


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("cIkKAAAAAAA", "12 characters"),
        ("cIkKAAAAAAA*", "12 characters"),
        ("cIkKAAAAAAAM", "beyond bit 66"),
        ("cIkLAAAAAAAE", "dice 7-2"),
        ("sIkKAAAAAAAE", "no Crawford game"),
        ("YIkKAAAAAAAE", "owner code 2"),
    ],
)
def test_bad_ids_are_refused_clearly(text: str, words: str) -> None:
    with pytest.raises(MatchIdError, match=words) as info:
        decode_match_id(text)
    assert isinstance(info.value, ValueError)


def test_impossible_states_are_refused() -> None:
    with pytest.raises(MatchIdError, match="power of two"):
        MatchState(cube=3)
    with pytest.raises(MatchIdError, match="exceeds the match length"):
        MatchState(match_length=5, score=(6, 0))
    with pytest.raises(MatchIdError, match="two numbers from 1 to 6"):
        MatchState(dice=(0, 3))


def test_constructed_states_match_gnubg() -> None:
    gnubg = pytest.importorskip("gnubg")
    rng = random.Random(7)
    cases = itertools.product((1, 2, 8), (None, 0, 1), (0, 1), (0, 5, 9), (GAME_PLAYING, GAME_RESIGNED))
    for cube, owner, move, length, game_state in cases:
        score = (rng.randint(0, length - 1), rng.randint(0, length - 1)) if length else (0, 0)
        crawford = bool(length) and rng.random() < 0.3
        roll = sorted((rng.randint(1, 6), rng.randint(1, 6)), reverse=True)  # gnubg keeps the larger first
        dice = (roll[0], roll[1]) if game_state == GAME_PLAYING else None
        turn, resigned, doubled = move, 0, False
        if game_state == GAME_RESIGNED:
            turn, resigned = 1 - move, rng.randint(1, 3)
        elif rng.random() < 0.3:
            turn, doubled, dice = 1 - move, True, None
        expected = MatchState(
            cube, owner, move, crawford, game_state, turn, doubled, resigned, dice, length, score
        )
        info = gnubg.cubeinfo(cube, -1 if owner is None else owner, move, length, score, int(crawford), 0)
        pos = gnubg.posinfo(turn, resigned, int(doubled), game_state, dice or (0, 0))
        gid = gnubg.matchid(info, pos)
        got = decode_match_id(gid)
        # gnubg takes the Jacoby bit from its own settings, not from these arguments
        assert got == dataclasses.replace(expected, jacoby=got.jacoby)
        assert encode_match_id(got) == gid
