"""Throws on real boards: real dice pasted onto the real board photographs, as a table throws them.

A labelled board photograph (``calibration.labelled``: the first of each camera that no hand covers,
calibrated as ``../shared/checks/boards.py`` does) with its own dice painted out is a :class:`RealTable`. A
:class:`Throw` lays two real dice (``synthetic.pasted``) on one: flat on empty points or between the
rows, lying against each other (side by side or corner to corner), against the field's rim; or, to be
thrown again, one of them on a checker, in a tray, or both in the other half. The tables keep what
stands around a real board: the chess clock of the tournament camera ticks between the frame the turn
began with and the throw, and on a share of throws the cube has been turned to 2 and moved (into a
tray, or to the bar's end at one side) before the turn began.

:func:`render_throw` gives the frame of the throw and the frame the turn began with (no dice, the same
cube, the clock a few seconds earlier).

    >>> import numpy as np
    >>> t = Throw("flat", Side.LIGHT, (3, 5), [(0.6, 0.4, 1.0), (0.8, 0.6, 1.0)])
    >>> t.due is None, Throw("in a tray", Side.DARK, (1, 2), []).due
    (True, 'outside the playing field')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np

from bgboard.layout import Half, ImageLayout, Orientation, Side
from synthetic.pasted import Cutout, paste

FIELD_IN_DICE = 31.0  # a standard die's side is about a 31st of the field's width
# what is thrown, how often; and for throws that must be thrown again, the reason the referee gives
KINDS = {
    "flat": 0.3,
    "touching": 0.22,
    "rim": 0.1,
    "on a checker": 0.12,
    "in a tray": 0.13,
    "other half": 0.13,
}
DUE = {
    "on a checker": "rests on a checker",
    "in a tray": "outside the playing field",
    "other half": "right-hand half",
}
# The LCD panels of the tournament camera's chess clock (x0, y0, x1, y1 in px): their digits change.
CLOCKS = {"frame0.jpg": ((170, 290, 192, 352), (172, 358, 194, 420))}
# What stands on a photograph's field (x0, y0, x1, y1 in px): test2.jpg's two dice cups. A thrown die
# lies beside one, never on its rim, so no die is pasted there.
STANDING = {"test2.jpg": ((287, 133, 431, 303), (743, 117, 895, 267))}


@dataclass(frozen=True)
class CubeLook:
    """A photograph's cube (see ``CUBES``)."""

    side: float
    reach: tuple[int, int, int, int]
    face: tuple[int, int, int]
    ink: tuple[int, int, int]
    disc: tuple[int, int, int] | None
    numeral: float  # the numeral's height over the face's side
    trays: tuple[float, float]  # u of the line along each tray (left, right) where a cube lies
    bar_end: bool  # whether the bar's ends have room for the cube beside the checkers there
    # (u, v from, v to): where something stands in a tray (a clock), with half a cube to spare
    taken: tuple[tuple[float, float, float], ...] = ()


# The cube as each photograph shows it, cut out of the photograph (its lit rim, the side the camera sees,
# its shading) with its numeral painted over and another drawn: its top face's side in px, how far the
# cube reaches left, up, right and down of the face's centre (px, the visible side included), the face's
# and the numeral's colours (BGR), the disc behind the numeral where the cube has one (``DISC``), the
# numeral's height; where a taker puts it. ``test10.jpg``'s trays are narrow channels (its own cube lies
# in the right one) and its bar is narrower than its cube, with checkers stacked to the edge beside both
# ends. ``frame0.jpg``'s chess clock stands in its left tray.
CUBES = {
    "frame0.jpg": CubeLook(
        38.0,
        (31, 22, 22, 21),
        (40, 30, 200),
        (235, 235, 240),
        None,
        0.55,
        (-0.07, 1.07),
        True,
        ((-0.07, 0.35, 0.69),),
    ),
    "test10.jpg": CubeLook(
        50.0, (27, 27, 44, 30), (30, 30, 30), (30, 30, 30), (170, 215, 225), 0.36, (-0.108, 1.108), False
    ),
}
DISC = 0.31  # a disc's radius over the face's side, as on test10.jpg's cube
CUBE_MOVED = 0.35  # share of throws on a table with a cube where it was turned to 2 and moved first


