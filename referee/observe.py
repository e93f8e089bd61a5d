"""Matching what the camera saw against what the rules allow (the uncertainty principle of DESIGN.md).

After a roll the referee knows the position before the play exactly and the legal results of the roll
are a small set. :func:`explain` asks which of them the reading of a settled frame shows:

- exactly one legal result is among the few boards the reading allows: **legal** (the rules narrow
  what the camera leaves open, as DESIGN.md says: which legal result explains the observation);
- every board the reading allows is one that no legal play reaches, and each legal result is ruled out
  by a cell the reader is sure of: **illegal**;
- anything else (a hidden cell, a doubtful count, two legal results that look alike, checkers that do
  not add up): **unclear**, and the referee keeps looking. A doubtful reading is never called illegal.

Conservation (15 checkers a side) is always applied: the side not on roll cannot bear off, so its
checkers on the board and the bar must add up to what they were; the mover bears off at most four.

    >>> from bgboard.layout import Board, Orientation, Side
    >>> from referee.moves import legal_plays
    >>> before = Board.start()
    >>> plays = legal_plays(before.position(Side.LIGHT), (3, 1))
    >>> after = Board.from_position(plays[0].result, Side.LIGHT)
    >>> reading = reading_of(after, Orientation.BOTTOM_RIGHT)
    >>> explain(reading, Orientation.BOTTOM_RIGHT, Side.LIGHT, before, plays).verdict
    <Verdict.LEGAL: 'legal'>
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from enum import Enum

from bgboard.layout import Board, Cell, ImageLayout, Orientation, Side
from bgboard.position import CHECKERS, PositionError
from referee.moves import Play
from vision.reading import CONFIDENT, BoardReading, CellReading


class Verdict(Enum):
    LEGAL = "legal"  # exactly one legal result explains the reading
    ILLEGAL = "illegal"  # the reading surely shows a board no legal play reaches
    UNCLEAR = "unclear"  # anything else: keep looking, never call it


# Beyond this many boards that fit the reading and conservation, it says too little to judge anything.
MAX_BOARDS = 4096
# A legal result is recognised among at most this many boards the reading allows (a few doubtful
# stacks); beyond that the reading is too vague to say even that.
MAX_AMBIGUITY = 8


@dataclass(frozen=True)
class Explanation:
    """The verdict on one reading: ``play`` is the legal play seen (legal), ``board`` the board seen."""

    verdict: Verdict
    play: Play | None = None
    board: Board | None = None  # the board the reading shows, when it allows exactly one
    reason: str = ""
    # unclear: the legal plays the reading cannot rule out, the likeliest (closest to the best counts) first
    candidates: tuple[Play, ...] = ()

    @property
    def legal(self) -> bool:
        return self.verdict is Verdict.LEGAL


def cell_values(board: Board, orientation: Orientation) -> dict[Cell, int]:
    """A board as the reader's cells: signed counts on the points, counts on the bar."""
    return board.layout(orientation).cells()


def reading_of(board: Board, orientation: Orientation, hidden: Collection[Cell] = ()) -> BoardReading:
    """A perfectly sure reading of ``board`` (for tests and the demo's ground truth); ``hidden`` cells
    are unreadable, as if a hand covered them.

    >>> reading_of(Board.start(), Orientation.BOTTOM_RIGHT).bottom[0].count  # dark's 13-point
    -5
    """
    values = cell_values(board, orientation)
    cells = {
        cell: CellReading(v, 0.0, ()) if cell in hidden else CellReading(v, 1.0, (v,))
        for cell, v in values.items()
    }
    return BoardReading.of_cells(cells)


def best_board(reading: BoardReading, orientation: Orientation) -> Board | None:
    """The board of the reader's best counts, or None when those counts are no possible board."""
    top, bottom, bar_light, bar_dark = reading.counts()
    try:
        return Board.from_layout(ImageLayout(top, bottom, bar_light, bar_dark), orientation)
    except PositionError:
        return None


