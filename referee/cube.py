"""The doubling cube as an immutable value: every action returns the next cube.

    >>> cube = Cube().double(Side.LIGHT)
    >>> cube.offered_by, cube.value
    (<Side.LIGHT: 'light'>, 1)
    >>> cube = cube.take()
    >>> cube.value, cube.owner
    (2, <Side.DARK: 'dark'>)

The cube knows who may turn it and how far; whose turn it is belongs to :mod:`referee.game`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bgboard.layout import Side
from referee.rules_options import PHYSICAL_CUBE_MAX


class CubeError(ValueError):
    """A cube action the rules do not allow, with the reason in words."""


@dataclass(frozen=True, slots=True)
class Cube:
    """The cube's value, its owner (``None`` = centred) and a double on offer, if any.

    ``disabled`` holds the reason nobody may double in this game (a cubeless match, the Crawford game);
    ``None`` means the cube is in play.
    """

    value: int = 1
    owner: Side | None = None
    offered_by: Side | None = None
    max_value: int = PHYSICAL_CUBE_MAX
    disabled: str | None = None

    def __post_init__(self) -> None:
        if self.value < 1 or self.value & (self.value - 1) or self.value > self.max_value:
            raise CubeError(f"a cube value is a power of two from 1 to {self.max_value}, got {self.value}")
        if self.offered_by is not None and self.owner is not None and self.owner is not self.offered_by:
            raise CubeError(f"{self.offered_by.value} cannot offer a cube that {self.owner.value} owns")

    def may_double(self, side: Side) -> bool:
        """Whether ``side`` may turn the cube now, as far as the cube is concerned."""
        return self.why_not_double(side) is None

    def why_not_double(self, side: Side) -> str | None:
        """The reason ``side`` may not turn the cube, or ``None`` if it may."""
        if self.disabled:
            return self.disabled
        if self.offered_by is not None:
            doubler = self.offered_by
            return f"{doubler.value} has already doubled: {doubler.other.value} must take or drop"
        if self.owner is not None and self.owner is not side:
            return (
                f"{side.value} may not double: {self.owner.value} owns the cube, "
                "and only the cube's owner may redouble"
            )
        if self.value * 2 > self.max_value:
            return f"the cube is at {self.value}, it cannot be turned"
        return None

    def double(self, by: Side) -> Cube:
        """``by`` offers to double; the value changes only when the double is taken."""
        reason = self.why_not_double(by)
        if reason:
            raise CubeError(reason)
        return replace(self, offered_by=by)

    def _offer(self, by: Side | None, action: str) -> Side:
        if self.offered_by is None:
            raise CubeError(f"no double to {action}: nobody has offered the cube")
        if by is not None and by is self.offered_by:
            raise CubeError(f"{by.value} doubled and cannot {action} its own double")
        return self.offered_by

    def take(self, by: Side | None = None) -> Cube:
        """The doubled side takes: the cube doubles and passes to it."""
        doubler = self._offer(by, "take")
        return replace(self, value=self.value * 2, owner=doubler.other, offered_by=None)

    def beaver(self, by: Side | None = None) -> Cube:
        """The doubled side takes and at once redoubles, keeping the cube, now at four times its value."""
        doubler = self._offer(by, "beaver")
        if self.value * 4 > self.max_value:
            raise CubeError(f"the cube is at {self.value}: a beaver would take it past {self.max_value}")
        return replace(self, value=self.value * 4, owner=doubler.other, offered_by=None)

    def drop(self, by: Side | None = None) -> int:
        """The doubled side drops: it loses the game at the cube's value before the double."""
        self._offer(by, "drop")
        return self.value

    def automatic_double(self) -> Cube:
        """An automatic double after an opening tie: the value doubles and the cube stays centred."""
        if self.owner is not None or self.offered_by is not None:
            raise CubeError("automatic doubles happen only before the first play, with the cube centred")
        if self.value * 2 > self.max_value:
            raise CubeError(f"the cube is at {self.value}, it cannot be turned")
        return replace(self, value=self.value * 2)
