"""The record's commands (export, history) and the run config: clear errors, real output."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_session_fixtures import O, Table, die

from bgboard.layout import Board, Side
from bgboard.position import Position
from referee.cli import main
from referee.config import RefereeConfig, RefereeConfigError, load_config
from referee.journal import Journal
from referee.notation.matfile import parse_mat
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


def test_run_locks_the_camera_at_the_profiles_gains_and_stops_cleanly_on_sigterm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee run` turns SIGTERM into a clean exit and opens the camera with the stored gains;
    malformed gains are one clear error."""
    import signal
    from types import SimpleNamespace

    import hardware.sources
    from hardware.frames import SourceSpecError
    from hardware.picamera import CameraSettings
    from vision.profile import Profile

    stored = CameraSettings(12000, 2.0, (1.8, 1.5))
    field = ((0.0, 0.0), (1240.0, 0.0), (1240.0, 600.0), (0.0, 600.0))  # 40 px a die: no warning
    profile = SimpleNamespace(orientation=O, camera=stored.to_dict(), corners=field)
    monkeypatch.setattr(Profile, "load", classmethod(lambda cls, path: profile))
    opened: list[object] = []

    def open_source(config: object, *, settings: object = None) -> object:
        opened.append(settings)
        raise SourceSpecError("no camera here")  # stop before any frame: the settings are what counts

    monkeypatch.setattr(hardware.sources, "open_source", open_source)
    cfg = tmp_path / "referee.toml"
    cfg.write_text(
        '[camera]\nsource = "picamera"\n[referee]\nprofile = "p.json"\nrecord = "r.sqlite"\n'
        '[signals]\noutput = "console"\n'
    )
    before = signal.getsignal(signal.SIGTERM)
    try:
        assert main(["run", "--config", str(cfg), "--no-keys"]) == 2
        assert signal.getsignal(signal.SIGTERM) not in (before, signal.SIG_DFL)
    finally:
        signal.signal(signal.SIGTERM, before)
    assert opened == [stored]
    assert "no camera here" in capsys.readouterr().err
    profile.camera = {"exposure_time_us": -5, "analogue_gain": 2.0, "colour_gains": [1.0, 1.0]}
    try:
        assert main(["run", "--config", str(cfg), "--no-keys"]) == 2
    finally:
        signal.signal(signal.SIGTERM, before)
    assert "exposure_time_us must be a positive number" in capsys.readouterr().err
    profile.camera = {}
    try:
        assert main(["run", "--config", str(cfg), "--no-keys"]) == 2
    finally:
        signal.signal(signal.SIGTERM, before)
    assert opened == [stored, None]  # no stored gains: the camera settles by itself


def test_the_example_config_loads_whole() -> None:
    """`examples/referee.toml` is what the Pi guide copies: every table of it must load."""
    from referee.config import load_config

    cfg = load_config(Path(__file__).resolve().parents[1] / "examples" / "referee.toml")
    assert cfg.profile == Path("/var/lib/bg-referee/board.profile")
    assert cfg.record == Path("/var/lib/bg-referee/record.sqlite")
    assert cfg.hardware is not None and cfg.rules.max_cube == 64 and not cfg.rules.tournament_mode
