"""The open coaching game's hints, from the rules alone: what a roll allows, and what a play leaves.

    >>> from bgboard.position import START
    >>> roll_allows(START, (3, 1))
    '3-1: both dice can be played; 16 different plays'
    >>> play = next(p for p in legal_plays(START, (6, 2)) if p.text == "24/18 13/11")
    >>> print(leaves(play))  # doctest: +NORMALIZE_WHITESPACE
    after 24/18 13/11 you have blots on your 24-, 18- and 11-points; with one die the opponent hits
    the 24-point blot with a 5 and the 18-point blot with a 1 or 6

Points are the mover's own numbers. A blot is a lone checker on a point; the opponent *hits it with one
die* when one of its checkers lies that many pips away (on the bar: the die enters on that point), so
a single number of a roll hits it.
"""

from __future__ import annotations

from collections.abc import Sequence

from bgboard.position import BAR, Position
from referee.moves import Play, legal_plays

__all__ = ["BlotShot", "blots", "leaves", "roll_allows", "shots"]

BlotShot = tuple[int, tuple[int, ...]]  # a blot's point (the mover's numbers) and the dice that hit it


def _dice_text(dice: tuple[int, int]) -> str:
    return f"{max(dice)}-{min(dice)}"


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def roll_allows(position: Position, dice: tuple[int, int]) -> str:
    """Whether both dice (all four of a double) can be played, and how many different plays there are
    (plays that leave the same position count once)."""
    plays = legal_plays(position, dice)
    roll = _dice_text(dice)
    if len(plays) == 1 and not plays[0].moves:
        return f"{roll}: no checker can move, the roll is blocked"
    used = max(len(p.moves) for p in plays)
    count = f"{len(plays)} different play{'s' if len(plays) > 1 else ''}"
    if dice[0] == dice[1]:
        if used == 4:
            return f"{roll}: all four {dice[0]}s can be played; {count}"
        return f"{roll}: only {used} of the four {dice[0]}s can be played; {count}"
    if used == 2:
        return f"{roll}: both dice can be played; {count}"
    pips = plays[0].moves[0].src - plays[0].moves[0].dst
    # a checker borne off from below the die's point moved fewer pips than the die (the larger one)
    die = pips if pips in dice else max(dice)
    return f"{roll}: only one die can be played, the {die}; {count}"


def blots(position: Position) -> list[int]:
    """The player's blots, highest point first (a checker on the bar is no blot)."""
    return [i + 1 for i in range(23, -1, -1) if position.player[i] == 1]


def shots(position: Position) -> list[BlotShot]:
    """The player's blots the opponent can hit with one die, with the numbers that do it.

    The opponent's checker on its point ``q`` reaches the player's point ``p`` with a die of
    ``q - (25 - p)``; from the bar (``q = 25``) that die enters on it. While the opponent has a checker
    on the bar, only its bar checkers can move.
    """
    opponent = position.opponent
    sources = [25] if opponent[BAR] else [q for q in range(24, 0, -1) if opponent[q - 1]]
    out: list[BlotShot] = []
    for p in blots(position):
        target = 25 - p  # the blot's point in the opponent's numbers
        dice = tuple(sorted({q - target for q in sources if 1 <= q - target <= 6}))
        if dice:
            out.append((p, dice))
    return out


def _points(points: Sequence[int]) -> str:
    """``[24, 18, 11]`` -> ``"24-, 18- and 11-points"``."""
    if len(points) == 1:
        return f"{points[0]}-point"
    return _and([f"{p}-" for p in points[:-1]] + [f"{points[-1]}-points"])


def _numbers(dice: Sequence[int]) -> str:
    """``(2, 5)`` -> ``"a 2 or 5"``."""
    words = [str(d) for d in dice]
    return "a " + (words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1])


def leaves(play: Play) -> str:
    """The blots ``play`` leaves and which of them the opponent can hit with one die."""
    name = play.text or "no move"
    mine = blots(play.result)
    if not mine:
        return f"after {name} you leave no blot"
    text = f"after {name} you have {'a blot' if len(mine) == 1 else 'blots'} on your {_points(mine)}"
    hit = shots(play.result)
    if not hit:
        return text + "; the opponent cannot hit any with one die"
    parts = [f"the {p}-point blot with {_numbers(dice)}" for p, dice in hit]
    return text + f"; with one die the opponent hits {_and(parts)}"
