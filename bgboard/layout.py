"""Sides of the table and the image layout of a board.

The camera sees two rows of twelve points; the rules count each side's points from its own home. Which
row and which end hold light's home depends on how the board faces the camera, so the calibration stores
an :class:`Orientation` and everything converts through this module.

    >>> Orientation.BOTTOM_RIGHT.cell(Side.LIGHT, 1)
    ('bottom', 11)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bgboard.position import BAR, CHECKERS, Counts, Position, PositionError


class Side(Enum):
    LIGHT = "light"
    DARK = "dark"

    @property
    def other(self) -> Side:
        return Side.DARK if self is Side.LIGHT else Side.LIGHT

    @property
    def sign(self) -> int:
        """The sign of this side's counts in the image layout."""
        return 1 if self is Side.LIGHT else -1


class Orientation(Enum):
    """The corner of the image where light's home board (its points 1..6) lies.

    Light's points run 1..12 along its home row from that corner towards the other end, then 13..24 back
    along the other row. Dark's point ``p`` is light's point ``25 - p``.
    """

    BOTTOM_RIGHT = "bottom-right"
    BOTTOM_LEFT = "bottom-left"
    TOP_RIGHT = "top-right"
    TOP_LEFT = "top-left"

    @property
    def home_row(self) -> str:
        return self.value.split("-")[0]

    @property
    def home_end(self) -> str:
        return self.value.split("-")[1]

    def cell(self, side: Side, point: int) -> tuple[str, int]:
        """Where ``side``'s ``point`` (1..24) is in the image: (row, index from the left, 0..11)."""
        if not 1 <= point <= 24:
            raise ValueError(f"point {point} is not 1..24")
        light_point = point if side is Side.LIGHT else 25 - point
        far_row = "top" if self.home_row == "bottom" else "bottom"
        if light_point <= 12:
            row, k = self.home_row, light_point - 1  # k = steps from the home end
        else:
            row, k = far_row, 24 - light_point
        index = 11 - k if self.home_end == "right" else k
        return row, index

    def point(self, side: Side, row: str, index: int) -> int:
        """The inverse of :meth:`cell`: ``side``'s point number at (row, index)."""
        k = 11 - index if self.home_end == "right" else index
        light_point = k + 1 if row == self.home_row else 24 - k
        return light_point if side is Side.LIGHT else 25 - light_point


@dataclass(frozen=True)
class ImageLayout:
    """A board as the image shows it (the form of ``labels.json``).

    ``top`` and ``bottom`` hold 12 counts each, left to right; positive = light, negative = dark.
    """

    top: tuple[int, ...]
    bottom: tuple[int, ...]
    bar_light: int = 0
    bar_dark: int = 0

    def __post_init__(self) -> None:
        if len(self.top) != 12 or len(self.bottom) != 12:
            raise PositionError("an image layout needs 12 points in each of top and bottom")

    @classmethod
    def from_json(cls, data: dict) -> ImageLayout:
        """Reads ``{"top": [...12], "bottom": [...12], "bar": {"light": n, "dark": n}}``."""
        try:
            bar = data.get("bar") or {}
            return cls(
                tuple(int(v) for v in data["top"]),
                tuple(int(v) for v in data["bottom"]),
                int(bar.get("light", 0)),
                int(bar.get("dark", 0)),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise PositionError(
                f'not an image layout ({e}): expected {{"top": [12 ints], "bottom": [12 ints], '
                f'"bar": {{"light": n, "dark": n}}}}'
            ) from None

    def to_json(self) -> dict:
        return {
            "top": list(self.top),
            "bottom": list(self.bottom),
            "bar": {"light": self.bar_light, "dark": self.bar_dark},
        }

    def counts(self, side: Side, orientation: Orientation) -> Counts:
        """``side``'s 25 counts in its own numbering (index 24 = bar)."""
        rows = {"top": self.top, "bottom": self.bottom}
        out = [0] * 25
        for row, values in rows.items():
            for index, v in enumerate(values):
                if v * side.sign > 0:
                    out[orientation.point(side, row, index) - 1] = abs(v)
        out[BAR] = self.bar_light if side is Side.LIGHT else self.bar_dark
        return tuple(out)

    def checkers(self, side: Side) -> int:
        """How many of ``side``'s checkers the layout shows (points and bar)."""
        on_points = sum(abs(v) for v in self.top + self.bottom if v * side.sign > 0)
        return on_points + (self.bar_light if side is Side.LIGHT else self.bar_dark)

    @classmethod
    def from_counts(cls, light: Counts, dark: Counts, orientation: Orientation) -> ImageLayout:
        rows: dict[str, list[int]] = {"top": [0] * 12, "bottom": [0] * 12}
        for side, counts in ((Side.LIGHT, light), (Side.DARK, dark)):
            for p in range(1, 25):
                if counts[p - 1]:
                    row, index = orientation.cell(side, p)
                    if rows[row][index]:
                        raise PositionError(f"both sides on {row} point {index}")
                    rows[row][index] = side.sign * counts[p - 1]
        return cls(tuple(rows["top"]), tuple(rows["bottom"]), light[BAR], dark[BAR])


@dataclass(frozen=True)
class Board:
    """Both sides by colour, each in its own numbering; the game's view of the table.

    >>> Board.start().position(Side.LIGHT).player[5]
    5
    """

    light: Counts
    dark: Counts

    def __post_init__(self) -> None:
        Position(self.light, self.dark)  # validates counts and shared points

    @classmethod
    def start(cls) -> Board:
        from bgboard.position import START_SIDE

        return cls(START_SIDE, START_SIDE)

    def counts(self, side: Side) -> Counts:
        return self.light if side is Side.LIGHT else self.dark

    def off(self, side: Side) -> int:
        return CHECKERS - sum(self.counts(side))

    def position(self, on_roll: Side) -> Position:
        """The rules' view: ``on_roll`` is the player."""
        return Position(self.counts(on_roll), self.counts(on_roll.other))

    @classmethod
    def from_position(cls, position: Position, on_roll: Side) -> Board:
        if on_roll is Side.LIGHT:
            return cls(position.player, position.opponent)
        return cls(position.opponent, position.player)

    def layout(self, orientation: Orientation) -> ImageLayout:
        return ImageLayout.from_counts(self.light, self.dark, orientation)

    @classmethod
    def from_layout(cls, layout: ImageLayout, orientation: Orientation) -> Board:
        return cls(layout.counts(Side.LIGHT, orientation), layout.counts(Side.DARK, orientation))
