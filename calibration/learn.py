"""Learn a board from one frame whose position is known: geometry, slot model, orientation.

    profile = calibrate(cv2.imread("start.jpg"), corners, start=True)
    profile.save("board.profile")

The bar is found as the most uniform vertical band; the checker pitch, checker size and where the first
checker of each row sits are fitted by making the known checkers' rims line up with the slots; then every
slot of the frame becomes a training sample for the slot model (empty, light or dark), and the bar's
known checkers are located by a first model trained on the points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from bgboard.layout import Board, Cell, ImageLayout, Orientation, Row
from calibration.augment import Cut, cut_checker, paste
from vision.arrivals import Still
from vision.board_reader import BoardReader, SlotGrid, SlotSamples, under_box
from vision.checkers import DARK, EMPTY, FEATURES, FIELD_DISC, LIGHT, EmptyField, EmptyReference, SlotModel
from vision.cube import cube_side, find_cube
from vision.dice import find_dice
from vision.dice_field import expected_die_side, search_window
from vision.geometry import ROWS, BoardGeometry, find_bar
from vision.point_counts import count_net, strips
from vision.profile import Profile
from vision.reading import DieReading
from vision.rectify import Rectifier, check_corners, quad_aspect

WIDTH = 320  # canonical field width in pixels: a checker is about 24 px across


class CalibrationError(ValueError):
    """The frame and what was said about it do not fit together."""


@dataclass
class _Fit:
    geometry: BoardGeometry
    score: float


def _base(frame: np.ndarray, corners: Sequence[tuple[float, float]]) -> tuple[int, int, int]:
    aspect = min(1.6, max(0.8, quad_aspect(corners)))
    height = round(WIDTH / aspect)
    return WIDTH, height, round(0.1 * WIDTH)


Slot = tuple[Row, int, int]  # a checker slot: row, point index from the left, place along the point


def _occupancy(layout: ImageLayout, k: int) -> tuple[list[Slot], list[Slot]]:
    """Slots that must hold a checker and slots just past each stack that must be empty."""
    full: list[Slot] = []
    free: list[Slot] = []
    for row in ROWS:
        values = layout.row(row)
        for i, v in enumerate(values):
            n = abs(v)
            full += [(row, i, s) for s in range(min(n, k))]
            free += [(row, i, s) for s in range(n, min(n + 2, k))]
    return full, free


def _score(canonical: np.ndarray, g: BoardGeometry, margin: int, layout: ImageLayout) -> float:
    """How well slots on this geometry separate the known checkers from the known empty slots.

    Each slot's margin is (nearest sample of another kind - nearest of its own kind), leave-one-out,
    relative to their sum; a geometry that puts slots on checkers where the layout says so scores high.
    """
    grid = SlotGrid(g, margin)
    prepared = grid.sampler.prepare(canonical)
    full, free = _occupancy(layout, grid.k)
    if not full or not free:
        return 0.0
    slots = full + free
    centers = np.array([g.slot_center(*s) for s in slots])
    feats = grid.sampler.features(prepared, grid.sampler.search(prepared, centers, grid.point_window))
    kind = np.array([1] * len(full) + [0] * len(free))
    x = (feats - feats.mean(axis=0)) / np.maximum(feats.std(axis=0), 1e-3)
    d = np.sqrt(((x[:, None, :] - x[None]) ** 2).sum(axis=2))
    np.fill_diagonal(d, np.inf)
    same = np.where(kind[:, None] == kind[None], d, np.inf).min(axis=1)
    other = np.where(kind[:, None] != kind[None], d, np.inf).min(axis=1)
    ok = np.isfinite(same) & np.isfinite(other)
    return float(np.mean((other[ok] - same[ok]) / (other[ok] + same[ok] + 1e-6)))


def stack_pitch(canonical: np.ndarray, margin: int, g: BoardGeometry, layout: ImageLayout) -> float | None:
    """The spacing of checkers along a point, from the autocorrelation of edges along the known stacks."""
    pw = g.point_width
    light = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    gy = np.abs(cv2.Sobel(light, cv2.CV_32F, 0, 1, ksize=3))
    lags = np.arange(int(0.6 * pw), int(1.2 * pw) + 2)
    acc = np.zeros(len(lags))
    used = 0
    for row in ROWS:
        values = layout.row(row)
        for i, v in enumerate(values):
            n = min(abs(v), g.slots)
            if n < 2:
                continue
            x = g.point_x(row, i) + margin
            x0, x1 = int(x - 0.3 * pw), int(x + 0.3 * pw)
            length = min(int(n * 1.15 * pw), g.height // 2)
            if row is Row.TOP:
                profile = gy[margin : margin + length, x0:x1].mean(axis=1)
            else:
                profile = gy[margin + g.height - length : margin + g.height, x0:x1].mean(axis=1)[::-1]
            profile = profile - profile.mean()
            for j, lag in enumerate(lags):
                if lag < len(profile):
                    acc[j] += (profile[:-lag] * profile[lag:]).mean() * (n - 1)
            used += 1
    if not used:
        return None
    j = int(np.argmax(acc))
    if 0 < j < len(acc) - 1:  # parabolic refinement of the peak
        a, b, c = acc[j - 1], acc[j], acc[j + 1]
        denom = a - 2 * b + c
        return float(lags[j] + (0.5 * (a - c) / denom if denom < 0 else 0.0))
    return float(lags[j])


def fit_geometry(canonical: np.ndarray, width: int, height: int, margin: int, layout: ImageLayout) -> _Fit:
    """The bar, the checker pitch, the checker size and the row edges that fit the known checkers."""
    field = canonical[margin : margin + height, margin : margin + width]
    bar_x0, bar_x1 = find_bar(cv2.cvtColor(field, cv2.COLOR_BGR2LAB))
    pw = (width - (bar_x1 - bar_x0)) / 12

    def geometry(p: float, rx: float, top: float = 0.0, bottom: float = -1.0) -> BoardGeometry:
        return BoardGeometry(width, height, bar_x0, bar_x1, p, rx, p / 2, top, bottom)

    if not any(layout.top + layout.bottom):
        return _Fit(geometry(0.92 * pw, 0.46 * pw), 0.0)
    pitch = stack_pitch(canonical, margin, geometry(0.92 * pw, 0.46 * pw), layout) or 0.92 * pw
    options = [geometry(pitch, f * pw) for f in (0.42, 0.46, 0.5)]
    scored = [(_score(canonical, g, margin, layout), g) for g in options]
    best = max(scored, key=lambda o: o[0])
    g = best[1]
    # where each row's first checker sits (the corners may cut into or stop short of the field)
    for edge in Row:
        only = ImageLayout(
            layout.top if edge is Row.TOP else (0,) * 12, layout.bottom if edge is Row.BOTTOM else (0,) * 12
        )
        if not any(only.top + only.bottom):
            continue
        cands = []
        for e in (-0.2, -0.1, 0.0, 0.1):
            if edge is Row.TOP:
                cand = geometry(g.pitch, g.radius_x, e * g.pitch, g.bottom_edge)
            else:
                cand = geometry(g.pitch, g.radius_x, g.top_edge, height - e * g.pitch)
            cands.append((_score(canonical, cand, margin, only), -abs(e), cand))
        g = max(cands, key=lambda o: (o[0], o[1]))[2]
    return _Fit(g, _score(canonical, g, margin, layout))


def slot_labels(layout: ImageLayout, k: int) -> np.ndarray:
    """EMPTY / LIGHT / DARK for every point slot, in :class:`SlotGrid` order."""
    labels = []
    for row in ROWS:
        values = layout.row(row)
        for v in values:
            colour = LIGHT if v > 0 else DARK
            labels += [colour if s < abs(v) else EMPTY for s in range(k)]
    return np.array(labels, dtype=np.int8)


def _bar_labels(
    model: SlotModel, features: np.ndarray, centers: np.ndarray, pitch: float, layout: ImageLayout
) -> tuple[np.ndarray, np.ndarray]:
    """Label the bar candidates: the most checker-like ones of each colour, as many as the layout says."""
    d = model.distances(features)
    labels = np.full(len(features), EMPTY, dtype=np.int8)
    keep = np.ones(len(features), dtype=bool)
    for colour, n in ((LIGHT, layout.bar_light), (DARK, layout.bar_dark)):
        if n == 0:
            continue
        if not np.isfinite(d[:, colour]).any():
            raise CalibrationError(
                f"{n} {'light' if colour == LIGHT else 'dark'} checker(s) on the bar but none on the points: "
                "calibrate on a frame with that colour on a point"
            )
        score = d[:, colour] - np.minimum(d[:, EMPTY], 1e6)
        taken: list[int] = []
        for i in np.argsort(score):
            if labels[i] != EMPTY:
                continue
            if all(np.hypot(*(centers[i] - centers[j])) >= 0.8 * pitch for j in taken):
                taken.append(int(i))
                if len(taken) == n:
                    break
        for i in taken:
            labels[i] = colour
    checkers = np.flatnonzero(labels != EMPTY)
    for i in range(len(features)):
        near = [j for j in checkers if np.hypot(*(centers[i] - centers[j])) < 0.75 * pitch]
        if labels[i] == EMPTY and near:
            # a candidate half on a checker finds that checker; the reader merges such neighbours
            labels[i] = labels[near[0]]
    return labels, keep


def empty_reference(model: SlotModel, sets: TrainingSets, k: int) -> EmptyReference | None:
    """The look of each slot that was empty in the frame, and how far light and noise (and checkers pasted
    beside it) moved it in the variants: an empty slot much farther from its own look is covered."""
    n = 24 * k
    feats, labels = sets.main
    copies = [(feats[i : i + n], labels[i : i + n]) for i in range(n, len(feats), n)]
    return _reference(model, feats[:n], labels[:n], copies)


def _reference(
    model: SlotModel, features: np.ndarray, labels: np.ndarray, copies: list[tuple[np.ndarray, np.ndarray]]
) -> EmptyReference | None:
    original = model.standardise(features)
    ref = np.where((labels == EMPTY)[:, None], original, np.nan).astype(np.float32)
    moved = []
    for copy_features, copy_labels in copies:
        copy = model.standardise(copy_features)
        keep = (copy_labels == EMPTY) & (labels == EMPTY)
        moved.append(np.sqrt(((copy[keep] - original[keep]) ** 2).sum(axis=1) / original.shape[1]))
    if not moved or not np.concatenate(moved).size:
        return None
    limit = max(0.3, REFERENCE_FACTOR * float(np.percentile(np.concatenate(moved), 99)))
    return EmptyReference(ref, limit)


REFERENCE_FACTOR = 1.25
# how well known checkers must separate from known empty slots (leave-one-out margin, see _score) for a
# frame to be taken as showing that position: true layouts fit 0.35-0.45, wrong ones 0.05-0.15
START_FIT = 0.25


def empty_image(
    canonical: np.ndarray, g: BoardGeometry, margin: int, layout: ImageLayout, every: bool = False
) -> np.ndarray:
    """The rectified frame with every occupied point replaced by the nearest empty point of its colour
    (points alternate colour) in the same row, preferring the same half: the board with no checkers.
    ``every`` replaces the empty points too (by another one): how well a copied point stands in."""
    out = canonical.copy()
    m, pw = margin, g.point_width
    for row in ROWS:
        values = layout.row(row)
        y0, y1 = (m, m + g.height // 2) if row is Row.TOP else (m + g.height // 2, m + g.height)
        for i, v in enumerate(values):
            if v == 0 and not every:
                continue
            same = [j for j in range(12) if j % 2 == i % 2 and values[j] == 0 and j != i]
            if not same:
                continue
            j = min(same, key=lambda j: ((j < 6) != (i < 6), abs(j - i)))
            a0, a1 = (round(g.point_x(row, i) + s * pw / 2) + m for s in (-1, 1))
            b0, b1 = (round(g.point_x(row, j) + s * pw / 2) + m for s in (-1, 1))
            out[y0:y1, a0:a1] = cv2.resize(canonical[y0:y1, b0:b1], (a1 - a0, y1 - y0))
    return out


# the empty field decides a slot only where calibration keeps its empty and occupied looks this far apart
FIELD_SEPARATION = 1.3


def empty_field(canonical: np.ndarray, grid: SlotGrid, layout: ImageLayout, sets: TrainingSets) -> EmptyField:
    """The empty board and, per slot kind (row and point colour), where its empty
    slots end and its occupied ones begin, measured on the calibration frame's lit and pasted variants.

    Points that held checkers are copies of others, so how far an empty slot may look from its empty
    self is measured against copies everywhere (a copied point's tip never lines up to the pixel)."""
    g, m, k = grid.geometry, grid.sampler.margin, grid.k
    ef = EmptyField(empty_image(canonical, g, m, layout), np.full(24 * k, np.nan), np.full(24 * k, np.nan))
    copied = EmptyField(empty_image(canonical, g, m, layout, every=True), ef.empty_below, ef.full_above)
    radius = FIELD_DISC * g.radius_x
    empty_d, full_d, labels = [], [], []
    for img, lab in sets.variants:
        empty_d.append(copied.differences(img, grid.nominal, radius, m))
        full_d.append(ef.differences(img, grid.nominal, radius, m))
        labels.append(lab)
    if not labels:
        return ef
    de, dfull, lab = np.stack(empty_d), np.stack(full_d), np.stack(labels)
    kind = np.array([(r, i % 2) for r in range(2) for i in range(12) for _ in range(k)])
    for r in range(2):
        for parity in range(2):
            cols = (kind[:, 0] == r) & (kind[:, 1] == parity)
            empty, full = de[:, cols][lab[:, cols] == EMPTY], dfull[:, cols][lab[:, cols] != EMPTY]
            if len(empty) < 10 or len(full) < 10:
                continue
            hi, lo = float(np.percentile(empty, 99.5)), float(np.percentile(full, 0.5))
            if lo > FIELD_SEPARATION * hi:
                ef.empty_below[cols], ef.full_above[cols] = hi, lo
    return ef


def junction_labels(layout: ImageLayout, k: int) -> np.ndarray:
    """EMPTY for the dips between two checkers of a known first row, -1 where nothing is known."""
    labels = []
    for row in ROWS:
        values = layout.row(row)
        for v in values:
            n = abs(v)
            labels += [EMPTY if n <= k and j < n else -1 for j in range(1, k)]
    return np.array(labels, dtype=np.int8)


@dataclass
class TrainingSets:
    main: tuple[np.ndarray, np.ndarray]  # point slot features and labels
    junction: tuple[np.ndarray, np.ndarray]  # dip features and labels
    original: SlotSamples  # the frame as it is
    bar_copies: list[np.ndarray]  # bar features of each variant (same candidates as the original)
    variants: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)  # (image, slot labels)
    # per variant, the bar candidates over a checker pasted onto the bar: its colour, else KEEP
    bar_pasted: list[np.ndarray] = field(default_factory=list)

    def bar_copy_labels(self, original: np.ndarray) -> list[np.ndarray]:
        """The labels of each variant's bar candidates, given the original frame's."""
        if not self.bar_pasted:
            return [original] * len(self.bar_copies)
        return [np.where(p == KEEP, original, p).astype(np.int8) for p in self.bar_pasted]