def _boards(
    reading: BoardReading,
    orientation: Orientation,
    mover: Side,
    before: Board,
    exact: bool = False,
    loose: bool = False,
) -> list[Board] | None:
    """Every board the reading allows under conservation; None when there are too many to tell.

    ``exact``: both sides have exactly the checkers of ``before`` on the board (nobody bore off);
    ``loose``: any number up to 15 a side (a board being set up).
    """
    cells = reading.cells()
    on_board = {Side.LIGHT: sum(before.light), Side.DARK: sum(before.dark)}
    if loose:
        bounds = {Side.LIGHT: (0, CHECKERS), Side.DARK: (0, CHECKERS)}
    else:
        low = on_board[mover] - (0 if exact else 4)  # the mover bears off at most four
        bounds = {mover: (max(low, 0), on_board[mover]), mover.other: (on_board[mover.other],) * 2}
    # each cell as (light checkers, dark checkers) per plausible count; the most certain cells first
    names = sorted(cells, key=lambda n: len(cells[n].plausible))
    options = [[_split(n, v) for v in cells[n].plausible] for n in names]
    # the most and least each side can still gain from the cells after position i (for pruning)
    rest_max = [(0, 0)] * (len(names) + 1)
    rest_min = [(0, 0)] * (len(names) + 1)
    for i in range(len(names) - 1, -1, -1):
        lights = [o[0] for o in options[i]]
        darks = [o[1] for o in options[i]]
        rest_max[i] = (rest_max[i + 1][0] + max(lights), rest_max[i + 1][1] + max(darks))
        rest_min[i] = (rest_min[i + 1][0] + min(lights), rest_min[i + 1][1] + min(darks))
    (l_lo, l_hi), (d_lo, d_hi) = bounds[Side.LIGHT], bounds[Side.DARK]
    found: list[tuple[int, ...]] = []
    chosen: list[int] = []

    def walk(i: int, light: int, dark: int) -> bool:
        if light + rest_min[i][0] > l_hi or dark + rest_min[i][1] > d_hi:
            return True
        if light + rest_max[i][0] < l_lo or dark + rest_max[i][1] < d_lo:
            return True
        if i == len(names):
            found.append(tuple(chosen))
            return len(found) <= MAX_BOARDS
        for v, (gain_l, gain_d) in zip(cells[names[i]].plausible, options[i], strict=True):
            chosen.append(v)
            ok = walk(i + 1, light + gain_l, dark + gain_d)
            chosen.pop()
            if not ok:
                return False
        return True

    if not walk(0, 0, 0):
        return None
    boards = []
    for combo in found:
        layout = ImageLayout.from_cells(dict(zip(names, combo, strict=True)))
        try:
            boards.append(Board.from_layout(layout, orientation))
        except PositionError:
            continue
    return boards


def _split(cell: Cell, value: int) -> tuple[int, int]:
    """(light, dark) checkers a cell holds when it reads ``value``."""
    if cell.bar is Side.LIGHT:
        return value, 0
    if cell.bar is Side.DARK:
        return 0, value
    return (value, 0) if value > 0 else (0, -value)


def shows(reading: BoardReading, orientation: Orientation, board: Board, exact: bool = True) -> bool:
    """True when ``board`` is among the few boards the reading allows: the restore check, where the
    referee knows what to expect, and (``exact=False``) the setup check, where a checker may still be
    in the tray and the reader's best counts must show the board as well.

        >>> shows(reading_of(Board.start(), Orientation.TOP_LEFT), Orientation.TOP_LEFT, Board.start())
        True
    """
    if reading.unreadable_points:
        return False
    if exact:
        # a restore: the referee knows the position and only waits for it; a board that is not quite
        # restored is caught when the same numbers are played again from the known position
        boards = _boards(reading, orientation, Side.LIGHT, board, exact=True)
        return boards is not None and board in boards
    # a setup has no prior: the best counts themselves must show the board
    if best_board(reading, orientation) != board:
        return False
    boards = _boards(reading, orientation, Side.LIGHT, board, loose=True)
    return boards is not None and board in boards and len(boards) <= MAX_AMBIGUITY


def _fits(reading: BoardReading, expected: dict[Cell, int]) -> bool:
    """True when every cell's plausible counts include what ``expected`` puts there."""
    return all(expected[name] in cell.plausible for name, cell in reading.cells().items())


