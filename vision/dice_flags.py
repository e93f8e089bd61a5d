"""A die on a known field, judged in its board context: is it cocked? does it rest on a checker?

``dice_flags.onnx`` (trained by ``tools/train_dice_flags.py``, whose docstring gives the data recipe)
sees a die's neighbourhood warped by the field's homography into the board plane, so that camera tilt
and perspective are gone: a flat die's top face is a square there, a cocked one's is not, and a checker
under or beside the die is a circle of 2.3 die sides. It gets two such views stacked: ``SPAN`` die
sides across (the checkers around) and ``ZOOM_SPAN`` (the die itself, about 40 px), and two channels
(CoordConv style) holding how the camera's rays lean there (``leans``: the board point's offset from
the nadir over the camera's height, the camera's pose solved from the field's corners), because a flat
die away from the point under the camera shows the side faces on the nadir's side, and a tilted camera's
nadir lies far from the frame's centre. It answers two logits: cocked, on a checker. The same pose puts
a die's seen top face back over its footprint (``footprints``), for ``outside_field`` and ``half``.

    >>> import numpy as np
    >>> quad = np.array([[340, 60], [940, 60], [940, 600], [340, 600]], np.float32)
    >>> patch(np.zeros((720, 1280, 3), np.uint8), quad, 640.0, 330.0, 31.0).shape
    (64, 64, 3)
"""

from __future__ import annotations

import math
from enum import Enum
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_net import OnnxNet

MODEL = Path(__file__).resolve().parent / "models" / "dice_flags.onnx"
PATCH = 64  # the network's input side, px
SPAN = 3.2  # die sides across the context patch: a checker under the die shows
ZOOM_SPAN = 1.6  # die sides across the zoomed patch: the die's faces at about 40 px
# A die is cocked when P(cocked) is above this, on a checker when P(on_checker) is: the network's P
# seldom lies between 0.1 and 0.9, so the middle is the least sensitive place to cut.
COCKED = 0.5
ON_CHECKER = 0.5
# ... but when the value reader (trained on real photographs as well) is sure a face is up, log(p cocked /
# p likeliest face) below this, the two networks disagree and the die is in doubt: the referee asks the
# table rather than side with either. The reader is sure of a cocked die's top face when it shows one pip
# (a single pip foreshortened is still a single pip).
SURE_FACE = -3.0
# ... and a die whose likeliest face is a 1 leans only when the value reader, too, finds "cocked" likelier
# than that 1 (log odds above this). A real flat 1 at 18 to 29 px, one pip on a plain face, looks to both
# networks like a leaning die's foreshortened face; the table is asked instead of a good throw thrown again.
PLAIN_ONE = 0.0
# ... and a die this network gives more than LEAN_DOUBT of a lean, though not COCKED's, is in doubt as well:
# its P seldom lies in the middle, and a die propped between the bar's wall and the other die, hardly
# tilted, lies there (``bench.e2e`` seed 13: 0.37 with a plain 1 up). The table is asked.
LEAN_DOUBT = 0.3
# A first look with both logits beyond this (P under 1.8 % or over 98.2 %) is not looked at again; the
# others are looked at in all four quarter turns and the logits averaged (a die one turn misjudges,
# another seldom does).
SURE = 4.0
# The camera is about this many field widths from the field (the renderer's; a Pi camera ~1.2 m over a
# ~55 cm field); only the rays' lean at the dice comes from it.
DISTANCE = 2.2
# Warping shrinks more than this many image px into one patch px only after an area resize (aliasing).
MAX_SHRINK = 1.5


@lru_cache(maxsize=2)
def net(path: Path | None = None) -> OnnxNet:
    """The loaded network of ``path`` (default ``MODEL``, looked up per call so that a benchmark can
    point it at another file); a ``ModelError`` when it is missing or broken."""
    return OnnxNet(path or MODEL, "dice flags model")


