"""Real dice cut out of photographs and pasted into real frames: throws on real boards without a renderer.

A photograph of dice on a plain light table (``../shared/data/real-dice``) gives each die's box and top
face. :func:`cutouts` cuts every die out with a mask of its own shape, found by OpenCV's GrabCut from the
box (the other dice's boxes are not this die, nor the part of this box nearer a touching die's middle; its
middle is): a mask that kept the box's corners would
carry a square of the photograph's table, or a piece of a neighbouring die, onto the board, and a reader
shown a grey square with a dark die in it sees a big die showing one pip. :func:`paste` lays one into
another frame at any place, size and turn, under that frame's light, with a soft shadow and the frame's
blur; shrunk as a camera shrinks it (each pixel the mean of what it covers, so small pips stay).

    >>> import numpy as np
    >>> die = Cutout(np.full((20, 20, 3), 240, np.uint8), np.ones((20, 20), np.float32), 3, 16.0, "test")
    >>> frame = np.zeros((60, 60, 3), np.uint8)
    >>> paste(frame, die, (30.0, 30.0), 12.0, 0.0, np.random.default_rng(0))
    >>> int(frame[30, 30, 0]) > 150, int(frame[5, 5, 0])
    (True, 0)
"""

from __future__ import annotations

import csv
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
PAD = 5  # px of table kept around a die's box when it is cut out
# Every 10th photograph (in name order) is kept out of the dice networks' training: the semi-real bench
# throws its dice, and the training recipes measure on them.
HOLDOUT = 10


@dataclass(frozen=True)
class Cutout:
    """A die cut out of a photograph: its pixels, its mask (0..1), its top face, its side in pixels and
    the angle its edges lie at in the photograph (degrees, as ``cv2.minAreaRect`` gives it: pasting it
    turned by that much lays its edges square to the frame), and where its pixels' top-left corner lies
    in the photograph (``at``, x and y)."""

    image: np.ndarray
    alpha: np.ndarray
    value: int
    side: float
    source: str
    angle: float = 0.0
    at: tuple[int, int] = (0, 0)


def labelled(labels_csv: Path) -> dict[str, list[tuple[int, float, float, float, float]]]:
    """The photographs' labelled dice: (face, x0, y0, x1, y1) by file name."""
    boxes: dict[str, list[tuple[int, float, float, float, float]]] = {}
    with open(labels_csv) as f:
        for r in csv.DictReader(f):
            box = (float(r["xmin"]), float(r["ymin"]), float(r["xmax"]), float(r["ymax"]))
            boxes.setdefault(r["filename"], []).append((WORDS[r["class"]], *box))
    return boxes


def held_out(labels_csv: Path) -> set[str]:
    """The photographs kept out of the dice networks' training (:data:`HOLDOUT`)."""
    return set(sorted(labelled(labels_csv))[::HOLDOUT])


def held_out_dice(labels_csv: Path, images: Path) -> dict[int, list[Cutout]]:
    """The dice of the :func:`held_out` photographs, cut out, by face."""
    return by_face(cutouts(labels_csv, images, held_out(labels_csv)))


def by_photograph(dice: list[Cutout]) -> dict[str, list[Cutout]]:
    """``dice`` by the photograph they were cut from (``Cutout.source``), each one's in their order."""
    photographs: dict[str, list[Cutout]] = {}
    for c in dice:
        photographs.setdefault(c.source, []).append(c)
    return photographs


def by_face(dice: list[Cutout]) -> dict[int, list[Cutout]]:
    """``dice`` by their top face, each face's in their order (``real_throws.render_throw`` takes these)."""
    faces: dict[int, list[Cutout]] = {}
    for c in dice:
        faces.setdefault(c.value, []).append(c)
    return faces


