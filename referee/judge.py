"""The judge: is a position after a roll a legal result of that roll, and if not, why not.

    >>> judge(START, (6, 1), START).reason
    'no checker was moved, but 6-1 can be played, for example 13/6'

Positions are seen from the mover before and after the play (``after.player`` is still the mover).
The reason names the first rule the play breaks, in words a player understands, and the judgement
lists every legal play so the table can see what the roll allowed.
"""

from __future__ import annotations

from dataclasses import dataclass

from bgboard.position import BAR, START, Position
from referee.moves import Play, Relax, legal_plays, reachable

__all__ = ["START", "Judgement", "judge"]


@dataclass(frozen=True)
class Judgement:
    legal: bool
    play: Play | None  # the legal play that leads to ``after``, when there is one
    reason: str
    alternatives: tuple[Play, ...]  # every legal play of the roll


def _dice_text(dice: tuple[int, int]) -> str:
    return f"{max(dice)}-{min(dice)}"


def _example(plays: tuple[Play, ...]) -> str:
    """A short example to quote: the play with the shortest text."""
    return min(plays, key=lambda p: (len(p.text), p.text)).text


def judge(before: Position, dice: tuple[int, int], after: Position) -> Judgement:
    """Says whether ``after`` is a legal result of playing ``dice`` from ``before``."""
    plays = tuple(legal_plays(before, dice))
    for play in plays:
        if play.result == after:
            return Judgement(True, play, "legal", plays)
    return Judgement(False, None, _why(before, dice, after, plays), plays)


def _why(before: Position, dice: tuple[int, int], after: Position, plays: tuple[Play, ...]) -> str:
    roll = _dice_text(dice)
    example = _example(plays)
    if not plays[0].moves:
        return f"{roll} cannot be played from this position: no checker may move"
    if after == before:
        return f"no checker was moved, but {roll} can be played, for example {example}"
    if sum(after.player) > sum(before.player) or sum(after.opponent) > sum(before.opponent):
        return "there are more checkers on the board than before the roll"
    if sum(after.opponent) < sum(before.opponent):
        return "an opponent's checker has left the board"

    key = (after.player, after.opponent)
    partial = reachable(before, dice)
    if key in partial:
        used = partial[key][1]
        if dice[0] == dice[1]:
            most = len(plays[0].moves)
            return f"as many of the {roll} as possible must be played: {most} can be, for example {example}"
        if len(used) == 1 and len(plays[0].moves) == 2:
            return f"both dice could be played: {roll} can be played {example}"
        if len(used) == 1:
            return f"the larger die must be played when only one can be: play the {max(dice)}, {example}"
    for relax, reason in (
        (Relax(bar_first=True), "a checker on the bar must enter first"),
        (Relax(bear_off=True), _bear_off_reason(before)),
    ):
        if key in reachable(before, dice, relax):
            return reason
    if before.player[BAR] and after.player[BAR] >= before.player[BAR]:
        return f"a checker on the bar must enter first, for example {example}"
    moved = _pips(before) - _pips(after)
    if moved != sum(dice) * (2 if dice[0] == dice[1] else 1):
        return f"the checkers moved {moved} pips, which {roll} does not allow (for example {example})"
    return f"that play is not possible with {roll}; legal plays include {example}"


def _pips(position: Position) -> int:
    return position.pip_counts()[0]


def _bear_off_reason(before: Position) -> str:
    if any(before.player[6:]):
        return "cannot bear off while a checker is outside the home board"
    return "a die larger than needed bears off only from the highest occupied point"
