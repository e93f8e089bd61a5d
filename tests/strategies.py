"""Hypothesis strategies for the notations' property tests: positions, match states, whole matches."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from bgboard.position import Position
from referee.game import Game, Phase
from referee.match import Match
from referee.notation.match_id import MatchState


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any position a board can hold: up to 15 checkers a side on points and the bar, no point shared."""
    sides = [[0] * 25, [0] * 25]
    for s in draw(st.permutations((0, 1))):
        for _ in range(draw(st.integers(0, 15))):
            free = [p for p in range(25) if p == 24 or not sides[1 - s][23 - p]]
            sides[s][draw(st.sampled_from(free))] += 1
    return Position(tuple(sides[0]), tuple(sides[1]))


@st.composite
def match_states(draw: st.DrawFn) -> MatchState:
    """A consistent match state: money or a match, the cube, the score, Crawford, the dice."""
    length = draw(st.sampled_from((0, 0, 1, 3, 5, 7, 11, 25)))
    on_roll = draw(st.integers(0, 1))
    top = max(length - 1, 0)
    score = (draw(st.integers(0, top)), draw(st.integers(0, top)))
    crawford = length > 1 and length - 1 in score and draw(st.booleans())
    dice = draw(st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)))
    return MatchState(
        cube=1 if crawford else 1 << draw(st.integers(0, 6)),
        cube_owner=None if crawford else draw(st.sampled_from((None, 0, 1))),
        on_roll=on_roll,
        turn=on_roll,
        crawford=crawford,
        dice=dice,
        match_length=length,
        score=score,
        jacoby=length == 0 and draw(st.booleans()),
    )


def play_out(game: Game, rng: random.Random) -> None:
    """Random legal play to the end of the game: doubles now and then, taken or dropped."""
    while game.phase is Phase.OPENING:
        game.opening_roll(rng.randint(1, 6), rng.randint(1, 6))
    while not game.over:
        if game.phase is Phase.ROLL:
            if rng.random() < 0.1 and game.cube.may_double(game.on_roll):
                game.offer_double()
            else:
                game.roll(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.DOUBLED:
            game.take() if rng.random() < 0.7 else game.drop()
        else:
            game.play(rng.choice(game.legal_plays()))


def random_match(seed: int, length: int = 5) -> Match:
    """A whole match of random legal play."""
    rng = random.Random(seed)
    match = Match(length=length, players=("ann", "bob"))
    while not match.over:
        game = match.new_game()
        play_out(game, rng)
        match.finish(game)
    return match


@st.composite
def matches(draw: st.DrawFn) -> Match:
    """A whole match of random legal play, to a length of 1 to 5 points."""
    return random_match(draw(st.integers(0, 2**32 - 1)), draw(st.integers(1, 5)))
