"""A synthetic overhead frame of a backgammon board: position, dice, cube, hands, camera and light.

The renderer serves the tests, the benchmarks and the demonstration; it is deterministic from a seed and
returns the exact truth with the image (where the field, the dice and every checker landed, and which
cells a hand or cup hides).

    >>> from bgboard.layout import ImageLayout
    >>> start = ImageLayout((-5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2), (5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))
    >>> frame = render(scene_from_layout(start, dice=(DieSpec(3, 0.7, 0.5), DieSpec(5, 0.8, 0.45))), seed=1)
    >>> frame.image.shape, [d.value for d in frame.dice]
    ((720, 1280, 3), [3, 5])

Conventions (the board reader and the benchmarks rely on them):

- **Field coordinates**: ``x, y`` in 0..1 across the playing field (the 24 points and the bar, not the
  trays), ``(0, 0)`` its top-left corner as the image shows it. :attr:`Rendered.field_quad` gives its
  corners in the image; :meth:`Rendered.field_to_image` / :meth:`Rendered.image_to_field` map points
  through the same camera model (perspective and lens distortion included).
- **Columns** (:class:`vision.render_styles.Geometry`, ``Rendered.geometry``): the bar is the middle
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
  ``vision.render_place.BAR_GAP`` (0.45) checkers off the centre outwards, leaving the middle for the cube.
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

from bgboard.layout import ImageLayout
from vision.render_camera import CameraModel
from vision.render_hands import draw_clutter, draw_occluder, make_hand
from vision.render_place import (
    cells_hidden,
    checker_slots,
    place_checkers,
    slot_xy,
    top_checker_at,
)
from vision.render_post import postprocess
from vision.render_props import (
    DIE_COLOURS,
    Block,
    Checker,
    checker_shadow,
    draw_block,
    draw_borne_off,
    draw_checker,
    place_block,
)
from vision.render_styles import RAIL, STYLES, TRAY, Geometry, Style, empty_board

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


class RenderError(ValueError):
    """A scene the renderer cannot draw (bad counts, an unknown style, a die value out of range)."""


@dataclass(frozen=True)
class DieSpec:
    """A die at field coordinates (x, y); outside 0..1 it lies on the frame or in a tray."""

    value: int
    x: float
    y: float
    angle: float = 0.0  # degrees about the vertical
    cocked: bool = False  # tipped on an edge, leaning; shows a side face and a foreshortened top
    colour: str = "white"  # "white", "black", or translucent "red", "green", "blue"
    size: float = 1.0  # relative to a standard 15 mm die
    motion: float = 0.0  # still rolling: motion blur as long as this many die widths


@dataclass(frozen=True)
class CubeSpec:
    value: int = 64
    location: str = "centre"  # "centre" (bar middle), "top"/"bottom" (bar near that edge), "tray"


@dataclass(frozen=True)
class HandSpec:
    """A hand reaching in, an arm lying across, or a dice cup standing on the board."""

    kind: str = "hand"  # "hand", "arm" or "cup"
    x: float = 0.5  # field coordinates of the hand's palm (or the cup's centre)
    y: float = 0.5
    angle: float = 0.0  # where the arm comes from, degrees: 0 bottom edge, 90 right, 180 top, 270 left
    scale: float = 1.0
    blur: float = 0.0  # motion blur, in field widths (0.05 = a fast hand)
    holding: str | None = None  # "light" or "dark": a checker pinched under the fingers (not counted)


@dataclass(frozen=True)
class Camera:
    tilt_deg: float = 0.0  # off vertical, towards the near (bottom) player; up to 20
    rotation_deg: float = 0.0  # roll of the image about the optical axis
    # Barrel amount k: a point an ideal lens puts at radius r_u (over the half-diagonal) is seen at r_d
    # with r_u = r_d * (1 + k * r_d**2); 0.1 = the frame's corners show 10 % more than an ideal lens.
    # Negative = pincushion.
    distortion: float = 0.0
    scale: float = 1.0  # 1 = the field spans 55 % of the image width
    offset: tuple[float, float] = (0.0, 0.0)  # pan: the field centre moves by these image widths, heights


@dataclass(frozen=True)
class Scene:
    top: tuple[int, ...]
    bottom: tuple[int, ...]
    bar_light: int = 0
    bar_dark: int = 0
    style: str = "tournament"
    dice: tuple[DieSpec, ...] = ()
    cube: CubeSpec | None = None
    hands: tuple[HandSpec, ...] = ()
    camera: Camera = Camera()
    light: float = 1.0  # overall brightness
    glare: float = 0.0  # 0..1, strength of a specular hot spot
    noise: float = 0.0  # sensor noise, standard deviation as a fraction of full scale (0.02 ~ 5 levels)
    blur: float = 0.0  # focus blur, Gaussian sigma in pixels
    jpeg_quality: int | None = None
    shading: float = 0.0  # 0..1, uneven light across the frame (vignetting and a broad gradient)
    jitter: float = 1.0  # how far checkers sit off the ideal slots (1 = a careful player, 0 = none)
    row_limit: int = 5  # checkers in a point's first row before the second layer starts (5 or 6)
    tint: float = 0.0  # 0..1, a white-balance error: random per-channel gains up to 15 %
    clutter: int = 0  # things on the table around the board (clocks, score cards, cans, phones)
    off_light: int = 0  # borne-off checkers standing on edge in the right tray, light in its lower half
    off_dark: int = 0  # ... and dark in its upper half

    def __post_init__(self) -> None:
        if len(self.top) != 12 or len(self.bottom) != 12:
            raise RenderError("a scene needs 12 counts in each of top and bottom (the image layout)")
        if self.style not in STYLES:
            raise RenderError(f"unknown style {self.style!r}: choose one of {', '.join(STYLES)}")
        if any(abs(v) > 15 for v in self.top + self.bottom) or not (
            0 <= self.bar_light <= 15
            and 0 <= self.bar_dark <= 15
            and 0 <= self.off_light <= 15
            and 0 <= self.off_dark <= 15
        ):
            raise RenderError("a cell holds at most 15 checkers")
        for d in self.dice:
            if d.value not in range(1, 7):
                raise RenderError(f"a die shows 1..6, not {d.value}")
            if d.colour not in DIE_COLOURS:
                raise RenderError(f"unknown die colour {d.colour!r}: choose one of {', '.join(DIE_COLOURS)}")
        if self.cube and (
            self.cube.value not in (1, 2, 4, 8, 16, 32, 64)
            or self.cube.location not in ("centre", "top", "bottom", "tray")
        ):
            raise RenderError("a cube shows 1..64 (powers of 2) at centre, top, bottom or tray")
        for hand in self.hands:
            if hand.kind not in ("hand", "arm", "cup"):
                raise RenderError(f"unknown hand kind {hand.kind!r}: use hand, arm or cup")
            if hand.holding not in (None, "light", "dark"):
                raise RenderError(f"a hand holds a 'light' or 'dark' checker (or None), not {hand.holding!r}")
        if not 0 <= self.camera.tilt_deg <= 45 or not -0.2 <= self.camera.distortion <= 0.5:
            raise RenderError("camera tilt must be 0..45 degrees and distortion -0.2..0.5")
        if max(abs(self.camera.offset[0]), abs(self.camera.offset[1])) > 0.4:
            raise RenderError("camera offset must be within -0.4..0.4 of the image size")
        if not 0.2 <= self.camera.scale <= 2.0:
            raise RenderError("camera scale must be 0.2..2 (1 = the field spans 55 % of the width)")
        if self.row_limit not in range(3, 7):
            raise RenderError("row_limit must be 3..6")
        if any(d.size <= 0 or d.motion < 0 for d in self.dice) or any(
            h.scale <= 0 or h.blur < 0 for h in self.hands
        ):
            raise RenderError("die sizes and hand scales must be positive, hand blur not negative")
        if min(self.glare, self.noise, self.blur, self.shading, self.tint, self.jitter, self.clutter) < 0:
            raise RenderError("glare, noise, blur, shading, tint, jitter and clutter cannot be negative")
        if self.light <= 0 or (self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100):
            raise RenderError("light must be positive and jpeg_quality 1..100 (or None)")


@dataclass(frozen=True)
class DieTruth:
    value: int
    center: tuple[float, float]  # image pixels of the top face's centre
    box: tuple[float, float, float, float]  # x0, y0, x1, y1: the whole die in image pixels
    cocked: bool
    on_checker: bool
    outside_field: bool
    half: str | None  # "left" / "right" half of the field; None on the bar or off the field
    covered: float = 0.0  # the share of its top face a hand, arm or cup hides (0..1)


@dataclass(frozen=True)
class CheckerTruth:
    cell: str  # "top-0".."bottom-11", "bar-light", "bar-dark"
    light: bool
    layer: int  # 0 = on the board, 1 = on top of the first row, ...
    center: tuple[float, float]  # image pixels of the top face's centre
    field_xy: tuple[float, float]  # field coordinates of the base centre


@dataclass(frozen=True, eq=False)
class Rendered:
    image: np.ndarray  # HxWx3 uint8 BGR
    field_quad: np.ndarray  # 4x2 float: tl, tr, br, bl corners of the playing field in image pixels
    dice: tuple[DieTruth, ...]
    occluded: frozenset[str]  # cells a hand/arm/cup hides (a quarter of some checker slot or more)
    style: str
    partly_occluded: frozenset[str] = frozenset()  # cells only grazed (under a quarter): may go either way
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


def scene_from_layout(layout: ImageLayout, **kw: object) -> Scene:
    """A scene showing ``layout``; keyword arguments set the other :class:`Scene` fields."""
    fields: dict[str, object] = {
        "top": layout.top,
        "bottom": layout.bottom,
        "bar_light": layout.bar_light,
        "bar_dark": layout.bar_dark,
    }
    fields.update(kw)
    return Scene(**fields)  # type: ignore[arg-type]


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
    return Block(verts, labels, body, ink, opacity, motion, float(rng.uniform(0, np.pi)))  # type: ignore[arg-type]


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
    return Block(verts, labels, (225, 228, 230), (30, 30, 30), 1.0)  # type: ignore[arg-type]


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
    checkers = place_checkers(scene, style, rng)
    radius, thick = geo.diameter / 2, geo.diameter * geo.thickness
    for layer in sorted({k for _, _, k, _ in checkers}):
        row = [c for _, c, k, _ in checkers if k == layer]
        for c in row:
            checker_shadow(canvas, model, c, radius, thick)
        for c in row:
            draw_checker(canvas, model, c, radius, thick)

    draw_borne_off(canvas, model, style, scene.off_light, scene.off_dark)
    cube_center = None
    if scene.cube is not None:
        block = _cube_block(scene.cube, geo, rng)
        draw_block(canvas, model, block)
        cube_center = tuple(float(v) for v in model.project([block.top_centre])[0])

    dice_truth, blocks = [], []
    for spec in scene.dice:
        wx, wy, _ = geo.world(spec.x, spec.y)
        under = top_checker_at(wx, wy, checkers, geo)
        block = _die_block(spec, geo, max(under, 0.0), rng)
        blocks.append(block)
        draw_block(canvas, model, block)
        img_v = model.project(block.vertices)
        centre = model.project([block.top_centre])[0]
        outside = not (0 <= spec.x <= 1 and 0 <= spec.y <= 1)
        on_bar = abs(spec.x - 0.5) <= geo.bar / 2
        half = None if outside or on_bar else ("left" if spec.x < 0.5 else "right")
        dice_truth.append(
            DieTruth(
                spec.value,
                (float(centre[0]), float(centre[1])),
                tuple(float(v) for v in (*img_v.min(0), *img_v.max(0))),  # type: ignore[arg-type]
                spec.cocked,
                under >= 0,
                outside,
                half,
            )
        )

    hidden = np.zeros(canvas.shape[:2], np.uint8)
    for hand in scene.hands:
        wx, wy, _ = geo.world(hand.x, hand.y)
        occ = make_hand(hand.kind, wx, wy, hand.angle, hand.scale, rng)
        if hand.blur > 0:
            occ = dataclasses.replace(occ, blur=hand.blur, blur_dir=float(rng.uniform(0, np.pi)))
        if hand.holding and hand.kind != "cup":
            _draw_held(canvas, model, style, hand, occ.z, hidden)
        draw_occluder(canvas, model, occ, hidden)
    occluded, partly = cells_hidden(scene, geo, model, hidden) if scene.hands else (frozenset(), frozenset())
    if scene.hands:
        dice_truth = [
            dataclasses.replace(t, covered=_face_covered(b, model, hidden))
            for t, b in zip(dice_truth, blocks, strict=True)
        ]

    image = cv2.remap(canvas, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    image = postprocess(image, scene, rng)

    half_h = geo.aspect / 2
    quad = model.project([[-0.5, -half_h, 0], [0.5, -half_h, 0], [0.5, half_h, 0], [-0.5, half_h, 0]])
    truths = []
    tops = (
        model.project([[c.x, c.y, c.z + thick] for _, c, _, _ in checkers]) if checkers else np.zeros((0, 2))
    )
    for (cell, c, layer, light), top in zip(checkers, tops, strict=True):
        truths.append(
            CheckerTruth(
                cell,
                light,
                layer,
                (float(top[0]), float(top[1])),
                (c.x + 0.5, c.y / geo.aspect + 0.5),
            )
        )
    layout = ImageLayout(scene.top, scene.bottom, scene.bar_light, scene.bar_dark)
    return Rendered(
        image=image,
        field_quad=quad,
        dice=tuple(dice_truth),
        occluded=occluded,
        style=scene.style,
        partly_occluded=partly,
        checkers=tuple(truths),
        layout=layout,
        cube_center=cube_center,  # type: ignore[arg-type]
        model=model,
    )