class _Calibrated(Protocol):
    @property
    def corners(self) -> Sequence[tuple[float, float]]: ...
    @property
    def orientation(self) -> Orientation: ...


class LabelledPhotograph(Protocol):
    """A labelled board photograph with its calibration, as ``calibration.labelled.Labelled`` gives it."""

    @property
    def name(self) -> str: ...
    @property
    def image(self) -> np.ndarray: ...
    @property
    def layout(self) -> ImageLayout: ...
    @property
    def profile(self) -> _Calibrated: ...
    @property
    def checkers(self) -> np.ndarray: ...
    @property
    def dice(self) -> Sequence[tuple[float, float]]: ...
    @property
    def cube(self) -> tuple[float, float] | None: ...
    @property
    def pose(self) -> tuple[float, float, float, float]: ...
    @property
    def zoom(self) -> float: ...


@dataclass
class RealTable:
    """A real board photograph with its own dice painted out, and what the calibration knows of it."""

    name: str
    image: np.ndarray  # the photograph, its dice painted out
    layout: ImageLayout
    corners: np.ndarray  # tl, tr, br, bl of the field in px
    orientation: Orientation
    checkers: np.ndarray  # the layout's first-layer checkers as (u, v, ru, rv) in the field's unit square
    cube: tuple[float, float] | None  # where the photograph's cube lies, in px
    # the camera over the field: its nadir (x, y) and height in field widths, x right and y down from the
    # top-left corner, and the field's height over its width; None: straight down from far above
    camera: tuple[float, float, float, float] | None = None
    zoom: float = 1.0  # the photograph enlarged this many times: its clock and cube are drawn so much larger

    @classmethod
    def of(
        cls,
        name: str,
        photograph: np.ndarray,
        layout: ImageLayout,
        corners: Sequence[tuple[float, float]],
        orientation: Orientation,
        checkers: np.ndarray,
        dice: Sequence[tuple[float, float]] = (),
        cube: tuple[float, float] | None = None,
        camera: tuple[float, float, float, float] | None = None,
    ) -> RealTable:
        """The table of a labelled photograph: its labelled ``dice`` (centres, px) are painted out."""
        quad = np.asarray(corners, np.float64)
        t = cls(name, photograph, layout, quad, orientation, checkers, cube, camera)
        t.image = _painted_out(photograph, list(dice), t.die_side())
        return t

    @classmethod
    def of_labelled(cls, c: LabelledPhotograph) -> RealTable:
        """The table of a labelled, calibrated photograph, its camera posed as the reader poses it."""
        p = c.profile
        t = cls.of(c.name, c.image, c.layout, p.corners, p.orientation, c.checkers, c.dice, c.cube, c.pose)
        t.zoom = c.zoom
        return t

    @property
    def to_image(self) -> np.ndarray:
        unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
        return cv2.getPerspectiveTransform(unit, self.corners.astype(np.float32)).astype(np.float64)

    def die_side(self) -> float:
        """A standard die's side in image px."""
        q = self.corners
        return float((np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2 / FIELD_IN_DICE)

    def image_at(self, u: float, v: float) -> tuple[float, float]:
        p = self.to_image @ np.array([u, v, 1.0])
        return float(p[0] / p[2]), float(p[1] / p[2])

    def seen_at(self, u: float, v: float, rise: float) -> tuple[tuple[float, float], float]:
        """Where the image shows the point ``rise`` field widths above (``u``, ``v``), and how much bigger
        than on the board: the plane at that height is seen magnified about the camera's nadir.

            >>> corners = np.array([[0, 0], [100, 0], [100, 90], [0, 90]], np.float64)
            >>> t = RealTable("t", None, None, corners, None, None, None, camera=(0.5, 0.45, 2.0, 0.9))
            >>> (x, y), k = t.seen_at(1.0, 0.5, 0.1)
            >>> round(x, 2), round(y, 2), round(k, 3)
            (102.63, 45.0, 1.053)
        """
        if self.camera is None:
            return self.image_at(u, v), 1.0
        nx, ny, height, aspect = self.camera
        k = height / (height - rise)
        return self.image_at(nx + (u - nx) * k, (ny + (v * aspect - ny) * k) / aspect), k

    def field_at(self, x: float, y: float) -> tuple[float, float]:
        """The field's unit-square coordinates of image point (``x``, ``y``)."""
        p = np.linalg.solve(self.to_image, np.array([x, y, 1.0]))
        return float(p[0] / p[2]), float(p[1] / p[2])


def _painted_out(image: np.ndarray, centres: Sequence[Sequence[float]], radius: float) -> np.ndarray:
    mask = np.zeros(image.shape[:2], np.uint8)
    for x, y in centres:
        cv2.circle(mask, (round(x), round(y)), round(0.9 * radius), 255, -1)
    return cv2.inpaint(image, mask, 5, cv2.INPAINT_TELEA) if len(centres) else image.copy()


@dataclass
class Throw:
    """Two dice thrown by ``roller``: ``spots`` are (u, v, size) of each in the field's unit square (size
    relative to a standard die); ``cube`` where the cube was moved to before the turn, if it was."""

    kind: str
    roller: Side
    values: tuple[int, int]
    spots: list[tuple[float, float, float]]
    cube: tuple[float, float] | None = None  # (u, v) in the field's unit square
    turn: float = 0.0  # how far round the dice lie, degrees (the pair lies at one angle when touching)

    @property
    def due(self) -> str | None:
        """Why the throw must be thrown again, in the referee's words, or None for a good throw."""
        return DUE.get(self.kind)


def _free(t: RealTable, u: float, v: float, side_u: float, others: list[tuple[float, float, float]]) -> bool:
    """No checker under the die, nor another die, nor anything standing on the field; on the field but
    off the bar."""
    if not (0.01 < u < 0.99 and 0.015 < v < 0.985) or abs(u - 0.5) < 0.045:
        return False
    if _under_something(t, u, v, side_u):
        return False
    c = t.checkers
    if len(c):
        du = (u - c[:, 0]) / (c[:, 2] + 0.8 * side_u)
        dv = (v - c[:, 1]) / (c[:, 3] + 0.8 * side_u / 0.9)
        if ((du**2 + dv**2) < 1).any():
            return False
    return all(math.hypot(u - a, (v - b) * 0.9) > 1.15 * side_u for a, b, _ in others)


def _under_something(t: RealTable, u: float, v: float, side_u: float) -> bool:
    """Whether a die of side ``side_u`` at (``u``, ``v``) would overlap what stands on ``t``'s field."""
    x, y = t.image_at(u, v)
    half = 0.75 * side_u * FIELD_IN_DICE * t.die_side()  # half a die's diagonal
    boxes = STANDING.get(t.name, ())
    return any(x0 - half < x < x1 + half and y0 - half < y < y1 + half for x0, y0, x1, y1 in boxes)


def _spot(
    t: RealTable, half: Half, rng: np.random.Generator, others: list, side_u: float
) -> tuple[float, float]:
    lo, hi = (0.02, 0.47) if half is Half.LEFT else (0.53, 0.98)
    for _ in range(400):
        u, v = float(rng.uniform(lo, hi)), float(rng.uniform(0.03, 0.97))
        if _free(t, u, v, side_u, others):
            return u, v
    raise RuntimeError(f"no free spot in the {half.value} half of {t.name}")


def _at_the_rim(
    t: RealTable, half: Half, rng: np.random.Generator, side_u: float
) -> tuple[float, float] | None:
    """A free spot against the near or the far rim of the field, inside it (None if the rim is full)."""
    lo, hi = (0.02, 0.47) if half is Half.LEFT else (0.53, 0.98)
    edge = 0.5 * side_u / 0.9 + 0.004
    for _ in range(200):
        u, v = float(rng.uniform(lo, hi)), edge if rng.random() < 0.5 else 1 - edge
        if _free(t, u, v, side_u, []):
            return u, v
    return None


def _against(
    t: RealTable, first: tuple[float, float], sizes: list[float], turn: float, rng: np.random.Generator
) -> tuple[float, float] | None:
    """A spot for a second die lying against the first: side by side or corner to corner."""
    side_u = 1.0 / FIELD_IN_DICE
    a = math.radians(turn) + rng.integers(4) * math.pi / 2
    if rng.random() < 0.35:
        a += math.pi / 4  # corner to corner: along the diagonal
        gap = math.sqrt(2)
    else:
        gap = 1.0
    # the two dice touch, or lie a hair apart, measured in the image where they are pasted
    d = t.die_side() * (sizes[0] + sizes[1]) / 2 * gap * rng.uniform(1.0, 1.05)
    x, y = t.image_at(*first)
    second = t.field_at(x + d * math.cos(a), y + d * math.sin(a))
    return second if _free(t, *second, side_u * sizes[1], []) else None


def make_throw(t: RealTable, rng: np.random.Generator) -> Throw:
    """A random throw of one of the :data:`KINDS` on ``t`` (on a board with no checkers, no die can rest
    on one: that throw lies flat)."""
    kind = str(rng.choice(list(KINDS), p=list(KINDS.values())))
    if kind == "on a checker" and not len(t.checkers):
        kind = "flat"
    roller = Side.LIGHT if rng.random() < 0.5 else Side.DARK
    half = t.orientation.throwing_half(roller)
    if kind == "other half":
        half = Half.LEFT if half is Half.RIGHT else Half.RIGHT
    size = float(rng.uniform(0.8, 1.1))
    # a pair of dice is mostly of one size; sometimes two sets' dice are mixed
    sizes = [size, size] if rng.random() < 0.7 else [size, float(rng.uniform(0.8, 1.1))]
    side_u = 1.0 / FIELD_IN_DICE
    turn = float(rng.uniform(0, 90))
    spots: list[tuple[float, float, float]] = []
    first = _spot(t, half, rng, spots, side_u * sizes[0])
    if kind == "rim":
        first = _at_the_rim(t, half, rng, side_u * sizes[0]) or first
    elif kind == "on a checker":
        mine = [c for c in t.checkers if (c[0] < 0.5) == (half is Half.LEFT)] or list(t.checkers)
        u, v, ru, _ = mine[int(rng.integers(len(mine)))]
        first = (float(u + rng.uniform(-0.3, 0.3) * ru), float(v))
    elif kind == "in a tray":
        u = float(rng.uniform(-0.085, -0.035) if half is Half.LEFT else rng.uniform(1.035, 1.085))
        first = (u, float(rng.uniform(0.15, 0.85)))
    spots.append((*first, sizes[0]))
    second = _against(t, first, sizes, turn, rng) if kind == "touching" else None
    if second is None:
        if kind == "touching":
            kind = "flat"  # no room for the pair there
        second = _spot(t, half, rng, spots, side_u * sizes[1])
    spots.append((*second, sizes[1]))
    values = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    cube = _cube_moved(t, rng) if t.name in CUBES and rng.random() < CUBE_MOVED else None
    return Throw(kind, roller, values, spots, cube, turn)


def _cube_moved(t: RealTable, rng: np.random.Generator) -> tuple[float, float]:
    """Where a taker puts the cube: in a tray, or at the bar's end on the taker's side."""
    look = CUBES[t.name]
    if rng.random() < 0.6 or not look.bar_end:
        while True:
            u, v = float(rng.choice(look.trays)), float(rng.uniform(0.15, 0.85))
            if not any(u == tu and v0 < v < v1 for tu, v0, v1 in look.taken):
                return (u, v)
    return (0.5, float(rng.choice([0.07, 0.93])))


def cube_face(t: RealTable, value: int, rng: np.random.Generator) -> Cutout:
    """``t``'s cube turned to ``value``: cut out of the photograph where it lies, its numeral painted over
    in the face's (or its disc's) colour and ``value`` drawn in the numeral's, centred on the top face."""
    if t.cube is None:
        raise ValueError(f"{t.name} shows no cube")
    look = CUBES[t.name]
    side = look.side * t.zoom
    left, up, right, down = (v * t.zoom for v in look.reach)
    r = int(math.ceil(max(left, up, right, down))) + 3  # the cut-out is centred on the top face
    x, y = round(t.cube[0]), round(t.cube[1])
    h, w = t.image.shape[:2]
    if not (r <= x < w - r and r <= y < h - r):
        raise ValueError(f"{t.name}'s cube lies too near the photograph's edge to cut out")
    img = t.image[y - r : y + r + 1, x - r : x + r + 1].copy()
    if look.disc is not None:
        cv2.circle(img, (r, r), round(side * DISC), look.disc, -1, cv2.LINE_AA)
    else:
        # the face inside its rim
        q = round(side * 0.4)
        cv2.rectangle(img, (r - q, r - q), (r + q, r + q), look.face, -1)
    # the numeral faces any of the four edges of the face
    text, ink = str(value), np.zeros(img.shape[:2], np.uint8)
    (_, unit), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, 1.0, 2)
    scale = look.numeral * side / unit
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
    cv2.putText(ink, text, (r - tw // 2, r + th // 2), cv2.FONT_HERSHEY_DUPLEX, scale, 255, 2, cv2.LINE_AA)
    a = np.rot90(ink, int(rng.integers(4)))[..., None].astype(np.float32) / 255.0
    img = (img * (1.0 - a) + np.array(look.ink, np.float32) * a).astype(np.uint8)
    alpha = np.zeros(img.shape[:2], np.float32)
    corners = (round(r - left), round(r - up)), (round(r + right), round(r + down))
    cv2.rectangle(alpha, *corners, 1.0, -1)
    return Cutout(img, cv2.GaussianBlur(alpha, (3, 3), 0.8), value, float(side), t.name)


def _tick(image: np.ndarray, t: RealTable, rng: np.random.Generator) -> None:
    """The clock's digits move on: a strip of each panel replaced by a shifted copy of itself."""
    for box in CLOCKS.get(t.name, ()):
        x0, y0, x1, y1 = (round(v * t.zoom) for v in box)
        panel = image[y0:y1, x0:x1]
        k = round(int(rng.integers(6, 14)) * t.zoom)
        start = int(rng.integers(0, max(1, panel.shape[0] - 2 * k)))
        strip = panel[start : start + k].copy()
        panel[start : start + k] = np.roll(strip, round(int(rng.integers(-4, 5)) * t.zoom), axis=0)[
            :, :: 1 if rng.random() < 0.5 else -1
        ]


def _base(t: RealTable, throw: Throw, rng: np.random.Generator) -> np.ndarray:
    """The table as the turn began, before any clock tick: the cube where the throw says it was put."""
    image = t.image.copy()
    if throw.cube is not None and t.cube is not None:
        look = CUBES[t.name]
        image = _painted_out(image, [list(t.cube)], max(look.side, *look.reach) * t.zoom)
        x, y = t.image_at(*throw.cube)
        paste(
            image,
            cube_face(t, 2, rng),
            (x, y),
            look.side * t.zoom,
            float(rng.uniform(-20, 20)),
            rng,
            shadow=0.25,
        )
    return image


def render_throw(
    t: RealTable,
    throw: Throw,
    dice: dict[int, list[Cutout]],
    rng: np.random.Generator,
    chosen: list[Cutout] | None = None,
    jpeg: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """The frame of ``throw`` and the frame the turn began with, JPEG-decoded as a webcam's MJPEG stream
    gives them (``jpeg``), or as a Pi camera hands them over, uncompressed. ``chosen``, where given,
    receives the cut-outs of ``dice`` pasted, in the throw's order."""
    base = _base(t, throw, rng)
    before = base.copy()
    _tick(before, t, rng)
    frame = base
    _tick(frame, t, rng)
    light = float(rng.uniform(0.8, 1.05))
    edges = _pair_edges(t, throw) if throw.kind == "touching" else None
    for (x, y, side), value in zip(seen_dice(t, throw), throw.values, strict=True):
        die = dice[value][int(rng.integers(len(dice[value])))]
        if chosen is not None:
            chosen.append(die)
        # a touching pair lies edge to edge: each die turned so that its own edges follow the pair's
        turn = die.angle - edges if edges is not None else float(rng.uniform(0, 90))
        paste(frame, die, (x, y), side, turn, rng, light=light)
    return _camera(frame, rng, jpeg), _camera(before, rng, jpeg)


def seen_dice(t: RealTable, throw: Throw) -> list[tuple[float, float, float]]:
    """Each die's top face as the frame shows it: centre and side in px. The top face is what a
    photograph of a die shows; it stands a die's side above the board, and a checker's thickness (half a
    die) more on a die resting on a checker."""
    seen = []
    for k, (u, v, size) in enumerate(throw.spots):
        on = throw.kind == "on a checker" and k == 0
        (x, y), nearer = t.seen_at(u, v, (1.5 if on else 1.0) / FIELD_IN_DICE)
        seen.append((x, y, t.die_side() * size * nearer))
    return seen


def _pair_edges(t: RealTable, throw: Throw) -> float:
    """The angle (degrees, image axes) the edges of a touching pair lie at: along the line between the
    two dice when they lie side by side, 45 degrees off it when they touch corner to corner."""
    (u0, v0, s0), (u1, v1, s1) = throw.spots[:2]
    (x0, y0), (x1, y1) = t.image_at(u0, v0), t.image_at(u1, v1)
    along = math.degrees(math.atan2(y1 - y0, x1 - x0))
    apart = math.hypot(x1 - x0, y1 - y0) / (t.die_side() * (s0 + s1) / 2)
    return along - 45.0 if apart > 1.25 else along


def still_frames(
    image: np.ndarray, rng: np.random.Generator, count: int, noise: float, jpeg: bool = True
) -> list[np.ndarray]:
    """``count`` frames a camera gives of the still scene ``image``: each with its own sensor noise
    (Gaussian, ``noise`` grey levels), then JPEG-decoded at one quality (a stream keeps its quality) or
    left uncompressed."""
    quality = int(rng.integers(80, 96))
    frames = []
    for _ in range(count):
        noisy = image.astype(np.float32) + rng.normal(0.0, noise, image.shape).astype(np.float32)
        frame = np.clip(noisy, 0, 255).astype(np.uint8)
        frames.append(_encoded(frame, quality) if jpeg else frame)
    return frames


def _encoded(image: np.ndarray, quality: int) -> np.ndarray:
    ok, jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(jpg, cv2.IMREAD_COLOR) if ok else None
    return decoded if decoded is not None else image


def _camera(image: np.ndarray, rng: np.random.Generator, jpeg: bool = True) -> np.ndarray:
    quality = int(rng.integers(80, 96))  # drawn either way: a throw is the same throw with and without
    return _encoded(image, quality) if jpeg else image
