"""The doubling cube followed from frame to frame on a real board photograph, moved as ``bench.semireal``
moves it: kept where it lies while only the rest of the table changes."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from real_throw_fixtures import bench_throw

from bgboard.layout import Board, Side
from calibration.labelled import Labelled, labelled_cameras
from referee.cli.read import throw_call
from referee.rules_options import RuleOptions
from referee.session import SessionOptions
from referee.throws import CallKind
from synthetic.pasted import Cutout, held_out_dice
from synthetic.real_throws import RealTable, Throw, render_throw, seen_dice
from vision import board_reader
from vision.board_reader import BoardReader
from vision.cube import cube_at, cube_side, find_cube

# a throw with a die in the tray, after the cube was turned to 2 and pushed to the near end of the bar,
# against the checkers there and the bar's hinge
THROW = Throw("in a tray", Side.LIGHT, (6, 3), [(1.07, 0.7, 1.0), (0.8, 0.55, 1.0)], (0.5, 0.93), 40.0)
# renders in which the outline search over the whole strips does not see the cube at the bar's end
RENDERS = (0, 2, 3, 6)


@pytest.fixture(scope="module")
def frame0(shared_data: Path) -> Labelled:
    return next(c for c in labelled_cameras(shared_data / "real-boards") if c.name == "frame0.jpg")


@pytest.fixture(scope="module")
def frames(frame0: Labelled, shared_data: Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """The throw's frame and the turn's frame before it, in each of the ``RENDERS``."""
    folder = shared_data / "real-dice"
    dice: dict[int, list[Cutout]] = held_out_dice(folder / "labels.csv", folder / "images")
    table = RealTable.of_labelled(frame0)
    return [render_throw(table, THROW, dice, np.random.default_rng(seed)) for seed in RENDERS]


def test_the_cube_is_kept_where_it_lies_while_a_die_lands_in_the_tray(frame0, frames) -> None:
    """A die thrown into the tray changes the strips where a cube may lie, and the cube is looked for
    again; at the bar's end, against the checkers and the hinge, the outline search cannot see it, but
    its own place did not change: the cube found before the throw (where the frame changed since
    calibration, its 2 read) is still there."""
    table = RealTable.of_labelled(frame0)
    for frame, before in frames:
        assert find_cube(frame, table.corners) is None
        reader = BoardReader(frame0.profile)
        seen = reader.read(before, expected=table.layout).cube
        after = reader.read(frame, expected=table.layout, before=reader.turn_still(before)).cube
        assert seen is not None and after == seen


# a flat throw whose 2 lands beside the bar: in these renders a dark square against the cream point, which
# the outline search scores above the cube lying in the tray
BESIDE_THE_BAR = Throw(
    "flat", Side.DARK, (5, 2), [(0.453, 0.4548, 1.0732), (0.4461, 0.5338, 1.0732)], None, 4.7
)
BESIDE_RENDERS = (10, 17, 18, 25)


def test_a_die_beside_the_bar_is_not_taken_for_the_cube_that_did_not_move(frame0, shared_data) -> None:
    """The die changes the strip where a cube may lie, but the cube seen before the throw lies where it
    lay: a table has one cube, so the square die is a die, and the throw shows two."""
    folder = shared_data / "real-dice"
    dice = held_out_dice(folder / "labels.csv", folder / "images")
    table = RealTable.of_labelled(frame0)
    for seed in BESIDE_RENDERS:
        frame, before = render_throw(table, BESIDE_THE_BAR, dice, np.random.default_rng(seed))
        reader = BoardReader(frame0.profile)
        seen = reader.read(before, expected=table.layout).cube
        reading = reader.read(frame, expected=table.layout, before=reader.turn_still(before))
        assert seen is not None and reading.cube == seen, seed
        assert sorted(d.value for d in reading.dice) == [2, 5], seed


def test_the_cube_at_the_bar_end_hides_no_checker_and_no_die(frame0, frames) -> None:
    """The taker's cube at the bar's end covers bar slots: what is under it is not counted, but it is no
    hand over the board. The turn's frame reads clear and exact, and the throw that left a die in the
    tray is thrown again. (Until stop 36 the slots read as something foreign, both bar cells were
    unreadable, and with the board occluded the referee waited on the one die it saw.)"""
    table = RealTable.of_labelled(frame0)
    layout = table.layout
    board = Board.from_layout(layout, table.orientation)
    options = SessionOptions(table.orientation, RuleOptions())
    for frame, before in frames:
        reader = BoardReader(frame0.profile)
        seen = reader.read(before, expected=layout)
        assert seen.cube is not None and not seen.occluded
        assert seen.counts() == (layout.top, layout.bottom, layout.bar_light, layout.bar_dark)
        reading = reader.read(frame, expected=layout, before=reader.turn_still(before))
        assert throw_call(reading, board, THROW.roller, options).kind is CallKind.REROLL


# a flat throw whose 4 lands beside the bar, where a cube may lie: in these renders its pips read as a
# cube's 8 (``cube_at``)
BESIDE_THE_BAR_FOUR = Throw(
    "flat", Side.DARK, (2, 4), [(0.2791, 0.3, 1.0), (0.4331, 0.5568, 1.0)], None, 33.7
)
FOUR_RENDERS = (4,)


@pytest.mark.parametrize("patch", [board_reader.CUBE_PATCH, 0.5])
def test_a_die_whose_pips_read_as_a_numeral_is_not_the_cube(frame0, shared_data, monkeypatch, patch) -> None:
    """With the cube lifted off the table, no cube is found before the throw, and the throw's 4 beside
    the bar changes a strip where a cube may lie. The face there reads as a cube's 8, but the patch of
    change is a die's, smaller than a cube's face, and is not read. With that bound lowered so that it
    is read (two dice lying together in a strip make a patch of a face or more), the dice reader reads
    the 4 plainly there: a die after all. Either way the throw keeps both its dice, and no cube is
    reported."""
    monkeypatch.setattr(board_reader, "CUBE_PATCH", patch)
    folder = shared_data / "real-dice"
    dice = held_out_dice(folder / "labels.csv", folder / "images")
    table = RealTable.of_labelled(frame0)
    assert table.cube is not None
    lifted = np.zeros(table.image.shape[:2], np.uint8)
    cv2.circle(lifted, (round(table.cube[0]), round(table.cube[1])), 34, 255, -1)
    table.image = cv2.inpaint(table.image, lifted, 5, cv2.INPAINT_TELEA)
    corners = np.asarray(table.corners, np.float64)
    four = seen_dice(table, BESIDE_THE_BAR_FOUR)[1]
    for seed in FOUR_RENDERS:
        frame, before = render_throw(table, BESIDE_THE_BAR_FOUR, dice, np.random.default_rng(seed))
        seen_as = cube_at(frame, corners, (four[0], four[1]))
        assert seen_as is not None and seen_as.value == 8, seed  # the trap this test sets
        reader = BoardReader(frame0.profile)
        assert reader.read(before, expected=table.layout).cube is None
        reading = reader.read(frame, expected=table.layout, before=reader.turn_still(before))
        assert reading.cube is None, seed
        assert sorted(d.value for d in reading.dice) == [2, 4], seed


def test_a_throw_names_the_dice_it_pasted(frame0, shared_data) -> None:
    """``render_throw`` hands back the cut-outs it pasted, in the throw's order (the bench tallies which
    held-out dice the throws it does not call right were thrown with)."""
    folder = shared_data / "real-dice"
    dice = held_out_dice(folder / "labels.csv", folder / "images")
    chosen: list[Cutout] = []
    render_throw(RealTable.of_labelled(frame0), THROW, dice, np.random.default_rng(0), chosen)
    assert [d.value for d in chosen] == list(THROW.values)
    assert all(any(d is c for c in dice[d.value]) for d in chosen)


# test10.jpg's cube, turned to 2 and slid along its tray by less than its own length
SLID = Throw("flat", Side.LIGHT, (3, 5), [(0.75, 0.3, 1.0), (0.85, 0.7, 1.0)], (1.108, 0.47), 10.0)
SLID_RENDERS = (0, 2, 3)  # renders in which the outline search does not see it


def test_a_cube_slid_along_its_tray_is_found_off_the_middle_of_what_changed(shared_data) -> None:
    """Where the cube lay and where it lies make one patch of change since calibration, whose middle is
    between the two: the face is read over the patch, and the cube is found where it lies, its 2 read."""
    folder = shared_data / "real-dice"
    dice = held_out_dice(folder / "labels.csv", folder / "images")
    cam = next(c for c in labelled_cameras(shared_data / "real-boards") if c.name == "test10.jpg")
    table = RealTable.of_labelled(cam)
    assert SLID.cube is not None
    where = table.image_at(*SLID.cube)
    for seed in SLID_RENDERS:
        _, before = render_throw(table, SLID, dice, np.random.default_rng(seed))
        assert find_cube(before, table.corners) is None, seed
        cube = BoardReader(cam.profile).read(before, expected=table.layout).cube
        assert cube is not None and cube.value == 2, seed
        assert np.hypot(*np.subtract(cube.center, where)) < 0.25 * cube_side(table.corners), seed


# frame0.jpg's cube, turned to 2 and put in the right tray
IN_THE_TRAY = Throw("flat", Side.LIGHT, (3, 5), [(0.75, 0.3, 1.0), (0.85, 0.7, 1.0)], (1.07, 0.62), 10.0)
TRAY_RENDERS = (1, 5, 9)  # renders in which the square its outline draws holds its rim and side too


def test_a_cube_seen_off_the_nadir_is_read_at_its_own_size(frame0, shared_data) -> None:
    """The outline the search finds holds the side the camera sees as well as the top face, and the
    square read for the face holds the rim: no numeral there. Read again at a cube's own size, the 2
    is read."""
    folder = shared_data / "real-dice"
    dice = held_out_dice(folder / "labels.csv", folder / "images")
    table = RealTable.of_labelled(frame0)
    for seed in TRAY_RENDERS:
        _, before = render_throw(table, IN_THE_TRAY, dice, np.random.default_rng(seed))
        cube = find_cube(before, table.corners)
        assert cube is not None and cube.value == 2, seed


@pytest.mark.parametrize("n, values", [(125, (1, 2)), (505, (1, 4))])
def test_a_first_throw_after_the_cube_moved_reads_both_dice(shared_data: Path, n: int, values) -> None:
    """Throws 125 and 505 of `python -m bench.semireal --seed 1` on `test10.jpg`: the cube turned to 2
    and moved into a tray, then two dice thrown flat, read as a first throw (against the calibration
    frame). In 125 the cube changed the frame where it lay and where it lies, and those patches took the
    slots the 2 needed (``dice_proposals.MAX_PATCHES``); in 505 the 1's patch was read at its centre, off
    the die, and not made out. One die was seen, and a good throw was called "only one die". Both dice
    count now: while one die is seen, the patches of change on empty points are read again in crops
    around them."""
    t, throw, call = bench_throw(shared_data, 1, n, in_game=False)
    assert (t.name, throw.kind, throw.values, throw.cube is not None) == ("test10.jpg", "flat", values, True)
    assert (call.kind, sorted(call.dice)) == (CallKind.ROLL, sorted(values)), call


@pytest.mark.parametrize("in_game", [True, False])
def test_a_die_square_beside_the_bar_with_no_numeral_is_a_die_not_the_cube(
    shared_data: Path, in_game: bool
) -> None:
    """Throw 178 of `python -m bench.semireal --seed 1 --raw` on `test2.jpg`: a 6 lying flat beside the
    bar's far end, in an uncompressed frame. Its crisp square outline is the best the cube search finds
    (a cube a little small), with no numeral on it, and the 6 was dropped as the cube's face: "only one
    die", a good throw thrown again. A cube found by its outline with no face read, where the dice
    reader reads a die plainly on the field, is that die."""
    t, throw, call = bench_throw(shared_data, 1, 178, in_game=in_game, jpeg=False)
    assert (t.name, throw.kind, throw.values) == ("test2.jpg", "flat", (6, 5))
    assert (call.kind, sorted(call.dice)) == (CallKind.ROLL, [5, 6]), call
