"""The game record: an SQLite file that survives a power cut, written before the table is told anything.

Every confirmed position, roll, play, verdict with its reason, cube action and result is one row of
``events``; illegal and unclear calls keep the rectified frame (a JPEG) in ``evidence``, and a
confirmation keeps the dice the reader was unsure of with the faces the table confirmed
(``taught_dice``: :class:`TaughtDie`). Each event is written in one transaction together with the
session's state, so after a crash the referee resumes from the last event it recorded (WAL journal,
``synchronous=FULL``: a committed row is on the disk).

The referee opens its record with :class:`Journal` (it writes); the commands that only look at a record
open it with :meth:`Journal.reader`, read-only, and refuse a file that is not a record rather than write
the referee's tables into it. ``limit_bytes`` bounds an evening's record: past it, the oldest evidence
frames of finished matches go first, then those of the current match's finished games, never the
current game's; the events themselves are never deleted.

    >>> j = Journal(":memory:")
    >>> m = j.start_match(length=3, rules={})
    >>> g = j.start_game(m, 1)
    >>> j.record(g, Entry("roll", side=Side.LIGHT, dice=(3, 1), text="light rolls 3-1")) > 0
    True
    >>> [e.kind for e in j.events(g)]
    ['roll']
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bgboard.layout import Board, Side
from referee.notation.position_id import encode_position_id
from referee.observe import Verdict
from referee.scoring import GameResult
from referee.variations import Variation

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    started REAL NOT NULL,
    length INTEGER,            -- NULL for money play
    rules TEXT NOT NULL,       -- JSON of the rule options
    light_name TEXT NOT NULL DEFAULT 'light',  -- the players (a pair: "Ann & Bo")
    dark_name TEXT NOT NULL DEFAULT 'dark',
    variation TEXT NOT NULL DEFAULT 'standard',  -- referee.variations.Variation: coaching, lesson: practice
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
    image BLOB NOT NULL  -- the rectified frame: JPEG (PNG in records written before JPEG)
);
CREATE TABLE IF NOT EXISTS pruned (  -- evidence removed to keep the record under its size bound
    event_id INTEGER PRIMARY KEY REFERENCES events(id),
    wall REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS taught_dice (  -- dice the reader was unsure of, and the face the table confirmed
    id INTEGER PRIMARY KEY,
    event_id INTEGER NOT NULL REFERENCES events(id),  -- the confirmation
    face INTEGER NOT NULL,
    image BLOB NOT NULL  -- PNG, the die in the middle (vision.dice_model.taught_crop)
);
CREATE TABLE IF NOT EXISTS state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    event_id INTEGER,
    data TEXT NOT NULL   -- the session's snapshot, JSON
);
"""


# PRAGMA application_id of a referee record ("BGRF"), so that no other SQLite file is taken for one
APPLICATION_ID = 0x42475246
SCHEMA_VERSION = 3  # PRAGMA user_version: 2 = evidence as "image" (JPEG), the pruned table; 3 = taught_dice
RECORD_TABLES = {"matches", "games", "events", "evidence", "state"}
BUSY_SECONDS = 5.0  # how long a write waits for a reader's lock before the record counts as locked


def lock_path(record: str | Path) -> Path:
    """The file whose ``flock`` says a referee is writing ``record`` (:mod:`referee.record_lock`)."""
    return Path(f"{record}.lock")


