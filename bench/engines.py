"""The reference engines (OpenSpiel and gnubg) as oracles for the rules: positions from random games
and the exact set of results OpenSpiel allows for each.

OpenSpiel gives each legal action as one or two checker moves; applying every action (and, for doubles,
both halves) and merging duplicates gives the exact set of resulting positions. gnubg's binding cuts a
move tuple at its first bear-off, so it is used for timing and counts, not for exact results.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

import pyspiel

from bgboard.position import Position

_BAR = 100  # OpenSpiel's index of the bar in state.board(player, pos)


@dataclass(frozen=True)
class Query:
    position: Position  # the player on roll is ``player``
    dice: tuple[int, int]
    results: frozenset[Position]  # exact legal results, seen from the mover


def _side(state, player: int) -> tuple[int, ...]:
    counts = [0] * 25
    for pos in range(24):
        n = state.board(player, pos)
        if n:
            point = 24 - pos if player == 0 else pos + 1
            counts[point - 1] = n
    counts[24] = state.board(player, _BAR)
    return tuple(counts)


def _position(state, player: int) -> Position:
    return Position(_side(state, player), _side(state, 1 - player))


def _dice(state) -> tuple[int, int]:
    m = re.search(r"Dice: (\d)(\d)", str(state))
    assert m, "OpenSpiel state has no dice"
    return int(m.group(1)), int(m.group(2))


def _results(state) -> frozenset[Position]:
    player = state.current_player()
    out: set[Position] = set()

    def walk(s) -> None:
        for action in s.legal_actions():
            child = s.clone()
            child.apply_action(action)
            if not child.is_terminal() and child.current_player() == player:
                walk(child)
            else:
                out.add(_position(child, player))

    walk(state)
    return frozenset(out)


def random_queries(n: int, seed: int) -> list[Query]:
    """``n`` (position, roll) pairs from random OpenSpiel games, each with its exact legal results."""
    rng = random.Random(seed)
    game = pyspiel.load_game("backgammon")
    out: list[Query] = []
    while len(out) < n:
        state = game.new_initial_state()
        fresh = True
        while not state.is_terminal() and len(out) < n:
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
                fresh = True
                continue
            player = state.current_player()
            if fresh:
                out.append(Query(_position(state, player), _dice(state), _results(state)))
            state.apply_action(rng.choice(state.legal_actions()))
            fresh = state.is_chance_node() or state.current_player() != player
    return out


def gnubg_board(position: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg's board: (player not on roll, player on roll), each 25 counts in its own numbering."""
    return (position.opponent, position.player)


def gnubg_plays(position: Position, dice: tuple[int, int]) -> list[tuple[int, ...]]:
    """gnubg's legal plays as move tuples (from, to, from, to, ...), cut at the first bear-off."""
    import gnubg

    found = gnubg.findbestmoves(gnubg_board(position), gnubg.cubeinfo(), gnubg.evalcontext(), dice)
    return [tuple(m["move"]) for m in found]


def gnubg_agrees(position: Position, dice: tuple[int, int], results: set[Position]) -> bool:
    """Whether gnubg finds as many plays as ``results`` holds, and exactly the same results among the
    plays that bear no checker off (gnubg's tuples stop at the first bear-off, so those are counted)."""
    from referee.moves import apply_moves

    tuples = gnubg_plays(position, dice)
    if not tuples:  # gnubg lists no play where the roll cannot be played
        return results == {position}
    if len(tuples) != len(results):
        return False
    theirs = {
        apply_moves(position, list(zip(t[::2], t[1::2], strict=True)))
        for t in tuples
        if len(t) % 2 == 0 and 0 not in t[1::2]
    }
    mine = {r for r in results if r.off_player == position.off_player}
    return theirs == mine
