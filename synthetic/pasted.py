"""Real dice cut out of photographs and pasted into real frames: throws on real boards without a renderer.

A photograph of dice on a plain light table (``../shared/data/real-dice``) gives each die's box and top
face. :func:`cutouts` cuts every die out with a mask of its own shape: the pixels that stand out from the
table's colour where they make a die-sized blob (coloured dice), or else the square the die's outline
draws (a white die on a white table shows little but its edges). :func:`paste` lays one into another
frame at any place, size and turn, under that frame's light, with a soft shadow and the frame's blur.

    >>> import numpy as np
    >>> die = Cutout(np.full((20, 20, 3), 240, np.uint8), np.ones((20, 20), np.float32), 3, 16.0, "test")
    >>> frame = np.zeros((60, 60, 3), np.uint8)
    >>> paste(frame, die, (30.0, 30.0), 12.0, 0.0, np.random.default_rng(0))
    >>> int(frame[30, 30, 0]) > 150, int(frame[5, 5, 0])
    (True, 0)
"""

from __future__ import annotations

import csv
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
PAD = 5  # px of table kept around a die's box when it is cut out


@dataclass(frozen=True)
class Cutout:
    """A die cut out of a photograph: its pixels, its mask (0..1), its top face, its side in pixels and
    the angle its edges lie at in the photograph (degrees, as ``cv2.minAreaRect`` gives it: pasting it
    turned by that much lays its edges square to the frame)."""

    image: np.ndarray
    alpha: np.ndarray
    value: int
    side: float
    source: str
    angle: float = 0.0


def labelled(labels_csv: Path) -> dict[str, list[tuple[int, float, float, float, float]]]:
    """The photographs' labelled dice: (face, x0, y0, x1, y1) by file name."""
    boxes: dict[str, list[tuple[int, float, float, float, float]]] = {}
    with open(labels_csv) as f:
        for r in csv.DictReader(f):
            box = (float(r["xmin"]), float(r["ymin"]), float(r["xmax"]), float(r["ymax"]))
            boxes.setdefault(r["filename"], []).append((WORDS[r["class"]], *box))
    return boxes


def cutouts(labels_csv: Path, images: Path, names: Collection[str] | None = None) -> list[Cutout]:
    """Every labelled die of the photographs ``names`` (all of them when None), cut out."""
    out = []
    for name, boxes in sorted(labelled(labels_csv).items()):
        if names is not None and name not in names:
            continue
        image = cv2.imread(str(images / name))
        if image is None:
            continue
        out += [_cut(image, value, box, name) for value, *box in boxes]
    return out


def _cut(image: np.ndarray, value: int, box: list[float], source: str) -> Cutout:
    x0, y0, x1, y1 = box
    h, w = image.shape[:2]
    X0, Y0 = int(max(0, x0 - PAD)), int(max(0, y0 - PAD))
    X1, Y1 = int(min(w, x1 + PAD)), int(min(h, y1 + PAD))
    crop = image[Y0:Y1, X0:X1].copy()
    side = ((x1 - x0) + (y1 - y0)) / 2
    centre = ((x0 + x1) / 2 - X0, (y0 + y1) / 2 - Y0)
    mask = _stands_out(crop, centre, side)
    if mask.sum() < 0.45 * side * side * 255:
        mask = _outlined_square(crop, centre, side)
    alpha = cv2.GaussianBlur(cv2.erode(mask, np.ones((2, 2), np.uint8)).astype(np.float32) / 255, (3, 3), 0.7)
    # the labelled box of a die lying turned is wider than the die: its side and angle are the mask's
    points = cv2.findNonZero((alpha > 0.5).astype(np.uint8))
    angle = 0.0
    if points is not None and len(points) >= 5:
        (_, _), (w, h), angle = cv2.minAreaRect(points)
        if min(w, h) > 0.5 * side:
            side = (w + h) / 2
    return Cutout(crop, alpha, value, side, source, float(angle))