def writer_holds(record: str | Path) -> bool:
    """Whether a referee holds the record's lock now (looked at without taking or making anything)."""
    try:
        fd = os.open(lock_path(record), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops the shared lock if it was taken
    return False


class JournalError(ValueError):
    """The record file cannot be opened or is not a referee record."""


class RecordWriteError(JournalError):
    """The record could not be written (disk full, locked by another program, damaged): what was not
    written was not said either, so the referee carries on from the last event it did write."""


def _database_problem(path: str, e: sqlite3.Error) -> str:
    """What an SQLite error means for the record, in words that say what to do (one line)."""
    said = " ".join(str(e).replace("*** in database main ***", "").split())
    text = said.lower()
    if "full" in text:
        return f"the disk holding the record {path} is full: free some space (old records, saved frames)"
    if "locked" in text or "busy" in text:
        return (
            f"the record {path} is locked by another program (an open `sqlite3` shell?): close it, "
            "or name another record"
        )
    if "not a database" in text:
        return (
            f"{path} is not a referee record (not an SQLite file at all): name the record the referee wrote"
        )
    if "malformed" in text or "corrupt" in text:
        return (
            f"the record {path} is damaged ({said}): keep the file for the games in it, and name a new "
            "record in the config"
        )
    if "readonly" in text or "read-only" in text:
        return f"the record {path} cannot be written (read-only): give the referee a writable folder"
    if "unable to open" in text:
        return f"cannot open the record {path}: does its folder exist, and may this user write there?"
    return f"the record {path} cannot be used ({said})"


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
class TaughtDie:
    """A die the reader was unsure of, kept with the face the table confirmed: training data from the
    table's own dice (``referee taught`` writes them out, ``tools/train_dice.py --taught`` learns them).
    ``image`` is a PNG, ``vision.dice_model.taught_crop``."""

    id: int
    event_id: int
    game_id: int
    face: int
    image: bytes


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
    """The record store. ``path`` may be ``":memory:"`` for tests.

    ``readonly`` opens an existing record without writing to it (see :meth:`reader`; ``live``: another
    process is writing it as it is read); ``limit_bytes`` (None: no bound) is the size past which old
    evidence is removed (see the module doc).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        limit_bytes: int | None = None,
        readonly: bool = False,
        live: bool = False,
    ) -> None:
        self.path = str(path)
        self.limit_bytes = limit_bytes
        self._pruning_warned = False  # the bound could not be kept: said once
        self.written = 0  # transactions committed since opening (a failing disk shows as none)
        try:
            if readonly:
                self._db = self._open_readonly(Path(path), live)
            else:
                self._db = self._open_to_write()
        except sqlite3.DatabaseError as e:
            raise JournalError(_database_problem(self.path, e)) from None
        except OSError as e:
            raise JournalError(f"cannot create the record {self.path}: {e.strerror or e}") from None

    @classmethod
    def reader(cls, path: str | Path, *, live: bool = False) -> Journal:
        """Opens an existing record read-only: nothing is written to it, and a file that is not a
        record (empty, another program's SQLite file, not SQLite at all) is refused. ``live``: the
        record is being written as it is read (the console beside the referee): what is written later
        is seen."""
        return cls(path, readonly=True, live=live)

    def _open_to_write(self) -> sqlite3.Connection:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_SECONDS)
        self._db = db
        self._check_is_record(allow_new=True)
        # a damaged page found now is one clear line; found in the middle of a game, a lost event
        problems = db.execute("PRAGMA quick_check(1)").fetchone()
        if problems and problems[0] != "ok":
            raise sqlite3.DatabaseError(f"database disk image is malformed: {problems[0]}")
        if not self._tables():
            # freed pages go back to the file system when old evidence is pruned
            db.execute("PRAGMA auto_vacuum=INCREMENTAL")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        with self._tx():
            self._migrate()
            self._add_new_columns()
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        return db

    def _open_readonly(self, file: Path, live: bool = False) -> sqlite3.Connection:
        if not file.is_file():
            raise JournalError(f"{file} does not exist: name the record that `referee run` or `demo` wrote")
        if file.stat().st_size == 0:
            raise JournalError(f"{file} is empty: it is not a referee record")
        uri = f"file:{quote(str(file.resolve()))}?mode=ro"
        if not live and not Path(f"{file}-wal").exists() and not writer_holds(file):
            # closed and nobody writing it: read it as it lies, without the -shm and -wal files SQLite
            # would otherwise make beside it
            uri += "&immutable=1"
        self._db = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=BUSY_SECONDS)
        try:
            self._check_is_record(allow_new=False)
        except sqlite3.OperationalError as e:
            if "unable to open" not in str(e).lower():
                raise
            # a WAL record on a read-only medium (no -shm file can be made): nobody writes it there
            self._db.close()
            self._db = sqlite3.connect(uri + "&immutable=1", uri=True, check_same_thread=False)
            self._check_is_record(allow_new=False)
        return self._db

    def _tables(self) -> set[str]:
        rows = self._db.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
        return {r[0] for r in rows}

    def _check_is_record(self, *, allow_new: bool) -> None:
        """Refuses a database that is not a referee record (a new, empty one is fine to write)."""
        app = int(self._db.execute("PRAGMA application_id").fetchone()[0])
        tables = self._tables()
        if app == APPLICATION_ID or (not tables and allow_new):
            return
        if app == 0 and tables >= RECORD_TABLES:
            return  # a record written before records were marked
        what = f"its tables are {', '.join(sorted(tables))}" if tables else "it holds no tables"
        raise JournalError(
            f"{self.path} is not a referee record ({what}): name a record that `referee run` or "
            "`referee demo` wrote"
        )

    def _migrate(self) -> None:
        """Brings a record of an older schema up to date (inside the opening transaction)."""
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(evidence)").fetchall()}
        if "png" in columns:
            self._db.execute("ALTER TABLE evidence RENAME COLUMN png TO image")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                self._db.execute(statement)

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
        return _Transaction(self._db, self.path, self._committed)

    def _committed(self) -> None:
        self.written += 1

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        """A query's rows; a damaged record is a :class:`JournalError`, not a traceback."""
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as e:
            raise JournalError(_database_problem(self.path, e)) from None

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
        taught: Iterable[tuple[int, bytes]] = (),
    ) -> int:
        """One event, its evidence and the session state after it, in one transaction. ``board`` (with
        the side ``on_roll``) is the position the event leaves on the table: it is stored with its gnubg
        Position ID. ``taught``: (face, PNG) of each die the event confirmed that the reader was unsure of
        (:class:`TaughtDie`)."""
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
                self._db.execute("INSERT INTO evidence (event_id, image) VALUES (?, ?)", (event_id, evidence))
            self._db.executemany(
                "INSERT INTO taught_dice (event_id, face, image) VALUES (?, ?, ?)",
                [(event_id, face, image) for face, image in taught],
            )
            if state is not None:
                self._save_state(event_id, state)
            pruned = evidence is not None and self._prune()
        if pruned:
            self._vacuum()
        return event_id

    # --- the size bound ----------------------------------------------------------------------------

    def size_bytes(self) -> int:
        """The record's size in use (its pages, free pages excluded)."""
        pages = self._rows("PRAGMA page_count")[0][0] - self._rows("PRAGMA freelist_count")[0][0]
        return int(pages) * int(self._rows("PRAGMA page_size")[0][0])

    def _prune(self) -> bool:
        """Removes the oldest evidence the bound allows to go, until the record is a tenth under its bound:
        finished matches' first, then the current match's finished games'; never a game in progress."""
        if self.limit_bytes is None or self.size_bytes() <= self.limit_bytes:
            return False
        excess = self.size_bytes() - int(0.9 * self.limit_bytes)
        rows = self._db.execute(
            "SELECT v.event_id, length(v.image) FROM evidence v JOIN events e ON e.id = v.event_id "
            "JOIN games g ON g.id = e.game_id JOIN matches m ON m.id = g.match_id "
            "WHERE g.finished IS NOT NULL ORDER BY m.finished IS NULL, v.event_id"
        ).fetchall()
        chosen, freed = [], 0
        for event_id, size in rows:
            if freed >= excess:
                break
            chosen.append((event_id,))
            freed += int(size)
        if freed < excess and not self._pruning_warned:
            self._pruning_warned = True
            log.warning(
                "the record %s is over its bound of %d MB with only the current game's evidence left",
                self.path,
                self.limit_bytes // 1_000_000,
            )
        if not chosen:
            return False
        self._db.executemany("DELETE FROM evidence WHERE event_id=?", chosen)
        now = time.time()
        self._db.executemany(
            "INSERT OR IGNORE INTO pruned (event_id, wall) VALUES (?, ?)", [(e, now) for (e,) in chosen]
        )
        return True

    def _vacuum(self) -> None:
        """Gives pruned pages back to the file system (records made before the bound keep them free)."""
        try:
            self._db.execute("PRAGMA incremental_vacuum")
        except sqlite3.DatabaseError as e:  # space is reused inside the file anyway
            log.debug("incremental vacuum failed: %r", e)

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
        rows = self._rows("SELECT data FROM state WHERE id=1")
        return json.loads(rows[0][0]) if rows else None

    def events(self, game_id: int, kinds: Iterable[str] | None = None) -> list[RecordedEvent]:
        rows = self._rows(
            "SELECT id, game_id, t, kind, side, dice, play, position_id, board, verdict, reason, text "
            "FROM events WHERE game_id=? ORDER BY id",
            (game_id,),
        )
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
        """The evidence frame of an event as stored (JPEG, or PNG in older records), or None."""
        rows = self._rows("SELECT image FROM evidence WHERE event_id=?", (event_id,))
        return bytes(rows[0][0]) if rows else None

    def taught_dice(self) -> list[TaughtDie]:
        """Every die the table taught the reader, oldest first (none in a record written before they
        were kept)."""
        if "taught_dice" not in self._tables():
            return []
        rows = self._rows(
            "SELECT t.id, t.event_id, e.game_id, t.face, t.image FROM taught_dice t "
            "JOIN events e ON e.id = t.event_id ORDER BY t.id"
        )
        return [TaughtDie(int(i), int(ev), int(g), int(f), bytes(img)) for i, ev, g, f, img in rows]

    def pruned(self, event_id: int) -> bool:
        """Whether the event's evidence was removed to keep the record under its bound."""
        return bool(self._rows("SELECT 1 FROM pruned WHERE event_id=?", (event_id,)))

    def event(self, event_id: int) -> RecordedEvent | None:
        """One event by its number (as `referee history --game N` lists them)."""
        rows = self._rows("SELECT game_id FROM events WHERE id=?", (event_id,))
        if not rows:
            return None
        return next(e for e in self.events(int(rows[0][0])) if e.id == event_id)

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
        rows = self._rows(sql + " ORDER BY id", args)
        return [
            GameRow(
                r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6], r[7], r[8], r[9], r[10], r[11], bool(r[12])
            )
            for r in rows
        ]

    def history(self, game_id: int) -> list[dict[str, Any]] | None:
        """A finished game's events (``referee.game.Event.to_dict``), or None."""
        rows = self._rows("SELECT history FROM games WHERE id=?", (game_id,))
        return json.loads(rows[0][0]) if rows and rows[0][0] else None

    def game(self, game_id: int) -> GameRow | None:
        return next((g for g in self.games() if g.id == game_id), None)

    def require_game(self, game_id: int) -> GameRow:
        game = self.game(game_id)
        if game is None:
            raise JournalError(f"there is no game {game_id}: `referee history {self.path}` lists them")
        return game

    def matches(self) -> list[MatchRow]:
        rows = self._rows(
            "SELECT id, started, length, rules, score_light, score_dark, finished, light_name, dark_name, "
            "variation FROM matches ORDER BY id"
        )
        return [MatchRow(r[0], r[1], r[2], json.loads(r[3]), *r[4:]) for r in rows]

    def match(self, match_id: int) -> MatchRow | None:
        return next((m for m in self.matches() if m.id == match_id), None)


class _Transaction:
    """``BEGIN IMMEDIATE`` .. ``COMMIT`` (or ``ROLLBACK`` on an exception); nests as a no-op. An SQLite
    failure inside (a full disk, a lock held too long) leaves the record as it was and is raised as a
    :class:`RecordWriteError` in words."""

    def __init__(self, db: sqlite3.Connection, path: str, committed: Callable[[], None]) -> None:
        self.db = db
        self.path = path
        self.committed = committed
        self.outer = False

    def __enter__(self) -> None:
        if not self.db.in_transaction:
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as e:
                raise RecordWriteError(_database_problem(self.path, e)) from None
            self.outer = True

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self.outer:
            return
        try:
            if exc_type is None:
                self.db.execute("COMMIT")
                self.committed()
                return
        except sqlite3.Error as e:
            exc = e
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error as e:  # the transaction is gone with the failure: nothing was written
                log.debug("rollback after a failed write: %r", e)
        if isinstance(exc, sqlite3.Error):
            raise RecordWriteError(_database_problem(self.path, exc)) from None
