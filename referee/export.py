"""Games of the record as a ``.mat`` match transcript that gnubg imports.

>>> from referee.journal import Journal
>>> write_match_mat(Journal(":memory:"), 1)  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
ExportError: match 1 is not in the record
"""

from __future__ import annotations

from dataclasses import replace

from bgboard.layout import Side
from referee.events import Event
from referee.journal import GameRow, Journal
from referee.match import FinishedGame, Match
from referee.notation.matfile import MatchRecord, write_mat
from referee.rules_options import RuleOptions
from referee.scoring import GameResult, Outcome
from referee.variations import Variation


class ExportError(ValueError):
    """Nothing to export under that number."""


def _finished(journal: Journal, row: GameRow, number: int) -> FinishedGame | None:
    history = journal.history(row.id)
    if history is None or row.winner is None:
        return None  # a game still in progress, or void, has no result to write
    kind = Outcome(row.kind or 1)
    result = GameResult(Side(row.winner), kind, row.cube or 1, row.points or 1, by_drop=row.resigned)
    events = tuple(Event.from_dict(e) for e in history)
    return FinishedGame(number, (row.score_light, row.score_dark), row.crawford, result, events)


def match_record(journal: Journal, match_id: int, game_id: int | None = None) -> MatchRecord:
    """The finished games of ``match_id`` (or only ``game_id``) as a :class:`MatchRecord`, with the
    players' names; void games scored nothing and are left out."""
    match = journal.match(match_id)
    if match is None:
        raise ExportError(f"match {match_id} is not in the record; `referee history` lists them")
    rows = [g for g in journal.games(match_id) if game_id is None or g.id == game_id]
    games = [g for i, row in enumerate(rows, 1) if (g := _finished(journal, row, i)) is not None]
    if not games:
        what = f"game {game_id}" if game_id is not None else f"match {match_id}"
        raise ExportError(f"{what} has no finished game to export yet")
    options = RuleOptions.from_mapping(match.rules)
    names = (match.light_name, match.dark_name)
    record = Match(match.length or 0, options, players=names, games=games).to_record()
    if match.practice:
        # gnubg shows the event; the games were practice (coaching, a lesson) and count in no match
        event = f"practice: {Variation(match.variation).value}"
        record = replace(record, headers=(*record.headers, ("Event", event)))
    return record


def write_match_mat(journal: Journal, match_id: int, game_id: int | None = None) -> str:
    return write_mat(match_record(journal, match_id, game_id))