def _board_homography(quad: np.ndarray, field_in_dice: float) -> np.ndarray:
    """Board plane (units of die sides, origin at the field's top-left) -> image px."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    width = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    height = (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    w, h = field_in_dice, field_in_dice * height / width
    rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    return cv2.getPerspectiveTransform(rect, q.astype(np.float32)).astype(np.float64)


def _apply(m: np.ndarray, x: float, y: float) -> tuple[float, float]:
    p = m @ np.array([x, y, 1.0])
    return float(p[0] / p[2]), float(p[1] / p[2])


def patch(
    image: np.ndarray, quad: np.ndarray, x: float, y: float, field_in_dice: float, span: float = SPAN
) -> np.ndarray:
    """The PATCH x PATCH board-plane view, ``span`` die sides across, centred on the die at image
    (x, y) (BGR uint8). ``quad`` is the field (tl, tr, br, bl in image px), ``field_in_dice`` its width
    in die sides.
    """
    to_image = _board_homography(quad, field_in_dice)
    u, v = _apply(np.linalg.inv(to_image), x, y)
    s = span / PATCH  # die sides per patch px
    c = (PATCH - 1) / 2
    m = to_image @ np.array([[s, 0, u - s * c], [0, s, v - s * c], [0, 0, 1.0]])  # patch px -> image px
    corners = np.array([_apply(m, a, b) for a in (0, PATCH - 1) for b in (0, PATCH - 1)])
    shrink = math.sqrt(abs(np.linalg.det(m[:2, :2] / m[2, 2]))) if m[2, 2] else 1.0
    src = image
    if shrink > MAX_SHRINK:
        # a big frame: cut the die's window and shrink it by area so the warp does not alias
        h, w = image.shape[:2]
        x0, y0 = np.clip(np.floor(corners.min(0)).astype(int) - 2, 0, [w - 1, h - 1])
        x1, y1 = np.clip(np.ceil(corners.max(0)).astype(int) + 3, [x0 + 1, y0 + 1], [w, h])
        f = 1.0 / shrink
        roi = image[y0:y1, x0:x1]
        size = (max(1, round((x1 - x0) * f)), max(1, round((y1 - y0) * f)))
        src = cv2.resize(roi, size, interpolation=cv2.INTER_AREA)
        fx, fy = size[0] / (x1 - x0), size[1] / (y1 - y0)
        m = np.array([[fx, 0, -x0 * fx], [0, fy, -y0 * fy], [0, 0, 1.0]]) @ m
    return cv2.warpPerspective(
        src, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE
    )


def camera(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, float, float]:
    """The camera over the field: (unit square -> image homography, the nadir, the height, the field's
    height over its width), lengths in field widths, the nadir in the field's metric frame (x right,
    y down from the top-left corner).

    The pose comes from the field's homography with a pinhole looking through the image centre at
    ``DISTANCE`` field widths (focal length = DISTANCE x the field's width in px across its middle).
    On rendered frames without pan this is exact; a pan of a tenth of the frame moves the nadir by
    about 0.07 field widths.

        >>> quad = np.array([[340, 60], [940, 60], [940, 600], [340, 600]], np.float32)
        >>> m, nadir, height, aspect = camera(quad, (720, 1280, 3))
        >>> [round(float(v), 3) for v in (*nadir, height, aspect)]
        [0.5, 0.5, 2.2, 0.9]
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    return _camera(q.tobytes(), tuple(shape[:2]))


@lru_cache(maxsize=8)
def _camera(corners: bytes, size: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``camera`` of the field's corners (float64 bytes) in a frame of ``size`` (h, w): solved once per
    field, as a frame's dice ask for it several times (the arrays given are read-only: shared)."""
    q = np.frombuffer(corners, np.float64).reshape(4, 2)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    m = cv2.getPerspectiveTransform(unit, q.astype(np.float32)).astype(np.float64)
    left, right = _apply(m, 0.0, 0.5), _apply(m, 1.0, 0.5)
    f = DISTANCE * math.hypot(right[0] - left[0], right[1] - left[1])
    h, w = size
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    a = np.linalg.solve(k, m)  # = scale * [r1, aspect * r2, t]
    scale = math.copysign(float(np.linalg.norm(a[:, 0])), a[2, 2])
    aspect = float(np.linalg.norm(a[:, 1])) / abs(scale)
    r1, r2 = a[:, 0] / scale, a[:, 1] / (aspect * scale)
    rot = np.stack([r1, r2, np.cross(r1, r2)], 1)
    centre = -np.linalg.solve(rot, a[:, 2] / scale)
    nadir = centre[:2].copy()
    m.setflags(write=False)
    nadir.setflags(write=False)
    return m, nadir, abs(float(centre[2])), aspect


def _unit(m: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Image points (N, 2) -> the field's unit square through ``m`` (unit square -> image)."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    h = np.concatenate([pts, np.ones((len(pts), 1))], 1) @ np.linalg.inv(m).T
    return h[:, :2] / h[:, 2:]


def leans(quad: np.ndarray, shape: tuple[int, ...], points: np.ndarray) -> np.ndarray:
    """(N, 2) how the camera's rays lean at the image ``points``: (board point - nadir) / camera height,
    in the board plane's axes (x along the field's width, y down it). A flat die's top face is seen
    shifted from its footprint by this times its height, and the side faces that way show.

        >>> quad = np.array([[340, 60], [940, 60], [940, 600], [340, 600]], np.float32)
        >>> leans(quad, (720, 1280, 3), np.array([[640, 360], [940, 360]])).astype(float).round(3).tolist()
        [[0.0, 0.0], [0.227, 0.0]]
    """
    m, nadir, height, aspect = camera(quad, shape)
    u = _unit(m, points)
    return ((u * [1.0, aspect] - nadir) / height).astype(np.float32)


def footprints(
    quad: np.ndarray, shape: tuple[int, ...], points: np.ndarray, rises: float | list[float]
) -> np.ndarray:
    """(N, 2) the field's unit-square coordinates of what lies ``rises`` field widths (one for all or one
    a point) under the seen image ``points``: a die's top face is seen beyond its footprint, away from
    the nadir.

        >>> quad = np.array([[340, 60], [940, 60], [940, 600], [340, 600]], np.float32)
        >>> np.round(footprints(quad, (720, 1280, 3), np.array([[940, 360]]), 0.22), 3).tolist()
        [[0.95, 0.556]]
    """
    m, nadir, height, aspect = camera(quad, shape)
    seen = _unit(m, points) * [1.0, aspect]
    rise = np.asarray(rises, np.float64).reshape(-1, 1)
    foot = seen - (seen - nadir) * (rise / height)
    return foot / [1.0, aspect]


def views(image: np.ndarray, quad: np.ndarray, x: float, y: float, field_in_dice: float) -> np.ndarray:
    """The context and the zoomed view of the die at (x, y), stacked: (P, P, 6) BGR uint8."""
    return np.concatenate([patch(image, quad, x, y, field_in_dice, s) for s in (SPAN, ZOOM_SPAN)], axis=2)


def blob(stacked: np.ndarray, lean: np.ndarray) -> np.ndarray:
    """(N, P, P, 6) uint8 views and (N, 2) ``leans`` -> the network's (N, 8, P, P) float input."""
    n = len(stacked)
    x = np.empty((n, 8, PATCH, PATCH), np.float32)
    x[:, :6] = stacked.astype(np.float32).transpose(0, 3, 1, 2) * (1 / 255.0) - 0.5
    x[:, 6:] = np.asarray(lean, np.float32).reshape(n, 2, 1, 1)
    return x


class Lean(Enum):
    """How a die lies, as this network and the value reader see it together."""

    FLAT = "flat"
    COCKED = "cocked"
    DOUBTFUL = "doubtful"  # this network unsure of a lean, or sure where the value reader sees a face: ask


def lean(p_cocked: float, reader_odds: float, likeliest: int) -> Lean:
    """The verdict from this network's P(cocked), the value reader's log(p cocked / p likeliest face) and
    that ``likeliest`` face.

    >>> [lean(p, odds, 3).value for p, odds in ((0.95, -1.0), (0.95, -6.0), (0.2, 2.5), (0.6, 0.0))]
    ['cocked', 'doubtful', 'flat', 'cocked']
    >>> lean(0.99, -1.0, 1).value, lean(0.99, 1.0, 1).value, lean(0.4, -6.0, 1).value
    ('doubtful', 'cocked', 'doubtful')
    """
    if p_cocked <= LEAN_DOUBT:
        return Lean.FLAT
    if p_cocked <= COCKED:
        return Lean.DOUBTFUL
    if reader_odds <= SURE_FACE or (likeliest == 1 and reader_odds <= PLAIN_ONE):
        return Lean.DOUBTFUL
    return Lean.COCKED


def _logits(x: np.ndarray) -> np.ndarray:
    return net(MODEL).run(x).reshape(len(x), 2)


def judge(
    image: np.ndarray,
    quad: np.ndarray,
    points: list[tuple[float, float]],
    field_in_dice: float,
    resting_known: bool = False,
) -> np.ndarray:
    """(N, 2) probabilities (cocked, on a checker) for the dice centred at ``points`` (image px).

    A die the first look is not plainly sure of (``SURE``) is looked at again in the other three quarter
    turns of the board plane (the leans turned alike) and the four looks' logits averaged; most dice do
    not need it. With ``resting_known`` (the caller knows from the board's checkers whether each die rests
    on one) only the cocked logit's doubt is worth the other looks; the on-a-checker column is then only
    the first look's.
    """
    if not points:
        return np.zeros((0, 2), np.float32)
    stacked = np.stack([views(image, quad, x, y, field_in_dice) for x, y in points])
    x = blob(stacked, leans(quad, image.shape, np.array(points)))
    logits = _logits(x)
    used = logits[:, :1] if resting_known else logits
    unsure = np.flatnonzero(np.any(np.abs(used) < SURE, axis=1))
    if len(unsure):
        looks = [x[unsure]]
        for _ in range(3):
            # np.rot90 over the patch's axes turns a board vector (dx, dy) into (dy, -dx)
            t = np.rot90(looks[-1], 1, axes=(2, 3)).copy()
            t[:, 6], t[:, 7] = looks[-1][:, 7], -looks[-1][:, 6]
            looks.append(t)
        logits[unsure] = _logits(np.concatenate(looks)).reshape(4, len(unsure), 2).mean(0)
    return 1.0 / (1.0 + np.exp(-logits))
