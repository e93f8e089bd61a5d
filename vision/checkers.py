"""Checker slots: find the checker near each slot, describe it, and classify it against a learned model.

A checker's rim is the one thing that tells a black checker on a black point from the point itself, so
each slot is first searched for the best elliptical rim (checkers drift a third of a checker off the
grid), then described by rotation-invariant ring features (colour, edge strength and how radial the
edges are, ring by ring), then classified by nearest neighbours against the slots of the calibration
frame. A slot far from everything seen in calibration is *novel*: a hand, a cup, glare.

    >>> import numpy as np
    >>> from vision.geometry import BoardGeometry
    >>> s = SlotSampler(BoardGeometry(320, 280, 152.0, 168.0, 22.0, 11.0, 11.0), margin=24)
    >>> f, c = s.sample(s.prepare(np.zeros((328, 368, 3), np.uint8)), np.array([[50.0, 11.0]]), (3, 3))
    >>> f.shape
    (1, 34)
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import BoardGeometry
from vision.occlusion import novelty_threshold

EMPTY, LIGHT, DARK = 0, 1, 2
CLASSES = ("empty", "light", "dark")
RING_EDGES = (0.0, 0.35, 0.6, 0.8, 1.0, 1.25)
SECTORS = 8
NEIGHBOURS = 3  # a class's distance is the mean over its nearest few samples: one odd sample decides nothing
# per ring: L, a, b, edge, radial edge, radial share; face texture; the rim's three weakest of 8 sectors
FEATURES = 6 * (len(RING_EDGES) - 1) + 1 + 3
# a class within this factor of the nearest one is not ruled out
AMBIGUOUS_RATIO = 2.5
# of a checker's radius: the middle of a slot, which any checker on it covers however it drifts
FIELD_DISC = 0.6


def matmul(a: np.ndarray, b: np.ndarray, rows: int = 16) -> np.ndarray:
    """``a @ b`` in row blocks small enough that OpenBLAS stays on one thread.

    On a busy machine its thread hand-off costs 20-30 ms for products that take well under 1 ms alone.
    """
    if len(a) <= rows:
        return a @ b
    return np.concatenate([a[i : i + rows] @ b for i in range(0, len(a), rows)])


@dataclass
class Prepared:
    """One rectified frame ready for sampling: its colour, its gradients and the rim response map."""

    lab: np.ndarray  # H x W x 3 uint8: L, a, b
    gx: np.ndarray  # H x W float32: the lightness gradient across
    gy: np.ndarray  # H x W float32: and down
    rim: np.ndarray  # H x W float32: response to a checker rim centred at each pixel


class SlotSampler:
    """Samples slot features from a rectified frame (with ``margin`` pixels around the field).

    For speed the rim response is computed at half resolution and patches are read on a 2-pixel lattice;
    a checker is about 24 pixels across, so neither loses the rim.
    """

    def __init__(self, geometry: BoardGeometry, margin: int) -> None:
        self.geometry, self.margin = geometry, margin
        rx, ry = geometry.radius_x, geometry.radius_y
        self.hx, self.hy = max(2, round(1.25 * rx)), max(2, round(1.25 * ry))
        ys, xs = np.mgrid[-self.hy : self.hy + 1 : 2, -self.hx : self.hx + 1 : 2].astype(np.float32)
        rho = np.sqrt((xs / rx) ** 2 + (ys / ry) ** 2).ravel()
        norm = np.maximum(np.hypot(xs, ys), 1e-6).ravel()
        self.ux, self.uy = xs.ravel() / norm, ys.ravel() / norm
        rings = [(rho >= a) & (rho < b) for a, b in zip(RING_EDGES[:-1], RING_EDGES[1:], strict=True)]
        rings.append(rho < 0.6)  # the face, for its texture
        masks = np.stack([r.astype(np.float32) for r in rings], axis=1)
        self.rings = masks / np.maximum(masks.sum(axis=0, keepdims=True), 1)
        self.offsets_y, self.offsets_x = ys.ravel().astype(np.intp), xs.ravel().astype(np.intp)
        # the rim cut into angular sectors: a checker's rim is strong all round, a point's edge only in some
        angle = np.arctan2(ys.ravel(), xs.ravel())
        sector = ((angle + np.pi) / (2 * np.pi) * SECTORS).astype(int) % SECTORS
        on_rim = (rho >= 0.7) & (rho <= 1.1)
        sectors = np.stack([(on_rim & (sector == i)).astype(np.float32) for i in range(SECTORS)], axis=1)
        self.sectors = sectors / np.maximum(sectors.sum(axis=0, keepdims=True), 1)
        # rim kernel at half resolution: mean edge strength on the rim annulus. A checker's rim, and the
        # concentric grooves of turned or pearl faces, all peak at its centre.
        kx, ky = max(2, round(0.6 * rx)), max(2, round(0.6 * ry))
        yk, xk = np.mgrid[-ky : ky + 1, -kx : kx + 1].astype(np.float32)
        rk = np.sqrt((xk / (rx / 2)) ** 2 + (yk / (ry / 2)) ** 2)
        ring = ((rk >= 0.75) & (rk <= 1.1)).astype(np.float32)
        self.kernel = ring / ring.sum()

    def prepare(self, canonical: np.ndarray) -> Prepared:
        """Channels and rim response of a rectified BGR frame."""
        lab = cv2.cvtColor(canonical, cv2.COLOR_BGR2LAB)
        light = lab[..., 0].astype(np.float32)
        gx = cv2.Sobel(light, cv2.CV_32F, 1, 0, ksize=3, scale=0.25)
        gy = cv2.Sobel(light, cv2.CV_32F, 0, 1, ksize=3, scale=0.25)
        mag = cv2.magnitude(gx, gy)
        half = cv2.resize(mag, (mag.shape[1] // 2, mag.shape[0] // 2), interpolation=cv2.INTER_AREA)
        rim = cv2.filter2D(half, cv2.CV_32F, self.kernel)
        return Prepared(lab, gx, gy, rim)

    def search(self, prepared: Prepared, centers: np.ndarray, window: tuple[int, int]) -> np.ndarray:
        """For each field-coordinate centre, the pixel of strongest rim within +-``window`` (wx, wy)."""
        h, w = prepared.rim.shape
        wx, wy = max(1, window[0] // 2), max(1, window[1] // 2)
        c = np.rint((np.asarray(centers, dtype=np.float64) + self.margin) / 2).astype(np.intp)
        dy, dx = (a.ravel() for a in np.mgrid[-wy : wy + 1, -wx : wx + 1])
        ys = np.clip(c[:, 1:2] + dy[None], 0, h - 1)
        xs = np.clip(c[:, 0:1] + dx[None], 0, w - 1)
        # prefer the nominal slot on ties (a flat response on an empty point)
        vals = prepared.rim[ys, xs] - 1e-3 * (dx[None] ** 2 + dy[None] ** 2)
        best = np.argmax(vals, axis=1)
        rows = np.arange(len(c))
        return np.stack([xs[rows, best], ys[rows, best]], axis=1) * 2 - self.margin

    def features(self, prepared: Prepared, pixel_centers: np.ndarray) -> np.ndarray:
        """Ring features (N x FEATURES) of patches centred on integer field coordinates."""
        h, w = prepared.gx.shape
        c = np.asarray(pixel_centers, dtype=np.intp) + self.margin
        ys = np.clip(c[:, 1:2] + self.offsets_y[None], 0, h - 1)
        xs = np.clip(c[:, 0:1] + self.offsets_x[None], 0, w - 1)
        at = ys * w + xs  # N x P, into the frame's pixels one after another
        lab = prepared.lab.reshape(-1, 3)[at].astype(np.float32)  # N x P x 3
        gx, gy = prepared.gx.ravel()[at], prepared.gy.ravel()[at]
        grad = np.sqrt(gx * gx + gy * gy)
        radial = np.abs(gx * self.ux + gy * self.uy)
        light = lab[..., 0]
        stack = np.stack([light, lab[..., 1], lab[..., 2], grad, radial, light * light], axis=1)  # N x 6 x P
        m = matmul(stack.reshape(-1, stack.shape[2]), self.rings).reshape(
            len(c), 6, -1
        )  # N x 6 x (rings+face)
        rings = len(RING_EDGES) - 1
        face_mean, face_sq = m[:, 0, rings], m[:, 5, rings]
        texture = np.sqrt(np.maximum(face_sq - face_mean * face_mean, 0))
        per_ring = m[:, :5, :rings].transpose(0, 2, 1).reshape(len(c), -1)  # ring-major: L a b grad radial
        # how radial the edges are, whatever the contrast: a rim is, a point's straight sides are not
        radial_share = m[:, 4, :rings] / (m[:, 3, :rings] + 1.0)
        weakest = np.sort(matmul(radial, self.sectors), axis=1)[:, :3]
        return np.concatenate([per_ring, texture[:, None], 10 * radial_share, weakest], axis=1).astype(
            np.float32
        )

    def sample(
        self, prepared: Prepared, centers: np.ndarray, window: tuple[int, int]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Features and found centres for nominal slot centres searched within ``window``."""
        found = self.search(prepared, centers, window)
        return self.features(prepared, found), found