def cutouts(labels_csv: Path, images: Path, names: Collection[str] | None = None) -> list[Cutout]:
    """Every labelled die of the photographs ``names`` (all of them when None) that can be cut out cleanly."""
    out = []
    for name, boxes in sorted(labelled(labels_csv).items()):
        if names is not None and name not in names:
            continue
        image = cv2.imread(str(images / name))
        if image is None:
            continue
        others = [box for _, *box in boxes]
        cut = (_cut(image, value, box, others, name) for value, *box in boxes)
        out += [c for c in cut if c is not None]
    return out


def _cut(
    image: np.ndarray, value: int, box: list[float], boxes: list[list[float]], source: str
) -> Cutout | None:
    x0, y0, x1, y1 = box
    h, w = image.shape[:2]
    X0, Y0 = int(max(0, x0 - PAD)), int(max(0, y0 - PAD))
    X1, Y1 = int(min(w, x1 + PAD)), int(min(h, y1 + PAD))
    crop = image[Y0:Y1, X0:X1].copy()
    side = ((x1 - x0) + (y1 - y0)) / 2
    inner = (x0 - X0, y0 - Y0, x1 - X0, y1 - Y0)
    mask = _die_mask(crop, [(a - X0, b - Y0, c - X0, d - Y0) for a, b, c, d in boxes], inner)
    if mask is None:
        return None
    alpha = cv2.GaussianBlur(cv2.erode(mask, np.ones((2, 2), np.uint8)).astype(np.float32) / 255, (3, 3), 0.7)
    # the labelled box of a die lying turned is wider than the die: its side and angle are the mask's
    points = cv2.findNonZero((alpha > 0.5).astype(np.uint8))
    angle = 0.0
    if points is not None and len(points) >= 5:
        (_, _), (w, h), angle = cv2.minAreaRect(points)
        if min(w, h) > 0.5 * side:
            side = (w + h) / 2
    return Cutout(crop, alpha, value, side, source, float(angle), (X0, Y0))


# A die's outline touches all four sides of its upright box whatever its turn; a mask spanning much less
# of the box is a part of the die (the pips of a white die on a white table).
SPANS = 0.6
# a die whose colour lies this far (Lab units) from the table's stands out from it
TABLE_DE = 20.0
# ... and where the die's colour inside its box covers this many times GrabCut's mask, that mask is a part
# of the die (the pips of a dark translucent die, whose body GrabCut took for the table's shadow)
PART = 2.3


def _die_mask(crop: np.ndarray, boxes: list[tuple[float, ...]], box: tuple[float, ...]) -> np.ndarray | None:
    """The die of ``box`` in ``crop`` (255 on it), or None where it cannot be told from the table.

    GrabCut first (a coloured die): the box may be the die, the crop's rim and other dice's ``boxes``
    outside it are not, the box's middle is; its largest blob, filled to its convex hull, or, where
    the die's colour in its box covers :data:`PART` times more, that colour's hull (GrabCut kept only the
    pips of a dark see-through die). A die the colour of the table (white on white) gives GrabCut too
    little, or only its pips: then the turned square its outline and pips draw. Whichever it is, the part
    of a touching die's box nearer that die's middle is the neighbour's (:func:`_theirs`), and the mask
    is cut back from it."""
    bx0, by0, bx1, by1 = (int(round(v)) for v in box)
    ours = np.zeros(crop.shape[:2], bool)
    ours[max(0, by0) : by1, max(0, bx0) : bx1] = True
    theirs = _theirs(ours, boxes, box)
    mask = np.where(ours, cv2.GC_PR_FGD, cv2.GC_PR_BGD).astype(np.uint8)
    mask[theirs & ~ours] = cv2.GC_BGD
    ours &= ~theirs
    mask[:2], mask[-2:], mask[:, :2], mask[:, -2:] = cv2.GC_BGD, cv2.GC_BGD, cv2.GC_BGD, cv2.GC_BGD
    cx, cy, r = (bx0 + bx1) // 2, (by0 + by1) // 2, max(1, min(bx1 - bx0, by1 - by0) // 6)
    mask[cy - r : cy + r, cx - r : cx + r] = cv2.GC_FGD
    models = np.zeros((1, 65)), np.zeros((1, 65))
    # GrabCut seeds its colour models from OpenCV's global generator: reset, a die is cut the same way
    # whatever was cut before it (a bench's throws and a test's dice do not depend on what ran first)
    cv2.setRNGSeed(0)
    cv2.grabCut(crop, mask, (0, 0, 0, 0), *models, 5, cv2.GC_INIT_WITH_MASK)  # the rect: unused with a mask
    kept = np.isin(mask, (cv2.GC_FGD, cv2.GC_PR_FGD))
    theirs &= ~kept
    out = _hull(kept)
    if out is None:
        out = np.zeros(crop.shape[:2], np.uint8)
    far = _off_the_table(crop)
    if _spans(out, bx1 - bx0, by1 - by0) and np.median(far[out > 0]) > 0:
        whole = _hull(_within(far, ours) | out)
        return _own(whole if whole is not None and whole.sum() > PART * out.sum() else out, theirs)
    square = _outlined_square(crop, ((bx0 + bx1) / 2, (by0 + by1) / 2), ((bx1 - bx0) + (by1 - by0)) / 2)
    if square is None:
        return None
    if np.median(far[square > 0]) > 0:
        # a coloured die: its square without the table's colour in the corners
        coloured = _hull(square & far)
        if coloured is not None and _spans(coloured, bx1 - bx0, by1 - by0):
            return _own(coloured, theirs)
    return _own(square, theirs) if _spans(square, bx1 - bx0, by1 - by0) else None


