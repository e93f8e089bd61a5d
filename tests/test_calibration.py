"""Calibration: corners, markers, the profile file, and learning a board from one known frame."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from conftest import one_line_error

from bgboard.layout import Board, ImageLayout, Orientation
from calibration.field import FieldNotFound, find_field, find_markers, marker_sheet, parse_corners
from calibration.learn import CalibrationError, calibrate, default_orientation
from referee.cli import main
from vision.board_reader import BoardReader
from vision.checkers import AMBIGUOUS_RATIO, EMPTY, LIGHT, EmptyField
from vision.dice import find_dice
from vision.dice_verdict import CLEAR_DIE_PX
from vision.profile import Profile, ProfileError


def test_parse_corners_reads_four_pairs() -> None:
    assert parse_corners("1,2 30.5,2 30,40 1,40") == [(1.0, 2.0), (30.5, 2.0), (30.0, 40.0), (1.0, 40.0)]


@pytest.mark.parametrize("text", ["1,2 3,4 5,6", "a,b c,d e,f g,h", "1,2 300,2 300,200 1,200 5,5"])
def test_parse_corners_rejects_nonsense(text: str) -> None:
    with pytest.raises(ValueError, match="corners"):
        parse_corners(text)


def test_parse_corners_rejects_crossed_order() -> None:
    with pytest.raises(ValueError, match="convex"):
        parse_corners("0,0 300,200 300,0 0,200")


def test_profile_round_trip(tmp_path: Path) -> None:
    p = Profile.example()
    p.camera = {"exposure_us": 12000, "gains": [1.5, 1.2]}
    p.save(tmp_path / "a.profile")
    q = Profile.load(tmp_path / "a.profile")
    assert q.to_json() == p.to_json()
    assert q.camera["gains"] == [1.5, 1.2]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "not valid JSON"),
        ('{"format": "something else"}', "not a calibration profile"),
        ('{"format": "bg-referee-calibration", "version": 99}', "version 99"),
    ],
)
def test_bad_profiles_name_the_problem_and_the_fix(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.profile"
    path.write_text(text)
    with pytest.raises(ProfileError, match=problem) as e:
        Profile.load(path)
    assert "referee calibrate" in str(e.value)


def test_fixtures_round_trip_and_damaged_ones_are_refused(tmp_path: Path) -> None:
    p = Profile.example()
    p.fixtures = ((120.5, 88.0),)
    p.save(tmp_path / "a.profile")
    assert Profile.load(tmp_path / "a.profile").fixtures == ((120.5, 88.0),)
    data = p.to_json()
    del data["fixtures"]  # a profile from before fixtures has none
    (tmp_path / "old.profile").write_text(json.dumps(data))
    assert Profile.load(tmp_path / "old.profile").fixtures == ()
    data["fixtures"] = [[1.0]]
    (tmp_path / "bad.profile").write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="damaged"):
        Profile.load(tmp_path / "bad.profile")


def test_damaged_model_is_refused(tmp_path: Path) -> None:
    data = Profile.example().to_json()
    data["model"]["labels"] = data["model"]["labels"][:-1]
    path = tmp_path / "damaged.profile"
    path.write_text(json.dumps(data))
    with pytest.raises(ProfileError, match="damaged"):
        Profile.load(path)


def test_profile_refuses_frames_of_another_size() -> None:
    with pytest.raises(ProfileError, match="640x480"):
        Profile.example().check_frame(1280, 720)


def test_markers_give_the_inner_corners() -> None:
    sheet = np.full((600, 800), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    places = {0: (100, 80), 1: (620, 80), 2: (620, 440), 3: (100, 440)}  # top-left of each marker
    for i, (x, y) in places.items():
        sheet[y : y + 80, x : x + 80] = cv2.aruco.generateImageMarker(dictionary, i, 80)
    corners = find_markers(cv2.cvtColor(sheet, cv2.COLOR_GRAY2BGR))
    assert corners is not None
    want = [(179, 159), (620, 159), (620, 440), (179, 440)]
    assert np.allclose(corners, want, atol=2.5)


def test_no_field_found_says_to_pass_corners() -> None:
    with pytest.raises(FieldNotFound, match="--corners"):
        find_field(np.full((200, 300, 3), 128, np.uint8))


def test_a_plain_quadrilateral_is_no_field() -> None:
    """No points, no bar: a tray, a book or a board's outer frame is not taken for the playing field."""
    img = np.full((400, 600, 3), 40, np.uint8)
    cv2.fillConvexPoly(img, np.array([[100, 60], [500, 70], [520, 350], [90, 340]]), (200, 220, 230))
    with pytest.raises(FieldNotFound, match="--corners"):
        find_field(img)