@dataclass
class SlotModel:
    """Nearest-neighbour slot classifier learned from one calibration frame."""

    mean: np.ndarray
    scale: np.ndarray
    samples: np.ndarray  # standardised features
    labels: np.ndarray  # EMPTY / LIGHT / DARK
    novelty: float  # a slot farther than this from every sample is unlike anything seen

    @classmethod
    def fit(cls, features: np.ndarray, labels: np.ndarray) -> SlotModel:
        features = np.asarray(features, dtype=np.float32)
        labels = np.asarray(labels, dtype=np.int8)
        mean = features.mean(axis=0)
        scale = features.std(axis=0)
        scale = np.maximum(scale, 0.05 * np.median(scale) + 1e-3).astype(np.float32)
        samples = ((features - mean) / scale).astype(np.float32)
        model = cls(mean, scale, samples, labels, float("inf"))
        # leave-one-out nearest distance: how far a new slot of a known kind may lie from the others
        d = _pairwise(samples, samples)
        np.fill_diagonal(d, np.inf)
        model.novelty = novelty_threshold(d.min(axis=1))
        return model

    def standardise(self, features: np.ndarray) -> np.ndarray:
        return ((np.asarray(features, dtype=np.float32) - self.mean) / self.scale).astype(np.float32)

    def distances(self, features: np.ndarray) -> np.ndarray:
        """N x 3: distance to each class (inf when the class was never seen); see :meth:`measure`."""
        return self.measure(features)[0]

    def measure(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Class distances (N x 3, the mean over a class's ``NEIGHBOURS`` nearest samples) and the
        distance to the single nearest sample of any class (N), which the novelty threshold applies to."""
        if not hasattr(self, "_blocks"):
            # samples grouped by class, transposed and contiguous, with their squared norms
            self._blocks = {}
            for c in range(3):
                block = self.samples[self.labels == c]
                if len(block):
                    self._blocks[c] = (np.ascontiguousarray(block.T), (block * block).sum(axis=1))
        x = ((np.asarray(features, dtype=np.float32) - self.mean) / self.scale).astype(np.float32)
        xx = (x * x).sum(axis=1)
        out = np.full((len(x), 3), np.inf, dtype=np.float32)
        nearest = np.full(len(x), np.inf, dtype=np.float32)
        for c, (bt, bb) in self._blocks.items():
            full = bb[None, :] - 2 * matmul(x, bt)
            k = min(NEIGHBOURS, full.shape[1])
            part = np.partition(full, k - 1, axis=1)[:, :k]
            out[:, c] = np.sqrt(np.maximum(part.mean(axis=1) + xx, 0) / x.shape[1])
            nearest = np.minimum(nearest, np.sqrt(np.maximum(part.min(axis=1) + xx, 0) / x.shape[1]))
        return out, nearest

    def to_json(self) -> dict:
        return {
            "mean": [round(float(v), 5) for v in self.mean],
            "scale": [round(float(v), 5) for v in self.scale],
            "samples": [[round(float(v), 4) for v in row] for row in self.samples],
            "labels": [int(v) for v in self.labels],
            "novelty": round(self.novelty, 4),
        }

    @classmethod
    def from_json(cls, data: dict) -> SlotModel:
        samples = np.asarray(data["samples"], dtype=np.float32)
        labels = np.asarray(data["labels"], dtype=np.int8)
        mean = np.asarray(data["mean"], dtype=np.float32)
        scale = np.asarray(data["scale"], dtype=np.float32)
        if samples.ndim != 2 or samples.shape[1] != len(mean) or len(scale) != len(mean):
            raise ValueError("slot model arrays do not match in size")
        if len(labels) != len(samples) or not set(labels.tolist()) <= {EMPTY, LIGHT, DARK}:
            raise ValueError("slot model labels do not match its samples")
        return cls(mean, scale, samples, labels, float(data["novelty"]))


def _pairwise(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Euclidean distances, scaled by sqrt(dimensions) so thresholds do not depend on the feature count."""
    a, b = a.astype(np.float32, copy=False), b.astype(np.float32, copy=False)
    aa = (a * a).sum(axis=1)[:, None]
    bb = (b * b).sum(axis=1)[None, :]
    d2 = np.maximum(aa + bb - 2 * matmul(a, np.ascontiguousarray(b.T)), 0)
    return np.sqrt(d2 / a.shape[1])


@dataclass
class EmptyReference:
    """How every point slot that was empty at calibration looked then (standardised features; NaN rows
    for slots that held a checker), and how far an empty slot may drift from that before it counts as
    changed. A slot that reads empty but no longer looks like its own empty self is covered."""

    features: np.ndarray
    limit: float

    def changed(self, standardised: np.ndarray) -> np.ndarray:
        """Distance to the slot's own empty look over ``limit`` (0 where there is no reference)."""
        d = np.sqrt(np.nansum((standardised - self.features) ** 2, axis=1) / self.features.shape[1])
        d[np.isnan(self.features[:, 0])] = 0.0
        return d / self.limit

    def to_json(self) -> dict:
        rows = [[] if np.isnan(r[0]) else [round(float(v), 4) for v in r] for r in self.features]
        return {"features": rows, "limit": round(self.limit, 4)}

    @classmethod
    def from_json(cls, data: dict) -> EmptyReference:
        rows = data["features"]
        width = max((len(r) for r in rows), default=0)
        out = np.full((len(rows), width), np.nan, dtype=np.float32)
        for i, r in enumerate(rows):
            if r:
                if len(r) != width:
                    raise ValueError("empty-slot reference rows differ in length")
                out[i] = r
        return cls(out, float(data["limit"]))


@dataclass(frozen=True)
class SlotCall:
    """The classifier's answer for one slot."""

    best: int
    possible: frozenset[int]  # classes not ruled out
    confidence: float
    novel: bool
    # how much worse each class (EMPTY, LIGHT, DARK) fits than the best: log of the distance ratio
    costs: tuple[float, float, float] | None = None


def call_slots(
    distances: np.ndarray, novelty: float, unseen: np.ndarray | None = None, nearest: np.ndarray | None = None
) -> list[SlotCall]:
    """Turn class distances into calls: best class, the classes not ruled out, confidence, novelty.

    ``unseen`` marks slots outside the camera's view: they count as novel whatever they look like.
    ``nearest`` is the distance to the nearest sample that ``novelty`` applies to (default: the best class).
    """
    d = np.asarray(distances, dtype=np.float64)
    order = np.argsort(d, axis=1)
    rows = np.arange(len(d))
    d1 = np.maximum(d[rows, order[:, 0]], 1e-6)
    d2 = d[rows, order[:, 1]]
    with np.errstate(invalid="ignore", divide="ignore"):
        inverse = np.where(np.isfinite(d2), np.minimum(1.0, d1 / d2), 0.0)
    confidence = np.minimum(1.0 - 0.5 * inverse**4, 0.999)
    possible = d <= AMBIGUOUS_RATIO * d1[:, None]
    novel = (d1 if nearest is None else np.asarray(nearest)) > novelty
    if unseen is not None:
        novel = novel | unseen
    with np.errstate(invalid="ignore", divide="ignore"):
        costs = np.minimum(np.log(np.maximum(d, 1e-6) / d1[:, None]), 10.0).tolist()
    sets = {}
    calls = []
    for i in range(len(d)):
        key = int(possible[i, 0]) | int(possible[i, 1]) << 1 | int(possible[i, 2]) << 2
        if key not in sets:
            sets[key] = frozenset(c for c in range(3) if key >> c & 1)
        calls.append(
            SlotCall(int(order[i, 0]), sets[key], float(confidence[i]), bool(novel[i]), tuple(costs[i]))
        )
    return calls


@dataclass
class EmptyField:
    """The rectified field as it looks with every point empty, and per slot how far from it a slot may
    look and still be surely empty (``empty_below``) or must be occupied (``full_above``); NaN where the
    calibration showed the two overlap (a checker much like its point). Comparing a slot with *its own*
    background tells a dark checker on a dark point from the point far better than ring features do.
    """

    image: np.ndarray  # rectified (margin included) BGR uint8
    empty_below: np.ndarray  # per point slot, SlotGrid order
    full_above: np.ndarray

    def __post_init__(self) -> None:
        self._lab = cv2.cvtColor(self.image, cv2.COLOR_BGR2LAB).astype(np.float32)

    def differences(
        self, canonical: np.ndarray, centers: np.ndarray, radius: float, margin: int
    ) -> np.ndarray:
        """Median colour difference from the empty field in a small disc at each (field) centre, after
        matching the overall brightness (light drifts between frames)."""
        ref = self._lab
        # only the sampled pixels are converted: the whole field would cost more than the rest of this
        coarse = cv2.cvtColor(np.ascontiguousarray(canonical[::4, ::4]), cv2.COLOR_BGR2LAB)
        gain = float(np.median(coarse[..., 0].astype(np.float32) / np.maximum(ref[::4, ::4, 0], 1.0)))
        r = max(1, int(radius))
        yy, xx = np.mgrid[-r : r + 1 : 2, -r : r + 1 : 2]  # a 2-pixel lattice: the median needs no more
        inside = xx**2 + yy**2 <= radius**2
        oy, ox = yy[inside], xx[inside]
        c = np.rint(np.asarray(centers, dtype=np.float64)).astype(np.intp) + margin
        h, w = canonical.shape[:2]
        ys = np.clip(c[:, 1:2] + oy[None], 0, h - 1)
        xs = np.clip(c[:, 0:1] + ox[None], 0, w - 1)
        a = cv2.cvtColor(np.ascontiguousarray(canonical[ys, xs]), cv2.COLOR_BGR2LAB).astype(np.float32)
        b = ref[ys, xs]
        d = (
            0.5 * np.abs(a[..., 0] - gain * b[..., 0])
            + np.abs(a[..., 1] - b[..., 1])
            + np.abs(a[..., 2] - b[..., 2])
        )
        return np.median(d, axis=1)

    def adjust(self, distances: np.ndarray, diffs: np.ndarray, usual: np.ndarray | None = None) -> np.ndarray:
        """Class distances with the slots the empty field shows surely empty made clear.

        Only ``usual`` slots (default all) are made surely empty: one that looks odd to the slot model
        may be the edge of a hand, which the middle of the slot does not show."""
        d = np.array(distances, dtype=np.float64, copy=True)
        colour = np.minimum(d[:, LIGHT], d[:, DARK])
        ratio = AMBIGUOUS_RATIO * 1.2
        with np.errstate(invalid="ignore"):
            # it settles doubtful calls, it does not overrule a sure one
            empty = (diffs < self.empty_below) & (d[:, EMPTY] <= AMBIGUOUS_RATIO * colour)
        if usual is not None:
            empty &= usual
        d[empty, EMPTY] = np.minimum(d[empty, EMPTY], colour[empty] / ratio)
        return d

    def doubtful(self, distances: np.ndarray, diffs: np.ndarray) -> np.ndarray:
        """Slots the slot model calls empty that look nothing like their empty selves: a checker it missed,
        glare, or the edge of a hand. Their call stands, but a count resting on them is not confident."""
        d = np.asarray(distances)
        with np.errstate(invalid="ignore"):
            full = diffs > self.full_above
        return full & (d[:, EMPTY] < np.minimum(d[:, LIGHT], d[:, DARK]))

    def to_json(self) -> dict:
        import base64

        ok, png = cv2.imencode(".png", self.image)
        if not ok:
            raise ValueError("cannot encode the empty field")

        def nums(a: np.ndarray) -> list:
            return [None if not np.isfinite(v) else round(float(v), 3) for v in a]

        return {
            "png": base64.b64encode(png.tobytes()).decode("ascii"),
            "empty_below": nums(self.empty_below),
            "full_above": nums(self.full_above),
        }

    @classmethod
    def from_json(cls, data: dict) -> EmptyField:
        import base64

        raw = np.frombuffer(base64.b64decode(data["png"]), np.uint8)
        image = cv2.imdecode(raw, cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError("empty field image is damaged")

        def arr(v: list) -> np.ndarray:
            return np.array([np.nan if x is None else float(x) for x in v], dtype=np.float64)

        below, above = arr(data["empty_below"]), arr(data["full_above"])
        if len(below) != len(above):
            raise ValueError("empty field thresholds differ in length")
        return cls(image, below, above)
