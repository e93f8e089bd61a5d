"""The flags network: a die on a known field judged in the board plane (cocked? on a checker?)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from bgboard.layout import ImageLayout
from synthetic.render import Camera, DieSpec, render, scene_from_layout
from vision import dice_flags
from vision.dice import find_dice
from vision.dice_field import FIELD_IN_DICE
from vision.onnx_net import ModelError

START = ImageLayout((-5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2), (5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))


def found(frame, truth):
    """The reading nearest the truth die (asserting one was found there)."""
    dice = find_dice(frame.image, frame.field_quad)
    d = min(dice, key=lambda d: math.hypot(d.center[0] - truth.center[0], d.center[1] - truth.center[1]))
    assert math.hypot(d.center[0] - truth.center[0], d.center[1] - truth.center[1]) < 20
    return d


def test_patch_is_the_board_plane_around_the_die() -> None:
    # a field seen straight on: the board plane is the image, scaled; a bright die-sized square at the
    # centre of the frame fills the patch's middle SPAN-th, whatever the frame around it holds
    image = np.zeros((720, 1280, 3), np.uint8)
    quad = np.array([[330, 50], [950, 50], [950, 670], [330, 670]], np.float32)
    side = 620 / FIELD_IN_DICE
    image[int(360 - side / 2) : int(360 + side / 2), int(640 - side / 2) : int(640 + side / 2)] = 255
    p = dice_flags.patch(image, quad, 640.0, 360.0, FIELD_IN_DICE)
    bright = np.argwhere(p[..., 0] > 128)
    width = bright.max(0) - bright.min(0) + 1
    assert np.all(np.abs(width - dice_flags.PATCH / dice_flags.SPAN) <= 2)
    assert np.all(np.abs(bright.mean(0) - (dice_flags.PATCH - 1) / 2) < 1)


@pytest.mark.parametrize("tilt", [0.0, 8.0, 18.0])
def test_the_camera_comes_from_the_field(tilt: float) -> None:
    # the renderer's camera stands DISTANCE field widths from the field's centre, tilted towards the
    # near player: its nadir and height come back from the field's corners alone
    frame = render(scene_from_layout(START, camera=Camera(tilt, 3)), seed=1)
    _, nadir, height, aspect = dice_flags.camera(frame.field_quad, frame.image.shape)
    t = math.radians(tilt)
    field = 0.92  # the tournament style's field height / width
    assert aspect == pytest.approx(field, abs=0.005)
    assert nadir == pytest.approx([0.5, field / 2 + 2.2 * math.sin(t)], abs=0.005)
    assert height == pytest.approx(2.2 * math.cos(t), abs=0.005)
    # the field's corners lean away from the nadir: the far (top) ones more, left ones left, right ones right
    lean = dice_flags.leans(frame.field_quad, frame.image.shape, frame.field_quad)
    assert np.all(lean[:2, 1] < lean[2:, 1]) and np.all(lean[[0, 3], 0] < 0) and np.all(lean[[1, 2], 0] > 0)


def test_a_top_face_seen_beyond_the_edge_stands_inside() -> None:
    # a flat die just inside the field's top-right corner, the camera tilted: its top face is seen beyond
    # the field's edge, its footprint is not
    spec = DieSpec(3, 0.985, 0.015, 10)
    frame = render(scene_from_layout(START, dice=(spec,), camera=Camera(18, 0)), seed=4)
    truth = frame.dice[0]
    assert not truth.outside_field
    seen = np.array([truth.center])
    unit = cv2.perspectiveTransform(
        seen.reshape(1, 1, 2).astype(np.float32),
        cv2.getPerspectiveTransform(
            frame.field_quad.astype(np.float32), np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
        ),
    )[0, 0]
    assert unit[1] < 0  # seen beyond the top edge
    foot = dice_flags.footprints(frame.field_quad, frame.image.shape, seen, 1 / FIELD_IN_DICE)[0]
    assert 0 < foot[0] < 1 and 0 < foot[1] < 1
    assert not found(frame, truth).outside_field


def test_a_big_frame_is_shrunk_before_warping() -> None:
    # the same scene at 4x: the same patch within a few grey levels (area shrinking, not aliasing)
    frame = render(scene_from_layout(START, dice=(DieSpec(5, 0.72, 0.5),), camera=Camera(6)), seed=2)
    x, y = frame.dice[0].center
    small = dice_flags.patch(frame.image, frame.field_quad, x, y, FIELD_IN_DICE)
    big_img = np.repeat(np.repeat(frame.image, 4, 0), 4, 1)
    big = dice_flags.patch(big_img, frame.field_quad * 4 + 1.5, 4 * x + 1.5, 4 * y + 1.5, FIELD_IN_DICE)
    assert np.abs(small.astype(int) - big.astype(int)).mean() < 6


@pytest.mark.parametrize(
    ("spec", "camera", "seed", "cocked", "on_checker"),
    [
        (DieSpec(3, 0.72, 0.5, 20, cocked=True), Camera(4, 1), 5, True, False),
        (DieSpec(6, 0.62, 0.35, 70, cocked=True, colour="red"), Camera(15, -3), 9, True, False),
        # flat dice far from the frame's centre show their side faces
        (DieSpec(2, 0.88, 0.95, 35), Camera(12, 2, 0.1), 3, False, False),
        (DieSpec(4, 0.12, 0.05, 10, colour="black"), Camera(0, 0, 0.0, 1.15), 4, False, False),
        # on the outermost checker of the top-left point (five dark checkers there); beside it
        (DieSpec(4, 0.04, 0.07, 15), Camera(4, 1), 8, False, True),
        (DieSpec(1, 0.115, 0.1, 40), Camera(4, 1), 8, False, False),
        # on the light checkers of bottom-6 (point_x(6) = 0.54); cocked on a checker
        (DieSpec(5, 0.54, 0.95, 60), Camera(10, 0), 6, False, True),
        (DieSpec(2, 0.54, 0.95, 60, cocked=True), Camera(10, 0), 6, True, True),
    ],
)
def test_rendered_die_flags(spec: DieSpec, camera: Camera, seed: int, cocked: bool, on_checker: bool) -> None:
    frame = render(scene_from_layout(START, dice=(spec,), camera=camera), seed=seed)
    truth = frame.dice[0]
    assert (truth.cocked, truth.on_checker) == (cocked, on_checker)
    d = found(frame, truth)
    assert (d.cocked, d.on_checker) == (cocked, on_checker)
    assert d.value is None if cocked else d.value == spec.value


@pytest.mark.parametrize(
    ("spec", "camera", "seed"),
    [
        # cocked near the centre, where the value reader alone is torn (about 0.4 : 0.6 that it leans)
        (DieSpec(3, 0.47, 0.52, 35.0, cocked=True), Camera(), 15),
        (DieSpec(5, 0.55, 0.42, 70.0, cocked=True), Camera(), 26),
        # a flat "2" far right under a tilted camera, its side in view: the reader's odds say cocked
        (DieSpec(2, 0.93, 0.5, 15.0), Camera(10, 0, 0, 1), 10),
    ],
)
def test_what_the_value_reader_alone_gets_wrong(spec: DieSpec, camera: Camera, seed: int) -> None:
    frame = render(scene_from_layout(START, dice=(spec,), camera=camera), seed=seed)
    d = found(frame, frame.dice[0])
    assert d.cocked == spec.cocked
    assert d.value is None if spec.cocked else d.value in (spec.value, None)


@pytest.mark.parametrize(("seed", "x"), [(46, 0.15), (27, 0.62)])
def test_a_cocked_die_showing_one_pip_is_never_taken_flat(seed: int, x: float) -> None:
    # the flags network sees the lean; the value reader may be sure of the single pip on top (its odds
    # of "cocked" below SURE_FACE). Where the two disagree the table is asked; never is it taken as a 1
    frame = render(scene_from_layout(START, dice=(DieSpec(1, x, 0.5, 20.0 + seed, True),)), seed=seed)
    d = found(frame, frame.dice[0])
    assert d.value is None
    assert d.cocked or (d.unreadable and d.likeliest == 1)


EMPTY = ImageLayout((0,) * 12, (0,) * 12)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_die_leans_only_on_something(seed: int) -> None:
    # a die cannot rest on an edge on a flat board: with the board's checkers known (none here), a lean
    # the networks see with nothing in reach is asked about with its face; against the bar's wall or
    # the other die it is a lean, thrown again
    from bgboard.layout import Half
    from synthetic.table import lean_on_the_bar

    def read(*dice: DieSpec) -> list[tuple]:
        frame = render(scene_from_layout(EMPTY, dice=dice), seed=seed)
        found = find_dice(frame.image, frame.field_quad, checkers=np.zeros((0, 4)))
        return [(d.cocked, d.unreadable, d.likeliest) for d in sorted(found, key=lambda d: d.center[0])]

    alone = DieSpec(5, 0.70, 0.5, 20.0 + seed, cocked=True)
    assert read(alone) == [(False, True, 5)]
    assert read(replace(alone, x=lean_on_the_bar(Half.RIGHT))) == [(True, False, None)]
    assert read(alone, DieSpec(3, 0.70 + 1.3 / FIELD_IN_DICE, 0.5, 0.0)) == [
        (True, False, None),
        (False, False, 3),
    ]


def e2e_frame(seed: int, shot_index: int, light: tuple[int, ...], dark: tuple[int, ...], dice: tuple):
    """A frame of bench.e2e's virtual table, as its lane ``seed`` rendered it."""
    from bgboard.layout import Board
    from synthetic.table import Shot, VirtualTable

    table = VirtualTable(noise=0.004, light_drift=0.03, seed=seed)
    return table.render(Shot(Board(light, dark), dice=dice, frames=4), 0, shot_index)


