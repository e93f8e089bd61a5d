"""Board geometry in the canonical (rectified) frame: where the bar, the points and the checker slots are.

The rectified field is ``width`` x ``height`` pixels; the bar spans ``bar_x0..bar_x1``; each half holds six
points of equal width. Checkers stack from a row's edge in slots ``pitch`` pixels apart, at most ``slots``
to a column (half the field height). Everything here is fitted to one board by the calibration.

    >>> g = BoardGeometry(320, 280, 152.0, 168.0, 22.0, 11.0, 11.0)
    >>> round(g.point_x(Row.TOP, 0), 1), g.slots
    (12.7, 6)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from bgboard.layout import Row

ROWS = tuple(Row)
# Lab distance between neighbouring columns' median colours that ends a uniform run (the bar's edge)
BAR_COLOUR_STEP = 12.0


@dataclass(frozen=True)
class BoardGeometry:
    """The fitted layout of a rectified field (all values in canonical pixels)."""

    width: int
    height: int
    bar_x0: float
    bar_x1: float
    pitch: float  # distance between successive checkers of a stack along a point
    radius_x: float  # half a checker's width
    radius_y: float  # half a checker's height
    top_edge: float = 0.0  # y where the top row's first checker starts
    bottom_edge: float = -1.0  # y where the bottom row's first checker ends; -1 = height

    @property
    def bottom(self) -> float:
        return float(self.height) if self.bottom_edge < 0 else self.bottom_edge

    @property
    def slots(self) -> int:
        """How many checkers fit in one column: half the field."""
        return max(1, int((self.bottom - self.top_edge) / 2 / self.pitch + 0.25))

    @property
    def point_width(self) -> float:
        return (self.width - (self.bar_x1 - self.bar_x0)) / 12

    def point_x(self, row: Row, index: int) -> float:
        """The x of point ``index`` (0..11, left to right) of ``row``; both rows share the columns."""
        del row
        if index < 6:
            return (index + 0.5) * self.bar_x0 / 6
        return self.bar_x1 + (index - 6 + 0.5) * (self.width - self.bar_x1) / 6

    def slot_center(self, row: Row, index: int, k: float) -> tuple[float, float]:
        """Centre of the ``k``-th checker (0 = at the edge) on point ``index`` of ``row``."""
        x = self.point_x(row, index)
        if row is Row.TOP:
            return x, self.top_edge + (k + 0.5) * self.pitch
        return x, self.bottom - (k + 0.5) * self.pitch

    def bar_centers(self) -> list[tuple[float, float]]:
        """Candidate checker centres along the bar, half a pitch apart."""
        x = (self.bar_x0 + self.bar_x1) / 2
        step = self.pitch / 2
        n = max(1, int((self.height - self.pitch) / step) + 1)
        return [(x, self.pitch / 2 + i * step) for i in range(n)]

    def to_json(self) -> dict:
        return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data: dict) -> BoardGeometry:
        return cls(
            int(data["width"]),
            int(data["height"]),
            float(data["bar_x0"]),
            float(data["bar_x1"]),
            float(data["pitch"]),
            float(data["radius_x"]),
            float(data["radius_y"]),
            float(data.get("top_edge", 0.0)),
            float(data.get("bottom_edge", -1.0)),
        )


def find_bar(lab: np.ndarray) -> tuple[float, float]:
    """The bar's left and right x in a rectified Lab field: the most uniform vertical band near the middle.

    Points and the field alternate along a column; the bar does not, so its columns have the smallest
    spread of colour. But so do the strips of bare field between the bar and an empty point's triangle
    (a triangle's corner covers almost nothing of the column next to it): the uniform band is cut into
    runs of one colour where the colour steps, and the widest run is the bar. Falls back to a centred
    band of 5 % when nothing stands out.

        >>> lab = np.full((100, 200, 3), 200, np.uint8)
        >>> lab[np.arange(100) % 10 < 5] = 40  # the points: every column but the bar's alternates
        >>> lab[:, 90:112] = 90  # the bar, 22 columns of one colour
        >>> lab[:, 86:90] = lab[:, 112:116] = 200  # bare field beside it (empty points next to the bar)
        >>> find_bar(lab)
        (90.0, 112.0)
    """
    h, w = lab.shape[:2]
    x0, x1 = int(0.38 * w), int(0.62 * w)
    band = lab[int(0.05 * h) : int(0.95 * h), x0:x1].astype(np.float32)
    med = np.median(band, axis=0)
    # robust spread: the 70th percentile of distance to the column median ignores checkers on the bar
    dist = np.linalg.norm(band - med[None], axis=2)
    spread = np.percentile(dist, 70, axis=0)
    spread = np.convolve(spread, np.ones(3) / 3, mode="same")
    centre = int(np.argmin(spread[len(spread) // 4 : 3 * len(spread) // 4])) + len(spread) // 4
    floor = spread[centre]
    limit = max(2.5 * floor, floor + 6.0)
    lo = centre
    while lo > 0 and spread[lo - 1] <= limit:
        lo -= 1
    hi = centre
    while hi < len(spread) - 1 and spread[hi + 1] <= limit:
        hi += 1
    lo, hi = _widest_run(med, lo, hi + 1, min_width=0.02 * w)
    left, right = x0 + lo, x0 + hi
    if not 0.02 * w <= right - left <= 0.16 * w:
        return 0.475 * w, 0.525 * w
    return float(left), float(right)


def _widest_run(med: np.ndarray, lo: int, hi: int, min_width: float) -> tuple[int, int]:
    """The widest run of one colour among columns ``lo..hi-1`` (their median colours ``med``), when it is
    at least ``min_width`` wide; else ``lo, hi``.

    The bar meets bare field in a step of colour (a blended column between them belongs to neither);
    a seam or hinge line down the bar's middle splits it into runs a few columns apart of one colour,
    which join again.
    """
    step = np.linalg.norm(np.diff(med[lo:hi], axis=0), axis=1)
    runs: list[tuple[int, int]] = []
    first = lo
    for i, s in enumerate(step, start=lo + 1):
        if s > BAR_COLOUR_STEP:
            runs.append((first, i))
            first = i
    runs.append((first, hi))
    runs = [r for r in runs if r[1] - r[0] >= 2]
    joined: list[tuple[int, int]] = []
    for run in runs:
        if joined:
            last = joined[-1]
            alike = np.linalg.norm(med[last[0] : last[1]].mean(0) - med[run[0] : run[1]].mean(0))
            if run[0] - last[1] <= 3 and alike <= 2 * BAR_COLOUR_STEP:
                joined[-1] = (last[0], run[1])
                continue
        joined.append(run)
    if not joined:
        return lo, hi
    best = max(joined, key=lambda r: r[1] - r[0])
    return best if best[1] - best[0] >= min_width else (lo, hi)
