"""The demonstration: its script is a real game, and the real pipeline referees it."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from referee.demo_script import PLAN, choose, demo_game
from referee.game import Game, Outcome
from referee.layout import Board, Side
from referee.narration import describe_play

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
    assert [s.expect for s in shots].count("ILLEGAL") == 1
    assert any(s.hands and s.dice for s in shots)  # hands over the board while the dice lie there


def test_demo_start_through_the_real_pipeline(tmp_path: Path) -> None:
    from referee.cli.demo import run_demo
    from referee.journal import Journal

    out = io.StringIO()
    result = run_demo(tmp_path / "rec.sqlite", shots=demo_game(turns=2), out=out, save_frames=tmp_path / "f")
    log = out.getvalue()
    assert "set up the starting position: light 13-point has 4, expected 5" in log
    # setup, the cocked die thrown again, the opening roll read, its play judged legal (when the
    # reader leaves doubt the referee may ask first, amber, and the players confirm with ACCEPT)
    asked = [s for s in result.signals if s != "CANNOT_SEE"]
    assert asked[:4] == ["READY", "REROLL", "ROLL_OK", "READY"], log
    assert result.signals.count("CANNOT_SEE") <= result.confirmed
    assert "ILLEGAL" not in result.signals
    assert "light plays 6-4: 24/14" in log
    with Journal(tmp_path / "rec.sqlite") as journal:
        kinds = [e.kind for e in journal.events(journal.games()[0].id)]
    assert kinds[:2] == ["setup", "reroll"] and "play" in kinds
    frames = sorted((tmp_path / "f" / "frames").glob("*.png"))
    assert len(frames) == result.frames
    assert (tmp_path / "f" / "replay.toml").is_file() and (tmp_path / "f" / "profile.json").is_file()
    if result.dice_from_truth:
        pytest.skip("the dice models are not installed: a replay cannot read the dice the demo was given")
    replay = subprocess.run(
        [*REFEREE, "run", "--config", str(tmp_path / "f" / "replay.toml"), "--no-keys"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert replay.returncode == 0, replay.stderr
    said = [line.strip() for line in replay.stdout.splitlines() if line.startswith("  ")]
    demo_said = [s.text for s in result.says]
    assert said[: len(demo_said)] == demo_said
