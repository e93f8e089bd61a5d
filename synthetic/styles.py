"""Board styles and board geometry for the renderer, and the static (empty) board drawn once per camera.

Geometry is in *world units*: the playing field (24 points and the central bar, not the trays) is 1 wide
and ``aspect`` high, centred on the origin. :class:`Geometry` turns that into field coordinates
(``x, y`` in 0..1 across the field) for the board reader.

    >>> g = STYLES["tournament"].geometry
    >>> round(g.point_x(0), 4), round(g.point_x(11), 4)
    (0.0391, 0.9609)
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

BGR = tuple[int, int, int]


@dataclass(frozen=True)
class Geometry:
    """Where things are on the field, in world units (field 1 wide) and field coordinates (0..1).

    The field holds 12 point columns per row and the bar column between the 6th and 7th:
    the bar takes ``bar`` of the field width, every point ``(1 - bar) / 12``.
    """

    aspect: float = 0.9  # field height / width
    bar: float = 0.06  # bar width / field width
    point_len: float = 0.43  # triangle length / field height
    checker: float = 0.96  # checker diameter / point width
    thickness: float = 0.2  # checker thickness / diameter

    @property
    def point_w(self) -> float:
        """Point width in world units (= in field x units, since the field is 1 wide)."""
        return (1 - self.bar) / 12

    @property
    def diameter(self) -> float:
        return self.point_w * self.checker

    def point_x(self, index: int) -> float:
        """Field x (0..1) of the centre of point column ``index`` (0..11, left to right)."""
        half = 0 if index < 6 else 1
        return half * (0.5 + self.bar / 2) + (index % 6 + 0.5) * self.point_w

    def world(self, x: float, y: float, z: float = 0.0) -> tuple[float, float, float]:
        """Field coordinates (0..1) to world units."""
        return (x - 0.5, (y - 0.5) * self.aspect, z)


@dataclass(frozen=True)
class CheckerLook:
    face: BGR
    edge: BGR  # the rim ring and the outline
    side: BGR  # the checker's side wall
    pattern: str = "plain"  # "plain", "rings" (turned gold), "pearl" (mottled), "groove" (one groove)


@dataclass(frozen=True)
class Style:
    name: str
    field: BGR
    points: tuple[BGR, BGR]  # (colour of top-0, the other); opposite points differ
    frame: BGR
    bar: BGR
    tray: BGR
    table: BGR
    light: CheckerLook
    dark: CheckerLook
    texture: str = "plain"  # field texture: "plain", "felt", "wood", "suede"
    frame_texture: str = "plain"  # "plain", "wood", "leather"
    hinges: bool = True
    logo: str | None = None  # a maker's mark printed in the middle of each half
    geometry: Geometry = dataclasses.field(default_factory=Geometry)


STYLES: dict[str, Style] = {
    # WTC tournament board (frame0.jpg): cream field, black/red points, black frame; white and black checkers.
    "tournament": Style(
        name="tournament",
        field=(200, 218, 228),
        points=((22, 14, 168), (30, 26, 26)),
        frame=(30, 28, 29),
        bar=(28, 24, 24),
        tray=(32, 30, 30),
        table=(200, 190, 160),
        light=CheckerLook((226, 226, 224), (196, 198, 200), (170, 172, 176), "groove"),
        dark=CheckerLook((30, 28, 30), (170, 172, 176), (22, 22, 24), "groove"),
        frame_texture="leather",
        geometry=Geometry(aspect=0.92, bar=0.062),
    ),
    # fmgammon (test10.jpg): pale cream field, black and tan points, dark walnut frame; pearl and gold.
    "cream": Style(
        name="cream",
        field=(178, 190, 198),
        points=((26, 20, 22), (52, 100, 146)),
        frame=(40, 46, 62),
        bar=(38, 44, 58),
        tray=(70, 86, 104),
        table=(92, 60, 54),
        light=CheckerLook((205, 210, 210), (176, 182, 184), (150, 156, 160), "pearl"),
        dark=CheckerLook((60, 150, 200), (40, 110, 160), (30, 80, 120), "rings"),
        frame_texture="wood",
        logo="fm",
        geometry=Geometry(aspect=0.89, bar=0.052, point_len=0.4),
    ),
    # Natural wood board (test4.jpg and the like): wooden field, red and black points; red and white.
    "wood": Style(
        name="wood",
        field=(120, 172, 212),
        points=((40, 38, 150), (32, 30, 36)),
        frame=(40, 70, 110),
        bar=(38, 66, 104),
        tray=(90, 140, 185),
        table=(235, 235, 235),
        light=CheckerLook((216, 224, 230), (180, 190, 200), (150, 160, 170), "plain"),
        dark=CheckerLook((40, 48, 176), (30, 36, 140), (24, 28, 110), "plain"),
        texture="wood",
        frame_texture="wood",
        geometry=Geometry(aspect=0.92, bar=0.07, point_len=0.42),
    ),
    # Leather/suede board (test2.jpg): tan field, dark brown and olive points, black frame; red and black.
    "suede": Style(
        name="suede",
        field=(112, 170, 200),
        points=((32, 34, 72), (52, 92, 96)),
        frame=(34, 32, 32),
        bar=(30, 28, 28),
        tray=(100, 156, 186),
        table=(210, 214, 218),
        light=CheckerLook((62, 70, 212), (48, 56, 176), (36, 42, 140), "plain"),
        dark=CheckerLook((58, 56, 58), (44, 42, 44), (30, 30, 32), "plain"),
        texture="suede",
        frame_texture="leather",
        hinges=False,
        geometry=Geometry(aspect=0.93, bar=0.075, point_len=0.45),
    ),
    # Green felt club board: ivory and dark red points; white and black checkers, wooden frame.
    "green": Style(
        name="green",
        field=(60, 112, 44),
        points=((176, 204, 218), (40, 34, 128)),
        frame=(36, 62, 96),
        bar=(34, 58, 92),
        tray=(50, 96, 38),
        table=(120, 120, 126),
        light=CheckerLook((222, 230, 236), (190, 200, 210), (160, 170, 180), "groove"),
        dark=CheckerLook((34, 32, 34), (70, 70, 74), (20, 20, 22), "groove"),
        texture="felt",
        frame_texture="wood",
        geometry=Geometry(aspect=0.9, bar=0.08, point_len=0.42),
    ),
}

# World extents of the board furniture around the field (field width = 1).
RAIL = 0.022  # the inner rail between field and tray
TRAY = 0.095  # each side tray
OUTER = 0.03  # the outer frame


def smooth_noise(shape: tuple[int, int], scale: float, seed: int, scale_y: float | None = None) -> np.ndarray:
    """Smooth noise in about -1..1: random values on a coarse grid (``scale`` pixels apart, or
    ``scale`` across and ``scale_y`` down), upscaled with cubic interpolation."""
    rng = np.random.default_rng(seed)
    h, w = shape
    sy = scale if scale_y is None else scale_y
    gh, gw = max(2, int(h / sy) + 2), max(2, int(w / scale) + 2)
    small = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def texture(kind: str, base: BGR, shape: tuple[int, int], seed: int) -> np.ndarray:
    """A float32 BGR image of ``shape`` in colour ``base`` with the surface texture ``kind``."""
    h, w = shape
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind == "plain":
        shade = 1 + 0.025 * smooth_noise(shape, 90, seed)
    elif kind == "felt":
        shade = 1 + 0.05 * smooth_noise(shape, 3, seed) + 0.04 * smooth_noise(shape, 60, seed + 1)
    elif kind == "suede":
        shade = 1 + 0.04 * smooth_noise(shape, 4, seed) + 0.06 * smooth_noise(shape, 45, seed + 1)
    elif kind == "leather":
        shade = 1 + 0.06 * smooth_noise(shape, 2, seed) + 0.03 * smooth_noise(shape, 30, seed + 1)
    elif kind == "wood":
        # Grain: growth rings cut lengthwise, i.e. stripes along x, bent by broad noise, with fine streaks.
        ys = np.arange(h, dtype=np.float32)[:, None]
        phase = (
            ys * 0.22
            + 4.0 * smooth_noise((h, w), 260, seed, 50)
            + 0.8 * smooth_noise((h, w), 60, seed + 1, 9)
        )
        rings = np.sin(phase)
        shade = (
            1
            + 0.05 * rings
            + 0.035 * np.sign(rings) * np.abs(rings) ** 6
            + 0.035 * smooth_noise((h, w), 40, seed + 2, 1.5)
            + 0.04 * smooth_noise((h, w), 120, seed + 3, 40)
        )
    else:
        raise ValueError(f"unknown texture {kind!r}: use plain, felt, suede, leather or wood")
    return img * shade[:, :, None]


def _poly(pts_world: np.ndarray, origin: tuple[float, float], ppu: float) -> np.ndarray:
    """World (X, Y) polygon to fixed-point canvas coordinates for cv2 (4 fractional bits)."""
    uv = np.asarray(pts_world, float) * ppu + np.array(origin)
    return np.round(uv * 16).astype(np.int32).reshape(-1, 1, 2)


def aa_fill(img: np.ndarray, polys: list[np.ndarray] | np.ndarray, colour: tuple[float, ...] | float) -> None:
    """Anti-aliased fill of fixed-point polygons (4 fractional bits) on an image of any depth.

    OpenCV anti-aliases only 8-bit images, so float images get an 8-bit coverage mask blended in.
    """
    polys = [polys] if isinstance(polys, np.ndarray) else polys
    colour_t = (colour,) if isinstance(colour, int | float) else tuple(colour)
    if img.dtype == np.uint8:
        cv2.fillPoly(img, polys, colour_t, cv2.LINE_AA, 4)
        return
    pts = np.concatenate([p.reshape(-1, 2) for p in polys])
    x0, y0 = np.maximum(pts.min(0) // 16 - 2, 0)
    x1, y1 = np.minimum(pts.max(0) // 16 + 3, [img.shape[1], img.shape[0]])
    if x0 >= x1 or y0 >= y1:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [p - np.array([x0 * 16, y0 * 16], np.int32) for p in polys], 255, cv2.LINE_AA, 4)
    a = mask.astype(np.float32) / 255
    roi = img[y0:y1, x0:x1]
    if img.ndim == 3:
        roi[:] = roi * (1 - a[:, :, None]) + np.array(colour_t[: img.shape[2]], np.float32) * a[:, :, None]
    else:
        roi[:] = roi * (1 - a) + np.float32(colour_t[0]) * a


def circle_poly(cx: float, cy: float, r: float) -> np.ndarray:
    """A circle as a fixed-point polygon (4 fractional bits) for :func:`aa_fill`."""
    n = max(16, int(r * 1.2))
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.round(np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1) * 16).astype(np.int32)


def _fill(img: np.ndarray, pts: np.ndarray, colour: tuple[float, ...]) -> None:
    aa_fill(img, [pts], colour)


def _rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])


@lru_cache(maxsize=8)
def empty_board(style_name: str, ppu: float) -> np.ndarray:
    """The static board on the style's big canvas (uint8 BGR, read-only): table, frame, trays, field,
    points, bar. The canvas spans ``EXTENT`` around the field centre at ``ppu`` pixels per field width.

    Cached because every frame shares it; each camera renders on a copy of its crop of it.
    """
    from synthetic.camera import EXTENT

    w, h = math.ceil(2 * EXTENT[0] * ppu), math.ceil(2 * EXTENT[1] * ppu)
    origin = (EXTENT[0] * ppu, EXTENT[1] * ppu)
    st = STYLES[style_name]
    g = st.geometry
    seed = sum(map(ord, style_name))
    img = texture("plain", st.table, (h, w), seed)
    img *= (1 + 0.012 * smooth_noise((h, w), 25, seed + 7) + 0.01 * smooth_noise((h, w), 3, seed + 8))[
        :, :, None
    ]
    half_h = g.aspect / 2
    bx = 0.5 + RAIL + TRAY + OUTER  # the board's outer half-width
    by = half_h + OUTER
    # Everything else happens in the board's box (plus room for its shadow): a view into the canvas.
    x0, y0 = int(origin[0] - (bx + 0.08) * ppu), int(origin[1] - (by + 0.08) * ppu)
    x1, y1 = int(origin[0] + (bx + 0.08) * ppu) + 1, int(origin[1] + (by + 0.08) * ppu) + 1
    full = img
    img = full[y0:y1, x0:x1]
    h, w = img.shape[:2]
    origin = (origin[0] - x0, origin[1] - y0)
    # Drop shadow of the whole board on the table.
    shadow: np.ndarray = np.zeros((h, w), np.float32)
    _fill(shadow, _poly(_rect(-bx + 0.01, -by + 0.015, bx + 0.015, by + 0.025), origin, ppu), (1.0,))
    shadow = cv2.GaussianBlur(shadow, (0, 0), 0.012 * ppu)
    img *= (1 - 0.45 * shadow)[:, :, None]

    def paint(poly_world: np.ndarray, kind: str, colour: BGR, tex_seed: int) -> None:
        """Fill a polygon with a textured surface, working only in its bounding box."""
        pts = _poly(poly_world, origin, ppu)
        x, y, bw, bh = cv2.boundingRect(pts // 16)
        x0, y0, x1, y1 = max(x - 2, 0), max(y - 2, 0), min(x + bw + 3, w), min(y + bh + 3, h)
        if x0 >= x1 or y0 >= y1:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        _fill(mask, pts - np.array([x0 * 16, y0 * 16], np.int32), (1.0,))
        layer = texture(kind, colour, (y1 - y0, x1 - x0), tex_seed)
        roi = img[y0:y1, x0:x1]
        roi[:] = roi * (1 - mask[:, :, None]) + layer * mask[:, :, None]

    paint(_rect(-bx, -by, bx, by), st.frame_texture, st.frame, seed + 11)
    # Trays, sunk into the frame; the tray divider in the middle (cube above, borne-off checkers below).
    tray_kind = "plain" if st.texture == "plain" else st.texture
    for sign in (-1, 1):
        x_in, x_out = 0.5 + RAIL, 0.5 + RAIL + TRAY
        left, right = (x_in, x_out) if sign > 0 else (-x_out, -x_in)
        paint(_rect(left, -half_h, right, half_h), tray_kind, st.tray, seed + 13 + sign)
        paint(_rect(left, -0.012, right, 0.012), st.frame_texture, st.frame, seed + 15 + sign)
    # The field: one surface under both halves; the bar is drawn over its middle.
    paint(_rect(-0.5, -half_h, 0.5, half_h), st.texture, st.field, seed + 17)
    # Points: triangles from each edge towards the middle, alternating colours, opposite points differ;
    # inlaid in the same material, so they carry the field's texture.
    length = g.point_len * g.aspect
    for row, edge, sign in (("top", -half_h, 1), ("bottom", half_h, -1)):
        for i in range(12):
            cx = g.point_x(i) - 0.5
            colour = st.points[(i + (row == "bottom")) % 2]
            hw = g.point_w / 2 * 0.985
            tri = np.array([[cx - hw, edge], [cx + hw, edge], [cx, edge + sign * length]])
            paint(tri, st.texture, colour, seed + 23 + i + 12 * (row == "bottom"))
    if st.logo:
        # A maker's mark between the rows of each half: a grey plate with the name, as on fmgammon boards.
        for xc in (-0.25 - g.bar / 4, 0.25 + g.bar / 4):
            plate = _rect(xc - 0.075, -0.05, xc + 0.075, 0.05)
            _fill(img, _poly(plate, origin, ppu), tuple(0.62 * c for c in st.field))
            text = np.zeros((h, w), np.uint8)
            scale = 0.0022 * ppu
            (tw, th), _ = cv2.getTextSize(st.logo, cv2.FONT_HERSHEY_TRIPLEX, scale, max(1, round(scale)))
            org = (round(origin[0] + xc * ppu - tw / 2), round(origin[1] + th / 2))
            cv2.putText(
                text, st.logo, org, cv2.FONT_HERSHEY_TRIPLEX, scale, 255, max(1, round(scale)), cv2.LINE_AA
            )
            a = text.astype(np.float32)[:, :, None] / 255
            img[:] = img * (1 - a) + np.array(st.field, np.float32) * 1.05 * a
    # The bar, with hinges.
    paint(_rect(-g.bar / 2, -half_h - OUTER, g.bar / 2, half_h + OUTER), st.frame_texture, st.bar, seed + 19)
    if st.hinges:
        for yc in (-half_h * 0.62, half_h * 0.62):
            hinge = _rect(-g.bar * 0.32, yc - 0.035, g.bar * 0.32, yc + 0.035)
            _fill(img, _poly(hinge, origin, ppu), (175, 178, 182))
            _fill(
                img,
                _poly(_rect(-g.bar * 0.05, yc - 0.035, g.bar * 0.05, yc + 0.035), origin, ppu),
                (120, 122, 126),
            )
    # The frame walls shade the field and trays near them; the light comes from the top-left.
    walls = np.zeros((h, w), np.float32)
    _fill(walls, _poly(_rect(-bx, -by, bx, by), origin, ppu), (1.0,))
    for poly in (
        _rect(-0.5, -half_h, -g.bar / 2, half_h),
        _rect(g.bar / 2, -half_h, 0.5, half_h),
        _rect(0.5 + RAIL, -half_h, 0.5 + RAIL + TRAY, half_h),
        _rect(-0.5 - RAIL - TRAY, -half_h, -0.5 - RAIL, half_h),
    ):
        _fill(walls, _poly(poly, origin, ppu), (0.0,))
    sigma = 0.008 * ppu
    m = np.array([[1, 0, 0.004 * ppu], [0, 1, 0.006 * ppu]], np.float32)
    wall_shadow = cv2.GaussianBlur(cv2.warpAffine(walls, m, (w, h)), (0, 0), sigma)
    inside = 1 - walls
    img *= (1 - 0.35 * wall_shadow * inside)[:, :, None]
    # A thin highlight on the top edge of the frame walls (the bevel that catches the light).
    edges = cv2.Canny((walls * 255).astype(np.uint8), 50, 150).astype(np.float32) / 255
    img += (18 * cv2.GaussianBlur(edges, (0, 0), 0.7))[:, :, None]
    out = np.clip(full, 0, 255).astype(np.uint8)
    out.setflags(write=False)
    return out


def checker_sprite(look: CheckerLook, radius: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The top face of a checker of ``radius`` canvas pixels: (BGR uint8, alpha float32), square.

    Drawn with a radial profile: a raised rim ring, a turned pattern, light from the top-left.
    """
    return _checker_sprite(look, round(radius * 4) / 4, seed % 4)


