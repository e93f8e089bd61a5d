"""The record as the console shows it: every match, game and call, the frames kept as evidence, and
the positions of each game in the notations gnubg and eXtreme Gammon read.

The console opens the record read-only (:meth:`~referee.journal.Journal.reader` with ``live=True``), on a
connection of its own: it never writes to it, and never holds up the referee writing it.

    >>> from bgboard.layout import Side
    >>> from referee.events import Event, EventKind
    >>> from referee.rules_options import RuleOptions
    >>> rows = positions([Event(EventKind.OPENING, Side.LIGHT, "light plays 3-1", dice=(3, 1))],
    ...                  0, RuleOptions(), False, (0, 0))
    >>> rows[0]["position_id"], rows[0]["match_id"]
    ('4HPwATDgc/ABMA', 'MIEFAAAAAAAE')
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Sequence
from typing import Any

from referee.console.state import ids_of
from referee.console.view import TableView
from referee.events import Event
from referee.game import Game, GameError
from referee.journal import Journal, JournalError
from referee.match import Match
from referee.rules_options import RuleOptions, RuleOptionsError


def positions(
    events: Sequence[Event],
    length: int,
    rules: RuleOptions,
    crawford: bool,
    score: tuple[int, int],
) -> list[dict[str, Any]]:
    """The game's events replayed: after each, its Position ID, Match ID and XGID (the state a player
    would paste into gnubg to look at that roll or play). ``score`` is the match score before the game."""
    return Replayed(length, rules, crawford, score).extend(events)


class Replayed:
    """A game's positions, replayed one event at a time; :meth:`extend` replays only the events it has
    not seen (a game in progress grows by a few events between two looks)."""

    def __init__(self, length: int, rules: RuleOptions, crawford: bool, score: tuple[int, int]) -> None:
        self.rules = rules
        self.game = Game(options=rules, money=not length, crawford=crawford)
        self.match = Match(length, rules)
        self.score = (min(score[0], length), min(score[1], length)) if length else score
        self.events: list[Event] = []
        self.rows: list[dict[str, Any]] = []
        self.broken = False

    def extend(self, events: Sequence[Event]) -> list[dict[str, Any]]:
        """The rows of ``events``, which must begin with the events seen so far."""
        if list(events[: len(self.events)]) != self.events:
            raise ValueError("not the same game: replay it afresh")
        for event in events[len(self.events) :]:
            self.events.append(event)
            if self.broken:
                continue
            if len(self.game.history) < len(self.events):
                try:
                    self.game.replay(self.events)
                except (GameError, ValueError):
                    self.broken = True  # a history that does not replay shows as far as it goes
                    continue
            state = dataclasses.replace(self.match.match_state(self.game), score=self.score)
            ids = ids_of(self.game.board, self.game.on_roll, state, self.rules)
            self.rows.append(
                {
                    "text": event.text,
                    "kind": event.kind.value,
                    "position_id": ids.position_id,
                    "match_id": ids.match_id,
                    "xgid": ids.xgid,
                }
            )
        return list(self.rows)


def history_json(
    journal: Journal | None, live: TableView | None, replayed: dict[int, Replayed] | None = None
) -> dict[str, Any]:
    """Every match of the record with its games, calls and positions (the game in progress from the
    session's live view). ``replayed`` keeps each game's replay between calls, by the record's game id."""
    if journal is None:
        return {"matches": [], "note": "this referee keeps no record file"}
    kept = replayed if replayed is not None else {}
    try:
        return {"matches": [_match(journal, m, live, kept) for m in reversed(journal.matches())]}
    except (sqlite3.DatabaseError, JournalError, RuleOptionsError) as e:
        return {"matches": [], "note": f"the record cannot be read: {e}"}


def _match(journal: Journal, m: Any, live: TableView | None, replayed: dict[int, Replayed]) -> dict[str, Any]:
    rules = RuleOptions.from_mapping(m.rules)
    games = []
    for g in reversed(journal.games(m.id)):
        evidence = journal.with_evidence(g.id)
        calls = [
            {
                "id": e.id,
                "t": e.t,
                "kind": e.kind,
                "side": e.side,
                "dice": list(e.dice) if e.dice else None,
                "play": e.play,
                "verdict": e.verdict,
                "reason": e.reason,
                "text": e.text,
                "position_id": e.position_id,
                "evidence": f"/evidence/{e.id}.png" if e.id in evidence else None,
            }
            for e in journal.events(g.id)
        ]
        score = (g.score_light, g.score_dark)
        before = replayed.get(g.id)
        if before is not None and g.finished is not None and before.events and before.game.over:
            events: Sequence[Event] = before.events  # a finished game does not change
        elif (stored := journal.history(g.id)) is not None:
            events = [Event.from_dict(e) for e in stored]
        elif live is not None and live.record_game == g.id:
            events = live.history
        else:
            events = []
        try:
            shown = replayed.setdefault(g.id, Replayed(m.length or 0, rules, g.crawford, score)).extend(
                events
            )
        except ValueError:  # not the game it was (a record started afresh): replay it anew
            replayed[g.id] = Replayed(m.length or 0, rules, g.crawford, score)
            shown = replayed[g.id].extend(events)
        games.append(
            {
                "id": g.id,
                "number": g.number,
                "crawford": g.crawford,
                "score_before": {"light": g.score_light, "dark": g.score_dark},
                "finished": g.finished is not None,
                "winner": g.winner,
                "points": g.points,
                "calls": calls,
                "positions": shown,
            }
        )
    return {
        "id": m.id,
        "length": m.length,
        "rules": m.rules,
        "score": {"light": m.score_light, "dark": m.score_dark},
        "finished": m.finished is not None,
        "mat": f"/match/{m.id}.mat",
        "games": games,
    }
