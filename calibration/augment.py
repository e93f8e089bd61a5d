"""More training slots from the calibration frame: its own checkers pasted where the frame had none.

One frame shows each colour only on some points and no checker in a second layer. Cutting real checkers
out of the frame (with a soft elliptical mask) and pasting them onto its empty points, a little off the
grid, and on top of its stacks in the dips between two checkers, shows the slot model this board's
checkers on every background and in every layer, in this light, without a second photograph.

    >>> import numpy as np
    >>> cut = cut_checker(np.zeros((60, 60, 3), np.uint8), (30, 30), 10, 10)
    >>> cut.patch.shape, cut.mask.shape
    ((25, 25, 3), (25, 25))
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Cut:
    patch: np.ndarray  # h x w x 3 uint8
    mask: np.ndarray  # h x w float32 in 0..1


def cut_checker(canonical: np.ndarray, center: tuple[int, int], rx: float, ry: float) -> Cut:
    """A checker's pixels around ``center`` (canonical pixels, margin included) with a soft mask."""
    hx, hy = int(np.ceil(rx * 1.15)), int(np.ceil(ry * 1.15))
    x, y = int(center[0]), int(center[1])
    h, w = canonical.shape[:2]
    x = min(max(x, hx), w - hx - 1)
    y = min(max(y, hy), h - hy - 1)
    patch = canonical[y - hy : y + hy + 1, x - hx : x + hx + 1].copy()
    mask: np.ndarray = np.zeros(patch.shape[:2], np.float32)
    cv2.ellipse(mask, (hx, hy), (max(1, round(rx * 1.02)), max(1, round(ry * 1.02))), 0, 0, 360, 1.0, -1)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.8)
    return Cut(patch, mask)


def paste(canonical: np.ndarray, cut: Cut, center: tuple[float, float], shadow: float = 0.0) -> None:
    """Blend ``cut`` into ``canonical`` (in place) at ``center``; ``shadow`` darkens a rim around it."""
    ph, pw = cut.mask.shape
    x0, y0 = round(center[0]) - pw // 2, round(center[1]) - ph // 2
    h, w = canonical.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + pw > w or y0 + ph > h:
        return
    region = canonical[y0 : y0 + ph, x0 : x0 + pw].astype(np.float32)
    m = cut.mask[..., None]
    if shadow > 0:
        ring = cv2.GaussianBlur(cut.mask, (0, 0), 1.5)[..., None]
        region *= 1 - shadow * np.clip(ring - m, 0, 1)
    region = region * (1 - m) + cut.patch.astype(np.float32) * m
    canonical[y0 : y0 + ph, x0 : x0 + pw] = np.clip(region, 0, 255).astype(np.uint8)
