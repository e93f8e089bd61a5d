"""The game record: written before the signal, survives reopening, keeps evidence, resumes the session."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from test_session_fixtures import O, Table, after, die, moved, signals

from bgboard.layout import Board, Side
from referee.journal import Entry, Journal, JournalError
from referee.scoring import GameResult, Outcome
from referee.session import Session, SessionOptions, Stage

START = Board.start()


def test_events_evidence_and_state_survive_reopening(tmp_path: Path) -> None:
    path = tmp_path / "rec.sqlite"
    with Journal(path) as j:
        m = j.start_match(3, {"cubeless": True})
        g = j.start_game(m, 1)
        entry = Entry("illegal", side=Side.LIGHT, dice=(3, 1), reason="why")
        e = j.record(g, entry, evidence=b"\x89PNG", state={"a": 1})
        j.finish_game(g, GameResult(Side.LIGHT, Outcome.GAMMON, 1, 2), (2, 0))
    with Journal(path) as j:
        assert [ev.kind for ev in j.events(g)] == ["illegal"]
        assert j.events(g)[0].dice == (3, 1) and j.events(g)[0].reason == "why"
        assert j.evidence(e) == b"\x89PNG"
        assert j.load_state() == {"a": 1}
        game = j.games()[0]
        assert (game.winner, game.kind, game.points) == ("light", 2, 2)
        assert j.matches()[0].score_light == 2
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_a_file_that_is_not_a_record_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "notes.sqlite"
    bad.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(JournalError, match="not a referee record"):
        Journal(bad)


def test_session_records_before_it_signals_and_keeps_evidence(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "rec.sqlite")
    t = Table(Session(SessionOptions(O), journal))
    t.see(START)
    t.see(START, [die(3, "right"), die(1, "left")])
    illegal = moved(START, Side.LIGHT, "13/9 8/7")  # 13/9 needs two steps of a 3-1: not legal
    game_id = t.session.game_id
    seen_before = len(journal.events(game_id))
    said = t.see(illegal, frames=3)
    assert signals(said) == ["ILLEGAL"]
    events = journal.events(game_id)
    assert len(events) == seen_before + 1
    last = events[-1]
    assert last.kind == "illegal" and last.verdict == "illegal" and "3-1" in last.text
    assert journal.evidence(last.id) == b"png"


def test_resume_continues_the_game_in_progress(tmp_path: Path) -> None:
    path = tmp_path / "rec.sqlite"
    t = Table(Session(SessionOptions(O), Journal(path)))
    t.see(START)
    t.see(START, [die(3, "right"), die(1, "left")])
    played = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    t.see(played)
    t.see(played, [die(6, "left"), die(4, "left", shift=40)])  # dark rolls 6-4, then the power fails
    n_events = len(t.session.journal.events(t.session.game_id))
    t.session.journal.close()

    resumed = Session.resume(SessionOptions(O), Journal(path))
    assert resumed.stage is Stage.PLAY
    assert resumed.board == played and resumed.on_roll is Side.DARK and resumed.game.dice == (6, 4)
    assert len(resumed.journal.events(resumed.game_id)) == n_events
    t2 = Table(resumed)
    dark_play = after(played, Side.DARK, (6, 4), "24/14")
    assert signals(t2.see(dark_play)) == ["READY"]
    assert resumed.board == dark_play


def test_the_size_bound_removes_the_oldest_evidence_of_finished_matches_first(tmp_path: Path) -> None:
    """Past its bound the record drops evidence frames: finished matches' first, oldest first, then the
    current match's finished games'; never the current game's, and never an event."""
    import os

    def game(j: Journal, match: int, number: int, frames: int, finish: bool) -> list[int]:
        g = j.start_game(match, number)
        ids = [
            j.record(g, Entry("unclear", text=f"{g}.{k}"), evidence=os.urandom(40_000)) for k in range(frames)
        ]
        if finish:
            j.finish_game(g, GameResult(Side.LIGHT, Outcome.SINGLE, 1, 1), (1, 0))
        return ids

    path = tmp_path / "rec.sqlite"
    with Journal(path, limit_bytes=1_000_000) as j:
        old = j.start_match(1, {})
        old_ids = game(j, old, 1, 8, finish=True)
        j.finish_match(old)
        current = j.start_match(3, {})
        done_ids = game(j, current, 1, 8, finish=True)
        now_ids = game(j, current, 2, 20, finish=False)  # 36 frames of 40 kB: far past the bound
        assert all(j.evidence(i) is not None for i in now_ids)  # the game in progress keeps every frame
        gone = [i for i in old_ids + done_ids if j.evidence(i) is None]
        assert all(j.pruned(i) for i in gone) and not any(j.pruned(i) for i in now_ids)
        # oldest first: the finished match's frames, all of them, then the current match's finished game's
        assert len(gone) > len(old_ids) and gone == (old_ids + done_ids)[: len(gone)]
        assert j.size_bytes() <= 1_000_000
        assert sum(len(j.events(g.id)) for g in j.games()) == 36  # every event is kept
    assert path.stat().st_size <= 1_300_000  # the space went back to the file system
