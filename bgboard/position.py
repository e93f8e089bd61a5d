"""A backgammon position seen from the player on roll.

Each side is a tuple of 25 counts in that side's own numbering: index ``i`` holds the checkers on point
``i + 1`` (1..24, where the 1-point is the last before bearing off) and index 24 holds the checkers on
the bar. Checkers not on the board are off; there are always 15 a side in all.

    >>> START.player[5], START.opponent[23]
    (5, 2)
"""

from __future__ import annotations

from dataclasses import dataclass

CHECKERS = 15
BAR = 24  # index of the bar in a side's tuple; in move text the bar is point 25
POINTS = 24

Counts = tuple[int, ...]


class PositionError(ValueError):
    """A position that cannot occur on a backgammon board."""


def _side(points: dict[int, int]) -> Counts:
    counts = [0] * 25
    for point, n in points.items():
        if not 1 <= point <= 25:
            raise PositionError(f"point {point} is not on the board: use 1..24, or 25 for the bar")
        counts[point - 1] = n
    return tuple(counts)


@dataclass(frozen=True, slots=True)
class Position:
    """Both sides, from the point of view of ``player`` (the side on roll).

    ``opponent`` is in the opponent's own numbering: its point ``p`` is the player's point ``25 - p``.

        >>> Position.from_points({6: 5, 8: 3}, {}).off_player
        7
    """

    player: Counts
    opponent: Counts

    def __post_init__(self) -> None:
        for name, side in (("player", self.player), ("opponent", self.opponent)):
            if len(side) != 25:
                raise PositionError(f"{name} needs 25 counts (24 points and the bar), got {len(side)}")
            if min(side) < 0:
                raise PositionError(f"{name} has a negative checker count")
            if sum(side) > CHECKERS:
                raise PositionError(f"{name} has {sum(side)} checkers on the board; a side has {CHECKERS}")
        for i in range(POINTS):
            if self.player[i] and self.opponent[POINTS - 1 - i]:
                raise PositionError(
                    f"both sides have checkers on the player's {i + 1}-point "
                    f"(the opponent's {POINTS - i}-point)"
                )

    @classmethod
    def derived(cls, player: Counts, opponent: Counts) -> Position:
        """A position the rules derived from a valid one by legal moves: built without the checks,
        which would otherwise cost more than generating the plays."""
        position = object.__new__(cls)
        object.__setattr__(position, "player", player)
        object.__setattr__(position, "opponent", opponent)
        return position

    @classmethod
    def from_points(cls, player: dict[int, int], opponent: dict[int, int]) -> Position:
        """Builds a position from ``{point: count}`` per side, each in its own numbering, 25 = bar."""
        return cls(_side(player), _side(opponent))

    @property
    def off_player(self) -> int:
        return CHECKERS - sum(self.player)

    def swap(self) -> Position:
        """The same position with the other side on roll."""
        return Position(self.opponent, self.player)

    def pip_counts(self) -> tuple[int, int]:
        """Pips the player and the opponent still need to bear off (the bar counts 25)."""
        return (
            sum(n * (i + 1) for i, n in enumerate(self.player)),
            sum(n * (i + 1) for i, n in enumerate(self.opponent)),
        )

    def as_points(self) -> tuple[dict[int, int], dict[int, int]]:
        """The inverse of :meth:`from_points`: occupied points only, 25 = bar."""
        return (
            {i + 1: n for i, n in enumerate(self.player) if n},
            {i + 1: n for i, n in enumerate(self.opponent) if n},
        )

    def __str__(self) -> str:
        mine, theirs = self.as_points()
        return f"player {mine} | opponent {theirs}"


START_SIDE: Counts = _side({24: 2, 13: 5, 8: 3, 6: 5})
START = Position(START_SIDE, START_SIDE)
