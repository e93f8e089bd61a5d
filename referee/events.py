"""The events of a game in plain data: what the journal records, the narration says and a restart replays.

>>> Event(EventKind.ROLL, Side.DARK, "dark rolls 6-4", dice=(6, 4)).to_dict()
{'kind': 'roll', 'text': 'dark rolls 6-4', 'cube': 1, 'side': 'dark', 'dice': [6, 4]}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from bgboard.layout import Board, Side
from referee.scoring import Outcome


class EventError(ValueError):
    """A recorded event that cannot be read back."""


def _dice(values: Any) -> tuple[int, int]:
    d1, d2 = values
    return int(d1), int(d2)


class EventKind(Enum):
    OPENING_TIE = "opening_tie"  # dice = (light's die, dark's die)
    AUTOMATIC_DOUBLE = "automatic_double"
    OPENING = "opening"  # side = the winner of the opening roll; dice = (its die, the other's)
    ROLL = "roll"
    PASS = "pass"  # the roll has no legal move: the turn passes
    PLAY = "play"
    ILLEGAL = "illegal"  # an illegal play: refused (house remedy) or pending (tournament mode)
    ACCEPT_ILLEGAL = "accept_illegal"  # the opponent accepts it: it stands
    ILLEGAL_STANDS = "illegal_stands"  # the opponent rolled (or doubled): it stands
    CORRECTION = "correction"  # the opponent demands a correction
    DOUBLE = "double"
    TAKE = "take"
    BEAVER = "beaver"
    DROP = "drop"
    RESIGN = "resign"
    WIN = "win"


# Events that follow from another action and are not replayed on their own.
CONSEQUENCES = {
    EventKind.AUTOMATIC_DOUBLE,
    EventKind.PASS,
    EventKind.ILLEGAL_STANDS,
    EventKind.WIN,
}


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, in plain data: enough to narrate it, journal it and replay it.

    ``cube`` and ``owner`` are the cube after the event; ``board`` is the board the event put on the
    table (plays, illegal plays). ``text`` says it in words.
    """

    kind: EventKind
    side: Side | None
    text: str
    dice: tuple[int, int] | None = None
    play: str | None = None
    cube: int = 1
    owner: Side | None = None
    reason: str = ""
    points: int = 0
    outcome: Outcome | None = None
    board: Board | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; empty fields are left out."""
        out: dict[str, Any] = {"kind": self.kind.value, "text": self.text, "cube": self.cube}
        if self.side is not None:
            out["side"] = self.side.value
        if self.dice is not None:
            out["dice"] = list(self.dice)
        if self.play is not None:
            out["play"] = self.play
        if self.owner is not None:
            out["owner"] = self.owner.value
        if self.reason:
            out["reason"] = self.reason
        if self.points:
            out["points"] = self.points
        if self.outcome is not None:
            out["outcome"] = self.outcome.word
        if self.board is not None:
            out["board"] = {"light": list(self.board.light), "dark": list(self.board.dark)}
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        try:
            board = data.get("board")
            return cls(
                kind=EventKind(data["kind"]),
                side=Side(data["side"]) if data.get("side") else None,
                text=str(data.get("text", "")),
                dice=_dice(data["dice"]) if data.get("dice") else None,
                play=data.get("play"),
                cube=int(data.get("cube", 1)),
                owner=Side(data["owner"]) if data.get("owner") else None,
                reason=str(data.get("reason", "")),
                points=int(data.get("points", 0)),
                outcome=Outcome[str(data["outcome"]).upper()] if data.get("outcome") else None,
                board=Board(tuple(board["light"]), tuple(board["dark"])) if board else None,
            )
        except (KeyError, ValueError, TypeError) as e:
            raise EventError(
                f"not a game event ({e!r}): expected at least kind, as Event.to_dict writes"
            ) from None
