"""The two small networks behind the dice reader, run through ``cv2.dnn`` (no torch at run time).

``dice_detect.onnx`` finds die centres and sizes in a downscaled frame; ``dice_value.onnx`` reads one
40x40 crop per candidate: "not a die" or the top face 1..6. Both are trained by ``tools/train_dice.py``
(its docstring gives the data recipe).

    >>> import numpy as np
    >>> Candidate(10.0, 12.0, 20.0, 0.9).box
    (0.0, 2.0, 20.0, 22.0)
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

MODELS = Path(__file__).resolve().parent / "models"
CROP = 40  # reader input side, px
CROP_MARGIN = 1.35  # reader crop side / die side, as in training
STRIDE = 4  # detector output stride


@dataclass(frozen=True)
class Candidate:
    """A detector peak in image pixels: centre, die side and heat (0..1)."""

    x: float
    y: float
    side: float
    heat: float

    @property
    def box(self) -> tuple[float, float, float, float]:
        h = self.side / 2
        return (self.x - h, self.y - h, self.x + h, self.y + h)


class ModelError(RuntimeError):
    """A model file is missing or cannot be loaded."""


class _Nets:
    """Both networks; ``cv2.dnn`` nets are not thread-safe, so calls hold a lock."""

    def __init__(self, folder: Path) -> None:
        try:
            self.detect = cv2.dnn.readNetFromONNX(str(folder / "dice_detect.onnx"))
            self.read = cv2.dnn.readNetFromONNX(str(folder / "dice_value.onnx"))
        except cv2.error as e:
            raise ModelError(f"cannot load the dice models from {folder}: reinstall the package ({e})") from e
        self.lock = threading.Lock()


@lru_cache(maxsize=2)
def nets(folder: Path = MODELS) -> _Nets:
    return _Nets(folder)


def _blob(img: np.ndarray) -> np.ndarray:
    """BGR uint8 (N, H, W, 3) or (H, W, 3) -> float NCHW scaled as in training (x / 255 - 0.5)."""
    arr = img if img.ndim == 4 else img[None]
    return (arr.astype(np.float32) * (1 / 255.0) - 0.5).transpose(0, 3, 1, 2).copy()


def detect(image: np.ndarray, scale: float, threshold: float = 0.2, limit: int = 60) -> list[Candidate]:
    """The ``limit`` strongest detector peaks above ``threshold`` in ``image`` (BGR) run at ``scale``."""
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    ph, pw = -h % STRIDE, -w % STRIDE
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    n = nets()
    with n.lock:
        n.detect.setInput(_blob(small))
        out = n.detect.forward()[0]
    heat = 1 / (1 + np.exp(-out[0]))
    peaks = (heat >= threshold) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    found = []
    gh, gw = heat.shape
    for gy, gx in zip(*np.nonzero(peaks), strict=True):
        side = 8.0 * float(np.exp(out[1, gy, gx])) / scale
        # the heat-weighted centre of the 3x3 cells around the peak: finer than the stride
        y0, y1, x0, x1 = max(gy - 1, 0), min(gy + 2, gh), max(gx - 1, 0), min(gx + 2, gw)
        w = heat[y0:y1, x0:x1]
        ys, xs = np.mgrid[y0:y1, x0:x1]
        fx, fy = float((w * xs).sum() / w.sum()), float((w * ys).sum() / w.sum())
        x = (STRIDE * fx + 1.5) / scale
        y = (STRIDE * fy + 1.5) / scale
        found.append(Candidate(x, y, side, float(heat[gy, gx])))
    return sorted(found, key=lambda c: -c.heat)[:limit]


def crop(image: np.ndarray, x: float, y: float, side: float, angle: float = 0.0) -> np.ndarray:
    """The reader's CROP x CROP window on a die centred at (x, y), turned by ``angle`` degrees."""
    m = cv2.getRotationMatrix2D((x, y), angle, CROP / (side * CROP_MARGIN))
    m[0, 2] += CROP / 2 - x
    m[1, 2] += CROP / 2 - y
    return cv2.warpAffine(image, m, (CROP, CROP), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)


def read(
    image: np.ndarray, candidates: list[Candidate], turns: int = 2, scales: tuple[float, ...] = (1.0,)
) -> np.ndarray:
    """Class probabilities (N, 8) for each candidate: 0 "not a die", 1..6 the top face, 7 cocked.

    Each crop is read ``turns`` times, turned by multiples of 90 / turns degrees, at each of
    ``scales`` times the detected side, and the probabilities averaged: the detector's size is
    rough, and a face read the same way whichever way up is a surer read.
    """
    if not candidates:
        return np.zeros((0, 8), np.float32)
    crops = [
        crop(image, c.x, c.y, c.side * f, angle=k * 90.0 / turns)
        for c in candidates
        for k in range(turns)
        for f in scales
    ]
    n = nets()
    with n.lock:
        n.read.setInput(_blob(np.stack(crops)))
        logits = n.read.forward()
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    p = p.reshape(len(candidates), turns * len(scales), -1).mean(axis=1)
    if p.shape[1] == 7:  # a reader trained without the cocked class
        p = np.concatenate([p, np.zeros((len(p), 1), p.dtype)], axis=1)
    return p
