"""Whether the cube the camera sees is where the record says it is.

By custom a centred cube lies in the middle (on the bar, or a tray's middle) showing 64, and after a
take the taker keeps it on their side at the doubled value. A cube that lies on one player's side while
the record has it centred or with the other player, or that shows another value, is a question to the
table, asked once it has lain so for a few settled frames: the record is only as good as the table's
cube, and a wrong one costs a game's points. It is never read as a die (the reader sets it apart) and
it never stops the game. A cube in the middle of a tray while someone owns it is left alone: tables
keep the cube in a tray, and the middle is no side.

    >>> from vision.reading import CubePlace, CubeReading
    >>> from bgboard.layout import Orientation, Side
    >>> seen = CubeReading(CubePlace.BAR, (640.0, 660.0), 0.92, 2)  # by the bottom row: light's
    >>> disagreement(seen, Cube(2, Side.DARK), Orientation.BOTTOM_RIGHT)
    "the cube lies on light's side showing 2, but the record gives it to dark at 2"
"""

from __future__ import annotations

from bgboard.layout import Orientation, Row, Side
from referee.cube import Cube
from vision.reading import CubeReading

CENTRED_FACES = (1, 64)  # a centred cube shows 64 (some sets print a 1)


def _owner_of(row: Row, orientation: Orientation) -> Side:
    return next(s for s in Side if orientation.seat(s) is row)


def disagreement(seen: CubeReading, cube: Cube, orientation: Orientation) -> str | None:
    """How the cube ``seen`` contradicts the record's ``cube``, in words, or None if it does not (or a
    double is on offer and the cube is in the players' hands)."""
    if cube.offered_by is not None or cube.disabled:
        return None
    beside = seen.beside
    where = f"on {_owner_of(beside, orientation).value}'s side" if beside else "in the middle"
    face = f" showing {seen.value}" if seen.value else ""
    if cube.owner is None:
        record = "the record has it in the middle"
        wrong_place = beside is not None
        wrong_face = seen.value is not None and seen.value not in CENTRED_FACES
    else:
        record = f"the record gives it to {cube.owner.value} at {cube.value}"
        wrong_place = beside is not None and beside is not orientation.seat(cube.owner)
        wrong_face = seen.value is not None and seen.value != cube.value
    if not (wrong_place or wrong_face):
        return None
    return f"the cube lies {where}{face}, but {record}"


class CubeWatch:
    """Asks about a cube that disagrees with the record once it has for ``frames`` settled frames in a
    row, and not again while the cube and the record stay as they were.

        >>> from vision.reading import CubePlace, CubeReading
        >>> w = CubeWatch(2)
        >>> seen = CubeReading(CubePlace.TRAY, (1000.0, 600.0), 0.9, None)
        >>> [w.observe(seen, Cube(), Orientation.BOTTOM_RIGHT) is not None for _ in range(3)]
        [False, True, False]
    """

    def __init__(self, frames: int) -> None:
        self.frames = frames
        self._run = 0
        self._asked: str | None = None

    def observe(self, seen: CubeReading | None, cube: Cube, orientation: Orientation) -> str | None:
        """The question to ask the table about this settled frame's cube, or None."""
        why = disagreement(seen, cube, orientation) if seen is not None else None
        if why is None:
            self._run, self._asked = 0, None
            return None
        if why == self._asked:
            return None
        self._run += 1
        if self._run < self.frames:
            return None
        self._run, self._asked = 0, why
        return why
