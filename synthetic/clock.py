"""A chess clock standing beside the board, its two displays counting the players' time.

Clubs play with a clock beside the board; its digits change every second, in view of the camera and,
on a tight frame, inside the window where the referee looks for dice. :func:`draw_clock` draws it on the
canvas at a place in field coordinates, standing on end as in the tournament photographs, showing the
time ``ClockSpec.seconds`` gives.

    >>> spec = ClockSpec(seconds=125)
    >>> spec.faces()
    ('0:02:05', '0:13:55')
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from synthetic.camera import CameraModel
from synthetic.props import darken

SIZE = (0.2, 0.1)  # the clock's footprint in field widths, long side first
BODY, LCD, INK = (38, 30, 60), (150, 205, 215), (40, 40, 40)  # BGR: a brown body, a pale display
LEFT_PLAYER = 16 * 60  # the second display counts down a quarter-hour


@dataclass(frozen=True)
class ClockSpec:
    """A clock at ``x, y`` in field coordinates (outside 0..1: beside the field), long side down the
    image, showing ``seconds`` of play."""

    x: float = -0.2
    y: float = 0.5
    seconds: int = 0

    def faces(self) -> tuple[str, str]:
        """What its two displays show: one player's time used, the other's left."""

        def hms(t: int) -> str:
            return f"{t // 3600}:{t // 60 % 60:02d}:{t % 60:02d}"

        return hms(self.seconds), hms(max(0, LEFT_PLAYER - self.seconds))


def _face(px: int, spec: ClockSpec) -> np.ndarray:
    """The clock seen from above, lying along its long side: a body with its two displays."""
    w, h = px, max(8, round(px * SIZE[1] / SIZE[0]))
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = BODY
    for k, text in enumerate(spec.faces()):
        x0 = round(w * (0.06 + 0.48 * k))
        x1 = x0 + round(w * 0.4)
        y0, y1 = round(h * 0.3), round(h * 0.75)
        img[y0:y1, x0:x1] = LCD
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 1)
        scale = min(0.8 * (y1 - y0) / th, 0.9 * (x1 - x0) / tw)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        org = ((x0 + x1 - tw) // 2, (y0 + y1 + th) // 2)
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, INK, 1, cv2.LINE_AA)
    return img


def draw_clock(canvas: np.ndarray, model: CameraModel, spec: ClockSpec, aspect: float) -> None:
    """Draws the clock and its shadow on ``canvas`` (the board plane, before the lens)."""
    ppu = model.px_per_unit
    face = np.rot90(_face(round(SIZE[0] * ppu), spec)).copy()  # standing on end: long side down
    h, w = face.shape[:2]
    cx = model.origin[0] + (spec.x - 0.5) * ppu
    cy = model.origin[1] + (spec.y - 0.5) * aspect * ppu
    x0, y0 = round(cx - w / 2), round(cy - h / 2)
    ch, cw = canvas.shape[:2]
    sx0, sy0, sx1, sy1 = max(0, x0), max(0, y0), min(cw, x0 + w), min(ch, y0 + h)
    if sx0 >= sx1 or sy0 >= sy1:
        return
    drop = round(0.012 * ppu)  # the shadow falls a little to one side
    shadow = np.ones((h, w), np.float32)
    darken(canvas, cv2.GaussianBlur(shadow, (0, 0), 0.01 * ppu), x0 + drop, y0 + drop, 0.3)
    canvas[sy0:sy1, sx0:sx1] = face[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0]
