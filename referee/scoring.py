"""How a game ends and what it is worth: single, gammon or backgammon, times the cube.

>>> GameResult(Side.LIGHT, Outcome.GAMMON, 2, 4).text
'light wins a gammon: 4 points'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from bgboard.layout import Board, Side
from bgboard.position import CHECKERS


class ResultError(ValueError):
    """A recorded game result that cannot be read back."""


class Outcome(Enum):
    """How a game was won; the value is the multiplier of the cube."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3

    @property
    def word(self) -> str:
        return self.name.lower()


def classify(board: Board, winner: Side) -> Outcome:
    """Single, gammon or backgammon, from the loser's checkers.

    Gammon: the loser has borne off none. Backgammon: and it still has a checker on the bar or in the
    winner's home board (the loser's points 19..24).

        >>> from bgboard.position import Position
        >>> classify(Board.from_position(Position.from_points({}, {20: 1, 6: 14}), Side.LIGHT), Side.LIGHT)
        <Outcome.BACKGAMMON: 3>
    """
    loser = board.counts(winner.other)
    if sum(loser) < CHECKERS:
        return Outcome.SINGLE
    if any(loser[18:]):  # indices 18..23 are the loser's 19..24-points, 24 the bar
        return Outcome.BACKGAMMON
    return Outcome.GAMMON


@dataclass(frozen=True, slots=True)
class GameResult:
    """The end of a game. ``points`` = the outcome counted (single under Jacoby) times ``cube``."""

    winner: Side
    outcome: Outcome
    cube: int
    points: int
    by_drop: bool = False
    resigned: bool = False
    jacoby: bool = False  # the Jacoby rule counted a gammon or backgammon as a single game

    @property
    def loser(self) -> Side:
        return self.winner.other

    @property
    def text(self) -> str:
        how = (
            "as the double is dropped"
            if self.by_drop
            else f"a {self.outcome.word}" + (" by resignation" if self.resigned else "")
        )
        unit = "point" if self.points == 1 else "points"
        jacoby = " (counted single: Jacoby rule, the cube was never turned)" if self.jacoby else ""
        return f"{self.winner.value} wins {how}: {self.points} {unit}{jacoby}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner.value,
            "outcome": self.outcome.word,
            "cube": self.cube,
            "points": self.points,
            "by_drop": self.by_drop,
            "resigned": self.resigned,
            "jacoby": self.jacoby,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameResult:
        try:
            return cls(
                Side(data["winner"]),
                Outcome[str(data["outcome"]).upper()],
                int(data["cube"]),
                int(data["points"]),
                bool(data.get("by_drop", False)),
                bool(data.get("resigned", False)),
                bool(data.get("jacoby", False)),
            )
        except (KeyError, ValueError, TypeError) as e:
            expected = "expected winner, outcome, cube and points"
            raise ResultError(f"not a game result ({e!r}): {expected}") from None
