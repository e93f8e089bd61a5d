"""How the virtual players play: a greedy player's taste, and a careless player's miscount.

>>> from bgboard.layout import Board, Side
>>> choose(Board.start(), Side.LIGHT, (3, 1)).text
'8/5 6/5'
"""

from __future__ import annotations

import random

from bgboard.layout import Board, Side
from bgboard.position import BAR, Position
from referee.moves import Play, legal_plays


def _score(play: Play, before_pips: int, racer: bool) -> float:
    """A greedy player's taste: progress, made points, few blots."""
    pos = play.result
    me, them = pos.player, pos.opponent
    blots = sum(1 for i in range(24) if me[i] == 1)
    made = sum(1 for i in range(24) if me[i] >= 2)
    progress = before_pips - pos.pip_counts()[0]
    # light races and leaves dark alone (a dark checker on the dark bar is the hardest thing to see);
    # dark gets its back checkers out of light's home board
    taste = -15 * them[BAR] if racer else -8 * sum(me[18:])
    return progress + taste + 2 * made - 3 * blots


def choose(board: Board, mover: Side, dice: tuple[int, int], text: str | None = None) -> Play:
    """The play the demo's greedy player makes, or the legal play written ``text``."""
    position = board.position(mover)
    plays = legal_plays(position, dice)
    if text is not None:
        found = [p for p in plays if p.text == text]
        if not found:
            raise ValueError(f"{text} is not a legal {dice} for {mover.value}: {[p.text for p in plays]}")
        return found[0]
    pips = position.pip_counts()[0]
    return max(plays, key=lambda p: (_score(p, pips, mover is Side.LIGHT), p.text))


def miscount(
    board: Board, mover: Side, dice: tuple[int, int], rng: random.Random, further_only: bool = False
) -> Board | None:
    """A board a careless player leaves: a legal play with one checker a pip too far (or short).

    None when the roll gives no such board (no move, or every variant is blocked or legal).
    """
    position = board.position(mover)
    plays = legal_plays(position, dice)
    results = {p.result for p in plays}
    order = sorted(plays, key=lambda p: p.text)
    rng.shuffle(order)
    for play in order:
        moves = list(play.moves)
        rng.shuffle(moves)
        for move in moves:
            d = move.dst
            if d == 0 or move.hit or play.result.player[d - 1] == 0:
                continue  # borne off, a hit to keep, or a checker that moved on from there
            for step in (-1,) if further_only else rng.sample((-1, 1), 2):
                e = d + step
                if not 1 <= e <= 24 or e == move.src or play.result.opponent[24 - e]:
                    continue  # the other point must be open and on the board
                me = list(play.result.player)
                me[d - 1] -= 1
                me[e - 1] += 1
                wrong = Position(tuple(me), play.result.opponent)
                if wrong not in results:
                    return Board.from_position(wrong, mover)
    return None