def test_a_cocked_die_found_twice_is_one_die() -> None:
    # bench.e2e seed 1001: a cocked 3 shows its top and a side face, and the detector found both, 0.84
    # die sides apart; "three dice on the board" is no call to throw again, one cocked die is
    from synthetic.table import DieAt

    frame = e2e_frame(
        1001,
        9696,
        (0, 2, 2, 0, 0, 4, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 2),
        (3, 1, 0, 2, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 2, 0, 0, 2, 0),
        (DieAt(3, 0.6311, 0.4646, cocked=True, angle=10.666), DieAt(5, 0.7431, 0.5193, angle=58.587)),
    )
    found = find_dice(frame.image, frame.field_quad)
    assert [(d.cocked, d.value) for d in found] == [(True, None), (False, 5)]


def test_a_die_beside_a_checker_whose_peak_is_pulled_off_it_is_found() -> None:
    # bench.e2e seed 1: the detector's peak for a 4 beside a checker's rim lies 0.9 die sides off the
    # die, where the reader sees no die; read again off that centre, it is found (one die on the board
    # would have been a call to throw again)
    from synthetic.table import DieAt

    frame = e2e_frame(
        1,
        21028,
        (3, 1, 5, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0),
        (6, 0, 0, 3, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0),
        (DieAt(2, 0.63337, 0.49130, angle=30.0611), DieAt(4, 0.76785, 0.55502, angle=42.1294)),
    )
    assert [d.value for d in find_dice(frame.image, frame.field_quad)] == [2, 4]


def test_a_missing_model_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="dice flags model"):
        dice_flags.net(tmp_path / "dice_flags.onnx")
    assert dice_flags.judge(np.zeros((64, 64, 3), np.uint8), np.zeros((4, 2)), [], FIELD_IN_DICE).shape == (
        0,
        2,
    )


def test_real_flat_dice_on_real_boards_read_flat(shared_data: Path) -> None:
    # the network never trained on these photographs (real dice were pasted from real-dice only): every
    # labelled die lies flat, and it should be plainly sure of that, not merely under COCKED
    entries = [
        e for e in json.loads((shared_data / "real-boards" / "labels.json").read_text()) if e.get("dice")
    ]
    assert entries
    for e in entries:
        image = cv2.imread(str(shared_data / "real-boards" / e["image"]))
        points = [tuple(map(float, d["center"])) for d in e["dice"]]
        p = dice_flags.judge(image, np.array(e["board_quad"], np.float32), points, FIELD_IN_DICE)
        assert np.all(p[:, 0] < 0.1), (e["image"], p[:, 0])
        assert not any(d.cocked for d in find_dice(image, np.array(e["board_quad"], np.float32)))
