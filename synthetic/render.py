"""A synthetic overhead frame of a backgammon board: position, dice, cube, hands, camera and light.

The renderer serves the tests, the benchmarks and the demonstration; it is deterministic from a seed and
returns the exact truth with the image (where the field, the dice and every checker landed, and which
cells a hand or cup hides).

    >>> from bgboard.layout import Cell, Half, ImageLayout
    >>> start = ImageLayout((-5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2), (5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))
    >>> frame = render(scene_from_layout(start, dice=(DieSpec(3, 0.7, 0.5), DieSpec(5, 0.8, 0.45))), seed=1)
    >>> frame.image.shape, [d.value for d in frame.dice]
    ((720, 1280, 3), [3, 5])

Conventions (the benchmarks score the readers against them):

- **Field coordinates**: ``x, y`` in 0..1 across the playing field (the 24 points and the bar, not the
  trays), ``(0, 0)`` its top-left corner as the image shows it. :attr:`Rendered.field_quad` gives its
  corners in the image; :meth:`Rendered.field_to_image` / :meth:`Rendered.image_to_field` map points
  through the same camera model (perspective and lens distortion included).
- **Columns** (:class:`synthetic.styles.Geometry`, ``Rendered.geometry``): the bar is the middle
  ``geometry.bar`` of the field width (0.052..0.08 by style); each half holds 6 point columns of width
  ``(1 - bar) / 12``, centres at :meth:`Geometry.point_x`. The field is ``geometry.aspect`` (0.89..0.93)
  times as high as wide. Triangles are ``point_len`` (0.40..0.45) of the field height long.
- **Checkers** are ``geometry.checker`` (0.96) of a point width across and 0.2 of that thick.
- **Stacking** (:func:`checker_slots`): a point fills a first row of ``Scene.row_limit`` (default 5, or 6)
  checkers touching each other from the field edge towards the middle; further checkers go on top in a
  second layer of ``row_limit - 1`` sitting half a checker further out (in the dips between two below),
  then a third layer of ``row_limit - 2``, and so on (5 + 4 + 3 + 2 + 1 = 15). Checkers then drift
  sideways (up to a third of a checker) and apart, scaled by ``Scene.jitter``, but never into each
  other (checkers of one layer that would overlap are pushed apart until they touch); second-layer
  rows sit a little to one side so that the rims below stay visible, as real stacks do.
- **Borne-off** checkers (``Scene.off_light`` / ``off_dark``) stand on edge in the right tray, light
  from its bottom end, dark from its top end; they are not in :attr:`Rendered.checkers`.
- **Bar**: light checkers in the bar's upper half, dark in the lower half, each stacked the same way from
  ``synthetic.placement.BAR_GAP`` (0.45) checkers off the centre outwards, leaving the middle for the cube.
- **Occlusion**: a cell is in :attr:`Rendered.occluded` when a hand, arm, sleeve or cup hides a quarter or
  more of any of its checker slots (the first-row slots, whether or not a checker is there, since a
  reader cannot know); in :attr:`Rendered.partly_occluded` when it hides less than that but something.
  Shadows and dice do not occlude.
- **Dice** are 0.4 checker diameters wide (times ``DieSpec.size``); a die placed over a checker rests on
  top of the stack (``on_checker``); ``half`` is None on the bar and off the field.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from bgboard.layout import Cell, Half, ImageLayout
from synthetic.camera import CameraModel
from synthetic.clock import draw_clock
from synthetic.effects import postprocess
from synthetic.hands import draw_clutter, draw_occluder, make_hand
from synthetic.placement import (
    Placed,
    cells_hidden,
    checker_slots,
    place_checkers,
    slot_xy,
    top_checker_at,
)
from synthetic.props import (
    DIE_COLOURS,
    Block,
    Checker,
    checker_shadow,
    draw_block,
    draw_borne_off,
    draw_checker,
    place_block,
)
from synthetic.scene import Camera, CubeSpec, DieSpec, HandSpec, RenderError, Scene, scene_from_layout
from synthetic.styles import RAIL, STYLES, TRAY, Geometry, Style, empty_board

__all__ = [
    "STYLES",
    "Camera",
    "CheckerTruth",
    "CubeSpec",
    "DieSpec",
    "DieTruth",
    "HandSpec",
    "Geometry",
    "RenderError",
    "Rendered",
    "Scene",
    "Style",
    "checker_slots",
    "slot_xy",
    "render",
    "scene_from_layout",
]

DIE_EDGE = 0.4  # a die's edge / checker diameter (15 mm dice, 38 mm checkers)
CUBE_EDGE = 0.68  # the doubling cube's edge / checker diameter
CUBE_FACES = ("2", "4", "8", "16", "32", "64")


@dataclass(frozen=True)
class DieTruth:
    value: int
    center: tuple[float, float]  # image pixels of the top face's centre
    box: tuple[float, float, float, float]  # x0, y0, x1, y1: the whole die in image pixels
    cocked: bool
    on_checker: bool
    outside_field: bool
    half: Half | None  # the half of the field it lies in; None on the bar or off the field
    covered: float = 0.0  # the share of its top face a hand, arm or cup hides (0..1)


@dataclass(frozen=True)
class CheckerTruth:
    cell: Cell
    light: bool
    layer: int  # 0 = on the board, 1 = on top of the first row, ...
    center: tuple[float, float]  # image pixels of the top face's centre
    field_xy: tuple[float, float]  # field coordinates of the base centre


@dataclass(frozen=True, eq=False)
class Rendered:
    image: np.ndarray  # HxWx3 uint8 BGR
    field_quad: np.ndarray  # 4x2 float: tl, tr, br, bl corners of the playing field in image pixels
    dice: tuple[DieTruth, ...]
    occluded: frozenset[Cell]  # cells a hand/arm/cup hides (a quarter of some checker slot or more)
    style: str
    partly_occluded: frozenset[Cell] = frozenset()  # cells only grazed (under a quarter): may go either way
    checkers: tuple[CheckerTruth, ...] = ()
    layout: ImageLayout | None = None
    cube_center: tuple[float, float] | None = None
    model: CameraModel | None = field(default=None, repr=False)

    @property
    def geometry(self) -> Geometry:
        """Where the columns, the bar and the checkers are in field coordinates (see the module doc)."""
        return STYLES[self.style].geometry

    def image_to_field(self, px: np.ndarray | list) -> np.ndarray:
        """Image pixels (N,2) to field coordinates (N,2) on the board plane (the inverse of the below)."""
        assert self.model is not None
        world = self.model.image_to_board(np.asarray(px, float).reshape(-1, 2))
        return np.stack([world[:, 0] + 0.5, world[:, 1] / self.geometry.aspect + 0.5], 1)

    def field_to_image(self, xy: np.ndarray | list, z: float = 0.0) -> np.ndarray:
        """Field coordinates (N,2) to image pixels (N,2); ``z`` = height in field widths."""
        assert self.model is not None
        geo = STYLES[self.style].geometry
        p = np.asarray(xy, float).reshape(-1, 2)
        world = np.stack([p[:, 0] - 0.5, (p[:, 1] - 0.5) * geo.aspect, np.full(len(p), z)], 1)
        return self.model.project(world)


def _box(points: np.ndarray) -> tuple[float, float, float, float]:
    """The bounding box (x0, y0, x1, y1) of image points."""
    (x0, y0), (x1, y1) = points.min(0), points.max(0)
    return float(x0), float(y0), float(x1), float(y1)


@lru_cache(maxsize=8)
def _camera(camera: Camera, size: tuple[int, int], style_name: str) -> tuple[CameraModel, tuple]:
    geo = STYLES[style_name].geometry
    # About one canvas pixel per image pixel, in half-octave steps so that cameras share boards.
    ppu = round(0.6 * size[0] * 2 ** (round(math.log2(camera.scale) * 2) / 2))
    model = CameraModel.build(
        tilt_deg=camera.tilt_deg,
        rotation_deg=camera.rotation_deg,
        distortion=camera.distortion,
        scale=camera.scale,
        size=size,
        aspect=geo.aspect,
        px_per_unit=ppu,
        offset=(float(camera.offset[0]), float(camera.offset[1])),
    )
    return model, model.remap_maps()


def _die_block(spec: DieSpec, geo: Geometry, z: float, rng: np.random.Generator) -> Block:
    x, y, _ = geo.world(spec.x, spec.y)
    edge = DIE_EDGE * geo.diameter * spec.size
    tilt = rng.uniform(22, 38) if spec.cocked else 0.0
    verts = place_block(x, y, z, edge, spec.angle, tilt, rng.uniform(0, 360))
    a = int(rng.choice([s for s in range(1, 7) if s not in (spec.value, 7 - spec.value)]))
    b = next(s for s in range(1, 7) if s not in (spec.value, 7 - spec.value, a, 7 - a))
    labels = (str(spec.value), str(7 - spec.value), str(a), str(7 - a), str(b), str(7 - b))
    body, ink, opacity = DIE_COLOURS[spec.colour]
    motion = spec.motion * edge
    return Block(verts, labels, body, ink, opacity, motion, float(rng.uniform(0, np.pi)))


def _cube_block(cube: CubeSpec, geo: Geometry, rng: np.random.Generator) -> Block:
    edge = CUBE_EDGE * geo.diameter
    half_h = geo.aspect / 2
    x, y = {
        "centre": (0.0, 0.0),
        "top": (0.0, -half_h + 0.7 * edge),
        "bottom": (0.0, half_h - 0.7 * edge),
        "tray": (0.5 + RAIL + TRAY / 2, -0.12),
    }[cube.location]
    verts = place_block(x, y, 0.0, edge, float(rng.uniform(-8, 8)), 0.0, 0.0)
    top = str(cube.value if cube.value != 1 else 64)  # a cube at 1 lies with 64 up
    others = ["#" + f for f in CUBE_FACES if f != top]
    labels = ("#" + top, others[0], others[1], others[2], others[3], others[4])
    return Block(verts, labels, (225, 228, 230), (30, 30, 30), 1.0)


def _draw_held(
    canvas: np.ndarray, model: CameraModel, style: Style, hand: HandSpec, z: float, hidden: np.ndarray
) -> None:
    """A checker held under the fingertips: above the board, partly under the hand, hiding what is below."""
    geo = style.geometry
    a = math.radians(hand.angle)
    wx, wy, _ = geo.world(hand.x, hand.y)
    reach = 0.17 * hand.scale  # from the palm to just under the fingertips
    x, y = wx - reach * math.sin(a), wy - reach * math.cos(a)
    look = style.light if hand.holding == "light" else style.dark
    r, t = geo.diameter / 2, geo.diameter * geo.thickness
    c = Checker(x, y, max(z - t, 0.0), look, 0)
    checker_shadow(canvas, model, c, r, t)
    draw_checker(canvas, model, c, r, t)
    centre = model.to_canvas([[x, y, c.z + t]])[0]
    radius = r * model.px_per_unit * model.canvas_scale(c.z + t)
    cv2.circle(hidden, (round(centre[0]), round(centre[1])), round(radius), 1, -1)


def _face_covered(block: Block, model: CameraModel, hidden: np.ndarray) -> float:
    """The share of a die's top face that the occluders hide, sampled on a 5x5 grid."""
    tl, tr, br, bl = block.vertices[[4, 5, 6, 7]]
    t = np.linspace(0.1, 0.9, 5)
    u, v = np.meshgrid(t, t)
    u, v = u.ravel()[:, None], v.ravel()[:, None]
    pts = (1 - v) * ((1 - u) * tl + u * tr) + v * ((1 - u) * bl + u * br)
    uv = np.round(model.to_canvas(pts)).astype(int)
    h, w = hidden.shape
    ok = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
    return float((hidden[uv[ok, 1], uv[ok, 0]] > 0).sum() / len(uv))


