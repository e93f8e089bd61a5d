"""Classical pip counting on one die: blobs that stand out from the die's body colour, in a pip layout.

The top face of a die lying flat shows 1..6 pips of one size in one of six standard layouts. Pips are
found as round blobs in three contrast maps (Lab distance from the body colour near the centre, and
light or dark top-hats); the largest set of alike blobs that fits a layout (turn and similarity
pairing, then an affine fit, since a face seen a little from the side is a parallelogram) is the
count. See-through pips of a translucent die are fainter and pips of side faces are squashed or off
the layout, so they rarely fit. ``vision.dice_verdict`` uses the count only to confirm an unsure network
read.

    >>> import numpy as np, cv2
    >>> face = np.full((60, 60, 3), 235, np.uint8)
    >>> for x, y in ((18, 18), (42, 42), (30, 30)):
    ...     _ = cv2.circle(face, (x, y), 5, (20, 20, 20), -1)
    >>> count_pips(face, 30.0, 30.0, 64.0).value
    3
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np

# The crop is resampled so the die's side is this many pixels: pips come out 5..12 px across.
SIDE_PX = 48
# Pip layouts in units of the pip pitch (corner pips at +-1).
LAYOUTS: dict[int, np.ndarray] = {
    1: np.array([[0.0, 0.0]]),
    2: np.array([[-1.0, -1.0], [1.0, 1.0]]),
    3: np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]]),
    4: np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]]),
    5: np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]),
    6: np.array([[-1.0, -1.0], [-1.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 0.0], [1.0, 1.0]]),
}
# Least Lab distance of a pip from the body colour.
MIN_CONTRAST = 18.0
_ANGLES = np.deg2rad(np.arange(0.0, 180.0, 3.0))


@dataclass(frozen=True)
class PipCount:
    """The count and how well it fits: ``residual`` is the worst pip's miss in pitches (0 is exact)."""

    value: int | None
    residual: float
    pitch: float  # corner-pip offset from the face centre, in detector box sides
    pips: int  # blobs found before the layout check
    size: float = 0.0  # mean pip diameter / pitch


def _blobs(d: np.ndarray) -> list[tuple[float, float, float, float]]:
    """(x, y, area, strength) of round blobs in the distance image ``d`` (float32, crop px)."""
    c = d.shape[0] // 2
    r = SIDE_PX // 4
    core = d[c - r : c + r, c - r : c + r]
    top = float(np.percentile(core, 99))
    thr = max(MIN_CONTRAST, 0.45 * top)
    mask = (d > thr).astype(np.uint8)
    n, lab, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    out = []
    side2 = SIDE_PX * SIDE_PX
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if not (0.004 * side2 <= area <= 0.05 * side2):
            continue
        if max(w, h) > 2.2 * min(w, h) or area < 0.45 * w * h:
            continue
        cx, cy = cents[i]
        if np.hypot(cx - c, cy - c) > 0.62 * SIDE_PX:
            continue
        strength = float(d[lab == i].mean())
        out.append((float(cx), float(cy), float(area), strength))
    return out


def _fit(pts: np.ndarray, layout: np.ndarray) -> tuple[float, float]:
    """(worst miss in pitches, pitch in px) of ``pts`` against ``layout``.

    The turn and the pairing come from the best similarity fit; the miss is then measured after a
    least-squares affine fit, since a face seen slightly from the side is a parallelogram, not a square.
    """
    if len(pts) == 1:
        return 0.0, 0.0
    m = pts - pts.mean(axis=0)
    ref = layout - layout.mean(axis=0)
    scale = np.sqrt((m**2).sum() / (ref**2).sum())
    if scale < 1e-6:
        return 9.0, 0.0
    u = m / scale
    cos, sin = np.cos(_ANGLES), np.sin(_ANGLES)
    rx = u[:, 0][None] * cos[:, None] - u[:, 1][None] * sin[:, None]
    ry = u[:, 0][None] * sin[:, None] + u[:, 1][None] * cos[:, None]
    # distance of each turned pip to each layout point: (angles, pips, layout)
    dist = np.hypot(rx[:, :, None] - ref[None, None, :, 0], ry[:, :, None] - ref[None, None, :, 1])
    nearest = dist.argmin(axis=2)
    miss = dist.min(axis=2).max(axis=1)
    for a in np.argsort(miss):
        if miss[a] > 0.7:
            break
        if len(set(nearest[a].tolist())) != len(pts):  # one pip per layout point
            continue
        src = ref[nearest[a]]
        if len(pts) < 4:  # collinear layouts: an affine map is not determined
            return float(miss[a]), float(scale)
        # pips = [layout, 1] @ A: the affine map that best explains the pips
        design = np.hstack([src, np.ones((len(src), 1))])
        a_map, *_ = np.linalg.lstsq(design, m, rcond=None)
        sv = np.linalg.svd(a_map[:2], compute_uv=False)
        if sv[1] < 0.45 * sv[0]:
            continue  # squashed more than a flat face seen from above can be
        err = np.hypot(*(design @ a_map - m).T).max() / sv.mean()
        return float(err), float(sv.mean())
    return 9.0, float(scale)


