"""The board as SVG, as the camera shows it: the top and bottom rows left to right, the bar, the checkers
borne off, the cube, and the dice the reader found with their flags. Cells the reader is unsure of are
marked, so the picture never claims more than the referee saw.

Each point is a group with its cell's name; up to five checkers are drawn, a taller stack carries its
count on the top checker:

    >>> from bgboard.layout import Board, Orientation
    >>> svg = board_svg(picture_of_board(Board.start(), Orientation.BOTTOM_RIGHT))
    >>> svg.count('class="checker light"'), svg.count('class="checker dark"')
    (15, 15)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from bgboard.layout import CELLS, Board, Cell, Half, Orientation, Row, Side
from bgboard.position import CHECKERS
from vision.reading import BoardReading, DieReading

# The drawing's frame, in SVG units: two halves of six points, the bar between, a tray beside.
MARGIN = 20
POINT_W = 46
HALF_W = 6 * POINT_W
BAR_W = 40
FIELD_H = 460
TRAY_X = MARGIN + 2 * HALF_W + BAR_W + 10
TRAY_W = 56
WIDTH = TRAY_X + TRAY_W + MARGIN
HEIGHT = FIELD_H + 2 * MARGIN
R = 21  # checker radius: five fit in a half's height
SHOWN = 5  # checkers drawn on a point; a taller stack shows its count
DIE = 34
PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


@dataclass(frozen=True)
class CellPicture:
    """One cell as drawn: the count (signed on a point, positive light), and how sure the reader is."""

    count: int
    sure: bool = True
    readable: bool = True


@dataclass(frozen=True)
class CubePicture:
    value: int
    owner: Side | None  # None: centred
    in_play: bool = True


@dataclass(frozen=True)
class BoardPicture:
    """Everything the drawing shows."""

    cells: dict[Cell, CellPicture]
    orientation: Orientation
    dice: tuple[DieReading, ...] = ()
    cube: CubePicture | None = None
    numbers_for: Side = Side.LIGHT  # whose point numbers label the points


def picture_of_board(
    board: Board, orientation: Orientation, cube: CubePicture | None = None, numbers_for: Side = Side.LIGHT
) -> BoardPicture:
    """The confirmed board, every cell sure."""
    cells = {cell: CellPicture(n) for cell, n in board.layout(orientation).cells().items()}
    return BoardPicture(cells, orientation, (), cube, numbers_for)


def picture_of_reading(
    reading: BoardReading,
    orientation: Orientation,
    cube: CubePicture | None = None,
    numbers_for: Side = Side.LIGHT,
) -> BoardPicture:
    """A frame as the reader read it: its best counts, its doubts and its dice."""
    cells = {cell: CellPicture(c.count, c.certain, c.readable) for cell, c in reading.cells().items()}
    return BoardPicture(cells, orientation, reading.dice, cube, numbers_for)


def board_svg(picture: BoardPicture) -> str:
    """The SVG document (one ``<svg>`` element) of ``picture``."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" class="board" '
        'role="img" aria-label="the board as the referee reads it">',
        '<defs><pattern id="hatch" width="8" height="8" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="4" height="8" class="hatch"/></pattern></defs>',
        f'<rect class="frame" x="0" y="0" width="{WIDTH}" height="{HEIGHT}" rx="8"/>',
        f'<rect class="field" x="{MARGIN}" y="{MARGIN}" width="{2 * HALF_W + BAR_W}" height="{FIELD_H}"/>',
        f'<rect class="bar" x="{MARGIN + HALF_W}" y="{MARGIN}" width="{BAR_W}" height="{FIELD_H}"/>',
        f'<rect class="tray" x="{TRAY_X}" y="{MARGIN}" width="{TRAY_W}" height="{FIELD_H}"/>',
    ]
    for cell in CELLS:
        parts += _cell(cell, picture.cells[cell], picture)
    parts += _off(picture)
    if picture.cube is not None:
        parts += _cube(picture.cube, picture.orientation)
    parts += _dice(picture.dice)
    parts.append("</svg>")
    return "".join(parts)


def _x(index: int) -> float:
    """The left edge of the point at ``index`` (0..11) of a row."""
    return MARGIN + index * POINT_W + (BAR_W if index >= 6 else 0)


def _seat_row(side: Side, orientation: Orientation) -> Row:
    return orientation.seat(side)


