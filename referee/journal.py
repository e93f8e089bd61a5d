"""The game record: an SQLite file that survives a power cut, written before the table is told anything.

Every confirmed position, roll, play, verdict with its reason, cube action and result is one row of
``events``; illegal and unclear calls keep the rectified frame as a PNG in ``evidence``. Each event is
written in one transaction together with the session's state, so after a crash the referee resumes from
the last event it recorded (WAL journal, ``synchronous=FULL``: a committed row is on the disk).

    >>> j = Journal(":memory:")
    >>> m = j.start_match(length=3, rules={})
    >>> g = j.start_game(m, 1)
    >>> j.record(g, Entry("roll", side=Side.LIGHT, dice=(3, 1), text="light rolls 3-1")) > 0
    True
    >>> [e.kind for e in j.events(g)]
    ['roll']
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bgboard.layout import Board, Side
from referee.notation.position_id import encode_position_id
from referee.observe import Verdict
from referee.scoring import GameResult
from referee.variations import Variation

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    length INTEGER,            -- NULL for money play
    rules TEXT NOT NULL,       -- JSON of the rule options
    light_name TEXT NOT NULL DEFAULT 'light',  -- the players (a pair: "Ann & Bo")
    dark_name TEXT NOT NULL DEFAULT 'dark',
    variation TEXT NOT NULL DEFAULT 'standard',  -- referee.variations.Variation; coaching, lesson: practice
    score_light INTEGER NOT NULL DEFAULT 0,
    score_dark INTEGER NOT NULL DEFAULT 0,
    finished REAL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    match_id INTEGER NOT NULL REFERENCES matches(id),
    number INTEGER NOT NULL,
    started REAL NOT NULL,
    crawford INTEGER NOT NULL DEFAULT 0,
    score_light INTEGER NOT NULL DEFAULT 0,  -- the match score before this game
    score_dark INTEGER NOT NULL DEFAULT 0,
    finished REAL,
    winner TEXT,      -- NULL in a finished game: the game was void (its events say why)
    kind INTEGER,     -- 1 single, 2 gammon, 3 backgammon
    cube INTEGER,
    points INTEGER,
    resigned INTEGER NOT NULL DEFAULT 0,  -- 1 when a double was dropped
    history TEXT  -- JSON list of the game's events (referee.game.Event.to_dict), for export
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    t REAL,              -- stream time of the frame that decided it
    wall REAL NOT NULL,  -- wall-clock time it was written
    kind TEXT NOT NULL,  -- setup, opening, roll, reroll, play, illegal, unclear, restored, accepted, cube...
    side TEXT,
    dice TEXT,           -- "31"
    play TEXT,           -- move text, gnubg style
    position_id TEXT,    -- gnubg Position ID of the confirmed position, the side on roll first
    board TEXT,          -- JSON {"light": [25 counts], "dark": [25 counts]}
    verdict TEXT,
    reason TEXT,
    text TEXT            -- the narration shown at the table
);
CREATE INDEX IF NOT EXISTS events_game ON events(game_id);
CREATE TABLE IF NOT EXISTS evidence (
    event_id INTEGER PRIMARY KEY REFERENCES events(id),
    png BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    event_id INTEGER,
    data TEXT NOT NULL   -- the session's snapshot, JSON
);
"""


class JournalError(ValueError):
    """The record file cannot be opened or is not a referee record."""


@dataclass(frozen=True)
class Entry:
    """One event as the referee records it: its kind ("roll", "illegal", "unclear" ...), the stream time
    of the frame that decided it, and what it was about."""

    kind: str
    t: float | None = None
    side: Side | None = None
    dice: tuple[int, int] | None = None
    play: str | None = None
    verdict: Verdict | None = None
    reason: str | None = None
    text: str = ""


@dataclass(frozen=True)
class RecordedEvent:
    """An event as the record gives it back."""

    id: int
    game_id: int
    t: float | None
    kind: str
    side: str | None
    dice: tuple[int, int] | None
    play: str | None
    position_id: str | None
    board: dict[str, Any] | None
    verdict: str | None
    reason: str | None
    text: str


@dataclass(frozen=True)
class GameRow:
    id: int
    match_id: int
    number: int
    started: float
    crawford: bool
    score_light: int
    score_dark: int
    finished: float | None
    winner: str | None
    kind: int | None
    cube: int | None
    points: int | None
    resigned: bool

    @property
    def void(self) -> bool:
        """Finished with no winner: voided (a position that could not be restored), no points."""
        return self.finished is not None and self.winner is None


@dataclass(frozen=True)
class MatchRow:
    id: int
    started: float
    length: int | None
    rules: dict[str, Any]
    score_light: int
    score_dark: int
    finished: float | None
    light_name: str = "light"
    dark_name: str = "dark"
    variation: str = "standard"

    @property
    def practice(self) -> bool:
        """A coaching game or a lesson: it counts in no match score."""
        return Variation(self.variation).practice


