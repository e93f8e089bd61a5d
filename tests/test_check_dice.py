"""`referee check-dice`: how a table's own dice read at its camera, graded die by die."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import pytest

from bgboard.layout import Board, ImageLayout, Orientation
from calibration.learn import calibrate
from referee.cli import main
from synthetic.render import render
from synthetic.scene import DieSpec, scene_from_layout
from vision.board_reader import BoardReader
from vision.profile import Profile

ORIENTATION = Orientation.TOP_LEFT


@pytest.fixture(scope="module")
def profile(tmp_path_factory: pytest.TempPathFactory) -> str:
    start = Board.start().layout(ORIENTATION)
    frame = render(scene_from_layout(start, noise=0.01), seed=3)
    profile = calibrate(frame.image, [tuple(c) for c in frame.field_quad], start=True)
    path = tmp_path_factory.mktemp("table") / "board.profile"
    profile.save(path)
    return str(path)


def _dice(tmp_path: Path, name: str, *dice: DieSpec) -> str:
    """A frame of the start position with ``dice`` lying on it, as a file."""
    frame = render(scene_from_layout(Board.start().layout(ORIENTATION), dice=dice, noise=0.01), seed=5)
    path = tmp_path / name
    cv2.imwrite(str(path), frame.image)
    return str(path)


def _json(capsys: pytest.CaptureFixture, *argv: str, status: int) -> list[dict]:
    assert main(["check-dice", *argv, "--json"]) == status
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_dice_that_read_surely_pass(profile: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    image = _dice(tmp_path, "a.png", DieSpec(6, 0.63, 0.45, 10.0), DieSpec(3, 0.85, 0.55, 40.0))
    assert main(["check-dice", image, "--profile", profile, "--faces", "6,3"]) == 0
    out = capsys.readouterr().out
    assert "6 sure" in out and "3 sure" in out
    assert "2 of 2 dice read surely: the referee will call" in out


def test_a_die_too_small_to_read_surely_is_unsure_and_the_check_fails(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A die of 0.6 the standard size is read below SURE_ROLL: the referee would ask or wait on it."""
    image = _dice(tmp_path, "small.png", DieSpec(6, 0.63, 0.45, 10.0, size=0.6), DieSpec(3, 0.85, 0.55, 40.0))
    image_dice, summary = _json(capsys, image, "--profile", profile, status=1)
    assert [(d["said"], d["grade"]) for d in image_dice["dice"]] == [(None, "unsure"), (None, "sure")]
    assert summary["grades"] == {"sure": 1, "unsure": 1, "wrong": 0, "not counted": 0}
    assert "1 of 2 dice read surely" in summary["summary"]


