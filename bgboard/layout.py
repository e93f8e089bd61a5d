"""Sides of the table, the image layout of a board, and the cells a camera reads.

The camera sees two rows of twelve points; the rules count each side's points from its own home. Which
row and which end hold light's home depends on how the board faces the camera, so the calibration stores
an :class:`Orientation` and everything converts through this module.

    >>> Orientation.BOTTOM_RIGHT.cell(Side.LIGHT, 1)
    Cell.parse('bottom-11')
    >>> Orientation.BOTTOM_RIGHT.throwing_half(Side.DARK)
    <Half.LEFT: 'left'>
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

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


class Row(Enum):
    """A row of twelve points as the image shows it."""

    TOP = "top"
    BOTTOM = "bottom"

    @property
    def other(self) -> Row:
        return Row.BOTTOM if self is Row.TOP else Row.TOP


class Half(Enum):
    """A half of the field (or an end of a row) as the image shows it: the bar divides them."""

    LEFT = "left"
    RIGHT = "right"


class CellError(ValueError):
    """Text that does not name a cell."""


@dataclass(frozen=True, slots=True)
class Cell:
    """One place the camera reads: a point by its row and its index from the left (0..11), or the half of
    the bar that one colour's checkers stand in (``bar`` is that colour; ``row`` is then None).

        >>> Cell.parse("top-3").index, str(Cell.bar_of(Side.DARK))
        (3, 'bar-dark')
    """

    row: Row | None
    index: int = 0
    bar: Side | None = None

    def __post_init__(self) -> None:
        if (self.row is None) == (self.bar is None) or not 0 <= self.index < 12 or (self.bar and self.index):
            raise CellError(f"not a cell: row {self.row}, index {self.index}, bar {self.bar}")

    @classmethod
    def point(cls, row: Row, index: int) -> Cell:
        return cls(row, index)

    @classmethod
    def bar_of(cls, side: Side) -> Cell:
        return cls(None, 0, side)

    @classmethod
    def parse(cls, text: str) -> Cell:
        """``top-0`` .. ``bottom-11``, ``bar-light``, ``bar-dark`` (the names of the readings' JSON)."""
        head, _, tail = text.partition("-")
        try:
            if head == "bar":
                return cls.bar_of(Side(tail))
            return cls.point(Row(head), int(tail))
        except (ValueError, CellError):
            raise CellError(
                f"{text!r} is not a cell: use top-0 .. bottom-11, bar-light or bar-dark"
            ) from None

    @property
    def is_bar(self) -> bool:
        return self.bar is not None

    @property
    def order(self) -> int:
        """The cell's place in :data:`CELLS`: the top row left to right, the bottom row, the bar."""
        if self.bar is not None:
            return 24 + (self.bar is Side.DARK)
        return (self.row is Row.BOTTOM) * 12 + self.index

    def __lt__(self, other: Cell) -> bool:
        return self.order < other.order

    def beside(self) -> tuple[Cell, ...]:
        """The points next to this one in its row (none for a bar cell)."""
        if self.row is None:
            return ()
        return tuple(Cell(self.row, i) for i in (self.index - 1, self.index + 1) if 0 <= i < 12)

    def __str__(self) -> str:
        if self.bar is not None:
            return f"bar-{self.bar.value}"
        assert self.row is not None
        return f"{self.row.value}-{self.index}"

    def __repr__(self) -> str:
        return f"Cell.parse({str(self)!r})"


# Every cell in the readers' order: the top row left to right, the bottom row, light's and dark's bar.
POINT_CELLS: tuple[Cell, ...] = tuple(Cell(row, i) for row in Row for i in range(12))
CELLS: tuple[Cell, ...] = (*POINT_CELLS, Cell.bar_of(Side.LIGHT), Cell.bar_of(Side.DARK))


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
    def home_row(self) -> Row:
        return Row(self.value.split("-")[0])

    @property
    def home_end(self) -> Half:
        return Half(self.value.split("-")[1])

    def cell(self, side: Side, point: int) -> Cell:
        """Where ``side``'s ``point`` (1..24) is in the image."""
        if not 1 <= point <= 24:
            raise ValueError(f"point {point} is not 1..24")
        light_point = point if side is Side.LIGHT else 25 - point
        if light_point <= 12:
            row, k = self.home_row, light_point - 1  # k = steps from the home end
        else:
            row, k = self.home_row.other, 24 - light_point
        index = 11 - k if self.home_end is Half.RIGHT else k
        return Cell(row, index)

    def point(self, side: Side, cell: Cell) -> int:
        """The inverse of :meth:`cell`: ``side``'s point number at a point cell (25 for a bar cell)."""
        if cell.row is None:
            return 25
        k = 11 - cell.index if self.home_end is Half.RIGHT else cell.index
        light_point = k + 1 if cell.row is self.home_row else 24 - k
        return light_point if side is Side.LIGHT else 25 - light_point

    def seat(self, side: Side) -> Row:
        """The image row a side sits at: the row of its own home board."""
        return self.home_row if side is Side.LIGHT else self.home_row.other

    def throwing_half(self, side: Side) -> Half:
        """The image half that is ``side``'s right-hand half, where it throws its dice: for the player at the
        bottom of the image its right half, for the player at the top its left half."""
        return Half.RIGHT if self.seat(side) is Row.BOTTOM else Half.LEFT


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
    def from_json(cls, data: Mapping[str, Any]) -> ImageLayout:
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

    def to_json(self) -> dict[str, Any]:
        return {
            "top": list(self.top),
            "bottom": list(self.bottom),
            "bar": {"light": self.bar_light, "dark": self.bar_dark},
        }

    def row(self, row: Row) -> tuple[int, ...]:
        return self.top if row is Row.TOP else self.bottom

    def value(self, cell: Cell) -> int:
        """The count at ``cell``: signed on a point (positive light), unsigned on the bar."""
        if cell.bar is not None:
            return self.bar_light if cell.bar is Side.LIGHT else self.bar_dark
        assert cell.row is not None
        return self.row(cell.row)[cell.index]

    def cells(self) -> dict[Cell, int]:
        """Every cell's count (:meth:`value`), in the readers' order."""
        return {cell: self.value(cell) for cell in CELLS}

    @classmethod
    def from_cells(cls, values: Mapping[Cell, int]) -> ImageLayout:
        """The inverse of :meth:`cells`."""
        return cls(
            tuple(values[Cell(Row.TOP, i)] for i in range(12)),
            tuple(values[Cell(Row.BOTTOM, i)] for i in range(12)),
            values[Cell.bar_of(Side.LIGHT)],
            values[Cell.bar_of(Side.DARK)],
        )

    def counts(self, side: Side, orientation: Orientation) -> Counts:
        """``side``'s 25 counts in its own numbering (index 24 = bar)."""
        out = [0] * 25
        for cell in POINT_CELLS:
            v = self.value(cell)
            if v * side.sign > 0:
                out[orientation.point(side, cell) - 1] = abs(v)
        out[BAR] = self.bar_light if side is Side.LIGHT else self.bar_dark
        return tuple(out)

    def checkers(self, side: Side) -> int:
        """How many of ``side``'s checkers the layout shows (points and bar)."""
        on_points = sum(abs(v) for v in self.top + self.bottom if v * side.sign > 0)
        return on_points + (self.bar_light if side is Side.LIGHT else self.bar_dark)

    @classmethod
    def from_counts(cls, light: Counts, dark: Counts, orientation: Orientation) -> ImageLayout:
        rows: dict[Row, list[int]] = {Row.TOP: [0] * 12, Row.BOTTOM: [0] * 12}
        for side, counts in ((Side.LIGHT, light), (Side.DARK, dark)):
            for p in range(1, 25):
                if counts[p - 1]:
                    cell = orientation.cell(side, p)
                    assert cell.row is not None
                    if rows[cell.row][cell.index]:
                        raise PositionError(f"both sides on {cell}")
                    rows[cell.row][cell.index] = side.sign * counts[p - 1]
        return cls(tuple(rows[Row.TOP]), tuple(rows[Row.BOTTOM]), light[BAR], dark[BAR])


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
