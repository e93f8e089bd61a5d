"""Readings built straight from boards, to drive a Session without a camera."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from bgboard.layout import Board, Cell, Half, Orientation, Side
from hardware.signals import Button
from referee.moves import apply_moves, legal_plays, parse_moves
from referee.observe import reading_of
from referee.session import Observation, Say, Session
from vision.reading import BoardReading, CellReading, CubeReading, DieReading

O = Orientation.BOTTOM_RIGHT  # noqa: E741 - the orientation every test uses, short on purpose


def die(value: int | None, half: Half | str | None, shift: float = 0.0, **flags: bool) -> DieReading:
    """A die in the ``half`` ("left", "right" or a Half) of a 1280-wide image; ``shift`` moves it (a new
    throw lands elsewhere)."""
    half = Half(half) if isinstance(half, str) else half
    x = (900.0 if half is Half.RIGHT else 300.0 if half is Half.LEFT else 20.0) + shift
    y = 360.0 + shift / 2
    return DieReading(value, (x, y), (x - 20, y - 20, x + 20, y + 20), 0.99, half=half, **flags)


def reading(
    board: Board,
    dice: Sequence[DieReading] = (),
    hidden: Sequence[str] = (),
    doubtful: dict[str, tuple[int, float, tuple[int, ...]]] | None = None,
    cube: CubeReading | None = None,
) -> BoardReading:
    """A sure reading of ``board``; ``hidden`` cells (by name, "top-3") are unreadable; ``doubtful``
    overrides cells with (count, confidence, plausible); ``cube`` is the cube the frame shows."""
    r = reading_of(board, O, {Cell.parse(name) for name in hidden})
    if doubtful:
        cells = r.cells()
        for name, (count, conf, plausible) in doubtful.items():
            cells[Cell.parse(name)] = CellReading(count, conf, plausible)
        r = BoardReading.of_cells(cells)
    return replace(r, dice=tuple(dice), cube=cube)


class Table:
    """A session and a clock: each call feeds settled frames 0.1 s apart and collects what was said.
    ``die_crops`` cuts the frames' dice out (``Observation.die_crops``), as the frame loop does."""

    def __init__(
        self, session: Session, die_crops: Callable[[Sequence[DieReading]], list[bytes | None]] | None = None
    ) -> None:
        self.session = session
        self.die_crops = die_crops
        self.t = 0.0
        self.said: list[Say] = []

    def see(self, board: Board, dice: Sequence[DieReading] = (), frames: int = 2, **kw) -> list[Say]:
        out: list[Say] = []
        for _ in range(frames):
            self.t += 0.1
            seen = reading(board, dice, **kw)
            out += self.session.observe(Observation(self.t, seen, lambda: b"png", die_crops=self.die_crops))
        self.said += out
        return out

    def moving(self, frames: int = 3) -> None:
        for _ in range(frames):
            self.t += 0.1
            self.session.observe(Observation(self.t, None))

    def press(self, button: str) -> list[Say]:
        """``button`` by name: "ACCEPT", "DOUBLE" ..."""
        out = self.session.press(Button[button], self.t)
        self.said += out
        return out


def signals(says: Sequence[Say]) -> list[str]:
    """The names of the signals given ("READY", "ROLL_OK" ...)."""
    return [s.signal.name for s in says if s.signal]


def after(board: Board, mover: Side, dice: tuple[int, int], text: str) -> Board:
    """The board after the legal play written ``text``."""
    position = board.position(mover)
    for p in legal_plays(position, dice):
        if p.text == text:
            return Board.from_position(p.result, mover)
    raise AssertionError(
        f"{text} is not a legal play of {dice}: {[p.text for p in legal_plays(position, dice)]}"
    )


def moved(board: Board, mover: Side, text: str) -> Board:
    """The board after ``mover`` moves checkers as ``text`` says, legal or not (an illegal play)."""
    return Board.from_position(apply_moves(board.position(mover), parse_moves(text)), mover)
