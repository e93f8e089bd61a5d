"""Things the renderer puts on the board: checkers, dice and the doubling cube; drawing helpers.

Each is built in world units (field width 1; see :mod:`synthetic.camera`) and drawn on the canvas
through :meth:`CameraModel.to_canvas`, so height above the board shows up as parallax and side walls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from synthetic.camera import LIGHT, CameraModel
from synthetic.styles import CheckerLook, Style, aa_fill, checker_sprite, soft_disc

SHIFT = 4  # fractional bits for cv2 drawing
DIE_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], float]] = {
    # name: (body BGR, pip BGR, opacity)
    "white": ((236, 238, 238), (20, 20, 20), 1.0),
    "black": ((28, 28, 30), (235, 235, 235), 1.0),
    "red": ((40, 30, 190), (240, 240, 240), 0.8),
    "green": ((70, 150, 40), (240, 240, 240), 0.8),
    "blue": ((170, 80, 30), (240, 240, 240), 0.8),
}
# Pip centres on a face, in -1..1 face coordinates.
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0, 0),),
    2: ((-0.5, -0.5), (0.5, 0.5)),
    3: ((-0.5, -0.5), (0, 0), (0.5, 0.5)),
    4: ((-0.5, -0.5), (0.5, -0.5), (-0.5, 0.5), (0.5, 0.5)),
    5: ((-0.5, -0.5), (0.5, -0.5), (0, 0), (-0.5, 0.5), (0.5, 0.5)),
    6: ((-0.5, -0.5), (-0.5, 0), (-0.5, 0.5), (0.5, -0.5), (0.5, 0), (0.5, 0.5)),
}


def to_fixed(uv: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(uv) * (1 << SHIFT)).astype(np.int32).reshape(-1, 1, 2)


def bounding_box(shape: tuple[int, ...], pts: np.ndarray, pad: int = 3) -> tuple[int, int, int, int] | None:
    """Integer box (x0, y0, x1, y1) around ``pts`` clipped to an image of ``shape``; None when outside."""
    h, w = shape[:2]
    x0, y0 = np.floor(pts.min(0)).astype(int) - pad
    x1, y1 = np.ceil(pts.max(0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    return None if x0 >= x1 or y0 >= y1 else (int(x0), int(y0), int(x1), int(y1))


def _clip_box(
    canvas: np.ndarray, x0: int, y0: int, w: int, h: int
) -> tuple[slice, slice, slice, slice] | None:
    cx0, cy0 = max(x0, 0), max(y0, 0)
    cx1, cy1 = min(x0 + w, canvas.shape[1]), min(y0 + h, canvas.shape[0])
    if cx0 >= cx1 or cy0 >= cy1:
        return None
    return slice(cy0, cy1), slice(cx0, cx1), slice(cy0 - y0, cy1 - y0), slice(cx0 - x0, cx1 - x0)


def paste(canvas: np.ndarray, col: np.ndarray | tuple, alpha: np.ndarray, x0: int, y0: int) -> None:
    """Alpha-blend ``col`` (HxWx3 image or a colour) by ``alpha`` (HxW float) onto ``canvas`` at (x0, y0)."""
    h, w = alpha.shape
    box = _clip_box(canvas, x0, y0, w, h)
    if box is None:
        return
    cy, cx, sy, sx = box
    a = np.ascontiguousarray(alpha[sy, sx], dtype=np.float32)
    roi = canvas[cy, cx]
    src = np.asarray(col)
    if src.ndim == 3:
        src = src[sy, sx]
        if src.dtype != np.uint8:
            src = np.clip(src, 0, 255).astype(np.uint8)
    else:
        src = np.empty_like(roi)
        src[:] = np.clip(np.asarray(col, float), 0, 255).astype(np.uint8)
    roi[:] = cv2.blendLinear(np.ascontiguousarray(src), np.ascontiguousarray(roi), a, 1 - a)


def darken(canvas: np.ndarray, alpha: np.ndarray, x0: int, y0: int, strength: float) -> None:
    """Multiply ``canvas`` by ``1 - strength * alpha`` at (x0, y0): a shadow."""
    h, w = alpha.shape
    box = _clip_box(canvas, x0, y0, w, h)
    if box is None:
        return
    cy, cx, sy, sx = box
    a = np.ascontiguousarray(alpha[sy, sx], dtype=np.float32) * strength
    roi = canvas[cy, cx]
    roi[:] = cv2.blendLinear(np.ascontiguousarray(roi), np.zeros_like(roi), 1 - a, a)


_UNIT_CIRCLE = np.stack(
    [
        np.cos(np.linspace(0, 2 * np.pi, 28, endpoint=False)),
        np.sin(np.linspace(0, 2 * np.pi, 28, endpoint=False)),
    ],
    1,
)


def _circle(c: np.ndarray, r: float) -> np.ndarray:
    return np.asarray(c, float) + r * _UNIT_CIRCLE


# -- checkers ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Checker:
    """One checker to draw: world centre of its base, its look, and its layer (0 = on the board)."""

    x: float
    y: float
    z: float
    look: CheckerLook
    seed: int


def checker_shadow(canvas: np.ndarray, model: CameraModel, c: Checker, radius: float, thick: float) -> None:
    top = model.shadow_to_canvas([[c.x, c.y, c.z + thick]])[0]
    r = radius * model.px_per_unit
    disc = soft_disc(round(r * 4) / 4, max(1.0, 0.12 * r))
    half = disc.shape[0] // 2
    darken(canvas, disc, round(top[0]) - half, round(top[1]) - half, 0.38)


def draw_checker(canvas: np.ndarray, model: CameraModel, c: Checker, radius: float, thick: float) -> None:
    """A checker: side wall from base to top as the camera sees it, then the shaded top face."""
    base, top = model.to_canvas([[c.x, c.y, c.z], [c.x, c.y, c.z + thick]])
    ppu = model.px_per_unit
    r0 = radius * ppu * model.canvas_scale(c.z)
    r1 = radius * ppu * model.canvas_scale(c.z + thick)
    hull = cv2.convexHull(np.concatenate([_circle(base, r0), _circle(top, r1)]).astype(np.float32))
    side = tuple(float(v) for v in c.look.side)
    cv2.fillPoly(canvas, [to_fixed(hull.reshape(-1, 2))], side, cv2.LINE_AA, SHIFT)
    # The bottom edge line of the side wall, so stacked checkers stay countable by their rims.
    dark = tuple(0.55 * v for v in side)
    cv2.circle(canvas, tuple(to_fixed(base)[0, 0]), round(r0 * 16), dark, 1, cv2.LINE_AA, SHIFT)
    col, alpha = checker_sprite(c.look, r1, c.seed)
    half = alpha.shape[0] // 2
    paste(canvas, col, alpha, round(top[0]) - half, round(top[1]) - half)


def draw_borne_off(canvas: np.ndarray, model: CameraModel, style: Style, light: int, dark: int) -> None:
    """Borne-off checkers standing on edge, side by side along the right tray, as players keep them:
    light ones from the tray's bottom end, dark ones from its top end. From above each shows as a
    narrow band of its side wall with the rim line along the top."""
    from synthetic.styles import RAIL, TRAY

    geo = style.geometry
    d, t = geo.diameter * 0.98, geo.diameter * geo.thickness
    x = 0.5 + RAIL + TRAY / 2
    end = geo.aspect / 2 - 0.006
    for count, look, sign in ((light, style.light, 1.0), (dark, style.dark, -1.0)):
        for k in range(count):
            y = sign * (end - (k + 0.5) * t * 1.04)
            band = np.array(
                [
                    [x - d / 2, y - t / 2],
                    [x + d / 2, y - t / 2],
                    [x + d / 2, y + t / 2],
                    [x - d / 2, y + t / 2],
                ]
            )
            low = model.to_canvas(np.concatenate([band, np.full((4, 1), 0.1 * d)], 1))
            high = model.to_canvas(np.concatenate([band, np.full((4, 1), 0.9 * d)], 1))
            hull = cv2.convexHull(np.concatenate([low, high]).astype(np.float32)).reshape(-1, 2)
            cv2.fillPoly(canvas, [to_fixed(hull)], tuple(0.7 * v for v in look.side), cv2.LINE_AA, SHIFT)
            # The rounded edge leaves a dark groove between neighbours: the lit top is narrower.
            ridge = band * [1, 0.0] + np.array([[0, y - 0.36 * t]] * 2 + [[0, y + 0.36 * t]] * 2)
            top = model.to_canvas(np.concatenate([ridge, np.full((4, 1), d)], 1))
            cv2.fillPoly(canvas, [to_fixed(top)], tuple(float(v) for v in look.face), cv2.LINE_AA, SHIFT)
            mid = top.mean(0)
            half = (top[1] - top[0]) * 0.45
            cv2.line(
                canvas,
                tuple(to_fixed(mid - half)[0, 0]),
                tuple(to_fixed(mid + half)[0, 0]),
                tuple(float(v) for v in look.edge),
                1,
                cv2.LINE_AA,
                SHIFT,
            )


# -- dice and cube ----------------------------------------------------------------------------------


@lru_cache(maxsize=128)
def die_face(label: str, body: tuple[int, int, int], ink: tuple[int, int, int], n: int = 64) -> tuple:
    """A face texture: (BGR float32, alpha float32), rounded corners.

    ``label`` is "1".."6" for a die's pips, or "#" and the text for a cube face ("#64").
    """
    col = np.empty((n, n, 3), np.float32)
    col[:] = body
    mask = np.zeros((n, n), np.uint8)  # OpenCV anti-aliases 8-bit images only
    rr = n // 7
    cv2.rectangle(mask, (rr, 0), (n - 1 - rr, n - 1), 255, -1)
    cv2.rectangle(mask, (0, rr), (n - 1, n - 1 - rr), 255, -1)
    for cx, cy in ((rr, rr), (n - 1 - rr, rr), (rr, n - 1 - rr), (n - 1 - rr, n - 1 - rr)):
        cv2.circle(mask, (cx, cy), rr, 255, -1, cv2.LINE_AA)
    alpha = mask.astype(np.float32) / 255
    # Edges of a die are rounded: a little darker towards the border.
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32) / (n - 1) * 2 - 1
    col *= (1 - 0.12 * np.clip(np.maximum(abs(xs), abs(ys)) - 0.75, 0, 1) / 0.25)[:, :, None]
    face = np.clip(col, 0, 255).astype(np.uint8)  # pips and text are anti-aliased on 8-bit images only
    if not label.startswith("#"):
        for px, py in PIPS[int(label)]:
            centre = (round((px * 0.62 + 1) / 2 * (n - 1) * 16), round((py * 0.62 + 1) / 2 * (n - 1) * 16))
            cv2.circle(face, centre, round(n * 0.095 * 16), tuple(int(v) for v in ink), -1, cv2.LINE_AA, 4)
    else:
        label = label[1:]
        font = cv2.FONT_HERSHEY_DUPLEX
        scale = 1.35 if len(label) == 1 else 1.05
        (tw, th), _ = cv2.getTextSize(label, font, scale, 2)
        org = ((n - tw) // 2, (n + th) // 2)
        cv2.putText(face, label, org, font, scale, tuple(int(v) for v in ink), 2, cv2.LINE_AA)
    return face.astype(np.float32), alpha


# Cube faces: (corner indices into the 8 vertices tl, tr, br, bl as the texture sees them, outward normal).
_FACES = (
    ((4, 5, 6, 7), (0, 0, 1)),  # top
    ((3, 2, 1, 0), (0, 0, -1)),  # bottom
    ((7, 6, 2, 3), (0, 1, 0)),  # +y
    ((5, 4, 0, 1), (0, -1, 0)),  # -y
    ((6, 5, 1, 2), (1, 0, 0)),  # +x
    ((4, 7, 3, 0), (-1, 0, 0)),  # -x
)


@dataclass(frozen=True)
class Block:
    """A die or the cube as placed: world vertices (8x3, bottom 0..3 then top 4..7) and face labels."""

    vertices: np.ndarray
    labels: tuple[str, str, str, str, str, str]  # top, bottom, +y, -y, +x, -x
    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    opacity: float
    motion: float = 0.0  # still rolling: motion blur length in world units
    motion_dir: float = 0.0  # radians

    @property
    def top_centre(self) -> np.ndarray:
        """The centre of the face labelled first (the one that counts), in world units."""
        return self.vertices[list(_FACES[0][0])].mean(0)


def place_block(
    x: float, y: float, z: float, edge: float, angle_deg: float, tilt_deg: float, tilt_dir_deg: float
) -> np.ndarray:
    """World vertices of a cube of ``edge`` resting at (x, y) on height ``z``, turned and tipped."""
    h = edge / 2
    local = np.array(
        [[-h, -h, -h], [h, -h, -h], [h, h, -h], [-h, h, -h], [-h, -h, h], [h, -h, h], [h, h, h], [-h, h, h]]
    )
    a, t, d = math.radians(angle_deg), math.radians(tilt_deg), math.radians(tilt_dir_deg)
    rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    # Tip about a horizontal axis at direction d: the die leans on an edge (against a checker or the wall).
    axis = np.array([math.cos(d), math.sin(d), 0.0])
    kx = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rt = np.eye(3) + math.sin(t) * kx + (1 - math.cos(t)) * kx @ kx
    v = local @ (rt @ rz).T
    v[:, 2] -= v[:, 2].min()
    return v + np.array([x, y, z])


def draw_block(canvas: np.ndarray, model: CameraModel, block: Block) -> None:
    """Shadow, then every face of the block that faces the camera, textured and lit."""
    v = block.vertices
    sh = model.shadow_to_canvas(v)
    box = bounding_box(canvas.shape, sh, pad=6)
    if box is not None:
        x0, y0, x1, y1 = box
        mask: np.ndarray = np.zeros((y1 - y0, x1 - x0), np.float32)
        hull = cv2.convexHull((sh - [x0, y0]).astype(np.float32)).reshape(-1, 2)
        aa_fill(mask, to_fixed(hull), 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), 1.2)
        darken(canvas, mask, x0, y0, 0.45)
    uv = model.to_canvas(v)
    streak = block.motion * model.px_per_unit
    box = bounding_box(canvas.shape, uv, pad=3 + int(streak))
    if box is None:
        return
    x0, y0, x1, y1 = box
    size = (x1 - x0, y1 - y0)
    centre = v.mean(0)
    light_dir = LIGHT - centre
    light_dir /= np.linalg.norm(light_dir)
    layer: np.ndarray = np.zeros((size[1], size[0], 3), np.float32)
    cover: np.ndarray = np.zeros((size[1], size[0]), np.float32)
    for (idx, _), label in zip(_FACES, block.labels, strict=True):
        corners = v[list(idx)]
        normal = np.cross(corners[1] - corners[0], corners[3] - corners[0])
        normal /= np.linalg.norm(normal)
        if np.dot(normal, model.centre - corners.mean(0)) <= 0:
            continue  # faces away from the camera
        tex, talpha = die_face(label, block.body, block.ink)
        n = tex.shape[0] - 1
        quad = (uv[list(idx)] - [x0, y0]).astype(np.float32)
        m = cv2.getPerspectiveTransform(np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32), quad)
        light = 0.62 + 0.45 * max(0.0, float(np.dot(normal, light_dir)))
        warped = cv2.warpPerspective(tex * light, m, size, flags=cv2.INTER_LINEAR)
        a = cv2.warpPerspective(talpha, m, size, flags=cv2.INTER_LINEAR)
        layer = layer * (1 - a[:, :, None]) + warped * a[:, :, None]
        cover = np.maximum(cover, a)
    if streak >= 2:
        kernel = line_kernel(streak, block.motion_dir)
        cover_blur = cv2.filter2D(cover, -1, kernel)
        layer = cv2.filter2D(layer * cover[:, :, None], -1, kernel) / np.maximum(cover_blur, 1e-3)[:, :, None]
        cover = cover_blur
    paste(canvas, layer, cover * block.opacity, x0, y0)


def line_kernel(length: float, direction: float) -> np.ndarray:
    """A normalised motion-blur kernel: a line of ``length`` pixels at angle ``direction`` (radians)."""
    n = max(3, int(length) | 1)
    kernel = np.zeros((n, n), np.uint8)
    c = n // 2
    dx, dy = math.cos(direction) * c, math.sin(direction) * c
    cv2.line(kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 255, 1, cv2.LINE_AA)
    k = kernel.astype(np.float32)
    return k / k.sum()