def _table_colour(crop: np.ndarray) -> np.ndarray:
    """The table's Lab colour: the median of the crop's border."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.concatenate([lab[:2].reshape(-1, 3), lab[-2:].reshape(-1, 3), lab[:, :2].reshape(-1, 3)])
    return np.asarray(np.median(np.concatenate([border, lab[:, -2:].reshape(-1, 3)]), axis=0))


def _central(mask: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray:
    """The parts of ``mask`` whose blobs are centred within the die's box."""
    n, labels, _, centres = cv2.connectedComponentsWithStats(mask)
    keep = np.zeros_like(mask)
    for k in range(1, n):
        if abs(centres[k][0] - centre[0]) < side / 2 and abs(centres[k][1] - centre[1]) < side / 2:
            keep[labels == k] = 255
    return keep


def _stands_out(crop: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray:
    """The convex blob of pixels far from the table's colour around the box's centre (coloured dice)."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    far = (np.linalg.norm(lab - _table_colour(crop), axis=2) > 28).astype(np.uint8) * 255
    blob = _central(cv2.morphologyEx(far, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)), centre, side)
    points = cv2.findNonZero(blob)
    mask = np.zeros(crop.shape[:2], np.uint8)
    if points is not None and len(points) >= 3:
        cv2.fillConvexPoly(mask, cv2.convexHull(points), 255)
    return mask


def _outlined_square(crop: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray:
    """The turned square that the die's outline and pips draw (a white die on a white table)."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    edges = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    strong = cv2.GaussianBlur(edges, (3, 3), 0) > max(25.0, float(np.percentile(edges, 60)))
    points = cv2.findNonZero(_central(strong.astype(np.uint8) * 255, centre, side))
    mask = np.zeros(crop.shape[:2], np.uint8)
    if points is None or len(points) < 10:
        s = side / 2
        cv2.rectangle(
            mask, (int(centre[0] - s), int(centre[1] - s)), (int(centre[0] + s), int(centre[1] + s)), 255, -1
        )
        return mask
    (x, y), (w, h), angle = cv2.minAreaRect(points)
    s = min((w + h) / 2, side)
    cv2.fillConvexPoly(mask, cv2.boxPoints(((x, y), (s, s), angle)).astype(np.int32), 255)
    return mask


def paste(
    frame: np.ndarray,
    die: Cutout,
    centre: tuple[float, float],
    side: float,
    angle: float,
    rng: np.random.Generator,
    light: float = 1.0,
    shadow: float = 0.35,
    blur: float = 0.5,
) -> None:
    """Lays ``die`` into ``frame`` (in place) with its centre at ``centre``, ``side`` px across, turned by
    ``angle`` degrees, its colours times ``light``; a soft shadow falls to one side of it, and the die is
    blurred by ``blur`` px as the frame's camera blurs."""
    scale = side / die.side
    ch, cw = die.alpha.shape
    h, w = frame.shape[:2]
    r = int(side * 1.2) + 4  # the die, its shadow and its blur fit in this square around its centre
    x0, y0 = max(0, int(centre[0]) - r), max(0, int(centre[1]) - r)
    x1, y1 = min(w, int(centre[0]) + r), min(h, int(centre[1]) + r)
    if x0 >= x1 or y0 >= y1:
        return
    m = cv2.getRotationMatrix2D((cw / 2, ch / 2), angle, scale)
    m[0, 2] += centre[0] - cw / 2 - x0
    m[1, 2] += centre[1] - ch / 2 - y0
    size = (x1 - x0, y1 - y0)
    pixels = cv2.warpAffine(die.image, m, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpAffine(die.alpha, m, size, flags=cv2.INTER_LINEAR)
    if blur > 0:
        pixels = cv2.GaussianBlur(pixels, (0, 0), blur)
        alpha = cv2.GaussianBlur(alpha, (0, 0), blur)
    roi = frame[y0:y1, x0:x1].astype(np.float32)
    if shadow > 0:
        dx, dy = (float(v) * side * 0.12 for v in rng.uniform(-1, 1, 2))
        shift = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        dark = cv2.GaussianBlur(cv2.warpAffine(alpha, shift, size), (0, 0), max(1.0, 0.15 * side))
        roi *= 1 - shadow * dark[..., None]
    a = alpha[..., None]
    lit = np.clip(pixels.astype(np.float32) * light, 0, 255)
    frame[y0:y1, x0:x1] = np.clip(roi * (1 - a) + lit * a, 0, 255).astype(np.uint8)