def field_error(found: list[tuple[float, float]] | None, truth: object) -> float | None:
    """The worst corner's distance from the true one, in field widths (None: refused)."""
    if found is None:
        return None
    t = np.asarray(truth, dtype=float)
    return float(np.abs(np.asarray(found) - t).max() / np.linalg.norm(t[1] - t[0]))


def test_the_outline_is_the_playing_field_on_the_real_photographs(shared_data: Path) -> None:
    """The clean frames of both cameras give the field (not half of it: frame0.jpg gave its left half);
    hands over the rim, the oblique product photo with its trays and dice cups and the empty board at a
    steep angle are refused (markers or --corners then), never taken wrong."""
    from calibration.field import find_outline

    boards = shared_data / "real-boards"
    labels = {e["image"]: e for e in json.loads((boards / "labels.json").read_text())}
    errors = {
        name: field_error(find_outline(cv2.imread(str(boards / name))), label["board_quad"])
        for name, label in labels.items()
    }
    assert errors["frame0.jpg"] is not None and errors["frame0.jpg"] < 0.015
    assert errors["test10.jpg"] is not None and errors["test10.jpg"] < 0.015
    assert all(e is None or e < 0.015 for e in errors.values()), errors


def test_the_outline_is_the_playing_field_on_rendered_boards() -> None:
    """The demo's start frame gave the board's outer frame with its trays; now its field. Under random
    club cameras (tilted up to 20 degrees) of every style the outline found is the field or none."""
    from calibration.field import find_outline
    from synthetic.random_scenes import club
    from synthetic.styles import STYLES
    from synthetic.table import VirtualTable

    start = VirtualTable(seed=0).calibration_frame()
    error = field_error(find_outline(start.image), start.field_quad)
    assert error is not None and error < 0.01
    rng = np.random.default_rng(7)
    found = []
    for style in list(STYLES)[:5]:
        for _ in range(4):
            c = club(style, rng)
            e = field_error(find_outline(c.start.image), c.corners)
            assert e is None or e < 0.02, (style, e)  # before: 15-60 % off (the outer frame) on all 16
            found.append(e is not None)
    assert sum(found) >= 5  # 8 of these 20 are found; the others are refused, none is taken wrong


def test_marker_sheet_holds_four_markers() -> None:
    corners = find_markers(cv2.cvtColor(marker_sheet(1600, 300), cv2.COLOR_GRAY2BGR))
    assert corners is not None


def test_default_orientation_comes_from_a_start_layout() -> None:
    assert default_orientation(Board.start().layout(Orientation.TOP_LEFT)) is Orientation.TOP_LEFT
    assert default_orientation(ImageLayout((0,) * 12, (0,) * 12)) is Orientation.BOTTOM_RIGHT


def test_calibrate_refuses_a_grey_image() -> None:
    with pytest.raises(CalibrationError):
        calibrate(np.zeros((100, 100), np.uint8), [(0, 0), (99, 0), (99, 99), (0, 99)], start=True)


def _label(shared: Path, name: str) -> dict:
    return next(
        d for d in json.loads((shared / "real-boards" / "labels.json").read_text()) if d["image"] == name
    )


def _read(shared: Path, profile: Profile, name: str) -> dict:
    return (
        BoardReader(profile, use_dice=False)
        .read(cv2.imread(str(shared / "real-boards" / name)), dice=())
        .to_json()
    )


@pytest.mark.shared
def test_frame0_profile_reads_itself_and_flags_the_hands(shared_data: Path) -> None:
    label = _label(shared_data, "frame0.jpg")
    frame = cv2.imread(str(shared_data / "real-boards" / "frame0.jpg"))
    profile = calibrate(frame, [tuple(c) for c in label["board_quad"]], known=ImageLayout.from_json(label))
    got = _read(shared_data, profile, "frame0.jpg")
    assert (got["top"], got["bottom"], got["bar"]) == (label["top"], label["bottom"], label["bar"])
    assert not got["occluded"]
    for name in ("frame2.jpg", "frame4.jpg"):
        assert _read(shared_data, profile, name)["occluded"], name


