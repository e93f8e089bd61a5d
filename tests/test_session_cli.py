"""The record's commands (export, history) and the run config: clear errors, real output."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_session_fixtures import O, Table, die

from referee.cli import main
from referee.config import RefereeConfig, RefereeConfigError, load_config
from referee.journal import Journal
from referee.layout import Board, Side
from referee.notation.matfile import parse_mat
from referee.position import Position
from referee.session import Session, SessionOptions


def finished_record(path: Path) -> None:
    """A record with one game: light bears off its last two checkers for a gammon."""
    t = Table(Session(SessionOptions(O), Journal(path)))
    pos = Position.from_points({1: 1, 2: 1}, {13: 15})
    board = Board.from_position(pos, Side.LIGHT)
    t.session.start_from(board, Side.LIGHT)
    t.see(board, [die(2, "right"), die(1, "right", shift=40)])
    t.see(Board.from_position(Position.from_points({}, {13: 15}), Side.LIGHT))
    assert t.session.game.over
    t.session.journal.close()


def test_export_writes_a_mat_file_gnubg_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "rec.sqlite"
    finished_record(record)
    out = tmp_path / "game.mat"
    assert main(["export", str(record), "-o", str(out)]) == 0
    match = parse_mat(out.read_text())
    game = match.games[0]
    assert game.winner == 0 and game.points == 2  # light, a gammon
    assert [a.kind for a in game.actions] == ["roll", "win"] and game.actions[0].dice == (2, 1)
    assert main(["history", str(record)]) == 0
    assert "light wins 2 (gammon, cube 1)" in capsys.readouterr().out
    assert main(["history", str(record), "--game", "1"]) == 0
    assert "light plays 2-1" in capsys.readouterr().out


def test_record_commands_refuse_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", str(tmp_path / "none.sqlite"), "-o", str(tmp_path / "x.mat")]) == 2
    assert "does not exist" in capsys.readouterr().err
    record = tmp_path / "rec.sqlite"
    finished_record(record)
    assert main(["history", str(record), "--game", "9"]) == 2
    assert "there is no game 9" in capsys.readouterr().err


def test_config_errors_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(RefereeConfigError, match=r"no \[referee\] table"):
        RefereeConfig.from_toml({})
    with pytest.raises(RefereeConfigError, match="unknown key"):
        RefereeConfig.from_toml({"referee": {"profile": "p", "record": "r", "colour": 1}})
    with pytest.raises(RefereeConfigError, match="match_length must be a whole number"):
        RefereeConfig.from_toml({"referee": {"profile": "p", "record": "r", "match_length": "5"}})
    with pytest.raises(RefereeConfigError, match=r"\[rules\]"):
        RefereeConfig.from_toml({"referee": {"profile": "p", "record": "r"}, "rules": {"jacobi": True}})
    bad = tmp_path / "bad.toml"
    bad.write_text("[referee\nprofile = 1")
    with pytest.raises(RefereeConfigError, match="not valid TOML"):
        load_config(bad)
    good = tmp_path / "good.toml"
    good.write_text(
        '[referee]\nprofile = "p.json"\nrecord = "r.sqlite"\nmatch_length = 5\n[rules]\njacoby = true\n'
    )
    cfg = load_config(good)
    assert cfg.profile == tmp_path / "p.json" and cfg.match_length == 5 and cfg.rules.jacoby


def test_run_with_a_missing_profile_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "referee.toml"
    cfg.write_text(
        '[referee]\nprofile = "missing.json"\nrecord = "r.sqlite"\n[signals]\noutput = "console"\n'
    )
    assert main(["run", "--config", str(cfg), "--no-keys"]) == 2
    assert "missing.json" in capsys.readouterr().err
