"""`referee read --position POS --on-roll SIDE`: what the referee would call about the throw in a frame."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from bgboard.layout import Board, Half, ImageLayout, Orientation, Row, Side
from bgboard.position import START
from calibration.learn import calibrate
from referee.cli import main
from referee.notation.position_id import encode_position_id
from synthetic.render import render
from synthetic.scene import DieSpec, scene_from_layout
from vision.board_reader import BoardReader

ORIENTATION = Orientation.TOP_LEFT


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BoardReader]:
    start = Board.start().layout(ORIENTATION)
    frame = render(scene_from_layout(start, noise=0.01), seed=3)
    profile = calibrate(frame.image, [tuple(c) for c in frame.field_quad], start=True)
    path = tmp_path_factory.mktemp("table") / "board.profile"
    profile.save(path)
    return path, BoardReader(profile)


def _throw(tmp_path: Path, dice: tuple[DieSpec, ...]) -> str:
    start = Board.start().layout(ORIENTATION)
    frame = render(scene_from_layout(start, dice=dice, noise=0.01), seed=5)
    path = tmp_path / "throw.png"
    cv2.imwrite(str(path), frame.image)
    return str(path)


def _read(capsys: pytest.CaptureFixture, *argv: str) -> dict:
    assert main(["read", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _call(capsys: pytest.CaptureFixture, *argv: str) -> dict:
    return _read(capsys, *argv)["call"]


def _right_half(side: Side) -> tuple[float, float]:
    return (0.6, 0.9) if ORIENTATION.throwing_half(side) is Half.RIGHT else (0.1, 0.4)


def test_a_good_throw_is_called_a_roll(
    table: tuple[Path, BoardReader], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    profile, _ = table
    lo, hi = _right_half(Side.LIGHT)
    image = _throw(tmp_path, (DieSpec(6, lo + 0.03, 0.45, 10.0), DieSpec(3, hi - 0.05, 0.55, 40.0)))
    start_id = encode_position_id(START)
    call = _call(capsys, image, "--profile", str(profile), "--position", start_id, "--on-roll", "light")
    assert call["kind"] == "roll" and sorted(call["dice"]) == [3, 6], call
    # the same frame with dark to throw: the dice lie in the other half, a throw again
    call = _call(capsys, image, "--profile", str(profile), "--position", start_id, "--on-roll", "dark")
    assert call["kind"] == "reroll" and "right-hand half" in call["reason"], call


def test_a_die_over_a_filled_slot_rests_on_a_checker_and_one_beside_it_does_not(
    table: tuple[Path, BoardReader], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """On a checker is geometry first: the confirmed position says which slots are filled."""
    profile, reader = table
    start = Board.start().layout(ORIENTATION)
    lo, hi = _right_half(Side.LIGHT)
    middle = 0.75 if lo > 0.5 else 0.25
    u, v = min(((u, v) for u, v, _, _ in reader.checkers(start)), key=lambda c: abs(c[0] - middle))
    layout = tmp_path / "start.json"
    layout.write_text(json.dumps(start.to_json()))
    on = _throw(tmp_path, (DieSpec(5, u, v, 20.0), DieSpec(2, middle, 0.5, 60.0)))
    read = _read(capsys, on, "--profile", str(profile), "--position", str(layout), "--on-roll", "light")
    assert read["call"]["kind"] == "reroll" and "checker" in read["call"]["reason"], read["call"]
    assert {d["value"]: "on_checker" in d["flags"] for d in read["dice"]} == {5: True, 2: False}, read["dice"]
    # with dice on checkers allowed at this table, the same throw is a roll
    call = _call(
        capsys, on, "--profile", str(profile), "--position", str(layout), "--on-roll", "light",
        "--on-checker-valid",
    )  # fmt: skip
    assert call["kind"] == "roll" and sorted(call["dice"]) == [2, 5], call


def test_position_and_on_roll_go_together(
    table: tuple[Path, BoardReader], capsys: pytest.CaptureFixture
) -> None:
    profile, _ = table
    assert main(["read", "x.png", "--profile", str(profile), "--on-roll", "light"]) == 2
    assert "--position and --on-roll go together" in capsys.readouterr().err
    assert (
        main(["read", "x.png", "--profile", str(profile), "--position", "nonsense", "--on-roll", "dark"]) == 2
    )
    err = capsys.readouterr().err
    assert "nonsense" in err and "Position ID" in err and "Traceback" not in err


@pytest.mark.shared
def test_a_real_throw_is_called_with_its_numbers(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """The real frame of one camera, its labelled position confirmed: the roll as the labels have it."""
    label = next(d for d in json.loads((shared_data / "real-boards" / "labels.json").read_text())
                 if d["image"] == "test10.jpg")  # fmt: skip
    image = shared_data / "real-boards" / "test10.jpg"
    profile = calibrate(cv2.imread(str(image)), [tuple(c) for c in label["board_quad"]],
                        known=ImageLayout.from_json(label))  # fmt: skip
    profile.save(tmp_path / "p.profile")
    layout = tmp_path / "position.json"
    layout.write_text(json.dumps({k: label[k] for k in ("top", "bottom", "bar")}))
    right = profile.orientation.throwing_half(Side.LIGHT) is Half.RIGHT
    mid = sum(x for x, _ in label["board_quad"]) / 4
    in_right = all(d["center"][0] > mid for d in label["dice"])
    roller = "light" if right == in_right else "dark"
    argv = [
        str(image),
        "--profile",
        str(tmp_path / "p.profile"),
        "--position",
        str(layout),
        "--on-roll",
        roller,
    ]
    call = _call(capsys, *argv)
    assert call["kind"] == "roll" and sorted(call["dice"]) == sorted(d["value"] for d in label["dice"])


def test_only_what_arrived_since_the_turn_began_is_a_die(
    table: tuple[Path, BoardReader], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A die-like thing that lay there before the throw (a die left on the frame, a sticker) is the
    table's, not the throw's: with the frame the turn began with (--before) only the new dice count."""
    profile, _ = table
    start = Board.start().layout(ORIENTATION)
    lo, hi = _right_half(Side.LIGHT)
    left_over = DieSpec(4, (lo + hi) / 2, 0.3, 30.0)
    before = render(scene_from_layout(start, dice=(left_over,), noise=0.01), seed=5)
    thrown = render(
        scene_from_layout(
            start,
            dice=(left_over, DieSpec(6, lo + 0.03, 0.55, 10.0), DieSpec(1, hi - 0.05, 0.7, 40.0)),
            noise=0.01,
        ),
        seed=5,
    )
    cv2.imwrite(str(tmp_path / "before.png"), before.image)
    cv2.imwrite(str(tmp_path / "throw.png"), thrown.image)
    argv = [str(tmp_path / "throw.png"), "--profile", str(profile), "--position", encode_position_id(START)]
    without = _call(capsys, *argv, "--on-roll", "light")
    assert without["kind"] == "wait" and "3 dice" in without["reason"], without
    call = _call(capsys, *argv, "--on-roll", "light", "--before", str(tmp_path / "before.png"))
    assert call["kind"] == "roll" and sorted(call["dice"]) == [1, 6], call