def _own(mask: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """``mask`` without the pixels that are another die's (a hull drawn round a die can reach into its
    neighbour): the largest blob left, filled to its hull."""
    if not (theirs & (mask > 0)).any():
        return mask
    own = _hull(np.where(theirs, 0, mask))
    return own if own is not None else mask


def _theirs(ours: np.ndarray, boxes: list[tuple[float, ...]], box: tuple[float, ...]) -> np.ndarray:
    """True where the crop's pixels are another die's: inside another of ``boxes`` and, where that box
    overlaps ``box`` (``ours``: True inside it), nearer its middle than ours. Two dice of a set are
    the same size, so where they touch the line between them lies halfway between their middles, and
    the corner or pips of a neighbour that reach into this die's box are the neighbour's. (Where the
    boxes differ in size the line is off, and a turned die's corner can reach past it: :func:`_die_mask`
    leaves that part to GrabCut as it leaves the rest of the box, and cuts from the finished mask only
    what GrabCut did not keep there.)"""
    ys, xs = np.mgrid[0 : ours.shape[0], 0 : ours.shape[1]].astype(np.float32)
    mx, my = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    ours_d2 = (xs - mx) ** 2 + (ys - my) ** 2
    out = np.zeros(ours.shape, bool)
    for a, b, c, d in boxes:
        if (a, b, c, d) == tuple(box):
            continue
        inside = (xs >= int(a)) & (xs < int(c)) & (ys >= int(b)) & (ys < int(d))
        nearer = (xs - (a + c) / 2) ** 2 + (ys - (b + d) / 2) ** 2 < ours_d2
        out |= inside & (nearer | ~ours)
    return out


def _off_the_table(crop: np.ndarray) -> np.ndarray:
    """255 where ``crop`` is not the table's colour (the median of its rim). GrabCut cannot tell a white
    die from a white table: it keeps the pips, whose hull spans a 4, 5 or 6 as a die would."""
    lab = cv2.cvtColor(crop, cv2.COLOR_BGR2LAB).astype(np.float32)
    rim = np.concatenate([lab[:2].reshape(-1, 3), lab[-2:].reshape(-1, 3), lab[:, :2].reshape(-1, 3)])
    table = np.median(np.concatenate([rim, lab[:, -2:].reshape(-1, 3)]), axis=0)
    return ((np.linalg.norm(lab - table, axis=2) > TABLE_DE) * 255).astype(np.uint8)


def _within(far: np.ndarray, box: np.ndarray) -> np.ndarray:
    """The pixels of ``box`` off the table's colour, their gaps (pips, glints) closed."""
    inside = (far > 0) & box
    return cv2.morphologyEx(inside.astype(np.uint8) * 255, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))


