"""Teaching at the table: a recorded game replayed on the board and a position set up, at the session
(readings built from boards), and `referee teach` on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_session_fixtures import O, Table, after, die, signals

from bgboard.layout import Board, Side
from referee.cli import main
from referee.journal import Journal
from referee.lesson import Replay, SetPosition
from referee.notation.matfile import parse_mat
from referee.rules_options import RuleOptions
from referee.session import Session, SessionOptions, Stage
from referee.steps import StepKind, position_at, steps
from referee.variations import TableSetup, Variation

START = Board.start()
MAT = """\
; [Player 1 "Ann"]
; [Player 2 "Bo"]

 5 point match

 Game 1
 Ann : 0                        Bo : 0
  1) 62: 24/18 13/11            61: 13/7* 8/7
  2) 51: bar/20 6/5              Doubles => 2
  3)  Takes                     66: 24/18(2) 13/7(2)
  4)  Doubles => 4                Drops
      Wins 2 points
"""
RECORD = parse_mat(MAT)


def session(lesson: Replay | SetPosition) -> Table:
    options = SessionOptions(O, RuleOptions(cubeless=True), table=TableSetup(Variation.LESSON))
    s = Session(options)
    s.lesson = lesson
    return Table(s)


def texts(says: list) -> str:
    return "\n".join(s.text for s in says)


def test_the_steps_of_a_recorded_game_announce_hits_entries_and_the_cube() -> None:
    found = steps(RECORD, 1)
    kinds = [StepKind.PLAY] * 3 + [StepKind.SAID] * 2 + [StepKind.PLAY] + [StepKind.SAID] * 2
    assert [s.kind for s in found] == [*kinds, StepKind.END]
    assert found[1].text == "dark plays 6-1: 13/7 8/7, hitting on the 7-point (light's checker to the bar)"
    assert found[2].text == "light plays 5-1: bar/20 6/5, entering on the 20-point"
    assert found[-1].text == "light wins 2 points" and found[-1].result.winner is Side.LIGHT
    assert found[1].after.light[24] == 1  # light's checker on the bar
    step = position_at(RECORD, 1, 3)
    assert (step.mover, step.dice, step.before) == (Side.LIGHT, (5, 1), found[1].after)


def test_a_replay_is_made_step_by_step_and_a_wrong_board_is_named_with_the_fix() -> None:
    found = steps(RECORD, 1)
    t = session(Replay(found, "game 1"))
    wrong_setup = Board.from_position(found[0].after.position(Side.LIGHT), Side.LIGHT)
    said = t.see(wrong_setup)
    assert not signals(said) and said[0].text.startswith("set up the starting position: ")
    said = t.see(START)
    assert signals(said) == ["READY"] and "step 1: light plays 6-2: 24/18 13/11" in said[0].text
    said = t.see(found[0].after)
    assert (
        signals(said) == ["READY"] and "step 1 is made" in texts(said) and "step 2: dark plays" in texts(said)
    )
    # dark hits but leaves light's checker off the board instead of on the bar
    light = list(found[1].after.light)
    light[24] = 0
    forgot = Board(tuple(light), found[1].after.dark)
    assert t.see(forgot, frames=20) == []  # a play being made is left alone for a while
    said = t.see(forgot, frames=15)
    assert signals(said) == ["ILLEGAL"]
    assert "step 2 is not made: light bar has 0, expected 1; to make it: light bar to 1" in said[0].text
    assert t.see(forgot, frames=10) == []  # told once
    said = t.see(found[1].after)
    assert signals(said) == ["READY"] and "step 3: light plays 5-1: bar/20 6/5" in texts(said)
    said = t.see(found[2].after)
    # the cube's actions are announced with the next play to make
    assert "dark doubles to 2; light takes; step 4: dark plays 6-6" in texts(said)
    said = t.see(found[5].after)
    assert (
        signals(said) == ["GAME_OVER"]
        and "light doubles to 4; dark drops; light wins 2 points" in said[-1].text
    )
    assert said[-1].winner is Side.LIGHT and said[-1].points == 1  # a drop: a single game, on a 2-cube
    assert t.session.stage is Stage.MATCH_OVER and t.session.lesson.done
    assert "the lesson is over" in t.session.status()


def test_a_board_the_reader_doubts_is_asked_about_never_called_wrong_and_accept_makes_it() -> None:
    found = steps(RECORD, 1)
    t = session(Replay(found))
    t.see(START)
    board = found[0].after
    # light's 18-point read as 2, but not surely: not the step's board, and no ground to call it wrong
    doubtful = {str(O.cell(Side.LIGHT, 18)): (2, 0.6, (2,))}
    said = t.see(board, doubtful=doubtful, frames=40)
    assert signals(said) == ["CANNOT_SEE"] and "press ACCEPT if it is made" in said[0].text
    said = t.press("ACCEPT")
    assert signals(said) == ["READY"] and "step 2: dark plays" in texts(said)


def test_a_pause_stops_the_lessons_clock() -> None:
    found = steps(RECORD, 1)
    t = session(Replay(found))
    t.see(START)
    wrong = after(START, Side.LIGHT, (6, 2), "13/11 13/7")
    t.see(wrong, frames=20)
    t.press("PAUSE")
    t.see(wrong, frames=40)
    t.press("PAUSE")
    assert t.see(wrong, frames=5) == []  # 2.5 s of the 3 it leaves a play being made alone
    assert signals(t.see(wrong, frames=10)) == ["ILLEGAL"]


def test_a_position_with_its_roll_given_is_played_from_the_board_as_set() -> None:
    step = position_at(RECORD, 1, 3)  # light to play 5-1 from the bar
    t = session(SetPosition(step.before, step.mover, step.dice))
    said = t.see(START)
    assert not signals(said) and said[0].text.startswith("set up the position: ")
    said = t.see(step.before)
    assert "position set" in texts(said) and signals(said) == ["ROLL_OK"]
    assert t.session.game.dice == (5, 1) and t.session.stage is Stage.PLAY
    assert t.see(step.before, frames=10) == []  # the board as set up is no play yet
    played = after(step.before, Side.LIGHT, (5, 1), "bar/20 6/5")
    said = t.see(played)
    assert signals(said) == ["READY"] and t.session.on_roll is Side.DARK


def test_a_position_without_a_roll_waits_for_the_throw() -> None:
    step = position_at(RECORD, 1, 2)
    t = session(SetPosition(step.before, Side.DARK))
    said = t.see(step.before)
    assert signals(said) == ["READY"] and "dark to roll" in said[0].text
    assert signals(t.see(step.before, [die(6, "left"), die(1, "left", shift=40)])) == ["ROLL_OK"]
    # a wrong play from the position is judged as any other
    assert signals(t.see(after(step.before, Side.DARK, (6, 1), "13/7* 8/7"))) == ["READY"]


# ---- the command line ------------------------------------------------------------------------------------


@pytest.fixture
def mat(tmp_path: Path) -> Path:
    path = tmp_path / "lesson.mat"
    path.write_text(MAT)
    return path


def test_teach_replay_print_writes_the_steps(mat: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["teach", "--replay", str(mat), "--print"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert (
        out[0] == "the lesson: game 1 of lesson.mat, Ann (light) against Bo (dark), 5-point match, score 0-0"
    )
    assert out[1] == "set up the starting position"
    assert out[3] == "  2. dark plays 6-1: 13/7 8/7, hitting on the 7-point (light's checker to the bar)"
    assert out[5] == "     dark doubles to 2" and out[-1] == "     light wins 2 points"


@pytest.mark.parametrize(
    ("position", "extra", "words"),
    [
        ("{mat}:1:3", [], "light: 1 on the 24-point, 4 on the 13-point"),
        ("{mat}:1:3", [], "1 on the bar; dark: 2 on the 24-point"),
        ("{mat}:1:3", [], "then light to play 5-1"),
        ("4HPwATDgc/ABMA", ["--on-roll", "dark", "--dice", "31"], "then dark to play 3-1"),
        ("4HPwATDgc/ABMA", [], "then light to roll"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", [], "then dark to play 5-2"),
    ],
)
def test_teach_position_print_says_which_checkers_go_where(
    mat: Path, capsys: pytest.CaptureFixture[str], position: str, extra: list[str], words: str
) -> None:
    assert main(["teach", "--position", position.format(mat=mat), *extra, "--print"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("set up the position: ") and words in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--replay", "{tmp}/none.mat", "--print"], "does not exist: name a .mat match file"),
        (["--replay", "{mat}", "--game", "3", "--print"], "there is no game 3"),
        (["--position", "{mat}:1:9", "--print"], "there is no play 9"),
        (["--position", "nonsense", "--print"], "not a Position ID, an XGID or FILE.mat:GAME:MOVE"),
        (["--position", "XGID=-b----E-C---eE:0:0:1:52:0:0:0:0:10", "--print"], "--position XGID="),
        (["--position", "4HPwATDgc/ABMA", "--dice", "77", "--print"], "cannot read the roll"),
        (["--position", "{mat}:1:3", "--on-roll", "dark", "--print"], "comes with its side on roll"),
        (["--replay", "{mat}"], "needs --config"),
        (["--replay", "{mat}", "--on-roll", "dark"], "go with a --position"),
        (["--replay", "{mat}", "--record", "{tmp}/r.sqlite"], "--record goes with --position"),
    ],
)
def test_teach_refuses_bad_input_with_one_line(
    mat: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    assert main(["teach", *(a.format(mat=mat, tmp=tmp_path) for a in argv)]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1, err


def table_config(tmp_path: Path, boards: list[tuple[Board, int]]) -> Path:
    """A `referee run` config replaying frames of a virtual table that shows each board for so many frames,
    with the profile calibrated on its starting position."""
    import cv2

    from calibration.learn import calibrate
    from synthetic.table import Shot, VirtualTable

    table = VirtualTable()
    start = table.calibration_frame()
    profile = calibrate(start.image, [(float(x), float(y)) for x, y in start.field_quad], start=True)
    profile.save(tmp_path / "profile.json")
    folder = tmp_path / "frames"
    folder.mkdir()
    times, index = [], 0
    for shot_index, (board, frames) in enumerate(boards):
        image = table.frame(Shot(board), 0, shot_index, index).image
        for _ in range(frames):
            name = f"frame_{index:04d}.png"
            cv2.imwrite(str(folder / name), image)
            times.append(f"{name} {index / 10:.1f}")
            index += 1
    (folder / "timestamps.txt").write_text("\n".join(times) + "\n")
    config = tmp_path / "teach.toml"
    config.write_text(
        f'[camera]\nsource = "replay:{folder}"\n[signals]\noutput = "console"\n'
        f'[referee]\nprofile = "profile.json"\nrecord = "unused.sqlite"\nsettle_frames = 2\n'
    )
    return config


def test_teach_replays_a_game_through_the_frame_loop_of_referee_run(
    mat: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Frames of a virtual table (the teacher makes the first two plays, the second first wrongly),
    replayed from a folder as `referee run` replays one, read by the real readers."""
    found = steps(RECORD, 1)
    light = list(found[1].after.light)
    light[24] = 0  # the hit checker left beside the board
    forgot = Board(tuple(light), found[1].after.dark)
    config = table_config(tmp_path, [(START, 6), (found[0].after, 6), (forgot, 40), (found[1].after, 6)])
    assert main(["teach", "--config", str(config), "--replay", str(mat), "--to", "2", "--no-keys"]) == 0
    out = capsys.readouterr().out
    assert "step 1 is made" in out and "step 2 is not made: light bar has 0, expected 1" in out
    assert "step 2 is made" in out and "the lesson stops after play 2. The lesson is over" in out
    assert out.index("step 2 is not made") < out.index("step 2 is made")
    assert not (tmp_path / "unused.sqlite").exists()  # a lesson never writes the config's record


def test_teach_position_referees_from_the_board_and_keeps_its_own_record(
    mat: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    step = position_at(RECORD, 1, 3)  # light to play 5-1 from the bar
    played = after(step.before, Side.LIGHT, (5, 1), "bar/20 6/5")
    config = table_config(tmp_path, [(START, 6), (step.before, 10), (played, 6)])
    record = tmp_path / "lesson.sqlite"
    argv = [
        "teach",
        "--config",
        str(config),
        "--position",
        f"{mat}:1:3",
        "--record",
        str(record),
        "--no-keys",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("set up the position: light: 1 on the 24-point")
    # the starting position on the table first: what is still wrong is named
    assert "set up the position: light bar has 0, expected 1; light 24-point has 2, expected 1" in out
    assert "position set" in out and "light plays 5-1: bar/20 6/5" in out and "legal. dark to roll" in out
    assert not (tmp_path / "unused.sqlite").exists()
    with Journal.reader(record) as journal:
        assert journal.matches()[0].practice
        kinds = [e.kind for e in journal.events(journal.games()[0].id)]
    assert "play" in kinds and "illegal" not in kinds
    assert main(argv) == 2 and "already exists" in capsys.readouterr().err