def _cell(cell: Cell, shown: CellPicture, picture: BoardPicture) -> list[str]:
    side = Side.LIGHT if shown.count > 0 else Side.DARK
    if cell.bar is not None:
        side = cell.bar
    n = abs(shown.count)
    cx: float
    radius: float
    step: float
    first: float
    parts = [f'<g class="{"bar-cell" if cell.bar else "point"}" data-cell="{cell}">']
    if cell.bar is None:
        assert cell.row is not None
        x, top = _x(cell.index), cell.row is Row.TOP
        tip = MARGIN + FIELD_H * (0.42 if top else 0.58)
        base = MARGIN if top else MARGIN + FIELD_H
        shade = "even" if cell.index % 2 == 0 else "odd"
        parts.append(
            f'<polygon class="triangle {shade}" points="{x},{base} {x + POINT_W},{base} '
            f'{x + POINT_W / 2},{tip}"/>'
        )
        number = picture.orientation.point(picture.numbers_for, cell)
        label_y = MARGIN - 5 if top else MARGIN + FIELD_H + 15
        parts.append(f'<text class="number" x="{x + POINT_W / 2}" y="{label_y}">{number}</text>')
        cx, step, radius = x + POINT_W / 2, 2 * R, R
        first = base + R if top else base - R
        direction = 1 if top else -1
        box = (x, MARGIN if top else MARGIN + FIELD_H / 2, POINT_W, FIELD_H / 2)
    else:
        top = _seat_row(cell.bar, picture.orientation) is Row.TOP
        cx, radius = MARGIN + HALF_W + BAR_W / 2, BAR_W / 2 - 2
        step = 2 * radius
        middle = MARGIN + FIELD_H / 2
        first = middle - radius - 30 if top else middle + radius + 30
        direction = -1 if top else 1
        box = (MARGIN + HALF_W, MARGIN if top else middle, BAR_W, FIELD_H / 2)
    for k in range(min(n, SHOWN)):
        cy = first + direction * k * step
        parts.append(f'<circle class="checker {side.value}" cx="{cx}" cy="{cy}" r="{radius - 1}"/>')
    if n > SHOWN:
        cy = first + direction * (SHOWN - 1) * step
        parts.append(f'<text class="count {side.value}" x="{cx}" y="{cy + 6}">{n}</text>')
    if not shown.readable or not shown.sure:
        kind = "covered" if not shown.readable else "unsure"
        bx, by, bw, bh = box
        parts.append(
            f'<rect class="{kind}" x="{bx + 1}" y="{by + 1}" width="{bw - 2}" height="{bh - 2}">'
            f"<title>{escape(str(cell))}: "
            f"{'could not be read' if kind == 'covered' else f'{n} read, not surely'}</title></rect>"
        )
        mark_y = by + bh / 2 + 8
        parts.append(f'<text class="doubt" x="{bx + bw / 2}" y="{mark_y}">?</text>')
    parts.append("</g>")
    return parts


def _off(picture: BoardPicture) -> list[str]:
    """The checkers borne off, in the tray at each side's seat: what the board does not show."""
    parts = []
    for side in Side:
        on_board = sum(
            abs(c.count)
            for cell, c in picture.cells.items()
            if (cell.bar is side) or (cell.bar is None and c.count * side.sign > 0)
        )
        off = max(0, CHECKERS - on_board)
        top = _seat_row(side, picture.orientation) is Row.TOP
        parts.append(f'<g class="off" data-side="{side.value}" data-count="{off}">')
        for k in range(off):
            y = MARGIN + 4 + k * 12 if top else MARGIN + FIELD_H - 14 - k * 12
            parts.append(
                f'<rect class="borne {side.value}" x="{TRAY_X + 6}" y="{y}" width="{TRAY_W - 12}" '
                'height="10" rx="2"/>'
            )
        if off:
            y = MARGIN + 4 + off * 12 + 14 if top else MARGIN + FIELD_H - 14 - off * 12 - 4
            parts.append(f'<text class="off-count" x="{TRAY_X + TRAY_W / 2}" y="{y}">{off} off</text>')
        parts.append("</g>")
    return parts


def _cube(cube: CubePicture, orientation: Orientation) -> list[str]:
    size = 40
    x = TRAY_X + (TRAY_W - size) / 2
    middle = MARGIN + FIELD_H / 2
    if cube.owner is None:
        y = middle - size / 2
    elif _seat_row(cube.owner, orientation) is Row.TOP:
        y = middle - size / 2 - 70
    else:
        y = middle - size / 2 + 70
    owner = cube.owner.value if cube.owner else "centred"
    state = "" if cube.in_play else " out"
    return [
        f'<g class="cube{state}" data-value="{cube.value}" data-owner="{owner}">',
        f'<rect x="{x}" y="{y}" width="{size}" height="{size}" rx="6"/>',
        f'<text x="{x + size / 2}" y="{y + size / 2 + 7}">{cube.value}</text>',
        f"<title>cube {cube.value}, {owner}</title></g>",
    ]


def _dice(dice: Sequence[DieReading]) -> list[str]:
    """Dice by the half they lie in (the reader's pixels are the camera's, not this drawing's)."""
    parts = []
    slots: dict[str, int] = {}
    cx: float
    cy: float
    for die in dice:
        where = "outside" if die.outside_field or die.half is None else die.half.value
        k = slots.get(where, 0)
        slots[where] = k + 1
        if where == "outside":
            cx, cy = MARGIN + HALF_W + BAR_W / 2 + (k - 0.5) * (DIE + 8), HEIGHT - 2
        else:
            start = MARGIN if where == Half.LEFT.value else MARGIN + HALF_W + BAR_W
            cx, cy = start + HALF_W / 2 + (k - 0.5) * (DIE + 10), MARGIN + FIELD_H / 2
        flags = " ".join(die.flags)
        face = die.value if die.value is not None else die.likeliest
        turn = f' transform="rotate(20 {cx} {cy})"' if die.cocked else ""
        title = f"die {face if face is not None else '?'}" + (f": {', '.join(die.flags)}" if flags else "")
        parts.append(
            f'<g class="die {flags}" data-value="{die.value if die.value is not None else ""}" '
            f'data-flags="{flags}"{turn}>'
        )
        parts.append(f'<rect x="{cx - DIE / 2}" y="{cy - DIE / 2}" width="{DIE}" height="{DIE}" rx="6"/>')
        if face is not None and not die.cocked:
            for px, py in PIPS[face]:
                parts.append(f'<circle class="pip" cx="{cx + px * 9}" cy="{cy + py * 9}" r="3.4"/>')
        if flags:
            mark = "?" if die.value is None else "!"
            parts.append(f'<text class="flag" x="{cx}" y="{cy - DIE / 2 - 4}">{mark}</text>')
        parts.append(f"<title>{escape(title)}</title></g>")
    return parts
