"""Legal plays: every way a roll can be played from a position, one entry per resulting position.

    >>> sorted(p.text for p in legal_plays(START, (3, 1)))[:2]
    ['13/10 6/5', '13/10 8/7']

A *move* is one die moved by one checker; a *play* is the whole turn. Plays are deduplicated by the
position they leave, as gnubg does, and each keeps the text of one way to reach it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from bgboard.position import BAR, START, Counts, Position

__all__ = ["START", "Move", "Play", "PlayParseError", "legal_plays", "parse_moves", "apply_moves"]

OFF = 0
BAR_POINT = 25


class Move(NamedTuple):
    """One checker moved by one die: from ``src`` (25 = bar) to ``dst`` (0 = off)."""

    src: int
    dst: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{_name(self.src)}/{_name(self.dst)}{'*' if self.hit else ''}"


@dataclass(frozen=True, slots=True)
class Play:
    """A whole turn: its moves, and the position it leaves, still seen from the mover."""

    moves: tuple[Move, ...]
    result: Position

    @property
    def text(self) -> str:
        return format_moves(self.moves)

    def __str__(self) -> str:
        return self.text or "(no move)"


@dataclass(frozen=True)
class Relax:
    """Rules to switch off, so the judge can find which rule an illegal play broke."""

    bar_first: bool = False
    bear_off: bool = False


STRICT = Relax()


def _name(point: int) -> str:
    return "bar" if point == BAR_POINT else "off" if point == OFF else str(point)


# both sides' counts, the player first; and every such pair reachable with (the moves, the dice used)
Sides = tuple[Counts, Counts]
Reached = dict[Sides, tuple[tuple[Move, ...], tuple[int, ...]]]


def _successors(
    player: Counts, opponent: Counts, die: int, relax: Relax
) -> Iterator[tuple[Move, Counts, Counts]]:
    """Every legal move of one checker by ``die``: yields (move, player after, opponent after).

    The hot loop of the search: flags that hold for the whole position are computed once.
    """
    if player[BAR] and not relax.bar_first:
        sources: range | tuple[int, ...] = (BAR_POINT,)
    else:
        sources = range(BAR_POINT, 0, -1)
    may_bear_off = relax.bear_off or not any(player[6:])
    for src in sources:
        if not player[src - 1]:
            continue
        dst = src - die
        if dst >= 1:
            there = opponent[24 - dst]
            if there >= 2:
                continue
            after = list(player)
            after[src - 1] -= 1
            after[dst - 1] += 1
            if there:
                hit = list(opponent)
                hit[24 - dst] = 0
                hit[BAR] += 1
                yield Move(src, dst, True), tuple(after), tuple(hit)
            else:
                yield Move(src, dst, False), tuple(after), opponent
        elif may_bear_off and (dst == 0 or relax.bear_off or not any(player[src:6])):
            # an oversized die bears off only from the highest occupied point
            after = list(player)
            after[src - 1] -= 1
            yield Move(src, OFF, False), tuple(after), opponent


def _apply(player: list[int], opponent: list[int], move: Move) -> tuple[list[int], list[int]]:
    player = player.copy()
    player[move.src - 1] -= 1
    if move.dst != OFF:
        player[move.dst - 1] += 1
        if move.hit:
            opponent = opponent.copy()
            opponent[24 - move.dst] = 0
            opponent[BAR] += 1
    return player, opponent


def reachable(position: Position, dice: tuple[int, int], relax: Relax = STRICT) -> Reached:
    """Every position reachable with some of the dice: ``{(player, opponent): (moves, dice used)}``.

    The search goes one die at a time and merges equal positions at each step, so a double costs
    what its distinct intermediate positions cost, not every order of its four moves.
    """
    doubles = dice[0] == dice[1]
    orders = [(dice[0],) * 4] if doubles else [(max(dice), min(dice)), (min(dice), max(dice))]
    start = (position.player, position.opponent)
    found: Reached = {start: ((), ())}
    for order in orders:
        layer: dict[Sides, tuple[Move, ...]] = {start: ()}
        for depth, die in enumerate(order, 1):
            used = order[:depth]
            following: dict[Sides, tuple[Move, ...]] = {}
            for (player, opponent), moves in layer.items():
                for move, p2, o2 in _successors(player, opponent, die, relax):
                    key = (p2, o2)
                    if key not in following:
                        following[key] = (*moves, move)
            for key, moves in following.items():
                if key not in found or len(found[key][1]) < depth:
                    found[key] = (moves, used)
            layer = following
            if not layer:
                break
    return found


def _strict_choices(found: Reached, dice: tuple[int, int]) -> Reached:
    """Applies the rules on how much of a roll must be played."""
    most = max(len(used) for _, used in found.values())
    best = {k: v for k, v in found.items() if len(v[1]) == most}
    if most == 1 and dice[0] != dice[1]:
        larger = max(dice)
        if any(used == (larger,) for _, used in best.values()):
            best = {k: v for k, v in best.items() if v[1] == (larger,)}
    return best


def legal_plays(position: Position, dice: tuple[int, int]) -> list[Play]:
    """Every legal play of ``dice`` from ``position`` (player on roll), one per resulting position.

    A roll that cannot be played at all gives one empty play that leaves the position as it is.
    """
    _check_dice(dice)
    best = _strict_choices(reachable(position, dice), dice)
    return [Play(moves, Position.derived(*key)) for key, (moves, _) in best.items()]


def _check_dice(dice: tuple[int, int]) -> None:
    if len(dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
        raise ValueError(f"dice must be two numbers 1..6, got {dice!r}")


# --- text -------------------------------------------------------------------------------------------


def format_moves(moves: tuple[Move, ...]) -> str:
    """gnubg-style text: one checker's moves joined (``24/18*/13``), highest first, repeats as ``(2)``.

    >>> format_moves((Move(8, 5), Move(6, 5), Move(8, 5)))
    '8/5(2) 6/5'
    """
    chains: list[list[Move]] = []
    for move in sorted(moves, key=lambda m: (-m.src, -m.dst)):
        for chain in chains:
            last = chain[-1]
            if last.dst == move.src and last.dst != OFF:
                chain.append(move)
                break
        else:
            chains.append([move])
    parts = []
    for chain in chains:
        text = _name(chain[0].src)
        for m in chain[:-1]:
            if m.hit:
                text += f"/{_name(m.dst)}*"
        text += f"/{_name(chain[-1].dst)}{'*' if chain[-1].hit else ''}"
        parts.append(text)
    parts.sort(key=_text_order)
    out: list[str] = []
    counts: dict[str, int] = {}
    for part in parts:
        if part not in counts:
            out.append(part)
        counts[part] = counts.get(part, 0) + 1
    return " ".join(p if counts[p] == 1 else f"{p}({counts[p]})" for p in out)


def _text_order(part: str) -> tuple[int, int]:
    points = [
        25 if p.startswith("bar") else 0 if p.startswith("off") else int(p.rstrip("*"))
        for p in part.split("/")
    ]
    return (-points[0], -points[-1])


class PlayParseError(ValueError):
    """Move text that cannot be read, or that does not fit the position."""


_PART = re.compile(r"^(bar|\d+)((?:/(?:\d+|off|bar)\*?)+)(?:\((\d)\))?$", re.IGNORECASE)


def parse_moves(text: str) -> list[tuple[int, int]]:
    """Reads move text into (from, to) steps, gnubg or Jellyfish style (25 = bar, 0 = off).

    >>> parse_moves("bar/22 13/7*/5 6/off(2)")
    [(25, 22), (13, 7), (7, 5), (6, 0), (6, 0)]
    """
    steps: list[tuple[int, int]] = []
    for part in text.split():
        m = _PART.match(part)
        if not m:
            raise PlayParseError(f"cannot read {part!r}: write moves like 13/7 8/7, bar/22, 6/off, 8/5(2)")
        points = [m.group(1)] + [p.rstrip("*") for p in m.group(2).split("/")[1:]]
        numbers = [25 if p.lower() == "bar" else 0 if p.lower() == "off" else int(p) for p in points]
        if any(not 0 <= n <= 25 for n in numbers):
            raise PlayParseError(f"{part!r} names a point outside 0..25")
        chain = list(zip(numbers, numbers[1:], strict=False))
        steps += chain * int(m.group(3) or 1)
    return steps


def apply_moves(position: Position, steps: list[tuple[int, int]]) -> Position:
    """Moves checkers as written, hitting blots, with no check of the dice (that is the judge's job).

    Raises :class:`PlayParseError` when a step has no checker to move or lands on a blocked point.
    """
    player, opponent = list(position.player), list(position.opponent)
    for src, dst in steps:
        if not 1 <= src <= 25 or not 0 <= dst < src:
            raise PlayParseError(f"{_name(src)}/{_name(dst)} does not move forward")
        if player[src - 1] == 0:
            raise PlayParseError(f"no checker on {_name(src)} to move")
        hit = dst != OFF and opponent[24 - dst] == 1
        if dst != OFF and opponent[24 - dst] >= 2:
            raise PlayParseError(f"{dst} is blocked")
        player, opponent = _apply(player, opponent, Move(src, dst, hit))
    return Position(tuple(player), tuple(opponent))
