"""What the camera does after the board is drawn: uneven light, colour cast, glare, blur, noise, JPEG."""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

import cv2
import numpy as np


class Effects(Protocol):
    """The scene fields the camera effects read (a :class:`synthetic.render.Scene` has them all)."""

    @property
    def light(self) -> float: ...
    @property
    def shading(self) -> float: ...
    @property
    def glare(self) -> float: ...
    @property
    def noise(self) -> float: ...
    @property
    def blur(self) -> float: ...
    @property
    def jpeg_quality(self) -> int | None: ...
    @property
    def tint(self) -> float: ...


@lru_cache(maxsize=4)
def _noise_tile(size: tuple[int, int]) -> np.ndarray:
    """Unit Gaussian noise a little larger than the frame; each frame takes a random crop (cheap)."""
    w, h = size
    return np.random.default_rng(12345).standard_normal((h + 64, w + 64, 3), dtype=np.float32)


def _light_field(
    scene: Effects, size: tuple[int, int], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Gain and additive glare, both smooth, computed on a coarse grid and upscaled."""
    w, h = size
    sw, sh = max(2, w // 8), max(2, h // 8)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    xs, ys = xs / (sw - 1) * 2 - 1, ys / (sh - 1) * 2 - 1
    gain = np.full((sh, sw), scene.light, np.float32)
    cast = 1 + scene.tint * rng.uniform(-0.15, 0.15, 3)
    if scene.shading > 0:
        broad = cv2.resize(
            rng.normal(0, 1, (3, 4)).astype(np.float32), (sw, sh), interpolation=cv2.INTER_CUBIC
        )
        vignette = 0.35 * (xs**2 + ys**2) / 2
        gain *= (1 + 0.18 * scene.shading * broad) * (1 - scene.shading * vignette)
    glare = np.zeros((sh, sw), np.float32)
    if scene.glare > 0:
        # A specular hot spot off the varnish: bright core, soft halo, slightly elliptical.
        cx, cy = rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6)
        sx, sy = rng.uniform(0.08, 0.25), rng.uniform(0.08, 0.2) * w / h
        blob = np.exp(-(((xs - cx) / sx) ** 2 + ((ys - cy) / sy) ** 2))
        glare = (scene.glare * 255 * (0.75 * blob**3 + 0.35 * blob)).astype(np.float32)
    up = (w, h)
    gain3 = cv2.resize(gain[:, :, None] * cast.astype(np.float32), up, interpolation=cv2.INTER_LINEAR)
    return gain3, cv2.resize(glare, up, interpolation=cv2.INTER_LINEAR)


def postprocess(img: np.ndarray, scene: Effects, rng: np.random.Generator) -> np.ndarray:
    """Focus blur, light (gain, colour cast, glare), sensor noise and JPEG, in one float pass where
    possible: the blur is optical and the gain smooth, so blurring first is as good and cheaper."""
    h, w = img.shape[:2]
    if scene.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur)
    lit = scene.light != 1.0 or scene.shading > 0 or scene.glare > 0 or scene.tint > 0
    if lit or scene.noise > 0:
        if lit:
            gain, glare = _light_field(scene, (w, h), rng)
            f = cv2.multiply(img, gain, dtype=cv2.CV_32F)
            if scene.glare > 0:
                f += glare[:, :, None]
        else:
            f = img.astype(np.float32)
        if scene.noise > 0:
            tile = _noise_tile((w, h))
            ox, oy = int(rng.integers(0, 64)), int(rng.integers(0, 64))
            f = cv2.scaleAdd(tile[oy : oy + h, ox : ox + w], scene.noise * 255, f)
        # Saturating conversion; the absolute value only folds the faintest noise below black.
        img = cv2.convertScaleAbs(f)
    if scene.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg_quality)])
        if not ok:
            raise RuntimeError("OpenCV could not encode a JPEG; is this OpenCV built without JPEG?")
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        assert decoded is not None  # what OpenCV just encoded it decodes
        img = decoded
    return img