def _excluded_surely(reading: BoardReading, expected: dict[Cell, int]) -> bool:
    """True when a cell the reader is sure of rules out the board ``expected``."""
    for name, cell in reading.cells().items():
        if cell.readable and cell.confidence >= CONFIDENT and expected[name] not in cell.plausible:
            return True
    return False


def explain(
    reading: BoardReading,
    orientation: Orientation,
    mover: Side,
    before: Board,
    plays: Sequence[Play],
) -> Explanation:
    """Which of the legal ``plays`` of ``mover`` from ``before`` the ``reading`` shows (see module doc)."""
    hidden = reading.unreadable_points
    if hidden:
        return Explanation(Verdict.UNCLEAR, reason=f"cannot see {_cell_list(hidden)}")
    boards = _boards(reading, orientation, mover, before)
    if boards is None:
        fitting = [
            p for p in plays if _fits(reading, cell_values(Board.from_position(p.result, mover), orientation))
        ]
        return Explanation(
            Verdict.UNCLEAR,
            reason="the counts are too uncertain to judge",
            candidates=_likeliest(reading, orientation, fitting, mover),
        )
    if not boards:
        return Explanation(Verdict.UNCLEAR, reason=_count_problem(reading, orientation, mover, before))
    results = {Board.from_position(p.result, mover): p for p in plays}
    legal_seen = [b for b in boards if b in results]
    if len(legal_seen) == 1 and len(boards) <= MAX_AMBIGUITY:
        # the rules narrow what the camera leaves open: one legal result fits, the play was that
        board = legal_seen[0]
        return Explanation(Verdict.LEGAL, results[board], board, "legal")
    if legal_seen:
        vague = len(legal_seen) == 1  # one legal play fits, but among too many boards to be sure
        return Explanation(
            Verdict.UNCLEAR,
            reason="the counts are too doubtful to be sure"
            if vague
            else "the reading fits more than one legal play",
            candidates=_likeliest(reading, orientation, [results[b] for b in legal_seen], mover),
        )
    open_plays = [p for b, p in results.items() if not _excluded_surely(reading, cell_values(b, orientation))]
    if open_plays:
        return Explanation(
            Verdict.UNCLEAR,
            reason="a doubtful count could hide a legal play",
            candidates=_likeliest(reading, orientation, open_plays, mover),
        )
    seen = _likeliest_board(reading, orientation, boards, list(results))
    return Explanation(Verdict.ILLEGAL, None, seen, "")


class Explainer:
    """:func:`explain` for one orientation, reusing the last answer when a source hands over the very
    same reading again for the same play (a replay of a still picture): weighing every board a doubtful
    reading allows is the costly part of a frame."""

    def __init__(self, orientation: Orientation) -> None:
        self.orientation = orientation
        self._last: tuple[BoardReading, tuple[Board, tuple[int, int] | None, Side], Explanation] | None = None

    def __call__(
        self,
        reading: BoardReading,
        mover: Side,
        before: Board,
        dice: tuple[int, int] | None,
        plays: Callable[[], Sequence[Play]],
    ) -> Explanation:
        key = (before, dice, mover)
        last = self._last
        if last is not None and last[0] is reading and last[1] == key:
            return last[2]
        seen = explain(reading, self.orientation, mover, before, plays())
        self._last = (reading, key, seen)
        return seen


def _likeliest_board(
    reading: BoardReading, orientation: Orientation, boards: Sequence[Board], legal: Sequence[Board]
) -> Board:
    """Of the boards a reading allows, the one a player most likely left: nearest to a legal result
    (a miscount moves a checker or two), then nearest to the reader's best counts."""
    best = best_board(reading, orientation)

    def distance(a: Board, b: Board | None) -> int:
        if b is None:
            return 0
        return sum(abs(x - y) for x, y in zip(a.light + a.dark, b.light + b.dark, strict=True))

    return min(boards, key=lambda b: (min(distance(b, r) for r in legal), distance(b, best)))


def _likeliest(
    reading: BoardReading, orientation: Orientation, plays: Sequence[Play], mover: Side
) -> tuple[Play, ...]:
    """``plays`` ordered by how much reading confidence speaks against each (least first)."""
    cells = reading.cells()

    def against(play: Play) -> float:
        want = cell_values(Board.from_position(play.result, mover), orientation)
        return sum(c.confidence for n, c in cells.items() if c.count != want[n])

    return tuple(sorted(plays, key=lambda p: (against(p), p.text)))


