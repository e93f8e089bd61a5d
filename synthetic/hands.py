"""Things over and around the board for the renderer: hands, arms, sleeves, dice cups, table clutter.

Built in world units (field width 1) like everything else; see :mod:`synthetic.camera`. Hands are
drawn at half resolution inside their bounding box (they are soft anyway), with a relief shading, a soft
shadow cast from the light, optional motion blur, and a mask of what they hide.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from synthetic.camera import CameraModel
from synthetic.props import SHIFT, bounding_box, darken, line_kernel, paste, to_fixed
from synthetic.styles import OUTER, RAIL, TRAY, aa_fill, smooth_noise

SKIN = ((120, 160, 220), (105, 145, 205), (90, 130, 190), (70, 105, 160), (55, 80, 125), (40, 58, 92))
SLEEVES = ((90, 40, 20), (40, 40, 44), (200, 200, 205), (60, 90, 140), (40, 110, 60), (130, 90, 150))

# -- hands, arms, cups ------------------------------------------------------------------------------


def _capsule(p: np.ndarray, q: np.ndarray, r0: float, r1: float | None = None, n: int = 10) -> np.ndarray:
    """Outline of a rounded stroke from ``p`` to ``q`` (radii r0 at p, r1 at q), 2-D world units."""
    r1 = r0 if r1 is None else r1
    d = q - p
    ang = math.atan2(d[1], d[0])
    t1 = np.linspace(ang + np.pi / 2, ang + 3 * np.pi / 2, n)
    t2 = np.linspace(ang - np.pi / 2, ang + np.pi / 2, n)
    a = np.stack([p[0] + r0 * np.cos(t1), p[1] + r0 * np.sin(t1)], 1)
    b = np.stack([q[0] + r1 * np.cos(t2), q[1] + r1 * np.sin(t2)], 1)
    return np.concatenate([a, b])


def _rgb(values: Any) -> tuple[int, int, int]:
    r, g, b = (int(v) for v in values)
    return r, g, b


@dataclass(frozen=True)
class Occluder:
    """A hand/arm/cup in world units: named polygons (2-D) at a height, with colours."""

    skin: tuple[np.ndarray, ...]  # polygons of bare skin
    cloth: tuple[np.ndarray, ...]  # polygons of sleeve (or the cup's leather)
    z: float
    skin_col: tuple[int, int, int]
    cloth_col: tuple[int, int, int]
    blur: float = 0.0  # motion blur length in world units
    blur_dir: float = 0.0  # radians
    cup: tuple[float, float, float, float] | None = None  # (x, y, radius, height) for a dice cup


def make_hand(
    kind: str, x: float, y: float, angle_deg: float, scale: float, rng: np.random.Generator
) -> Occluder:
    """A hand reaching in (``kind`` "hand"), an arm lying across (``"arm"``) or a dice cup (``"cup"``).

    ``angle_deg`` is where the arm comes from: 0 = the bottom edge (near player), 90 = right, 180 = top.
    """
    if kind == "cup":
        return Occluder(
            (),
            (),
            0.0,
            (0, 0, 0),
            _rgb(rng.choice(CUP_COLOURS)),
            cup=(x, y, 0.078 * scale, 0.16 * scale),
        )
    a = math.radians(angle_deg)
    along = np.array([math.sin(a), math.cos(a)])  # from the fingertips towards the elbow
    across = np.array([along[1], -along[0]])
    centre = np.array([x, y])

    def pt(u: float, v: float) -> np.ndarray:
        return centre + scale * (u * across + v * along)

    # Adult proportions on a ~52 cm field: palm 8 cm wide, fingers 7-9 cm, forearm 6 cm, sleeve 9 cm.
    pose = rng.choice(["flat", "flat", "fist", "pinch"])
    spread = rng.uniform(-0.3, 0.3)
    skin: list[np.ndarray] = [
        np.array([pt(0.072 * math.cos(t), 0.08 * math.sin(t)) for t in np.linspace(0, 2 * np.pi, 28)])
    ]
    fingers = ((-0.05, 0.085), (-0.017, 0.1), (0.017, 0.095), (0.05, 0.075))
    for i, (u, length) in enumerate(fingers):
        if pose == "fist":
            length *= 0.35  # curled under: only the knuckles show
        elif pose == "pinch":
            length *= 0.8
        tilt = (i - 1.5) * (0.13 * (1 + spread) if pose != "pinch" else -0.12)
        base = pt(u, -0.05)
        tip = base + scale * length * (-math.cos(tilt) * along + math.sin(tilt) * across)
        skin.append(_capsule(base, tip, 0.0165 * scale, 0.0135 * scale))
    side = 1 if rng.random() < 0.5 else -1
    thumb_tip = (side * 0.12, -0.045) if pose != "fist" else (side * 0.06, -0.07)
    skin.append(_capsule(pt(side * 0.055, 0.04), pt(*thumb_tip), 0.021 * scale, 0.016 * scale))
    sleeve_at = rng.uniform(0.15, 0.2) if kind == "hand" else rng.uniform(0.14, 0.45)
    skin.append(_capsule(pt(0, 0.03), pt(0, sleeve_at + 0.03), 0.05 * scale, 0.056 * scale))
    cloth = (_capsule(pt(0, sleeve_at), pt(0, 3.0), 0.078 * scale, 0.095 * scale),)
    z = rng.uniform(0.08, 0.16) if kind == "hand" else rng.uniform(0.02, 0.05)
    return Occluder(
        tuple(skin),
        cloth,
        z,
        _rgb(rng.choice(SKIN)),
        _rgb(rng.choice(SLEEVES)),
    )


CUP_COLOURS = ((30, 30, 34), (30, 45, 80), (20, 30, 50), (40, 40, 120))


def _shade_layer(mask: np.ndarray, colour: tuple[int, int, int], soft: float) -> np.ndarray:
    """Colour a mask with a rounded look: the blurred mask is taken as a height field, lit from the
    top-left (brighter on the edges facing the light, darker on the far edges and in the gaps)."""
    body = cv2.GaussianBlur(mask, (0, 0), soft)
    gx = cv2.Sobel(body, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(body, cv2.CV_32F, 0, 1, ksize=3)
    relief = (0.6 * gx + 0.75 * gy) * soft / 8  # minus the gradient (Sobel is 8x) dotted with the light
    shade = 0.62 + 0.38 * np.clip(body * 1.6 - 0.3, 0, 1) + 1.2 * relief
    return np.asarray(colour, np.float32)[None, None, :] * np.clip(shade, 0.3, 1.4)[:, :, None]


def _box(pts: list[np.ndarray], pad: float, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    return bounding_box(shape, np.concatenate(pts), pad=int(pad) + 2)


def _layer(
    polys: list[np.ndarray], box: tuple[int, int, int, int], q: float
) -> tuple[np.ndarray, tuple[int, int]]:
    """Rasterise ``polys`` (canvas pixels) into a float mask of ``box`` at resolution ``q``."""
    x0, y0, x1, y1 = box
    size = (max(1, round((x1 - x0) * q)), max(1, round((y1 - y0) * q)))
    mask = np.zeros((size[1], size[0]), np.float32)
    for poly in polys:
        aa_fill(mask, to_fixed((poly - [x0, y0]) * q), 1.0)
    return mask, (x1 - x0, y1 - y0)


def draw_occluder(canvas: np.ndarray, model: CameraModel, occ: Occluder, hidden: np.ndarray) -> None:
    """Draw a hand, arm or cup with its shadow; mark what it hides in ``hidden`` (canvas-size uint8).

    Hands are soft (out of focus, often moving), so they are drawn at half the canvas resolution,
    inside their bounding box only.
    """
    if occ.cup is not None:
        _draw_cup(canvas, model, occ, hidden)
        return
    ppu = model.px_per_unit
    q = 0.25 if occ.blur * ppu >= 8 else 0.5  # a moving hand needs even less detail

    def lift(poly: np.ndarray) -> np.ndarray:
        return np.concatenate([poly, np.full((len(poly), 1), occ.z)], 1)

    # The shadow first: the same shapes cast from the light onto the board, softer the higher they are.
    shadows = [model.shadow_to_canvas(lift(p)) for p in occ.skin + occ.cloth]
    sigma = max(1.0, (0.004 + 0.08 * occ.z) * ppu)
    box = _box(shadows, 3 * sigma, canvas.shape)
    if box is not None:
        mask, full = _layer(shadows, box, 0.25)
        mask = cv2.resize(cv2.GaussianBlur(mask, (0, 0), sigma * 0.25), full, interpolation=cv2.INTER_LINEAR)
        darken(canvas, mask, box[0], box[1], 0.5)
    skin_polys = [model.to_canvas(lift(p)) for p in occ.skin]
    cloth_polys = [model.to_canvas(lift(p)) for p in occ.cloth]
    blur_px = occ.blur * ppu
    box = _box(skin_polys + cloth_polys, blur_px, canvas.shape)
    if box is None:
        return
    skin, full = _layer(skin_polys, box, q)
    cloth, _ = _layer(cloth_polys, box, q)
    skin = np.minimum(skin, 1 - cloth)  # the sleeve covers the wrist
    alpha = np.clip(skin + cloth, 0, 1)
    col = _shade_layer(skin, occ.skin_col, 0.012 * ppu * q) * skin[:, :, None]
    folds = 1 + 0.05 * smooth_noise(cloth.shape, 0.05 * ppu * q, int(occ.cloth_col[0]) + cloth.shape[1])
    col += (_shade_layer(cloth, occ.cloth_col, 0.02 * ppu * q) * folds[:, :, None]) * cloth[:, :, None]
    if blur_px * q >= 2:
        kernel = line_kernel(blur_px * q, occ.blur_dir)
        col = cv2.filter2D(col, -1, kernel)
        alpha = cv2.filter2D(alpha, -1, kernel)
    col = cv2.resize(col, full, interpolation=cv2.INTER_LINEAR)
    alpha = cv2.resize(alpha, full, interpolation=cv2.INTER_LINEAR)
    paste(canvas, col / np.maximum(alpha, 1e-3)[:, :, None], alpha, box[0], box[1])
    x0, y0, x1, y1 = box
    hidden[y0:y1, x0:x1] |= (alpha > 0.5).astype(np.uint8)


def _draw_cup(canvas: np.ndarray, model: CameraModel, occ: Occluder, hidden: np.ndarray) -> None:
    """A dice cup standing mouth up: flared wall, a lit rim, the dark inside."""
    assert occ.cup is not None
    x, y, r, height = occ.cup
    ppu = model.px_per_unit
    t = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    unit = np.stack([np.cos(t), np.sin(t)], 1)
    # A leather cup flares a little towards its mouth.
    base3 = np.concatenate([[x, y] + r * unit, np.zeros((48, 1))], 1)
    top3 = np.concatenate([[x, y] + 1.1 * r * unit, np.full((48, 1), height)], 1)
    # Its soft shadow, cast from the light.
    sh = model.shadow_to_canvas(np.concatenate([base3, top3]))
    box = bounding_box(canvas.shape, sh, pad=int(0.04 * ppu))
    if box is not None:
        x0, y0, x1, y1 = box
        m = np.zeros((y1 - y0, x1 - x0), np.float32)
        aa_fill(m, to_fixed(cv2.convexHull((sh - [x0, y0]).astype(np.float32)).reshape(-1, 2)), 1.0)
        darken(canvas, cv2.GaussianBlur(m, (0, 0), 0.012 * ppu), x0, y0, 0.55)
    base, top = model.to_canvas(base3), model.to_canvas(top3)
    hull = cv2.convexHull(np.concatenate([base, top]).astype(np.float32)).reshape(-1, 2)
    box = bounding_box(canvas.shape, hull)
    if box is None:
        return
    x0, y0, x1, y1 = box
    size = (y1 - y0, x1 - x0)
    wall = np.zeros(size, np.float32)
    aa_fill(wall, to_fixed(hull - [x0, y0]), 1.0)
    col = _shade_layer(wall, occ.cloth_col, 0.01 * ppu) * 0.85
    inner = model.to_canvas(np.concatenate([[x, y] + 0.97 * r * unit, np.full((48, 1), height)], 1))
    rim = np.zeros(size, np.float32)
    aa_fill(rim, to_fixed(top - [x0, y0]), 1.0)
    col = col * (1 - rim[:, :, None]) + np.array(occ.cloth_col, np.float32) * 1.25 * rim[:, :, None]
    hole = np.zeros(size, np.float32)
    aa_fill(hole, to_fixed(inner - [x0, y0]), 1.0)
    inside = np.array(occ.cloth_col, np.float32) * 0.45
    col = col * (1 - hole[:, :, None]) + inside * hole[:, :, None]
    paste(canvas, np.clip(col, 0, 255), wall, x0, y0)
    hidden[y0:y1, x0:x1] |= (wall > 0.5).astype(np.uint8)


# -- things on the table around the board ------------------------------------------------------------


def draw_clutter(
    canvas: np.ndarray, model: CameraModel, count: int, aspect: float, rng: np.random.Generator
) -> None:
    """Put ``count`` everyday things on the table beside the board: clocks, score cards, cans, phones.

    They give a board finder something to ignore; they never touch the board.
    """
    bx, by = 0.5 + RAIL + TRAY + OUTER, aspect / 2 + OUTER
    ppu = model.px_per_unit
    lo = model.canvas_to_world(np.array([[0, 0]]))[0]
    hi = model.canvas_to_world(np.array([[canvas.shape[1], canvas.shape[0]]]))[0]
    for _ in range(count):
        kind = rng.choice(["clock", "card", "can", "phone"])
        w, h = {"clock": (0.2, 0.12), "card": (0.16, 0.24), "can": (0.1, 0.1), "phone": (0.08, 0.16)}[kind]
        ang = rng.uniform(-20, 20)
        # Half extents of the turned box, plus its shadow, must stay clear of the board.
        c, s = abs(math.cos(math.radians(ang))), abs(math.sin(math.radians(ang)))
        ex, ey = (w * c + h * s) / 2 + 0.03, (w * s + h * c) / 2 + 0.03
        for _try in range(20):
            x, y = rng.uniform(lo[0] + w / 2, hi[0] - w / 2), rng.uniform(lo[1] + h / 2, hi[1] - h / 2)
            if abs(x) - ex > bx or abs(y) - ey > by:
                break
        else:
            continue
        box = cv2.boxPoints(((x * ppu + model.origin[0], y * ppu + model.origin[1]), (w * ppu, h * ppu), ang))
        sh = box + 0.012 * ppu
        roi = bounding_box(canvas.shape, np.concatenate([box, sh]), pad=int(0.02 * ppu))
        if roi is None:
            continue
        x0, y0, x1, y1 = roi
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        aa_fill(mask, to_fixed(sh - [x0, y0]), 1.0)
        darken(canvas, cv2.GaussianBlur(mask, (0, 0), 0.01 * ppu), x0, y0, 0.4)
        centre = (x * ppu + model.origin[0], y * ppu + model.origin[1])
        if kind == "can":
            r = round(w / 2 * ppu)
            label = _rgb(rng.integers(30, 220, 3))
            cv2.circle(canvas, (round(centre[0]), round(centre[1])), r, label, -1, cv2.LINE_AA)
            cv2.circle(
                canvas,
                (round(centre[0]), round(centre[1])),
                round(r * 0.82),
                (190, 192, 196),
                -1,
                cv2.LINE_AA,
            )
            cv2.circle(
                canvas,
                (round(centre[0] + r * 0.3), round(centre[1])),
                round(r * 0.18),
                (90, 90, 95),
                -1,
                cv2.LINE_AA,
            )
            continue
        body = {"clock": (40, 40, 44), "card": (235, 238, 240), "phone": (20, 20, 22)}[kind]
        cv2.fillPoly(canvas, [to_fixed(box)], body, cv2.LINE_AA, SHIFT)
        inner = cv2.boxPoints((centre, (w * ppu * 0.8, h * ppu * 0.7), ang))
        face = {"clock": (150, 190, 170), "card": (235, 238, 240), "phone": (90, 60, 40)}[kind]
        cv2.fillPoly(canvas, [to_fixed(inner)], face, cv2.LINE_AA, SHIFT)
        if kind in ("clock", "card"):
            text = (
                str(int(rng.integers(0, 25)))
                if kind == "card"
                else f"{int(rng.integers(0, 60)):02d}:{int(rng.integers(0, 60)):02d}"
            )
            scale = 0.0022 * ppu if kind == "card" else 0.0012 * ppu
            (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, max(1, int(scale * 2)))
            org = (round(centre[0] - tw / 2), round(centre[1] + th / 2))
            cv2.putText(
                canvas,
                text,
                org,
                cv2.FONT_HERSHEY_SIMPLEX,
                scale,
                (25, 25, 25),
                max(1, int(scale * 2)),
                cv2.LINE_AA,
            )