@lru_cache(maxsize=256)
def _checker_sprite(look: CheckerLook, radius: float, variant: int) -> tuple[np.ndarray, np.ndarray]:
    half = int(math.ceil(radius)) + 2
    n = 2 * half + 1
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32) - half
    r = np.hypot(xs, ys) / radius
    alpha = np.clip((1 - r) * radius + 0.5, 0, 1)
    face = np.array(look.face, np.float32)
    edge = np.array(look.edge, np.float32)
    col = np.empty((n, n, 3), np.float32)
    col[:] = face
    # Light from the top-left: a broad gradient and a soft specular spot.
    lx, ly = -0.6, -0.75
    grad = (xs * lx + ys * ly) / radius
    shade = 1 + 0.07 * grad - 0.1 * np.clip(r - 0.7, 0, 1)
    spec = np.exp(-(((xs / radius - 0.3 * lx) ** 2 + (ys / radius - 0.3 * ly) ** 2) / 0.12))
    if look.pattern == "rings":
        shade = shade + 0.12 * np.cos(r * 17) * (r < 0.8) + 0.25 * np.exp(-((r / 0.25) ** 2))
    elif look.pattern == "pearl":
        rng = np.random.default_rng(variant)
        small = rng.standard_normal((9, 9)).astype(np.float32)
        mottle = cv2.resize(small, (n, n), interpolation=cv2.INTER_CUBIC)
        shade = shade + 0.05 * mottle + 0.06 * np.cos(r * 9)
    elif look.pattern == "groove":
        shade = shade - 0.12 * np.exp(-(((r - 0.7) / 0.03) ** 2))
    col *= shade[:, :, None]
    col += (22 * spec * (r < 0.95))[:, :, None]
    # The raised rim: edge colour, brighter on the side facing the light, darker on the far side.
    rim = np.clip(1 - np.abs(r - 0.89) / 0.07, 0, 1)
    rim_col = edge[None, None, :] * (1 + 0.18 * grad)[:, :, None]
    col = col * (1 - rim[:, :, None]) + rim_col * rim[:, :, None]
    outline = np.clip(1 - np.abs(r - 0.985) / 0.04, 0, 1)
    col *= (1 - 0.45 * outline)[:, :, None]
    return np.clip(col, 0, 255).astype(np.uint8), alpha


@lru_cache(maxsize=64)
def soft_disc(radius: float, blur: float) -> np.ndarray:
    """A blurred disc as float32 alpha (for shadows)."""
    half = int(math.ceil(radius + 3 * blur)) + 1
    n = 2 * half + 1
    img: np.ndarray = np.zeros((n, n), np.float32)
    aa_fill(img, circle_poly(half, half, max(1.0, radius)), 1.0)
    if blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    return img