def _hull(mask: np.ndarray) -> np.ndarray | None:
    """The convex hull of ``mask``'s largest blob, filled (a die's top and sides are convex)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats((mask > 0).astype(np.uint8))
    if n < 2:
        return None
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    out = np.zeros(mask.shape[:2], np.uint8)
    cv2.fillConvexPoly(out, cv2.convexHull(cv2.findNonZero((labels == biggest).astype(np.uint8))), 255)
    return out


def _spans(mask: np.ndarray, width: int, height: int) -> bool:
    """``mask`` spans the die's box (:data:`SPANS` of its width and of its height)."""
    points = cv2.findNonZero(mask)
    if points is None:
        return False
    _, _, w, h = cv2.boundingRect(points)
    return w >= SPANS * width and h >= SPANS * height


def _central(mask: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray:
    """The parts of ``mask`` whose blobs are centred within the die's box."""
    n, labels, _, centres = cv2.connectedComponentsWithStats(mask)
    keep = np.zeros_like(mask)
    for k in range(1, n):
        if abs(centres[k][0] - centre[0]) < side / 2 and abs(centres[k][1] - centre[1]) < side / 2:
            keep[labels == k] = 255
    return keep


def _outlined_square(crop: np.ndarray, centre: tuple[float, float], side: float) -> np.ndarray | None:
    """The turned square that the die's outline and pips draw, or None where too few edges draw one."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    edges = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    strong = cv2.GaussianBlur(edges, (3, 3), 0) > max(25.0, float(np.percentile(edges, 60)))
    points = cv2.findNonZero(_central(strong.astype(np.uint8) * 255, centre, side))
    if points is None or len(points) < 10:
        return None
    mask = np.zeros(crop.shape[:2], np.uint8)
    (x, y), (w, h), angle = cv2.minAreaRect(points)
    s = min((w + h) / 2, side) - 2  # the edges' blur reaches a pixel beyond the die each way
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
    image, mask = die.image, die.alpha
    if scale < 1:
        # a camera's pixel is the mean of what it covers; a warp samples points, and small pips drop out
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        mask = cv2.resize(mask, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_AREA)
        scale = side / (die.side * image.shape[1] / die.image.shape[1])
    ch, cw = mask.shape
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
    pixels = cv2.warpAffine(image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    alpha = cv2.warpAffine(mask, m, size, flags=cv2.INTER_LINEAR)
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


def lightness_turned(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR) with its CIE L* turned over, hue and saturation kept: a dark die with light pips
    becomes a light die with dark pips of the same colours.

    >>> lightness_turned(np.full((1, 1, 3), 255, np.uint8)).tolist()  # white turns black
    [[[0, 0, 0]]]
    """
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    lab[..., 0] = 255 - lab[..., 0]
    return cv2.cvtColor(lab, cv2.COLOR_LAB2BGR)


def turned_light_for_dark(dice: Iterable[Cutout]) -> list[Cutout]:
    """Each cut-out of ``dice`` turned light for dark (``lightness_turned``): another set of dice, pale
    with dark pips where the photographs' are dark with light pips."""
    return [replace(d, image=lightness_turned(d.image)) for d in dice]


def light_for_dark(image: np.ndarray, dice: Collection[Cutout]) -> np.ndarray:
    """The photograph ``image`` with each of its ``dice`` (cut out of it) turned light for dark inside its
    outline (``lightness_turned``), the table around them as it was: another set of dice on the same table."""
    out = image.astype(np.float32)
    for die in dice:
        x, y = die.at
        h, w = die.alpha.shape
        a = die.alpha[..., None]
        region = out[y : y + h, x : x + w]
        region[:] = a * lightness_turned(die.image) + (1 - a) * region
    return np.clip(out, 0, 255).astype(np.uint8)
