"""The demonstration: its script is a real game, and the real pipeline referees it."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

from bgboard.layout import Board, Side
from hardware.signals import Signal
from referee.cli import main
from referee.game import Game
from referee.narration import describe_play
from referee.scoring import Outcome
from synthetic.demo_game import PLAN, demo_game
from synthetic.players import choose

REFEREE = [sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())"]


def test_the_scripted_game_is_legal_and_shows_everything() -> None:
    game = Game(money=False)
    game.opening_roll(*PLAN[0][0])
    lines: list[str] = []
    board = Board.start()
    for dice, text in PLAN:
        mover = game.on_roll
        if game.dice is None:
            game.roll(*dice)
        play = choose(board, mover, dice, text)
        lines += describe_play(mover, dice, board.position(mover), play)
        assert game.play(play).legal
        board = game.board
    assert game.over and game.result.winner is Side.LIGHT and game.result.outcome is Outcome.GAMMON
    text = "\n".join(lines)
    for wanted in ("hits the blot", "enters from the bar", "may now bear off", "bears off"):
        assert wanted in text
    shots = demo_game()
    assert [s.expect for s in shots].count(Signal.ILLEGAL) == 1
    assert any(s.hands and s.dice for s in shots)  # hands over the board while the dice lie there


# the demo through the real pipeline, and its replay: tests/test_replay_gpio.py


@pytest.mark.parametrize("flag", ["--record", "--mat"])
def test_demo_into_a_place_that_cannot_be_written_fails_before_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        target = locked / ("r.sqlite" if flag == "--record" else "g.mat")
        if os.geteuid() == 0:  # root writes anywhere: a path under a file cannot be made by anyone
            (tmp_path / "file").write_text("")
            target = tmp_path / "file" / target.name
        assert main(["demo", flag, str(target)]) == 2
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert len(err) == 1 and str(target.parent) in err[0]
        assert "frames" not in captured.out  # no game was played
    finally:
        locked.chmod(0o755)


def test_demo_with_no_temporary_folder_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "file"))  # a folder no one can make in
    assert main(["demo", "--turns", "1"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "cannot make a folder for the record" in err[0] and "--record" in err[0]
    assert "frames" not in captured.out  # no game was played
