"""Killing the referee in the middle of a game loses nothing: a restart resumes at the same position."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from test_session_fixtures import O, Table, die, signals

from bgboard.layout import Board, Side
from referee.journal import Journal
from referee.session import Session, SessionOptions, Stage
from synthetic.demo_game import PLAN
from synthetic.players import choose

TESTS = Path(__file__).resolve().parent


def boards() -> list[Board]:
    """The position after each play of the demo game, the start first."""
    out = [Board.start()]
    mover = Side.LIGHT
    for dice, text in PLAN:
        play = choose(out[-1], mover, dice, text)
        out.append(Board.from_position(play.result, mover))
        mover = mover.other
    return out


def play_turn(t: Table, i: int, seq: list[Board], rolled: bool = False) -> None:
    """Turn ``i`` of the demo game (0 = the opening roll), from the dice to the verdict."""
    dice = PLAN[i][0]
    if i == 0:
        t.see(seq[0])
        t.see(seq[0], [die(dice[0], "right"), die(dice[1], "left")])
    elif not rolled:
        half = O.throwing_half(Side.LIGHT if i % 2 == 0 else Side.DARK)
        t.see(seq[i], [die(dice[0], half, shift=3 * i), die(dice[1], half, shift=40 + 3 * i)])
    assert signals(t.see(seq[i + 1]))[-1] in ("READY", "GAME_OVER")


CHILD = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {tests!r})
    from test_resume import boards, play_turn
    from test_session_fixtures import O, Table
    from referee.journal import Journal
    from referee.session import Session, SessionOptions
    seq = boards()
    table = Table(Session(SessionOptions(O), Journal(sys.argv[1])))
    for i in range(len(seq) - 1):
        play_turn(table, i, seq)
        print("done", i, flush=True)
        time.sleep(0.05)
    """
)


def test_sigkill_mid_game_then_resume(tmp_path: Path) -> None:
    record = tmp_path / "record.sqlite"
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(tests=str(TESTS)))
    child = subprocess.Popen([sys.executable, str(script), str(record)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    for line in child.stdout:
        if line.startswith("done 5"):
            break
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    time.sleep(0.1)

    journal = Journal(record)
    game_id = journal.games()[0].id
    before = [(e.id, e.kind, e.text) for e in journal.events(game_id)]
    plays = sum(1 for e in journal.events(game_id) if e.kind == "play")
    assert plays >= 6  # at least the turns the child reported done
    seq = boards()
    session = Session.resume(SessionOptions(O), journal)
    assert session.board == seq[plays]
    assert session.on_roll is (Side.LIGHT if plays % 2 == 0 else Side.DARK)
    t = Table(session)
    # carry on where the record stopped: mid-turn (dice read) or before the next roll
    play_turn(t, plays, seq, rolled=session.stage is Stage.PLAY)
    for i in range(plays + 1, len(seq) - 1):
        play_turn(t, i, seq)
    assert session.game.over and session.score == [2, 0]
    after = [(e.id, e.kind, e.text) for e in journal.events(game_id)]
    assert after[: len(before)] == before  # nothing recorded before the kill was lost or changed
    assert journal.games()[0].winner == "light"
