"""Rectify a camera frame to the canonical top-down field.

The field's four corners (top-left, top-right, bottom-right, bottom-left as the image shows them) map to
a ``width`` x ``height`` rectangle, surrounded by a ``margin`` so that checkers at the edge keep their
whole rim.

    >>> import numpy as np
    >>> r = Rectifier([(0, 0), (99, 0), (99, 49), (0, 49)], 50, 25, margin=4)
    >>> r.warp(np.zeros((50, 100, 3), np.uint8)).shape
    (33, 58, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

Corners = Sequence[tuple[float, float]]


def check_corners(corners: Corners) -> np.ndarray:
    """The corners as a 4x2 float array, or ValueError when they do not make a convex quadrilateral."""
    q = np.asarray(corners, dtype=np.float32)
    if q.shape != (4, 2) or not np.all(np.isfinite(q)):
        raise ValueError("need four corners x,y: top-left, top-right, bottom-right, bottom-left")
    cross = []
    for i in range(4):
        a, b, c = q[i], q[(i + 1) % 4], q[(i + 2) % 4]
        cross.append((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]))
    if not (all(v > 0 for v in cross) or all(v < 0 for v in cross)):
        raise ValueError(
            "the four corners do not make a convex quadrilateral: give them in the order "
            "top-left, top-right, bottom-right, bottom-left"
        )
    if cv2.contourArea(q) < 400:
        raise ValueError("the four corners enclose almost no area: check the coordinates")
    return q


def quad_aspect(corners: Corners) -> float:
    """Width over height of the quadrilateral, from the mean lengths of opposite edges."""
    q = np.asarray(corners, dtype=np.float64)
    top, bottom = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[2] - q[3])
    left, right = np.linalg.norm(q[3] - q[0]), np.linalg.norm(q[2] - q[1])
    return float((top + bottom) / max(float(left + right), 1e-6))


class Rectifier:
    """Maps frames to the canonical field (with a margin) and points back to the image."""

    def __init__(self, corners: Corners, width: int, height: int, margin: int = 0) -> None:
        q = check_corners(corners)
        self.width, self.height, self.margin = int(width), int(height), int(margin)
        m = float(margin)
        dst = np.array([[m, m], [m + width, m], [m + width, m + height], [m, m + height]], np.float32)
        self.matrix = cv2.getPerspectiveTransform(q, dst)
        self.inverse = np.linalg.inv(self.matrix)
        self.size = (self.width + 2 * self.margin, self.height + 2 * self.margin)

    def warp(self, frame: np.ndarray) -> np.ndarray:
        """The canonical field (plus margin) of ``frame``."""
        return cv2.warpPerspective(
            frame, self.matrix, self.size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )

    def to_image(self, points: np.ndarray) -> np.ndarray:
        """Canonical field coordinates (without margin) to image pixels."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2) + self.margin
        return cv2.perspectiveTransform(p, self.inverse).reshape(-1, 2)

    def to_field(self, points: np.ndarray) -> np.ndarray:
        """Image pixels to canonical field coordinates (without margin)."""
        p = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(p, self.matrix).reshape(-1, 2) - self.margin