def _count_problem(reading: BoardReading, orientation: Orientation, mover: Side, before: Board) -> str:
    top, bottom, bar_light, bar_dark = reading.counts()
    seen = {
        Side.LIGHT: sum(v for v in top + bottom if v > 0) + bar_light,
        Side.DARK: -sum(v for v in top + bottom if v < 0) + bar_dark,
    }
    for side in (mover.other, mover):
        expected = sum(before.counts(side))
        if seen[side] != expected:
            return f"{side.value} shows {seen[side]} checkers on the board, expected {expected}"
    return "the checkers do not add up"


def _cell_list(cells: Sequence[Cell]) -> str:
    shown = ", ".join(str(c) for c in cells[:4])
    return shown + (f" and {len(cells) - 4} more" if len(cells) > 4 else "")


@dataclass(frozen=True)
class Difference:
    """A cell that shows other than expected: ``side``'s ``point`` (25: its half of the bar) holds ``seen``
    of its checkers where ``expected`` checkers of ``expected_side`` belong.

        >>> d = Difference(Side.LIGHT, 13, 4, 5, Side.LIGHT)
        >>> d.text, d.fix, d.set_to
        ('light 13-point has 4, expected 5', 'light 13-point back to 5', 'light 13-point to 5')
    """

    side: Side
    point: int
    seen: int
    expected: int
    expected_side: Side

    @property
    def place(self) -> str:
        where = "bar" if self.point == 25 else f"{self.point}-point"
        return f"{self.side.value} {where}"

    @property
    def _whose(self) -> str:
        return f" {self.expected_side.value}" if self.expected and self.expected_side is not self.side else ""

    @property
    def text(self) -> str:
        """What is wrong, in words a player follows."""
        return f"{self.place} has {self.seen}, expected {self.expected}{self._whose}"

    @property
    def fix(self) -> str:
        """What to put back."""
        return f"{self.place} back to {self.expected}{self._whose}"

    @property
    def set_to(self) -> str:
        """What to set the cell to (a board being made rather than restored)."""
        return f"{self.place} to {self.expected}{self._whose}"


def differences(
    expected: Board, reading: BoardReading, orientation: Orientation, limit: int = 6, sure_only: bool = False
) -> list[Difference]:
    """The cells the reading shows differently from ``expected``: light before dark, high points first.

    Cells are taken at the reader's best count; hidden cells are left out, and with ``sure_only`` every
    cell the reader is not sure of.

        >>> from bgboard.layout import Board, Orientation
        >>> o = Orientation.BOTTOM_RIGHT
        >>> seen = Board.start()
        >>> light = list(seen.light); light[12] = 4; light[7] = 4
        >>> [d.text for d in differences(Board.start(), reading_of(Board(tuple(light), seen.dark), o), o)]
        ['light 13-point has 4, expected 5', 'light 8-point has 4, expected 3']
    """
    want = cell_values(expected, orientation)
    found = [
        _difference(orientation, cell, c.count, want[cell])
        for cell, c in reading.cells().items()
        if (c.certain if sure_only else c.readable) and c.count != want[cell]
    ]
    found.sort(key=lambda d: (d.side is Side.DARK, -d.point, d.text))
    return found[:limit]


def _difference(orientation: Orientation, cell: Cell, seen: int, want: int) -> Difference:
    if cell.bar is not None:
        return Difference(cell.bar, 25, seen, want, cell.bar)
    if want and (seen == 0 or (seen > 0) == (want > 0)):
        side = Side.LIGHT if want > 0 else Side.DARK
        return Difference(side, orientation.point(side, cell), abs(seen), abs(want), side)
    side = Side.LIGHT if seen > 0 else Side.DARK
    return Difference(side, orientation.point(side, cell), abs(seen), abs(want), side.other if want else side)


__all__ = [
    "Difference",
    "Explainer",
    "Explanation",
    "Verdict",
    "best_board",
    "cell_values",
    "differences",
    "explain",
    "reading_of",
    "shows",
]