class Journal:
    """The record store. ``path`` may be ``":memory:"`` for tests."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        """``read_only``: an existing record, read through a connection of its own and never written
        (the console reads the record the referee is writing)."""
        self.path = str(path)
        if read_only:
            self._db = self._open_read_only()
            return
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            self._add_new_columns()
        except sqlite3.DatabaseError as e:
            raise JournalError(
                f"{self.path} is not a usable referee record ({e}): name a new file or a record written "
                "by the referee"
            ) from None
        except OSError as e:
            raise JournalError(f"cannot create the record {self.path}: {e}") from None

    def _open_read_only(self) -> sqlite3.Connection:
        if not Path(self.path).is_file():
            raise JournalError(
                f"{self.path} does not exist: name the record that `referee run` or `demo` wrote"
            )
        uri = Path(self.path).resolve().as_uri() + "?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
            db.execute("SELECT id FROM events LIMIT 1")
        except sqlite3.DatabaseError as e:
            raise JournalError(f"{self.path} is not a readable referee record ({e})") from None
        return db

    def _add_new_columns(self) -> None:
        """A record written before a column existed gets it with its default (its rows are unchanged)."""
        have = {row[1] for row in self._db.execute("PRAGMA table_info(matches)")}
        if "variation" not in have:
            self._db.execute("ALTER TABLE matches ADD COLUMN variation TEXT NOT NULL DEFAULT 'standard'")

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, sql: str, args: Iterable[Any]) -> int:
        with self._tx():
            cur = self._db.execute(sql, tuple(args))
            return int(cur.lastrowid or 0)

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)

    # --- writing -----------------------------------------------------------------------------------

    def start_match(
        self,
        length: int | None,
        rules: dict[str, Any],
        state: dict[str, Any] | None = None,
        names: tuple[str, str] = ("light", "dark"),
        variation: str = "standard",
    ) -> int:
        """A new match (or money session) of the players ``names`` (light's, dark's)."""
        with self._tx():
            cur = self._db.execute(
                "INSERT INTO matches (started, length, rules, light_name, dark_name, variation) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (time.time(), length, json.dumps(rules, sort_keys=True), names[0], names[1], variation),
            )
            if state is not None:
                self._save_state(None, state)
            return int(cur.lastrowid or 0)

    def start_game(
        self, match_id: int, number: int, crawford: bool = False, score: tuple[int, int] = (0, 0)
    ) -> int:
        return self._write(
            "INSERT INTO games (match_id, number, started, crawford, score_light, score_dark) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (match_id, number, time.time(), int(crawford), score[0], score[1]),
        )

    def record(
        self,
        game_id: int,
        entry: Entry,
        board: Board | None = None,
        on_roll: Side = Side.LIGHT,
        evidence: bytes | None = None,
        state: dict[str, Any] | None = None,
    ) -> int:
        """One event, its evidence and the session state after it, in one transaction. ``board`` (with
        the side ``on_roll``) is the position the event leaves on the table: it is stored with its gnubg
        Position ID."""
        e = entry
        position_id = encode_position_id(board.position(on_roll)) if board is not None else None
        shown = (
            {"light": list(board.light), "dark": list(board.dark), "on_roll": on_roll.value}
            if board is not None
            else None
        )
        with self._tx():
            cur = self._db.execute(
                "INSERT INTO events (game_id, t, wall, kind, side, dice, play, position_id, board, "
                "verdict, reason, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    e.t,
                    time.time(),
                    e.kind,
                    e.side.value if e.side else None,
                    f"{e.dice[0]}{e.dice[1]}" if e.dice else None,
                    e.play,
                    position_id,
                    json.dumps(shown) if shown is not None else None,
                    e.verdict.value if e.verdict else None,
                    e.reason,
                    e.text,
                ),
            )
            event_id = int(cur.lastrowid or 0)
            if evidence is not None:
                self._db.execute("INSERT INTO evidence (event_id, png) VALUES (?, ?)", (event_id, evidence))
            if state is not None:
                self._save_state(event_id, state)
        return event_id

    def finish_game(
        self,
        game_id: int,
        result: GameResult,
        match_score: tuple[int, int],
        state: dict[str, Any] | None = None,
        history: list[dict[str, Any]] | None = None,
    ) -> None:
        """The game's result, the match score after it and the game's events (for export)."""
        with self._tx():
            self._db.execute(
                "UPDATE games SET finished=?, winner=?, kind=?, cube=?, points=?, resigned=?, history=? "
                "WHERE id=?",
                (
                    time.time(),
                    result.winner.value,
                    result.outcome.value,
                    result.cube,
                    result.points,
                    int(result.by_drop),
                    json.dumps(history) if history is not None else None,
                    game_id,
                ),
            )
            self._db.execute(
                "UPDATE matches SET score_light=?, score_dark=? "
                "WHERE id=(SELECT match_id FROM games WHERE id=?)",
                (match_score[0], match_score[1], game_id),
            )
            if state is not None:
                self._save_state(None, state)

    def void_game(
        self, game_id: int, history: list[dict[str, Any]], state: dict[str, Any] | None = None
    ) -> None:
        """The game ends void: finished with no winner and no points (the match score is unchanged)."""
        with self._tx():
            self._db.execute(
                "UPDATE games SET finished=?, history=? WHERE id=?",
                (time.time(), json.dumps(history), game_id),
            )
            if state is not None:
                self._save_state(None, state)

    def finish_match(self, match_id: int) -> None:
        self._write("UPDATE matches SET finished=? WHERE id=?", (time.time(), match_id))

    def _save_state(self, event_id: int | None, state: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO state (id, event_id, data) VALUES (1, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET event_id=excluded.event_id, data=excluded.data",
            (event_id, json.dumps(state, sort_keys=True)),
        )

    # --- reading -----------------------------------------------------------------------------------

    def load_state(self) -> dict[str, Any] | None:
        """The session state saved with the last event, or None for a fresh record."""
        row = self._db.execute("SELECT data FROM state WHERE id=1").fetchone()
        return json.loads(row[0]) if row else None

    def events(self, game_id: int, kinds: Iterable[str] | None = None) -> list[RecordedEvent]:
        rows = self._db.execute(
            "SELECT id, game_id, t, kind, side, dice, play, position_id, board, verdict, reason, text "
            "FROM events WHERE game_id=? ORDER BY id",
            (game_id,),
        ).fetchall()
        wanted = set(kinds) if kinds is not None else None
        out = []
        for r in rows:
            if wanted is not None and r[3] not in wanted:
                continue
            dice = (int(r[5][0]), int(r[5][1])) if r[5] else None
            board = json.loads(r[8]) if r[8] else None
            out.append(
                RecordedEvent(r[0], r[1], r[2], r[3], r[4], dice, r[6], r[7], board, r[9], r[10], r[11] or "")
            )
        return out

    def evidence(self, event_id: int) -> bytes | None:
        row = self._db.execute("SELECT png FROM evidence WHERE event_id=?", (event_id,)).fetchone()
        return bytes(row[0]) if row else None

    def with_evidence(self, game_id: int) -> set[int]:
        """The events of ``game_id`` that kept their frame."""
        rows = self._db.execute(
            "SELECT evidence.event_id FROM evidence JOIN events ON events.id = evidence.event_id "
            "WHERE events.game_id=?",
            (game_id,),
        ).fetchall()
        return {int(r[0]) for r in rows}

    def games(self, match_id: int | None = None) -> list[GameRow]:
        sql = (
            "SELECT id, match_id, number, started, crawford, score_light, score_dark, finished, winner, "
            "kind, cube, points, resigned FROM games"
        )
        args: tuple[int, ...] = ()
        if match_id is not None:
            sql += " WHERE match_id=?"
            args = (match_id,)
        rows = self._db.execute(sql + " ORDER BY id", args).fetchall()
        return [
            GameRow(
                r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], r[7], r[8], r[9], r[10], r[11], bool(r[12])
            )
            for r in rows
        ]

    def history(self, game_id: int) -> list[dict[str, Any]] | None:
        """A finished game's events (``referee.game.Event.to_dict``), or None."""
        row = self._db.execute("SELECT history FROM games WHERE id=?", (game_id,)).fetchone()
        return json.loads(row[0]) if row and row[0] else None

    @classmethod
    def existing(cls, path: str | Path) -> Journal:
        """Opens a record that must already exist (the commands that read one never create one)."""
        if not Path(path).is_file():
            raise JournalError(f"{path} does not exist: name the record that `referee run` or `demo` wrote")
        return cls(path)

    def game(self, game_id: int) -> GameRow | None:
        return next((g for g in self.games() if g.id == game_id), None)

    def require_game(self, game_id: int) -> GameRow:
        game = self.game(game_id)
        if game is None:
            raise JournalError(f"there is no game {game_id}: `referee history {self.path}` lists them")
        return game

    def matches(self) -> list[MatchRow]:
        rows = self._db.execute(
            "SELECT id, started, length, rules, score_light, score_dark, finished, light_name, dark_name, "
            "variation FROM matches ORDER BY id"
        ).fetchall()
        return [MatchRow(r[0], r[1], r[2], json.loads(r[3]), *r[4:]) for r in rows]

    def match(self, match_id: int) -> MatchRow | None:
        return next((m for m in self.matches() if m.id == match_id), None)


class _Transaction:
    """``BEGIN IMMEDIATE`` .. ``COMMIT`` (or ``ROLLBACK`` on an exception); nests as a no-op."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.outer = False

    def __enter__(self) -> None:
        if not self.db.in_transaction:
            self.db.execute("BEGIN IMMEDIATE")
            self.outer = True

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self.outer:
            return
        if exc_type is None:
            self.db.execute("COMMIT")
        else:
            self.db.execute("ROLLBACK")