def test_a_face_the_table_names_otherwise_is_wrong_and_a_leaning_die_is_not_counted(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    image = _dice(tmp_path, "b.png", DieSpec(6, 0.63, 0.45, 10.0), DieSpec(3, 0.85, 0.55, 40.0, cocked=True))
    image_dice, summary = _json(capsys, image, "--profile", profile, "--faces", "5,3", status=1)
    assert [d["grade"] for d in image_dice["dice"]] == ["wrong", "not counted"]
    assert main(["check-dice", image, "--profile", profile, "--faces", "5,3"]) == 1
    out = capsys.readouterr().out
    assert (
        "6 wrong (0.9" in out
        and "(the table says 5)" in out
        and "? not counted (is cocked): lay it flat" in out
    )


def test_with_the_checkers_named_a_die_over_one_rests_on_it(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """--start says where the checkers stand: a die over a filled slot rests on one, whatever it shows."""
    start = Board.start().layout(ORIENTATION)
    reader = BoardReader(Profile.load(profile))
    u, v = min(((u, v) for u, v, _, _ in reader.checkers(start)), key=lambda c: abs(c[0] - 0.75))
    image = _dice(tmp_path, "on.png", DieSpec(5, u, v, 20.0), DieSpec(2, 0.75, 0.5, 60.0))
    image_dice, _ = _json(capsys, image, "--profile", profile, "--start", "--faces", "5,2", status=1)
    by_face = {d["value"]: (d["grade"], d["flags"]) for d in image_dice["dice"]}
    assert by_face[5] == ("not counted", ["on_checker"]) and by_face[2][1] == [], image_dice


def test_taught_dice_are_written_with_the_faces_named(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """--teach keeps each flat die with the face the table named, in the labelled photographs' form."""
    first = _dice(tmp_path, "a.png", DieSpec(6, 0.63, 0.45, 10.0), DieSpec(3, 0.85, 0.55, 40.0))
    second = _dice(tmp_path, "b.png", DieSpec(2, 0.63, 0.45, 10.0, size=0.6), DieSpec(5, 0.85, 0.55, 40.0))
    folder = tmp_path / "taught"
    argv = [first, second, "--profile", profile, "--faces", "6,3", "--faces", "2,5", "--teach", str(folder)]
    assert main(["check-dice", *argv]) == 1  # the small 2 is not read surely
    assert f"wrote 4 dice to {folder}" in capsys.readouterr().out
    with (folder / "labels.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["class"] for r in rows] == ["six", "three", "two", "five"]
    assert all(cv2.imread(str(folder / "images" / r["filename"])) is not None for r in rows)
    # the folder is never written over
    assert main(["check-dice", *argv]) == 2
    assert "already exists" in capsys.readouterr().err


def test_a_frame_with_other_dice_than_named_is_reported_and_the_others_are_still_read(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    good = _dice(tmp_path, "a.png", DieSpec(6, 0.63, 0.45, 10.0), DieSpec(3, 0.85, 0.55, 40.0))
    argv = ["check-dice", good, str(tmp_path / "missing.png"), good, "--profile", profile]
    assert main([*argv, "--faces", "6,3", "--faces", "1,1", "--faces", "6"]) == 2
    out, err = capsys.readouterr()
    assert out.count("6 sure") == 1, out
    assert (
        "missing.png" in err and "--faces names 1 dice, the frame shows 2 (read left to right: 6, 3)" in err
    )
    assert "Traceback" not in err


def test_with_no_frame_read_the_summary_says_so_not_that_no_dice_lay_there(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    assert main(["check-dice", str(tmp_path / "missing.png"), "--profile", profile]) == 2
    out, err = capsys.readouterr()
    assert out.strip() == "no frame was read: see the lines above, then run the check again"
    assert "missing.png" in err and "no dice found" not in out


def test_dice_are_found_against_the_frame_before_them(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """--before names the board as it lies without dice; a frame that cannot be read says so in one line."""
    before = _dice(tmp_path, "before.png")
    image = _dice(tmp_path, "a.png", DieSpec(6, 0.63, 0.45, 10.0), DieSpec(3, 0.85, 0.55, 40.0))
    image_dice, _ = _json(capsys, image, "--profile", profile, "--before", before, "--faces", "6,3", status=0)
    assert [(d["value"], d["grade"]) for d in image_dice["dice"]] == [(6, "sure"), (3, "sure")]
    assert main(["check-dice", image, "--profile", profile, "--before", str(tmp_path / "none.png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("referee check-dice: --before ") and "none.png: no such file" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--faces", "7,1"], "expected faces 1 to 6"),
        (["--faces", "1,2", "--faces", "3,4"], "--faces is given 2 times for 1 images"),
        (["--teach", "out"], "--teach needs --faces"),
    ],
)
def test_nonsense_arguments_get_one_line(
    profile: str, tmp_path: Path, capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    assert main(["check-dice", "x.png", "--profile", profile, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.shared
def test_a_real_frame_names_the_die_the_table_would_wait_on(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """test2.jpg's four dice, its profile calibrated on it: its 5, a dark die at 27 px, is read below
    SURE_ROLL; the others surely. The small-die warning comes with the verdict."""
    labels = json.loads((shared_data / "real-boards" / "labels.json").read_text())
    label = next(d for d in labels if d["image"] == "test2.jpg")
    image = shared_data / "real-boards" / "test2.jpg"
    quad = [tuple(c) for c in label["board_quad"]]
    calibrate(cv2.imread(str(image)), quad, known=ImageLayout.from_json(label)).save(tmp_path / "p.profile")
    faces = ",".join(str(d["value"]) for d in sorted(label["dice"], key=lambda d: d["center"][0]))
    argv = [str(image), "--profile", str(tmp_path / "p.profile"), "--faces", faces]
    image_dice, summary = _json(capsys, *argv, status=1)
    assert [(d["value"], d["grade"]) for d in image_dice["dice"]] == [
        (4, "sure"), (2, "sure"), (5, "unsure"), (1, "sure")
    ]  # fmt: skip
    assert summary["small_dice"].startswith("a die is about 27 px")
