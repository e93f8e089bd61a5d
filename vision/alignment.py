"""Is the camera where it was at calibration? The field's edges in a frame against the profile's.

    sight = FieldEdges(profile)
    sight.agreement(frame)      # about 0.9 with the camera in place, far lower once it has moved

The edges of the playing field (its rim, the frame and trays around it) do not move while a game is
played: checkers stay inside the field. So the gradient image of a band around the field's border in the
rectified frame is compared with the same band of the calibration frame (the profile's empty field keeps
it), by normalised correlation. A camera knocked by a few pixels slides every edge off its place and the
agreement falls; a hand over one side lowers it a little, which is why the caller looks only at settled
frames and asks for a low agreement to hold for a while before it speaks.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.profile import Profile
from vision.rectify import Rectifier

MOVED_BELOW = 0.45  # agreement of a camera that has moved; in place it stays above about 0.8


def _gradient(image: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    grey = cv2.GaussianBlur(grey, (5, 5), 0).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    return cv2.magnitude(gx, gy)


class FieldEdges:
    """The calibration frame's field edges, to compare live frames with (``None`` agreement when the
    profile keeps no picture of the board)."""

    def __init__(self, profile: Profile) -> None:
        g, m = profile.geometry, profile.margin
        self.rectifier = Rectifier(profile.corners, g.width, g.height, m)
        w, h = self.rectifier.size
        mask = np.zeros((h, w), np.uint8)
        band = max(3, int(0.6 * m))
        cv2.rectangle(mask, (m - band, m - band), (m + g.width + band, m + g.height + band), 255, -1)
        cv2.rectangle(mask, (m + band, m + band), (m + g.width - band, m + g.height - band), 0, -1)
        self.mask = mask > 0
        field = profile.empty_field
        self.reference = None if field is None else self._band(field.image)

    def _band(self, canonical: np.ndarray) -> np.ndarray:
        values = _gradient(canonical)[self.mask]
        values = values - values.mean()
        return values / max(float(np.linalg.norm(values)), 1e-6)

    def agreement(self, frame: np.ndarray) -> float | None:
        """Normalised correlation (-1..1) of the band's edges with the calibration frame's."""
        if self.reference is None:
            return None
        return float(np.dot(self._band(self.rectifier.warp(frame)), self.reference))

    def moved(self, frame: np.ndarray) -> bool | None:
        """Whether the field's edges no longer sit where the profile has them (None: cannot tell)."""
        score = self.agreement(frame)
        return None if score is None else score < MOVED_BELOW