def _layout(blobs: list[tuple[float, float, float, float]], c: float, max_residual: float) -> PipCount:
    """The largest set of alike blobs that fits a pip layout (ties: the closest fit)."""
    if not blobs:
        return PipCount(None, 9.0, 0.0, 0)
    blobs = sorted(blobs, key=lambda b: -b[3] * b[2])[:8]
    arr = np.array(blobs)
    best: PipCount | None = None
    for n in range(min(6, len(blobs)), 0, -1):
        for idx in itertools.combinations(range(len(blobs)), n):
            sub = arr[list(idx)]
            areas = sub[:, 2]
            if areas.max() > 2.2 * areas.min() or sub[:, 3].min() < 0.5 * sub[:, 3].max():
                continue  # pips of one face are alike; see-through pips are fainter
            res, pitch = _fit(sub[:, :2], LAYOUTS[n])
            pitch_sides = pitch / SIDE_PX
            cx, cy = sub[:, :2].mean(axis=0)
            off = np.hypot(cx - c, cy - c) / SIDE_PX
            if n == 1:
                ok = off < 0.22 and areas[0] >= 0.008 * SIDE_PX**2
            else:
                ok = res <= max_residual and 0.095 <= pitch_sides <= 0.24 and off < 0.3
            if ok and (best is None or res < best.residual):
                size = float(np.sqrt(areas.mean()) / pitch) if n > 1 else 0.0
                best = PipCount(n, res, pitch_sides, len(blobs), size)
        if best is not None:
            return best
    return PipCount(None, 9.0, 0.0, len(blobs))


def _maps(crop: np.ndarray) -> list[np.ndarray]:
    """Pip-contrast images of a die crop: colour distance from the body, and light or dark small blobs."""
    size = crop.shape[0]
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (3, 3), 0), cv2.COLOR_BGR2Lab).astype(np.float32)
    c, r = size // 2, SIDE_PX // 5
    body = np.median(lab[c - r : c + r, c - r : c + r].reshape(-1, 3), axis=0)
    maps = [np.sqrt(((lab - body) ** 2).sum(axis=2))]
    # top-hats keep blobs narrower than the kernel: pips, not the body or the table
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (SIDE_PX // 4 | 1, SIDE_PX // 4 | 1))
    lum = lab[:, :, 0]
    chroma = np.sqrt((lab[:, :, 1] - body[1]) ** 2 + (lab[:, :, 2] - body[2]) ** 2)
    maps.append(
        cv2.morphologyEx(lum, cv2.MORPH_TOPHAT, k) + 0.5 * cv2.morphologyEx(chroma, cv2.MORPH_TOPHAT, k)
    )
    maps.append(
        cv2.morphologyEx(lum, cv2.MORPH_BLACKHAT, k) + 0.5 * cv2.morphologyEx(chroma, cv2.MORPH_TOPHAT, k)
    )
    return maps


def count_pips(image: np.ndarray, x: float, y: float, side: float, max_residual: float = 0.28) -> PipCount:
    """The top face of the die at (x, y) in ``image`` (BGR), by its pips.

    ``side`` is the detector's box side (``dice_model.Candidate.side``): about 1.4 times the top
    face's side, since photographed dice show their sides too; the pip pitch limits assume that.
    """
    k = SIDE_PX / max(side, 1.0)
    size = int(SIDE_PX * 1.4)
    m = np.array([[k, 0.0, size / 2 - k * x], [0.0, k, size / 2 - k * y]], np.float32)
    crop = cv2.warpAffine(image, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    found = [_layout(_blobs(d), size // 2, max_residual) for d in _maps(crop)]
    counted = [f for f in found if f.value is not None]
    if not counted:
        return found[0]
    # the map whose blobs make the most pips in a clean layout: a missed pip only ever lowers the count
    return max(counted, key=lambda f: (f.value, -f.residual))