@pytest.mark.shared
def test_oblique_start_position_finds_its_orientation(shared_data: Path) -> None:
    label = _label(shared_data, "test2.jpg")
    frame = cv2.imread(str(shared_data / "real-boards" / "test2.jpg"))
    profile = calibrate(frame, [tuple(c) for c in label["board_quad"]], start=True)
    assert profile.orientation is Orientation.TOP_RIGHT
    got = _read(shared_data, profile, "test2.jpg")
    assert (got["top"], got["bottom"]) == (label["top"], label["bottom"])


@pytest.mark.shared
def test_checkers_that_look_like_dice_are_not_dice(shared_data: Path) -> None:
    """test10's gold checkers carry a swirl the dice reader takes for a die (one on the bar, "cocked"):
    the board reader, which knows what its calibration frame showed and which slots plainly show a
    checker, keeps the two real dice only."""
    label = _label(shared_data, "test10.jpg")
    frame = cv2.imread(str(shared_data / "real-boards" / "test10.jpg"))
    profile = calibrate(frame, [tuple(c) for c in label["board_quad"]], known=ImageLayout.from_json(label))
    reader = BoardReader(profile)
    assert reader._find_dice is not None
    # the dice reader alone, knowing nothing of the board, sees the checkers' swirls as dice
    assert len(find_dice(frame, field_quad=np.asarray(profile.corners, dtype=np.float64))) > 2
    dice = reader.read(frame).dice
    want = sorted((d["value"], d["center"]) for d in label["dice"])
    assert len(dice) == len(want)
    for d, (value, (x, y)) in zip(sorted(dice, key=lambda d: d.value or 0), want, strict=True):
        assert d.value == value and abs(d.center[0] - x) < 10 and abs(d.center[1] - y) < 10


