"""What the vision layer reports about one frame: plain values, no OpenCV, no rules.

A reading keeps what was seen apart from how sure the reader is, so that the referee can let
uncertainty flow into its judgement (see DESIGN.md): each cell has a best count, a confidence, and the
counts the view does not rule out.

    >>> CellReading(3, 0.99, (3,)).certain
    True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from bgboard.layout import CELLS, Cell, Half, Row

# A confidence at or above this is "confident": the judge may rely on it for an illegal call.
CONFIDENT = 0.95


@dataclass(frozen=True)
class CellReading:
    """One point or one colour on the bar.

    ``count`` is signed for points (positive = light, negative = dark) and unsigned for the bar cells.
    ``plausible`` lists every count the view does not rule out (``count`` among them); an empty tuple
    means the cell could not be read at all (covered by a hand, glare, a cup).
    """

    count: int
    confidence: float
    plausible: tuple[int, ...]

    @property
    def readable(self) -> bool:
        return bool(self.plausible)

    @property
    def certain(self) -> bool:
        return self.plausible == (self.count,) and self.confidence >= CONFIDENT


@dataclass(frozen=True)
class DieReading:
    """One die: its top face where legible, where it lies, and why it might not count."""

    value: int | None  # 1..6 when it counts; None when cocked or too unclear to read
    center: tuple[float, float]  # image pixels
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in image pixels
    confidence: float
    cocked: bool = False
    on_checker: bool = False
    outside_field: bool = False
    unreadable: bool = False
    half: Half | None = None  # the half of the field as the image shows it; None on the bar or off the field
    # the face the table is asked about where the die is too unclear to count (``value`` None); None when
    # no face is likely enough to name: cocked, its pips counted another, or read below
    # ``vision.dice_verdict.READABLE`` where the die has too few pixels (``vision.dice_verdict.CLEAR_DIE_PX``)
    likeliest: int | None = None
    # its footprint lies so near the field's edge, outside it, that the reader cannot tell in from out
    # (``vision.dice_verdict.EDGE_DOUBT``): counted in its half, and the table is asked
    at_edge: bool = False

    @property
    def flags(self) -> list[str]:
        names = ("cocked", "on_checker", "outside_field", "unreadable", "at_edge")
        return [n for n in names if getattr(self, n)]

    def to_json(self) -> dict:
        """``value`` is the top face as read: for a die flagged ``unreadable`` the likeliest face, which
        ``confidence`` weighs and the referee only asks about; null for a cocked die (no face is up) and
        where no face is likely enough to name."""
        return {
            "value": self.value if self.value is not None else self.likeliest,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "box": [round(v, 1) for v in self.box],
            "confidence": round(self.confidence, 3),
            "flags": self.flags,
            "half": self.half.value if self.half else None,
        }


class CubePlace(Enum):
    """Where the doubling cube lies: on the bar, or beside the field (a tray, the frame)."""

    BAR = "bar"
    TRAY = "tray"


# A cube nearer a row than this share of the field's height lies on that row's player's side.
CUBE_SIDE = 0.3


@dataclass(frozen=True)
class CubeReading:
    """The doubling cube: where it lies, its centre in image px, its height ``v`` in the field (0 at the
    top row's edge, 1 at the bottom row's), and its face where legible.

        >>> CubeReading(CubePlace.BAR, (640.0, 80.0), 0.1, 2).beside
        <Row.TOP: 'top'>
    """

    place: CubePlace
    center: tuple[float, float]
    v: float
    value: int | None = None  # the face, where legible

    @property
    def beside(self) -> Row | None:
        """The row of the player the cube lies beside (its owner's, by custom), or None when centred."""
        if self.v < CUBE_SIDE:
            return Row.TOP
        if self.v > 1 - CUBE_SIDE:
            return Row.BOTTOM
        return None

    def to_json(self) -> dict:
        return {
            "place": self.place.value,
            "beside": self.beside.value if self.beside else None,
            "center": list(self.center),
            "value": self.value,
        }


@dataclass(frozen=True)
class BoardReading:
    """One frame, in the image layout of DESIGN.md.

    ``top`` and ``bottom`` hold 12 cells each, left to right as the rectified image shows them;
    ``bar_light`` and ``bar_dark`` are the checkers of each colour on the bar.
    """

    top: tuple[CellReading, ...]
    bottom: tuple[CellReading, ...]
    bar_light: CellReading
    bar_dark: CellReading
    dice: tuple[DieReading, ...] = ()
    cube: CubeReading | None = None
    elapsed_ms: float = 0.0
    notes: tuple[str, ...] = field(default=())

    def cells(self) -> dict[Cell, CellReading]:
        """Every cell, in the order of :data:`bgboard.layout.CELLS` (the top row, the bottom row, the bar)."""
        return dict(zip(CELLS, (*self.top, *self.bottom, self.bar_light, self.bar_dark), strict=True))

    @classmethod
    def of_cells(
        cls,
        cells: dict[Cell, CellReading],
        dice: tuple[DieReading, ...] = (),
        elapsed_ms: float = 0.0,
        notes: tuple[str, ...] = (),
        cube: CubeReading | None = None,
    ) -> BoardReading:
        """The inverse of :meth:`cells`, with the frame's dice and cube, the time the reading took and its
        notes."""
        ordered = [cells[c] for c in CELLS]
        return cls(
            tuple(ordered[:12]),
            tuple(ordered[12:24]),
            ordered[24],
            ordered[25],
            dice,
            cube,
            elapsed_ms,
            notes,
        )

    @property
    def unreadable_points(self) -> list[Cell]:
        return [cell for cell, c in self.cells().items() if not c.readable]

    @property
    def occluded(self) -> bool:
        return bool(self.unreadable_points)

    def counts(self) -> tuple[tuple[int, ...], tuple[int, ...], int, int]:
        """Best counts: (top, bottom, bar light, bar dark)."""
        return (
            tuple(c.count for c in self.top),
            tuple(c.count for c in self.bottom),
            self.bar_light.count,
            self.bar_dark.count,
        )

    def to_json(self) -> dict:
        top, bottom, bar_light, bar_dark = self.counts()
        light = sum(v for v in top + bottom if v > 0) + bar_light
        dark = sum(-v for v in top + bottom if v < 0) + bar_dark
        return {
            "top": list(top),
            "bottom": list(bottom),
            "bar": {"light": bar_light, "dark": bar_dark},
            "off": {"light": max(0, 15 - light), "dark": max(0, 15 - dark)},
            "confidence": {str(cell): round(c.confidence, 3) for cell, c in self.cells().items()},
            "occluded": self.occluded,
            "unreadable_points": [str(cell) for cell in self.unreadable_points],
            "dice": [d.to_json() for d in self.dice],
            "cube": self.cube.to_json() if self.cube else None,
            "elapsed_ms": round(self.elapsed_ms, 2),
        }
