"""The renderer's camera: a pinhole over the board plane, tilted and rolled, with barrel distortion.

World units: the playing field is 1 wide, centred on the origin, ``X`` to the right, ``Y`` towards the
bottom of the image (the near player), ``Z`` up off the board. Everything is drawn on a flat *canvas*
(the board plane, ``px_per_unit`` pixels per field width); objects above the board (stacked checkers,
dice, hands) are drawn where the camera's ray through them meets the board plane, so the one
canvas-to-image warp puts them in the right place with the right parallax.

    >>> model = CameraModel.build(tilt_deg=0, rotation_deg=0, distortion=0, scale=1, size=(1280, 720),
    ...                           aspect=0.9, px_per_unit=700)
    >>> [round(v) for v in model.project([[0.0, 0.0, 0.0]])[0]]
    [640, 360]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

# How far the camera is from the field centre, in field widths (a Pi camera ~1.2 m over a ~55 cm field).
DISTANCE = 2.2
# The field width as a fraction of the image width for scale=1 and a vertical camera (the real overhead
# frames show 0.49..0.53).
FIELD_FRACTION = 0.55
# The world extent (half-width, half-height) of the one big canvas per style that every camera's canvas
# is cut from, so a new camera costs a crop, not a new board.
EXTENT = (1.6, 1.25)
# Where the (point) light hangs, for shadows: up and to the top-left of the board.
LIGHT = np.array([-0.6, -0.9, 3.0])


@dataclass(frozen=True, eq=False)
class CameraModel:
    """Maps world points to image pixels and canvas pixels to image pixels (see module docstring)."""

    rot: np.ndarray  # 3x3 world -> camera
    centre: np.ndarray  # camera position in world units
    focal: float
    roll: float  # in-plane rotation, radians
    k: float  # barrel amount: r_u = r_d * (1 + k * r_d**2), r over the half-diagonal (division-free)
    size: tuple[int, int]  # image (width, height)
    px_per_unit: float  # canvas pixels per field width
    origin: tuple[float, float]  # canvas pixel of the field centre
    crop: tuple[int, int, int, int] = (0, 0, 1, 1)  # the canvas inside the style's board canvas
    offset: tuple[float, float] = (0.0, 0.0)  # pan of the field centre, in image widths and heights

    @classmethod
    def build(
        cls,
        *,
        tilt_deg: float,
        rotation_deg: float,
        distortion: float,
        scale: float,
        size: tuple[int, int],
        aspect: float,
        px_per_unit: float,
        offset: tuple[float, float] = (0.0, 0.0),
    ) -> CameraModel:
        t = math.radians(tilt_deg)
        s, c = math.sin(t), math.cos(t)
        # The camera slides towards the near (bottom) player and looks back at the field centre.
        centre = np.array([0.0, DISTANCE * s, DISTANCE * c])
        rot = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, -s, -c]])
        focal = FIELD_FRACTION * scale * size[0] * DISTANCE
        probe = cls(
            rot,
            centre,
            focal,
            math.radians(rotation_deg),
            distortion,
            size,
            1.0,
            (0.0, 0.0),
            offset=offset,
        )
        # The canvas covers what the camera sees (so arms and the table reach the frame's edge), plus a
        # margin, but never more than a few field widths.
        w, h = size
        edge = np.concatenate(
            [
                np.stack([np.linspace(0, w, 17), np.zeros(17)], 1),
                np.stack([np.linspace(0, w, 17), np.full(17, h)], 1),
                np.stack([np.zeros(17), np.linspace(0, h, 17)], 1),
                np.stack([np.full(17, w), np.linspace(0, h, 17)], 1),
            ]
        )
        world = probe.image_to_board(edge)
        ext = np.array(EXTENT)
        lo = np.maximum(world.min(0) - 0.08, -ext)
        hi = np.minimum(world.max(0) + 0.08, ext)
        # Always include the whole board (field, frame, trays) so the static background is complete.
        lo = np.minimum(lo, [-0.75, -aspect / 2 - 0.12])
        hi = np.maximum(hi, [0.75, aspect / 2 + 0.12])
        # The canvas is a crop, on whole pixels, of the style's big board canvas (see EXTENT).
        x0, y0 = (int(math.floor((v + e) * px_per_unit)) for v, e in zip(lo, ext, strict=True))
        x1, y1 = (int(math.ceil((v + e) * px_per_unit)) for v, e in zip(hi, ext, strict=True))
        origin = (ext[0] * px_per_unit - x0, ext[1] * px_per_unit - y0)
        return cls(
            rot,
            centre,
            focal,
            math.radians(rotation_deg),
            distortion,
            size,
            px_per_unit,
            origin,
            (x0, y0, x1, y1),
            offset,
        )

    # -- world <-> image ---------------------------------------------------------------------------

    def _undistorted(self, pts: np.ndarray) -> np.ndarray:
        """World points (N,3) to ideal (undistorted) image pixels (N,2)."""
        pc = (np.asarray(pts, float) - self.centre) @ self.rot.T
        xn, yn = pc[:, 0] / pc[:, 2], pc[:, 1] / pc[:, 2]
        cr, sr = math.cos(self.roll), math.sin(self.roll)
        x, y = cr * xn - sr * yn, sr * xn + cr * yn
        cx, cy = self._principal()
        return np.stack([self.focal * x + cx, self.focal * y + cy], 1)

    def _principal(self) -> tuple[float, float]:
        """Where the field centre lands before distortion: the image centre, panned by ``offset``."""
        return self.size[0] * (0.5 + self.offset[0]), self.size[1] * (0.5 + self.offset[1])

    def _half_diag(self) -> float:
        return math.hypot(self.size[0], self.size[1]) / 2

    def distort(self, px: np.ndarray) -> np.ndarray:
        """Ideal pixels to distorted pixels (what the lens does): solves r_u = r_d * (1 + k * r_d**2)."""
        if not self.k:
            return px
        c = np.array(self.size, float) / 2
        pu = (px - c) / self._half_diag()
        ru = np.sqrt((pu**2).sum(1, keepdims=True))
        rd = ru.copy()
        for _ in range(20):  # Newton on f(r) = r + k r^3 - r_u, monotonic over the range allowed
            rd -= (rd + self.k * rd**3 - ru) / (1 + 3 * self.k * rd**2)
        ratio = np.divide(rd, ru, out=np.ones_like(ru), where=ru > 1e-12)
        return c + pu * ratio * self._half_diag()

    def undistort(self, px: np.ndarray) -> np.ndarray:
        """Distorted pixels to ideal pixels: r_u = r_d * (1 + k * r_d**2), r over the half-diagonal."""
        if not self.k:
            return px
        c = np.array(self.size, float) / 2
        pd = (px - c) / self._half_diag()
        r2 = (pd**2).sum(-1, keepdims=True)
        return c + pd * (1 + self.k * r2) * self._half_diag()

    def project(self, pts: np.ndarray | list) -> np.ndarray:
        """World points (N,3) to image pixels (N,2), lens distortion included."""
        return self.distort(self._undistorted(np.asarray(pts, float).reshape(-1, 3)))

    def image_to_board(self, px: np.ndarray) -> np.ndarray:
        """Image pixels (N,2) to world (X, Y) on the board plane."""
        u = self.undistort(np.asarray(px, float).reshape(-1, 2))
        cx, cy = self._principal()
        x = (u[:, 0] - cx) / self.focal
        y = (u[:, 1] - cy) / self.focal
        cr, sr = math.cos(-self.roll), math.sin(-self.roll)
        xn, yn = cr * x - sr * y, sr * x + cr * y
        rays = np.stack([xn, yn, np.ones_like(xn)], 1) @ self.rot  # camera -> world directions
        t = -self.centre[2] / rays[:, 2]
        return self.centre[:2] + rays[:, :2] * t[:, None]

    # -- canvas -------------------------------------------------------------------------------------

    def to_canvas(self, pts: np.ndarray | list) -> np.ndarray:
        """World points (N,3) to canvas pixels (N,2), where the camera sees them on the board plane."""
        p = np.asarray(pts, float).reshape(-1, 3)
        t = self.centre[2] / (self.centre[2] - p[:, 2])
        xy = self.centre[:2] + (p[:, :2] - self.centre[:2]) * t[:, None]
        return xy * self.px_per_unit + np.array(self.origin)

    def shadow_to_canvas(self, pts: np.ndarray | list) -> np.ndarray:
        """Where the light casts world points (N,3) on the board plane, in canvas pixels."""
        p = np.asarray(pts, float).reshape(-1, 3)
        t = LIGHT[2] / (LIGHT[2] - p[:, 2])
        xy = LIGHT[:2] + (p[:, :2] - LIGHT[:2]) * t[:, None]
        return xy * self.px_per_unit + np.array(self.origin)

    def canvas_to_world(self, uv: np.ndarray) -> np.ndarray:
        return (np.asarray(uv, float).reshape(-1, 2) - np.array(self.origin)) / self.px_per_unit

    def canvas_scale(self, z: float) -> float:
        """How much bigger an object at height ``z`` is drawn on the canvas than on the board."""
        return float(self.centre[2] / (self.centre[2] - z))

    def remap_maps(self, step: int = 8) -> tuple[np.ndarray, np.ndarray]:
        """Fixed-point maps for ``cv2.remap``: for every image pixel, the canvas pixel it shows.

        The mapping is smooth, so it is computed every ``step`` pixels and interpolated (a 60x saving,
        errors far below a hundredth of a pixel).
        """
        w, h = self.size
        gw, gh = -(-w // step) + 2, -(-h // step) + 2
        # cv2.resize by an integer factor samples source node k at output pixel (k + 0.5) * step - 0.5,
        # so the nodes sit there (shifted one step out, so the border is interpolated, not clamped).
        nx = (np.arange(gw) + 0.5) * step - 0.5 - step
        ny = (np.arange(gh) + 0.5) * step - 0.5 - step
        xs, ys = np.meshgrid(nx, ny)
        world = self.image_to_board(np.stack([xs.ravel(), ys.ravel()], 1))
        uv = (world * self.px_per_unit + np.array(self.origin)).astype(np.float32).reshape(gh, gw, 2)
        full = cv2.resize(uv, (gw * step, gh * step), interpolation=cv2.INTER_LINEAR)
        full = full[step : step + h, step : step + w]
        return cv2.convertMaps(full[:, :, 0].copy(), full[:, :, 1].copy(), cv2.CV_16SC2)