@pytest.mark.shared
def test_cli_calibrate_and_read(shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    label = _label(shared_data, "test10.jpg")
    known = tmp_path / "known.json"
    known.write_text(json.dumps({k: label[k] for k in ("top", "bottom", "bar")}))
    image = str(shared_data / "real-boards" / "test10.jpg")
    corners = " ".join(f"{x},{y}" for x, y in label["board_quad"])
    profile = str(tmp_path / "p.profile")
    assert main(["calibrate", image, "--corners", corners, "--known", str(known), "-o", profile]) == 0
    # the tournament camera gives a die 20 px: the table is told that dice read surely from CLEAR_DIE_PX
    out = capsys.readouterr().out
    assert "a die is about 20 px across in these frames" in out
    assert f"real dice are read surely from {CLEAR_DIE_PX} px" in out
    assert f"referee check-dice FRAME... --profile {profile}" in out
    assert main(["read", image, "--profile", profile, "--json", "--no-dice"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["image"] == image
    assert (got["top"], got["bottom"], got["bar"]) == (label["top"], label["bottom"], {"light": 0, "dark": 2})
    assert set(got) >= {"off", "confidence", "occluded", "unreadable_points", "dice", "elapsed_ms"}


@pytest.mark.shared
def test_cli_calibrate_is_quiet_about_dice_a_camera_gives_enough_pixels(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    label = _label(shared_data, "frame0.jpg")
    known = tmp_path / "known.json"
    known.write_text(json.dumps({k: label[k] for k in ("top", "bottom", "bar")}))
    # the same table seen with half as many pixels again across it: a die 32 px, not 21
    photo = cv2.imread(str(shared_data / "real-boards" / "frame0.jpg"))
    image = str(tmp_path / "nearer.png")
    cv2.imwrite(image, cv2.resize(photo, None, fx=1.5, fy=1.5, interpolation=cv2.INTER_CUBIC))
    corners = " ".join(f"{1.5 * x},{1.5 * y}" for x, y in label["board_quad"])
    profile = str(tmp_path / "p.profile")
    assert main(["calibrate", image, "--corners", corners, "--known", str(known), "-o", profile]) == 0
    out = capsys.readouterr().out
    assert out.startswith("calibrated ") and "warning" not in out


def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image")
    assert main(["calibrate", str(junk), "--start", "-o", str(tmp_path / "p")]) == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.profile"
    bad.write_text("{}")
    assert main(["read", str(junk), "--profile", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "not a calibration profile" in err and "referee calibrate" in err


def test_cli_markers_writes_png_and_pdf(tmp_path: Path) -> None:
    assert main(["markers", "-o", str(tmp_path / "m.png"), "--size", "800"]) == 0
    assert find_markers(cv2.imread(str(tmp_path / "m.png"))) is not None
    assert main(["markers", "-o", str(tmp_path / "m.pdf"), "--size", "800"]) == 0
    assert (tmp_path / "m.pdf").read_bytes().startswith(b"%PDF-1.4")


@pytest.mark.shared
def test_empty_board_reads_empty(shared_data: Path) -> None:
    label = _label(shared_data, "test4.jpg")
    frame = cv2.imread(str(shared_data / "real-boards" / "test4.jpg"))
    profile = calibrate(frame, [tuple(c) for c in label["board_quad"]], known=ImageLayout.from_json(label))
    got = _read(shared_data, profile, "test4.jpg")
    assert got["top"] == [0] * 12 and got["bottom"] == [0] * 12 and not got["occluded"]


@pytest.mark.shared
def test_start_is_refused_on_a_frame_that_is_not_the_start(shared_data: Path) -> None:
    label = _label(shared_data, "frame0.jpg")
    frame = cv2.imread(str(shared_data / "real-boards" / "frame0.jpg"))
    with pytest.raises(CalibrationError, match="does not look like the starting position"):
        calibrate(frame, [tuple(c) for c in label["board_quad"]], start=True)


def test_empty_field_decides_clear_slots_and_round_trips() -> None:
    """A slot like its empty self is empty; one far from it may hold a checker, never surely on its word."""
    image = np.full((40, 60, 3), 90, np.uint8)
    field = EmptyField(image, np.array([5.0, 5.0, np.nan]), np.array([20.0, 20.0, np.nan]))
    frame = image.copy()
    frame[5:15, 35:45] = (20, 200, 20)  # something green over the second slot
    diffs = field.differences(frame, np.array([[10.0, 10.0], [40.0, 10.0], [40.0, 10.0]]), 3.0, 0)
    assert diffs[0] < 5 < 20 < diffs[1]
    adjusted = field.adjust(np.array([[2.0, 1.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]), diffs)
    assert adjusted[0].argmin() == EMPTY and adjusted[0, 1] > AMBIGUOUS_RATIO * adjusted[0, EMPTY]
    # far from its empty self, a slot the model calls empty keeps its call but is doubtful
    assert adjusted[1].argmin() == EMPTY and field.doubtful(adjusted, diffs).tolist() == [False, True, False]
    assert adjusted[2].argmin() == EMPTY  # no decision where calibration could not separate the two
    sure_light = field.adjust(np.array([[9.0, 1.0, 3.0]] * 3), diffs)
    assert sure_light[0].argmin() == LIGHT  # it settles doubtful calls, it does not overrule a sure one
    again = EmptyField.from_json(field.to_json())
    assert np.array_equal(again.image, image) and np.isnan(again.full_above[2])
    with pytest.raises(ValueError):
        EmptyField.from_json({**field.to_json(), "png": "bm90IGEgcG5n"})


def test_checkers_pasted_on_the_bar_are_labelled_where_they_lie() -> None:
    from calibration.augment import cut_checker
    from calibration.learn import DROP, KEEP, _paste_bar
    from vision.board_reader import SlotGrid
    from vision.geometry import BoardGeometry

    g = BoardGeometry(600, 500, 280, 320, 40.0, 20.0, 20.0, 0.0, 500.0)
    grid = SlotGrid(g, 10)
    img = np.full((520, 620, 3), 90, np.uint8)
    cut = cut_checker(np.full((520, 620, 3), 240, np.uint8), (100, 100), 20, 20)
    labels = _paste_bar(img, grid, {LIGHT: [cut]}, [LIGHT], np.random.default_rng(1))
    assert (labels == LIGHT).any(), "some seed pastes at least one checker"
    for i in np.flatnonzero(labels == LIGHT):
        x, y = grid.bar_nominal[i]
        assert img[int(y) + 10, int(x) + 10].mean() > 200  # the candidate sits on the pasted checker
    for i in np.flatnonzero(labels == KEEP):
        x, y = grid.bar_nominal[i]
        assert img[int(y) + 10, int(x) + 10].mean() < 100
    assert set(np.unique(labels)) <= {KEEP, DROP, LIGHT}


def test_the_bar_ends_where_its_colour_does_not_where_the_columns_stop_changing() -> None:
    from vision.geometry import find_bar

    lab = np.full((200, 320, 3), 200, np.uint8)  # bare field
    lab[np.arange(200) % 8 < 4, :] = 60  # points cross every column but the bar's and bare strips
    lab[:, 148:172] = 90  # the bar
    lab[:, 172:178, :] = 200  # an empty point's triangle leaves bare field beside the bar
    lab[:, 142:148, :] = 200
    lab[:, 160] = 120  # a seam down the bar's middle
    assert find_bar(lab) == (148.0, 172.0)


@pytest.fixture(scope="module")
def start_frame(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The demo's start frame as a JPEG, and its field corners as `--corners` takes them."""
    import cv2

    from synthetic.table import VirtualTable

    shot = VirtualTable(seed=0).calibration_frame()
    path = tmp_path_factory.mktemp("start") / "start.jpg"
    cv2.imwrite(str(path), shot.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return path, " ".join(f"{x:.0f},{y:.0f}" for x, y in shot.field_quad)


def calibrate_refused(
    capsys: pytest.CaptureFixture[str], argv: list[str], profile: Path, *words: str
) -> None:
    before = profile.read_bytes()
    assert main(["calibrate", *argv, "-o", str(profile)]) == 2
    one_line_error(capsys, *words)
    assert profile.read_bytes() == before  # a refused calibration never replaces a profile


def test_calibration_told_the_wrong_position_is_refused(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    boards = shared_data / "real-boards"
    labels = {e["image"]: e for e in json.loads((boards / "labels.json").read_text())}
    profile = tmp_path / "board.profile"
    profile.write_text("the working profile")
    wrong = tmp_path / "other.json"
    wrong.write_text(json.dumps({k: labels["test10.jpg"][k] for k in ("top", "bottom", "bar")}))
    corners = " ".join(f"{x},{y}" for x, y in labels["frame0.jpg"]["board_quad"])
    argv = [str(boards / "frame0.jpg"), "--corners", corners, "--known", str(wrong)]
    calibrate_refused(capsys, argv, profile, "calibration refused", "--force")


def test_calibration_with_mirrored_corners_or_a_contradicted_orientation_is_refused(
    start_frame: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image, corners = start_frame
    profile = tmp_path / "board.profile"
    profile.write_text("the working profile")
    tl, tr, br, bl = corners.split()
    mirrored = " ".join((tr, tl, bl, br))
    calibrate_refused(capsys, [str(image), "--start", "--corners", mirrored], profile, "wrong way")
    argv = [str(image), "--start", "--corners", corners, "--orientation", "top-left"]
    calibrate_refused(capsys, argv, profile, "contradicts the starting position")
    assert main(["calibrate", *argv, "--force", "-o", str(profile)]) == 0
    from vision.profile import Profile

    assert Profile.load(profile).orientation.value == "top-left"  # --force: as the user said


@pytest.mark.parametrize("end", ["top", "bottom", "tray"])
def test_the_bar_the_cube_left_is_read_bare_or_with_the_checkers_hit_onto_it(end: str) -> None:
    """Calibrated with the cube centred on the bar, as a game starts. After a take the cube lies at the
    bar's end or in a tray: the bar it left bare is no hand over the board, and checkers hit onto the
    bar where it stood are counted."""
    from synthetic.render import CubeSpec, render, scene_from_layout

    start = Board.start().layout(Orientation.TOP_LEFT)
    first = render(scene_from_layout(start, cube=CubeSpec(64, "centre")), seed=3)
    profile = calibrate(first.image, [tuple(c) for c in first.field_quad], start=True)
    reader = BoardReader(profile, use_dice=False)
    bare = reader.read(render(scene_from_layout(start, cube=CubeSpec(2, end)), seed=4).image)
    assert not bare.occluded and bare.bar_light.readable and bare.bar_dark.readable
    assert (bare.bar_light.count, bare.bar_dark.count) == (0, 0)
    top, bottom = list(start.top), list(start.bottom)
    k = max(range(24), key=lambda i: (top + bottom)[i])  # light's biggest point gives two to the bar
    (top if k < 12 else bottom)[k % 12] -= 2
    j = min(range(24), key=lambda i: (top + bottom)[i])  # and dark's one
    (top if j < 12 else bottom)[j % 12] += 1
    hit = ImageLayout(tuple(top), tuple(bottom), 2, 1)
    reading = reader.read(render(scene_from_layout(hit, cube=CubeSpec(2, end)), seed=4).image)
    assert not reading.occluded
    assert (reading.bar_light.count, reading.bar_dark.count) == (2, 1)
