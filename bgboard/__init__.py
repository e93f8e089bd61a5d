"""The board vocabulary every part of the referee shares: sides, positions, boards and the image layout.

It imports nothing of the project, so the rules, the readers, the renderer and the hardware can all
speak of a :class:`Position` or an :class:`Orientation` without depending on one another.

    >>> Board.start().position(Side.LIGHT) == START
    True
"""

from bgboard.layout import Board, ImageLayout, Orientation, Side
from bgboard.position import BAR, CHECKERS, POINTS, START, START_SIDE, Counts, Position, PositionError

__all__ = [
    "BAR",
    "CHECKERS",
    "POINTS",
    "START",
    "START_SIDE",
    "Board",
    "Counts",
    "ImageLayout",
    "Orientation",
    "Position",
    "PositionError",
    "Side",
]