def render(scene: Scene, size: tuple[int, int] = (1280, 720), seed: int = 0) -> Rendered:
    """Draw ``scene`` as a camera frame of ``size`` (width, height); the same seed gives the same image."""
    if not (64 <= size[0] <= 4096 and 64 <= size[1] <= 4096):
        raise RenderError(f"image size {size} is not (width, height) within 64..4096")
    style = STYLES[scene.style]
    geo = style.geometry
    rng = np.random.default_rng(seed)
    model, maps = _camera(scene.camera, tuple(size), scene.style)
    x0, y0, x1, y1 = model.crop
    canvas = empty_board(scene.style, model.px_per_unit)[y0:y1, x0:x1].copy()
    if scene.clutter:
        # Its own generator, so that adding clutter changes nothing else in the frame.
        draw_clutter(canvas, model, scene.clutter, geo.aspect, np.random.default_rng([seed, 7]))
    if scene.clock is not None:
        draw_clock(canvas, model, scene.clock, geo.aspect)
    checkers = place_checkers(scene, style, rng)
    _draw_checkers(canvas, model, checkers, geo)
    draw_borne_off(canvas, model, style, scene.off_light, scene.off_dark)
    cube_center = _draw_cube(canvas, model, scene.cube, geo, rng) if scene.cube is not None else None
    dice, blocks = _draw_dice(canvas, model, scene.dice, checkers, geo, rng)
    hidden = _draw_hands(canvas, model, style, scene.hands, rng)
    occluded, partly = cells_hidden(scene, geo, model, hidden) if scene.hands else (frozenset(), frozenset())
    if scene.hands:
        dice = [
            dataclasses.replace(t, covered=_face_covered(b, model, hidden))
            for t, b in zip(dice, blocks, strict=True)
        ]
    image = cv2.remap(canvas, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    image = postprocess(image, scene, rng)
    half_h = geo.aspect / 2
    quad = model.project([[-0.5, -half_h, 0], [0.5, -half_h, 0], [0.5, half_h, 0], [-0.5, half_h, 0]])
    return Rendered(
        image=image,
        field_quad=quad,
        dice=tuple(dice),
        occluded=occluded,
        style=scene.style,
        partly_occluded=partly,
        checkers=_checker_truths(model, checkers, geo),
        layout=ImageLayout(scene.top, scene.bottom, scene.bar_light, scene.bar_dark),
        cube_center=cube_center,
        model=model,
    )


def _draw_checkers(canvas: np.ndarray, model: CameraModel, checkers: list[Placed], geo: Geometry) -> None:
    """Layer by layer, every checker's shadow before the checkers, so no shadow falls on a checker beside."""
    radius, thick = geo.diameter / 2, geo.diameter * geo.thickness
    for layer in sorted({k for _, _, k, _ in checkers}):
        row = [c for _, c, k, _ in checkers if k == layer]
        for c in row:
            checker_shadow(canvas, model, c, radius, thick)
        for c in row:
            draw_checker(canvas, model, c, radius, thick)


def _draw_cube(
    canvas: np.ndarray, model: CameraModel, cube: CubeSpec, geo: Geometry, rng: np.random.Generator
) -> tuple[float, float]:
    """The doubling cube; returns the image point of its top face's centre."""
    block = _cube_block(cube, geo, rng)
    draw_block(canvas, model, block)
    cx, cy = model.project([block.top_centre])[0]
    return float(cx), float(cy)


def _draw_dice(
    canvas: np.ndarray,
    model: CameraModel,
    dice: tuple[DieSpec, ...],
    checkers: list[Placed],
    geo: Geometry,
    rng: np.random.Generator,
) -> tuple[list[DieTruth], list[Block]]:
    """The dice, each on the board or on top of the checker under it; their truth and their blocks."""
    truths, blocks = [], []
    for spec in dice:
        wx, wy, _ = geo.world(spec.x, spec.y)
        under = top_checker_at(wx, wy, checkers, geo)
        block = _die_block(spec, geo, max(under, 0.0), rng)
        blocks.append(block)
        draw_block(canvas, model, block)
        centre = model.project([block.top_centre])[0]
        outside = not (0 <= spec.x <= 1 and 0 <= spec.y <= 1)
        on_bar = abs(spec.x - 0.5) <= geo.bar / 2
        half = None if outside or on_bar else (Half.LEFT if spec.x < 0.5 else Half.RIGHT)
        box = _box(model.project(block.vertices))
        truths.append(
            DieTruth(
                spec.value, (float(centre[0]), float(centre[1])), box, spec.cocked, under >= 0, outside, half
            )
        )
    return truths, blocks


def _draw_hands(
    canvas: np.ndarray,
    model: CameraModel,
    style: Style,
    hands: tuple[HandSpec, ...],
    rng: np.random.Generator,
) -> np.ndarray:
    """Hands, arms and cups over the board (a hand may hold a checker); returns the mask they cover."""
    geo = style.geometry
    hidden = np.zeros(canvas.shape[:2], np.uint8)
    for hand in hands:
        wx, wy, _ = geo.world(hand.x, hand.y)
        occ = make_hand(hand.kind, wx, wy, hand.angle, hand.scale, rng)
        if hand.blur > 0:
            occ = dataclasses.replace(occ, blur=hand.blur, blur_dir=float(rng.uniform(0, np.pi)))
        if hand.holding and hand.kind != "cup":
            _draw_held(canvas, model, style, hand, occ.z, hidden)
        draw_occluder(canvas, model, occ, hidden)
    return hidden


def _checker_truths(model: CameraModel, checkers: list[Placed], geo: Geometry) -> tuple[CheckerTruth, ...]:
    """Where every checker landed: its cell, colour, layer, top face in the image and base on the field."""
    if not checkers:
        return ()
    thick = geo.diameter * geo.thickness
    tops = model.project([[c.x, c.y, c.z + thick] for _, c, _, _ in checkers])
    return tuple(
        CheckerTruth(cell, light, layer, (float(top[0]), float(top[1])), (c.x + 0.5, c.y / geo.aspect + 0.5))
        for (cell, c, layer, light), top in zip(checkers, tops, strict=True)
    )
