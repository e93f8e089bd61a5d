"""The synthetic board renderer: determinism, geometry truth, dice truth, occlusion truth, styles."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from bgboard.layout import Cell, Half, ImageLayout, Row
from synthetic.render import (
    STYLES,
    Camera,
    CubeSpec,
    DieSpec,
    HandSpec,
    RenderError,
    Scene,
    checker_slots,
    render,
    scene_from_layout,
)
from synthetic.styles import CheckerLook, Geometry, Style

SIZE = (640, 360)
START = ImageLayout((-5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2), (5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))
EMPTY = (0,) * 12
CAMERAS = (
    Camera(),
    Camera(tilt_deg=20, rotation_deg=4),
    Camera(tilt_deg=12, rotation_deg=-6, distortion=0.12, scale=0.85),
)

C = Cell.parse  # cells by the names of the readings' JSON


@pytest.fixture()
def contrast_style(monkeypatch: pytest.MonkeyPatch) -> str:
    """A board that is white inside the field and black everywhere else, to check where the field lands."""
    white, black = (255, 255, 255), (0, 0, 0)
    look = CheckerLook((128, 128, 128), (128, 128, 128), (128, 128, 128))
    style = Style(
        "contrast-test", white, (white, white), black, black, black, black, look, look, hinges=False
    )
    monkeypatch.setitem(STYLES, style.name, style)
    return style.name


def _inside(quad: np.ndarray, pt: np.ndarray) -> bool:
    return cv2.pointPolygonTest(quad.astype(np.float32).reshape(-1, 1, 2), tuple(map(float, pt)), False) > 0


def test_same_seed_same_image_and_other_seed_differs() -> None:
    scene = scene_from_layout(
        START, dice=(DieSpec(3, 0.7, 0.5),), noise=0.02, hands=(HandSpec("arm", 0.3, 0.6),)
    )
    a, b, c = render(scene, SIZE, seed=5), render(scene, SIZE, seed=5), render(scene, SIZE, seed=6)
    assert a.image.shape == (360, 640, 3) and a.image.dtype == np.uint8
    assert np.array_equal(a.image, b.image)
    assert a.occluded == b.occluded and a.dice == b.dice
    assert not np.array_equal(a.image, c.image)


@pytest.mark.parametrize("camera", CAMERAS)
def test_field_quad_is_where_the_field_is(contrast_style: str, camera: Camera) -> None:
    frame = render(Scene(EMPTY, EMPTY, style=contrast_style, camera=camera), SIZE)
    quad = frame.field_quad
    assert quad.shape == (4, 2)
    centre = quad.mean(0)
    grey = frame.image.mean(2)
    for corner in quad:
        towards = (centre - corner) / np.linalg.norm(centre - corner)
        x_in, y_in = np.round(corner + 5 * towards).astype(int)
        x_out, y_out = np.round(corner - 5 * towards).astype(int)
        assert grey[y_in, x_in] > 200, f"inside corner {corner} is not field"
        assert grey[y_out, x_out] < 60, f"outside corner {corner} is not frame"
    # The quad is the same camera model as every other truth: field corners through field_to_image.
    corners = frame.field_to_image([[0, 0], [1, 0], [1, 1], [0, 1]])
    assert np.allclose(corners, quad)
    back = frame.model.image_to_board(quad)
    aspect = STYLES[contrast_style].geometry.aspect
    assert np.allclose(back, [[-0.5, -aspect / 2], [0.5, -aspect / 2], [0.5, aspect / 2], [-0.5, aspect / 2]])


def test_tilt_makes_the_far_edge_shorter_and_distortion_bends_edges(contrast_style: str) -> None:
    flat = render(Scene(EMPTY, EMPTY, style=contrast_style), SIZE).field_quad
    tilted = render(Scene(EMPTY, EMPTY, style=contrast_style, camera=Camera(tilt_deg=20)), SIZE).field_quad
    assert np.isclose(flat[1, 0] - flat[0, 0], flat[2, 0] - flat[3, 0])
    assert tilted[1, 0] - tilted[0, 0] < 0.95 * (tilted[2, 0] - tilted[3, 0])
    bent = render(Scene(EMPTY, EMPTY, style=contrast_style, camera=Camera(distortion=0.2)), SIZE)
    # Barrel distortion bows straight edges outwards: the middle of the top edge is above its chord.
    mid = bent.field_to_image([[0.5, 0.0]])[0]
    chord = (bent.field_quad[0] + bent.field_quad[1]) / 2
    assert mid[1] < chord[1] - 0.5
    left = bent.field_to_image([[0.25, 0.0]])[0]
    assert bent.image.mean(2)[round(left[1]) + 3, round(left[0])] > 200


def test_checker_slots_stack_five_then_layers() -> None:
    slots = checker_slots(15)
    layers = [layer for _, layer in slots]
    assert [layers.count(k) for k in range(5)] == [5, 4, 3, 2, 1]
    assert slots[:6] == [(0.5, 0), (1.5, 0), (2.5, 0), (3.5, 0), (4.5, 0), (1.0, 1)]
    assert [layer for _, layer in checker_slots(15, row_limit=6)].count(0) == 6


@pytest.mark.parametrize("style", ["tournament", "cream"])
def test_stacks_of_fifteen_render_with_exact_truth(style: str) -> None:
    scene = Scene((15,) + (0,) * 11, (0,) * 11 + (-15,), style=style, camera=Camera(tilt_deg=10))
    frame = render(scene, SIZE, seed=2)
    cells: dict[Cell, list] = {}
    for c in frame.checkers:
        cells.setdefault(c.cell, []).append(c)
    assert sorted(cells) == [C("top-0"), C("bottom-11")]
    assert len(cells[C("top-0")]) == 15 and all(c.light for c in cells[C("top-0")])
    assert len(cells[C("bottom-11")]) == 15 and not any(c.light for c in cells[C("bottom-11")])
    geo = STYLES[style].geometry
    for c in frame.checkers:
        assert _inside(frame.field_quad, c.center)
        column = 0 if c.cell == C("top-0") else 11
        assert abs(c.field_xy[0] - geo.point_x(column)) < geo.point_w / 2
        assert (c.field_xy[1] < 0.5) == (c.cell == C("top-0"))
    # The image shows them at their reported centres: the top checker of each stack has its colour.
    st = STYLES[style]
    for cell, look in ((C("top-0"), st.light), (C("bottom-11"), st.dark)):
        (top,) = [c for c in cells[cell] if c.layer == 4]
        u, v = round(top.center[0]), round(top.center[1])
        seen = frame.image[v - 1 : v + 2, u - 1 : u + 2].reshape(-1, 3).mean(0)
        assert np.abs(seen - np.array(look.face)).max() < 60, (cell, seen)


def test_bar_checkers_are_on_the_bar_light_above_dark_below() -> None:
    frame = render(Scene(EMPTY, EMPTY, bar_light=2, bar_dark=3, cube=CubeSpec(8, "centre")), SIZE)
    geo = STYLES["tournament"].geometry
    bar = [c for c in frame.checkers if c.cell.is_bar]
    assert sorted(c.cell for c in bar) == [C("bar-light")] * 2 + [C("bar-dark")] * 3
    for c in bar:
        assert abs(c.field_xy[0] - 0.5) < geo.bar
        assert (c.field_xy[1] < 0.5) == (c.cell == C("bar-light")) == c.light
    assert frame.cube_center is not None and _inside(frame.field_quad, frame.cube_center)


def _strong_change(a: np.ndarray, b: np.ndarray, level: int) -> np.ndarray:
    return np.abs(a.astype(int) - b.astype(int)).max(2) > level


@pytest.mark.parametrize(
    "die", [DieSpec(5, 0.3, 0.5, colour="black"), DieSpec(2, 0.72, 0.45, 30, cocked=True, colour="black")]
)
def test_die_truth_box_holds_the_die(die: DieSpec) -> None:
    base = scene_from_layout(START, jitter=0.0, camera=Camera(tilt_deg=15, rotation_deg=3))
    without = render(base, SIZE, seed=1)
    frame = render(dataclasses.replace(base, dice=(die,)), SIZE, seed=1)
    (truth,) = frame.dice
    assert truth.value == die.value and truth.cocked == die.cocked
    assert (
        not truth.on_checker
        and not truth.outside_field
        and truth.half is (Half.LEFT if die.x < 0.5 else Half.RIGHT)
    )
    ys, xs = np.nonzero(_strong_change(frame.image, without.image, 120))
    assert len(xs) > 20
    x0, y0, x1, y1 = truth.box
    assert xs.min() >= x0 - 2 and xs.max() <= x1 + 2 and ys.min() >= y0 - 2 and ys.max() <= y1 + 2
    # The box is tight: the die fills a good part of it.
    assert len(xs) > 0.3 * (x1 - x0) * (y1 - y0)
    assert x0 <= truth.center[0] <= x1 and y0 <= truth.center[1] <= y1


def test_die_flags_on_checker_outside_and_on_bar() -> None:
    geo = STYLES["tournament"].geometry
    dice = (
        DieSpec(4, geo.point_x(0), 0.04),  # on the first checker of top-0
        DieSpec(6, 1.06, 0.3),  # on the right tray
        DieSpec(1, 0.5, 0.3),  # on the bar
    )
    frame = render(scene_from_layout(START, dice=dice, jitter=0.0), SIZE)
    on, out, bar = frame.dice
    assert on.on_checker and not on.outside_field and on.half is Half.LEFT
    assert out.outside_field and out.half is None and not _inside(frame.field_quad, out.center)
    assert bar.half is None and not bar.outside_field
    # A die on a checker sits higher, so it looks bigger than the same die on the board.
    flat = render(scene_from_layout(START, dice=(DieSpec(4, geo.point_x(3), 0.04),)), SIZE).dice[0]
    assert (on.box[2] - on.box[0]) > (flat.box[2] - flat.box[0])


def test_cup_and_arm_occlude_the_cells_under_them() -> None:
    geo = STYLES["tournament"].geometry
    cup = HandSpec("cup", geo.point_x(2), 0.15)
    frame = render(scene_from_layout(START, hands=(cup,)), SIZE, seed=3)
    assert C("top-2") in frame.occluded
    assert not any(c.row is Row.BOTTOM for c in frame.occluded | frame.partly_occluded)
    assert not frame.occluded & frame.partly_occluded
    arm = HandSpec("arm", geo.point_x(8), 0.35, angle=0)  # from the near player up to top-8
    frame = render(scene_from_layout(START, hands=(arm,)), SIZE, seed=3)
    assert {C("top-8"), C("bottom-8")} <= frame.occluded
    assert not any(c in frame.occluded for c in (C("top-0"), C("bottom-0"), C("bar-light"), C("top-3")))
    # Every cell reported hidden really changed in the picture, somewhere along its column of slots.
    plain = render(scene_from_layout(START), SIZE, seed=3)
    changed = _strong_change(frame.image, plain.image, 40)
    for cell in frame.occluded:
        x = geo.point_x(cell.index)
        ys = np.linspace(0.03, 0.4, 12) if cell.row is Row.TOP else np.linspace(0.6, 0.97, 12)
        xs = x + np.linspace(-0.4, 0.4, 5) * geo.point_w
        pts = np.round(frame.field_to_image([[x, y] for y in ys for x in xs])).astype(int)
        assert any(changed[v - 2 : v + 3, u - 2 : u + 3].any() for u, v in pts), cell
    assert frame.occluded and plain.occluded == frozenset()


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_style_renders_its_colours(style: str) -> None:
    st = STYLES[style]
    frame = render(scene_from_layout(START, style=style), SIZE, seed=1)
    assert frame.style == style
    # The middle of the field between the rows (left half) shows the field colour.
    u, v = np.round(frame.field_to_image([[0.25, 0.5]])[0]).astype(int)
    seen = frame.image[v - 2 : v + 3, u - 2 : u + 3].reshape(-1, 3).mean(0)
    assert np.abs(seen - np.array(st.field)).max() < 45
    assert len(frame.checkers) == 30


def test_effects_keep_truth_and_change_pixels() -> None:
    scene = scene_from_layout(START, dice=(DieSpec(3, 0.7, 0.5),))
    clean = render(scene, SIZE, seed=4)
    rough = render(
        dataclasses.replace(scene, light=0.8, shading=0.6, glare=0.5, noise=0.03, blur=1.2, jpeg_quality=60),
        SIZE,
        seed=4,
    )
    assert np.allclose(clean.field_quad, rough.field_quad) and clean.dice == rough.dice
    assert np.abs(clean.image.astype(int) - rough.image.astype(int)).mean() > 5
    assert rough.image.mean() < clean.image.mean() * 1.05


@pytest.mark.parametrize(
    "kw",
    [
        {"style": "no-such-style"},
        {"dice": (DieSpec(7, 0.5, 0.5),)},
        {"dice": (DieSpec(3, 0.5, 0.5, colour="purple"),)},
        {"cube": CubeSpec(3)},
        {"hands": (HandSpec("foot"),)},
        {"camera": Camera(tilt_deg=80)},
        {"noise": -0.1},
        {"jpeg_quality": 0},
        {"dice": (DieSpec(3, 0.5, 0.5, size=0),)},
    ],
)
def test_bad_scenes_raise_value_errors(kw: dict) -> None:
    with pytest.raises(RenderError):
        scene_from_layout(START, **kw)
    with pytest.raises(ValueError, match="12"):
        Scene((0,) * 11, EMPTY)
    with pytest.raises(ValueError, match="15"):
        Scene((16,) + (0,) * 11, EMPTY)
    with pytest.raises(ValueError, match="size"):
        render(Scene(EMPTY, EMPTY), (10, 10))


def test_geometry_columns_fill_the_field() -> None:
    g = Geometry(bar=0.06)
    assert g.point_x(0) == pytest.approx(g.point_w / 2)
    assert g.point_x(5) + g.point_w / 2 == pytest.approx(0.47)
    assert g.point_x(6) - g.point_w / 2 == pytest.approx(0.53)
    assert g.point_x(11) + g.point_w / 2 == pytest.approx(1.0)


def test_clutter_and_tint_leave_the_board_and_truth_alone() -> None:
    scene = scene_from_layout(START, jitter=0.0)
    plain = render(scene, SIZE, seed=9)
    busy = render(dataclasses.replace(scene, clutter=6), SIZE, seed=9)
    changed = _strong_change(plain.image, busy.image, 30)
    assert changed.any()
    # Nothing changed inside the board (the field plus a margin for the frame and trays).
    board = busy.field_to_image([[-0.2, -0.05], [1.2, -0.05], [1.2, 1.05], [-0.2, 1.05]])
    mask = np.zeros(changed.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(board).astype(np.int32)], 1)
    assert not (changed & (mask > 0)).any()
    tinted = render(dataclasses.replace(scene, tint=1.0), SIZE, seed=9)
    ratio = tinted.image.reshape(-1, 3).mean(0) / plain.image.reshape(-1, 3).mean(0)
    assert np.ptp(ratio) > 0.03 and np.allclose(tinted.field_quad, plain.field_quad)


def test_image_to_field_inverts_field_to_image() -> None:
    frame = render(scene_from_layout(START, camera=CAMERAS[2]), SIZE)
    pts = np.array([[0.1, 0.2], [0.5, 0.5], [0.93, 0.8]])
    assert np.allclose(frame.image_to_field(frame.field_to_image(pts)), pts, atol=1e-6)


def test_random_scenes_are_reproducible_and_valid() -> None:
    from synthetic.random_scenes import random_scene

    layout = ImageLayout(
        (-2, 0, 3, 0, -7, 0, 4, 0, 0, -1, 0, 2), (0, -3, 0, 2, 0, 0, -2, 3, 0, 0, 1, 0), 1, 0
    )
    a = [random_scene(layout, np.random.default_rng(s), occlusion=1.0) for s in range(4)]
    b = [random_scene(layout, np.random.default_rng(s), occlusion=1.0) for s in range(4)]
    assert a == b and all(s.hands for s in a)
    assert all(s.top == layout.top and s.bar_light == 1 for s in a)
    frame = render(a[0], SIZE, seed=0)
    assert len(frame.checkers) == sum(abs(v) for v in layout.top + layout.bottom) + 1


def test_camera_offset_pans_the_field(contrast_style: str) -> None:
    centred = render(Scene(EMPTY, EMPTY, style=contrast_style), SIZE).field_quad
    panned = render(Scene(EMPTY, EMPTY, style=contrast_style, camera=Camera(offset=(-0.1, 0.05))), SIZE)
    assert np.allclose(panned.field_quad - centred, [-0.1 * SIZE[0], 0.05 * SIZE[1]])
    u, v = np.round(panned.field_to_image([[0.2, 0.5]])[0]).astype(int)
    assert panned.image[v, u].mean() > 200


def test_a_cup_over_a_die_reports_it_covered() -> None:
    dice = (DieSpec(4, 0.3, 0.5), DieSpec(2, 0.75, 0.5))
    frame = render(scene_from_layout(START, dice=dice, hands=(HandSpec("cup", 0.3, 0.5),)), SIZE)
    hidden, seen = frame.dice
    assert hidden.covered > 0.9 and seen.covered == 0.0


def test_a_rolling_die_is_smeared_but_keeps_its_truth() -> None:
    still = render(Scene(EMPTY, EMPTY, dice=(DieSpec(5, 0.7, 0.5, colour="black"),)), SIZE, seed=1)
    rolling = render(
        Scene(EMPTY, EMPTY, dice=(DieSpec(5, 0.7, 0.5, colour="black", motion=2.0),)), SIZE, seed=1
    )
    assert still.dice == rolling.dice
    x0, y0, x1, y1 = (round(v) for v in still.dice[0].box)

    def dark(frame: object) -> int:
        return int((frame.image[y0:y1, x0:x1].max(2) < 80).sum())

    assert dark(still) > 30
    assert dark(rolling) < 0.6 * dark(still)  # smeared: few pixels stay as dark as the die's body


def test_borne_off_checkers_stand_in_the_tray_not_on_the_field() -> None:
    plain = render(Scene(EMPTY, EMPTY), SIZE, seed=2)
    off = render(Scene(EMPTY, EMPTY, off_light=9, off_dark=4), SIZE, seed=2)
    ys, xs = np.nonzero(_strong_change(plain.image, off.image, 40))
    assert len(xs) > 50 and not off.checkers
    fields = off.image_to_field(np.stack([xs, ys], 1))
    assert (fields[:, 0] > 1.0).all()  # right of the field: in the right tray
    assert (fields[:, 1] > 0.5).sum() > (fields[:, 1] < 0.5).sum()  # more light (lower) than dark (upper)


def test_drifting_checkers_never_overlap_in_a_layer() -> None:
    crowded = ImageLayout(
        (-5, 5, -5, 5, -7, 0, 0, 0, 0, 0, 0, 0), (5, -5, 5, -5, 7, 0, 0, 0, 0, 0, 0, 0), 3, 3
    )
    frame = render(scene_from_layout(crowded, jitter=1.3), SIZE, seed=4)
    geo = frame.geometry
    pts = np.array([[c.field_xy[0], c.field_xy[1] * geo.aspect, 100 * c.layer] for c in frame.checkers])
    gap = np.hypot(*(pts[:, None, :2] - pts[None, :, :2]).transpose(2, 0, 1))
    same = (pts[:, None, 2] == pts[None, :, 2]) & ~np.eye(len(pts), dtype=bool)
    assert gap[same].min() > 0.99 * geo.diameter


def test_a_held_checker_is_drawn_but_not_counted() -> None:
    empty = render(Scene(EMPTY, EMPTY, hands=(HandSpec("hand", 0.3, 0.75),)), SIZE, seed=1)
    held = render(Scene(EMPTY, EMPTY, hands=(HandSpec("hand", 0.3, 0.75, holding="light"),)), SIZE, seed=1)
    assert not held.checkers and _strong_change(empty.image, held.image, 60).sum() > 30
    with pytest.raises(RenderError):
        Scene(EMPTY, EMPTY, hands=(HandSpec("hand", holding="gold"),))


def test_slot_xy_matches_where_checkers_are_drawn() -> None:
    from synthetic.render import slot_xy

    frame = render(Scene((7,) + (0,) * 11, (0,) * 11 + (-3,), bar_light=2, bar_dark=1, jitter=0.0), SIZE)
    seen: dict[str, int] = {}
    for c in frame.checkers:
        k = seen.get(c.cell, 0)
        seen[c.cell] = k + 1
        assert np.allclose(c.field_xy, slot_xy(frame.geometry, c.cell, k), atol=0.003), (c.cell, k)