KEEP = -2  # a bar candidate whose label is the original frame's
DROP = -1  # a bar candidate left out of training


def vary_light(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The frame under a little other light, with sensor noise, as later frames differ from it.

    (Blur and shading ramps were tried here too: they made the slot model worse on rendered frames.)"""
    gain = float(rng.uniform(0.85, 1.15))
    return np.clip(img.astype(np.float32) * gain + rng.normal(0, 2.0, img.shape), 0, 255).astype(np.uint8)


def training_sets(
    canonical: np.ndarray, grid: SlotGrid, layout: ImageLayout, rng: np.random.Generator, copies: int = 5
) -> TrainingSets:
    """Slots of the frame itself plus ``copies`` variants with its own checkers pasted onto empty points
    (off the grid) and onto its stacks' dips, under a little different light."""
    original = grid.sample(canonical)
    labels = slot_labels(layout, grid.k)
    jl = junction_labels(layout, grid.k)
    feats, labs = [original.point_features], [labels]
    jfeats, jlabs = [original.junction_features[jl >= 0]], [jl[jl >= 0]]
    cuts = _checker_cuts(canonical, grid, original, labels)
    colours = [c for c in (LIGHT, DARK) if cuts[c]]
    if not colours:
        return TrainingSets(
            (np.concatenate(feats), np.concatenate(labs)), (np.zeros((0, FEATURES)), jl[:0]), original, []
        )
    bar_copies = []
    bar_pasted: list[np.ndarray] = []
    variants: list[tuple[np.ndarray, np.ndarray]] = []
    for _ in range(copies):
        img = canonical.copy()
        slot_lab, junc_lab = _paste_points(img, grid, layout, labels, cuts, colours, rng)
        pasted = _paste_bar(img, grid, cuts, colours, rng)
        img = vary_light(img, rng)
        variants.append((img, slot_lab))
        bar_pasted.append(pasted)
        sample = grid.sample(img)
        feats.append(sample.point_features)
        labs.append(slot_lab)
        flat = junc_lab.ravel()
        jfeats.append(sample.junction_features[flat >= 0])
        jlabs.append(flat[flat >= 0])
        bar_copies.append(sample.bar_features)
    return TrainingSets(
        (np.concatenate(feats), np.concatenate(labs)),
        (np.concatenate(jfeats), np.concatenate(jlabs)),
        original,
        bar_copies,
        variants,
        bar_pasted,
    )


def _checker_cuts(
    canonical: np.ndarray, grid: SlotGrid, original: SlotSamples, labels: np.ndarray
) -> dict[int, list[Cut]]:
    """Up to twelve of the frame's own checkers of each colour, cut out to paste elsewhere."""
    g, m = grid.geometry, grid.sampler.margin
    cuts: dict[int, list[Cut]] = {LIGHT: [], DARK: []}
    for n, (x, y) in enumerate(original.point_centers):
        colour = int(labels[n])
        if colour != EMPTY and len(cuts[colour]) < 12:
            cuts[colour].append(cut_checker(canonical, (int(x) + m, int(y) + m), g.radius_x, g.radius_y))
    return cuts


def _paste_points(
    img: np.ndarray,
    grid: SlotGrid,
    layout: ImageLayout,
    labels: np.ndarray,
    cuts: dict[int, list[Cut]],
    colours: list[int],
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Pastes checkers (in place) onto most empty points, a little off the grid, and a second layer onto
    some stacks of three or more; returns the slots' labels and the dips' labels (-1: not known)."""
    g, k, m = grid.geometry, grid.k, grid.sampler.margin
    slot_lab = labels.copy()
    junc_lab = np.full((24, k - 1), -1, dtype=np.int8)
    upper: list[tuple[Row, int, int, int]] = []
    for r, row in enumerate(ROWS):
        for i, v in enumerate(layout.row(row)):
            n = abs(v)
            colour = LIGHT if v > 0 else DARK
            if n == 0 and rng.random() < 0.8:
                colour = colours[int(rng.integers(len(colours)))]
                n = int(rng.integers(1, k + 1))
                base = (r * 12 + i) * k
                slot_lab[base : base + n] = colour
                for s in range(n):
                    x, y = g.slot_center(row, i, s)
                    x += float(rng.uniform(-0.5, 0.5)) * g.radius_x
                    y += float(rng.uniform(-0.08, 0.08)) * g.pitch
                    paste(img, cuts[colour][int(rng.integers(len(cuts[colour])))], (x + m, y + m))
            if n > k or n < 3 or colour not in colours:
                continue
            junc_lab[r * 12 + i, : n - 1] = EMPTY
            if rng.random() < 0.6:
                upper.append((row, i, colour, int(rng.integers(1, n))))
    for row, i, colour, count in upper:
        r = ROWS.index(row)
        junc_lab[r * 12 + i, :count] = colour
        for j in range(1, count + 1):
            x, y = g.slot_center(row, i, j - 0.5)
            x += float(rng.uniform(-0.2, 0.2)) * g.radius_x
            paste(img, cuts[colour][int(rng.integers(len(cuts[colour])))], (x + m, y + m), shadow=0.35)
    return slot_lab, junc_lab


def _paste_bar(
    img: np.ndarray, grid: SlotGrid, cuts: dict[int, list[Cut]], colours: list[int], rng: np.random.Generator
) -> np.ndarray:
    """Paste short runs of the frame's checkers onto the bar (in place), reaching out from its middle as
    hit checkers are put there, so the slot model and the bar's empty look learn checkers on the bar's
    cloth too; returns each bar candidate's label (its colour when over a pasted checker, else KEEP)."""
    g, m = grid.geometry, grid.sampler.margin
    labels = np.full(len(grid.bar_nominal), KEEP, dtype=np.int8)
    x = (g.bar_x0 + g.bar_x1) / 2
    for side in (-1.0, 1.0):
        if rng.random() < 0.4:
            continue
        colour = colours[int(rng.integers(len(colours)))]
        for j in range(int(rng.integers(1, 4))):
            y = g.height / 2 + side * (0.95 + j) * g.pitch
            if not g.pitch / 2 <= y <= g.height - g.pitch / 2:
                break
            px = x + float(rng.uniform(-0.15, 0.15)) * g.radius_x
            py = y + float(rng.uniform(-0.06, 0.06)) * g.pitch
            paste(img, cuts[colour][int(rng.integers(len(cuts[colour])))], (px + m, py + m))
            dy = np.abs(grid.bar_nominal[:, 1] - py)
            # a candidate half over the checker could go either way: it teaches nothing
            labels[(dy < 0.75 * g.pitch) & (labels != colour)] = DROP
            labels[dy < 0.3 * g.pitch] = colour
    return labels


def _start_layout(canonical: np.ndarray, width: int, height: int, margin: int) -> tuple[Orientation, _Fit]:
    """Which start layout the frame shows: the occupancy pattern whose checkers line up best,
    then the side whose checkers are lighter is light."""
    fits = {o: fit_geometry(canonical, width, height, margin, Board.start().layout(o))
            for o in (Orientation.BOTTOM_RIGHT, Orientation.BOTTOM_LEFT)}  # fmt: skip
    pattern = max(fits, key=lambda o: fits[o].score)
    fit = fits[pattern]
    layout = Board.start().layout(pattern)
    grid = SlotGrid(fit.geometry, margin)
    samples = grid.sample(canonical)
    labels = slot_labels(layout, grid.k)
    lightness = samples.point_features[:, 0]  # L of the checker's face
    light_l = float(lightness[labels == LIGHT].mean())
    dark_l = float(lightness[labels == DARK].mean())
    if light_l >= dark_l:
        return pattern, fit
    flipped = {Orientation.BOTTOM_RIGHT: Orientation.TOP_RIGHT, Orientation.BOTTOM_LEFT: Orientation.TOP_LEFT}
    return flipped[pattern], fit


def mirrored(corners: Sequence[tuple[float, float]]) -> bool:
    """Whether the corners run anticlockwise on the image (y down): top-left, top-right, bottom-right,
    bottom-left run clockwise, and any other order that is still convex warps the field into its mirror.

    >>> mirrored([(0, 0), (10, 0), (10, 10), (0, 10)]), mirrored([(10, 0), (0, 0), (0, 10), (10, 10)])
    (False, True)
    """
    area = sum(
        x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(corners, [*corners[1:], corners[0]], strict=True)
    )
    return area < 0


def default_orientation(layout: ImageLayout) -> Orientation:
    """The orientation a known layout implies: the start position's own, else bottom-right."""
    for o in Orientation:
        if Board.start().layout(o) == layout:
            return o
    return Orientation.BOTTOM_RIGHT


def calibrate(
    frame: np.ndarray,
    corners: Sequence[tuple[float, float]],
    known: ImageLayout | None = None,
    start: bool = False,
    orientation: Orientation | None = None,
    source: str = "",
) -> Profile:
    """A profile from one frame: ``known`` gives its position, or ``start`` says it is the start position."""
    if frame is None or frame.ndim != 3 or frame.shape[2] != 3:
        raise CalibrationError("expected a colour image")
    if (known is None) == (not start):
        raise CalibrationError("give exactly one of a known layout or the start position")
    try:
        check_corners(corners)
    except ValueError as e:
        raise CalibrationError(str(e)) from None
    if mirrored(corners):
        raise CalibrationError(
            "the corners go round the field the wrong way (a mirror image of it): give them top-left, "
            "top-right, bottom-right, bottom-left as the image shows them"
        )
    width, height, margin = _base(frame, corners)
    rectifier = Rectifier(corners, width, height, margin)
    canonical = rectifier.warp(frame)
    layout, found, fit, weak = _position(canonical, width, height, margin, known)
    grid = SlotGrid(fit.geometry, margin)
    look = _slot_looks(canonical, grid, layout)
    _forget_under_the_cube(look.bar_reference, frame, corners, rectifier, grid)
    profile = Profile(
        (frame.shape[1], frame.shape[0]),
        tuple((float(x), float(y)) for x, y in corners),
        fit.geometry,
        margin,
        orientation or found,
        look.model,
        look.junction,
        look.reference,
        look.bar_reference,
        source=source,
        empty_field=look.field,
    )
    profile.counts_trusted = counts_agree(canonical, profile, layout)
    dice = _calibration_dice(frame, profile)
    profile.fixtures = board_fixtures(dice, profile)
    profile.still = still_before_any_throw(frame, profile, dice)
    profile.notes = ([weak] if weak else []) + _self_check(profile, frame, layout)
    return profile


def _position(
    canonical: np.ndarray, width: int, height: int, margin: int, known: ImageLayout | None
) -> tuple[ImageLayout, Orientation, _Fit, str]:
    """The position the frame shows (``known``, or the start in the orientation its checkers fit best),
    the orientation it implies, the fitted geometry, and a warning when a known position fits poorly. A
    frame that does not look like the start when it is said to be is refused."""
    if known is None:
        found, fit = _start_layout(canonical, width, height, margin)
        if fit.score < START_FIT:
            raise CalibrationError(
                f"the frame does not look like the starting position (checkers fit the start's points "
                f"{fit.score:.2f}, a start fits above {START_FIT}): check the corners, or calibrate with "
                "--known LAYOUT.json giving the position shown"
            )
        return Board.start().layout(found), found, fit, ""
    fit = fit_geometry(canonical, width, height, margin, known)
    weak = ""
    if any(known.top + known.bottom) and fit.score < START_FIT:
        weak = f"the known position fits the frame poorly ({fit.score:.2f}): check the corners and layout"
    return known, default_orientation(known), fit, weak


@dataclass
class _SlotLooks:
    """What the slots of one board look like: the slot model (points and bar), the second layer's, each
    empty slot's own look and the board with no checkers."""

    model: SlotModel
    junction: SlotModel | None
    reference: EmptyReference | None
    bar_reference: EmptyReference | None
    field: EmptyField


def _slot_looks(canonical: np.ndarray, grid: SlotGrid, layout: ImageLayout) -> _SlotLooks:
    """Learns the board's slots from the frame and its variants (:func:`training_sets`). The bar's
    checkers are found by a first model trained on the points, then everything trains the model kept."""
    g = grid.geometry
    sets = training_sets(canonical, grid, layout, np.random.default_rng(0))
    first = SlotModel.fit(*sets.main)
    samples = sets.original
    bar_labels, keep = _bar_labels(first, samples.bar_features, samples.bar_centers, g.pitch, layout)
    copy_labels = sets.bar_copy_labels(bar_labels)
    bar_feats = [samples.bar_features[keep]] + [b[keep] for b in sets.bar_copies]
    bar_labs = np.concatenate([bar_labels[keep], *[c[keep] for c in copy_labels]])
    used = np.concatenate([np.ones(len(sets.main[1]), dtype=bool), bar_labs != DROP])
    model = SlotModel.fit(
        np.concatenate([sets.main[0], *bar_feats])[used],
        np.concatenate([sets.main[1], bar_labs])[used],
    )
    reference = empty_reference(model, sets, grid.k)
    field_look = empty_field(canonical, grid, layout, sets)
    bar_reference = _reference(
        model, samples.bar_features, bar_labels, list(zip(sets.bar_copies, copy_labels, strict=True))
    )
    if bar_reference is not None and reference is not None:
        # the bar's variants only change the light; allow it the slack the points needed for drift too
        bar_reference.limit = max(bar_reference.limit, reference.limit)
    junction = SlotModel.fit(*sets.junction) if len(set(sets.junction[1].tolist())) >= 2 else None
    return _SlotLooks(model, junction, reference, bar_reference, field_look)


def _forget_under_the_cube(
    reference: EmptyReference | None,
    frame: np.ndarray,
    corners: Sequence[tuple[float, float]],
    rectifier: Rectifier,
    grid: SlotGrid,
) -> None:
    """Drops the empty bar's reference look where the cube lies on the calibration frame (centred on
    the bar, as a game starts): once the cube is turned and moved after a take, the bar it leaves bare
    looks changed there, and a change beside the checkers hit onto the bar reads as a hand over them."""
    if reference is None:
        return
    quad = np.asarray(corners, dtype=np.float64)
    cube = find_cube(frame, quad)
    if cube is None:
        return
    half = cube_side(quad) / 2
    x, y = cube.center
    under = under_box((x - half, y - half, x + half, y + half), grid.bar_nominal, rectifier, grid.geometry)
    reference.features[under] = np.nan


def _calibration_dice(frame: np.ndarray, profile: Profile) -> list[DieReading]:
    """What the dice reader sees on the calibration frame, knowing nothing of it but the field."""
    try:
        return find_dice(frame, field_quad=np.asarray(profile.corners, dtype=np.float64))
    except (ValueError, RuntimeError):
        return []


def board_fixtures(dice: Sequence[DieReading], profile: Profile) -> tuple[tuple[float, float], ...]:
    """Where the dice reader sees, on the calibration frame, a die that cannot be one: the board's own
    marks (a logo, an inlay) read as a cocked or unreadable die, in field coordinates.

    A flat die read clearly may be a real die in a labelled frame (a club's photograph of a game), and
    is left alone.
    """
    odd = [d.center for d in dice if d.cocked or d.unreadable]
    if not odd:
        return ()
    g = profile.geometry
    at = Rectifier(profile.corners, g.width, g.height, profile.margin).to_field(np.array(odd))
    return tuple((float(x), float(y)) for x, y in at)


def still_before_any_throw(frame: np.ndarray, profile: Profile, dice: Sequence[DieReading]) -> Still:
    """The calibration frame as the table looked before any throw (``vision.arrivals``): the dice read
    clearly on the field (a photograph of a game holds its throw) painted out, everything else kept, so
    that the first throw's dice are found in what changed and the clock, the cube, the trays' contents
    and the board's marks are not. Only dice on the field: a good throw lies there, and what the reader
    takes for a die beyond it (a tray's contents, a clock's digits) is the table's."""
    quad = np.asarray(profile.corners, dtype=np.float64)
    side = expected_die_side(quad) or 1.0
    clear = [d for d in dice if d.value is not None and not d.unreadable and d.half is not None]
    painted = frame
    if clear:
        mask = np.zeros(frame.shape[:2], np.uint8)
        for d in clear:
            cv2.circle(mask, (round(d.center[0]), round(d.center[1])), round(0.9 * side), 255, -1)
        painted = cv2.inpaint(frame, mask, 5, cv2.INPAINT_TELEA)
    return Still.of(painted, search_window(quad, frame.shape), side)


def counts_agree(canonical: np.ndarray, profile: Profile, layout: ImageLayout) -> bool:
    """Whether the point-count network counts every point and both halves of the bar of the calibration
    frame right, none covered.

    The network learned from rendered boards; a board or light it does not know shows first here,
    where the truth is known, and then the reader does without it rather than trust a stranger.
    """
    net = count_net()
    if net is None:
        return False
    p = net.probabilities(strips(canonical, profile.geometry, profile.margin))
    truth = [abs(v) for v in (*layout.top, *layout.bottom)] + [layout.bar_light, layout.bar_dark]
    return bool((p.argmax(axis=1) == truth).all())


def _self_check(profile: Profile, frame: np.ndarray, layout: ImageLayout) -> list[str]:
    """Read the calibration frame back; a board that does not read itself will not read others."""
    reading = BoardReader(profile, use_dice=False).read(frame, dice=())
    top, bottom, bar_light, bar_dark = reading.counts()
    notes = []
    for row, got, want in ((Row.TOP, top, layout.top), (Row.BOTTOM, bottom, layout.bottom)):
        notes += [
            f"the calibration frame reads back {Cell.point(row, i)} as {g}, not {w}"
            for i, (g, w) in enumerate(zip(got, want, strict=True))
            if g != w
        ]
    if (bar_light, bar_dark) != (layout.bar_light, layout.bar_dark):
        notes.append(f"the calibration frame reads back the bar as {bar_light} light, {bar_dark} dark")
    return notes
