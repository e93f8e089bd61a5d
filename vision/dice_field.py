"""The field's geometry that every stage of the dice reader shares: the field's corners checked, a
die's side in pixels and the detector's scale it implies, where dice are looked for, and where a die's
footprint lies among the points, the bar and the checkers."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision import dice_detect, dice_flags

# A standard field (24 points and the bar) is about this many dice wide.
FIELD_IN_DICE = 31.0
# Half the bar's width in field widths: a die centred on the bar lies in neither half.
BAR_HALF = 0.03


def checked_quad(field_quad: np.ndarray | Sequence | None) -> np.ndarray | None:
    if field_quad is None:
        return None
    quad = np.asarray(field_quad, dtype=np.float32).reshape(-1, 2)
    if quad.shape != (4, 2) or not np.isfinite(quad).all():
        raise ValueError("field_quad must be 4 corners (tl, tr, br, bl) as [[x, y], ...]")
    return quad


def expected_die_side(field_quad: np.ndarray | None) -> float | None:
    """The die side in pixels a field of this size implies (None without a field)."""
    return None if field_quad is None else die_side(field_quad)


def die_side(q: np.ndarray) -> float:
    width = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    return float(width / FIELD_IN_DICE)


def detect_scale(image: np.ndarray, side: float | None) -> float:
    """How much to shrink ``image`` for the detector, which learned dice of ``dice_detect.DIE_PX`` px:
    by the field's die ``side`` (px) where there is a field, else by the frame's size."""
    if side:
        return float(np.clip(dice_detect.DIE_PX / side, 0.05, 1.5))
    # no field: dice in ordinary photographs are 20..70 px per 640 px of frame; the detector
    # was trained on 6..20 px
    return min(0.3, 192.0 / max(image.shape[:2]))


def search_window(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """Where dice are looked for (x0, y0, x1, y1): the field's bounding box widened by a fifth of its
    width each side (trays) and a tenth up and down."""
    quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    mx, my = 0.2 * (x1 - x0), 0.1 * (y1 - y0)
    h, w = shape[:2]
    return (
        int(max(0, x0 - mx)),
        int(max(0, y0 - my)),
        int(min(w, x1 + mx)),
        int(min(h, y1 + my)),
    )


def touches_checker_mask(mask: np.ndarray, x: float, y: float, side: float) -> bool:
    """Checker pixels under the die or within a quarter of its side around it."""
    r = 0.75 * side
    h, w = mask.shape[:2]
    x0, x1 = max(0, int(x - r)), min(w, int(x + r) + 1)
    y0, y1 = max(0, int(y - r)), min(h, int(y + r) + 1)
    if x0 >= x1 or y0 >= y1:
        return False
    window = mask[y0:y1, x0:x1] > 0
    # a few stray pixels are noise in the board reader's mask, not a checker
    return window.mean() > 0.04


def sides_beyond(quad: np.ndarray, shape: tuple[int, ...], feet: np.ndarray) -> np.ndarray:
    """How far each footprint (N, 2: the field's unit square) lies beyond the field's edge as a frame of
    ``shape`` shows it, in die sides (0 inside). The image is where the reader finds a die, and where its
    error is bounded: a footprint read a few pixels off at the far rim of an angled camera is far off on
    the board.

        >>> quad = np.array([[485, 260], [795, 260], [795, 460], [485, 460]], np.float64)
        >>> sides_beyond(quad, (720, 1280, 3), np.array([[1.05, 0.5], [0.5, 0.5]])).round(2).tolist()
        [1.55, 0.0]
    """
    if len(feet) == 0:
        return np.zeros(0)
    to_image = dice_flags.camera(quad, shape)[0]  # the field's homography, solved once per field
    seen = cv2.perspectiveTransform(np.asarray(feet, np.float64).reshape(-1, 1, 2), to_image).reshape(-1, 2)
    edge = quad.astype(np.float32).reshape(-1, 1, 2)
    inside = [cv2.pointPolygonTest(edge, (float(x), float(y)), True) for x, y in seen]
    return np.maximum(0.0, -np.array(inside, np.float64)) / die_side(quad)


def rise(on_checker: bool) -> float:
    """The height of a die's top face over the board, in field widths (a checker is 0.5 die sides thick)."""
    return (1.5 if on_checker else 1.0) / FIELD_IN_DICE


def on_empty_points(
    quad: np.ndarray, shape: tuple[int, ...], centres: np.ndarray, checkers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The footprints (N, 2; unit square) of dice on the board whose top faces are seen at ``centres``
    (N, 2; image px), and which lie on the field's points, off the bar and off every known checker."""
    feet = dice_flags.footprints(quad, shape, centres, rise(False))
    inside = (feet >= 0.0).all(axis=1) & (feet <= 1.0).all(axis=1) & (np.abs(feet[:, 0] - 0.5) >= BAR_HALF)
    return feet, inside & ~on_a_checker(checkers, feet)


def on_a_checker(checkers: np.ndarray, feet: np.ndarray) -> np.ndarray:
    """Which footprints (N, 2; unit square) lie within one of the ``checkers`` ellipses (M, 4).

    >>> on_a_checker(np.array([[0.5, 0.5, 0.02, 0.03]]), np.array([[0.51, 0.52], [0.53, 0.5]])).tolist()
    [True, False]
    """
    if not len(checkers) or not len(feet):
        return np.zeros(len(feet), dtype=bool)
    du = (feet[:, None, 0] - checkers[None, :, 0]) / checkers[None, :, 2]
    dv = (feet[:, None, 1] - checkers[None, :, 1]) / checkers[None, :, 3]
    return np.asarray(((du**2 + dv**2) <= 1.0).any(axis=1))