def test_a_die_past_a_stack_laid_in_two_layers_lies_on_the_board(
    table: tuple[Path, BoardReader], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Six checkers on a point: this table lays the sixth over the first five (a second layer), so a die
    where a sixth in the column would lie rests on the board. The settled frame the turn began with
    (``--before``) shows that slot empty; without it the geometry cannot tell, and the flags network,
    looking at the die, sees it on the board."""
    profile, reader = table
    start = Board.start().layout(ORIENTATION)
    column = start.top.index(5)  # light's five, laid as six by taking one of its two from the far end
    top, bottom = list(start.top), list(start.bottom)
    top[column], bottom[0] = 6, bottom[0] - 1
    six = ImageLayout(tuple(top), tuple(bottom), 0, 0)
    before = tmp_path / "before.png"
    cv2.imwrite(str(before), render(scene_from_layout(six, noise=0.01), seed=5).image)
    g = reader.profile.geometry
    x, y = g.slot_center(Row.TOP, column, 5)  # the sixth slot of the column
    die = DieSpec(4, x / g.width, y / g.height, 20.0)
    thrown = render(scene_from_layout(six, dice=(die,), noise=0.01), seed=5)
    image = tmp_path / "thrown.png"
    cv2.imwrite(str(image), thrown.image)
    position = tmp_path / "six.json"
    position.write_text(json.dumps(six.to_json()))
    argv = ("--profile", str(profile), "--position", str(position), "--on-roll", "light")
    (die,) = _read(capsys, str(image), *argv, "--before", str(before))["dice"]
    assert die["value"] == 4 and "on_checker" not in die["flags"], die
    (die,) = _read(capsys, str(image), *argv)["dice"]
    assert die["value"] == 4 and "on_checker" not in die["flags"], die
