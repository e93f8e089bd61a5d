"""The settle gate: is the board still long enough to read?

Every frame is shrunk to a small grey thumbnail (cheap: about a millisecond) and compared with the
previous one; the board is *settled* once ``still_frames`` frames in a row changed less than
``threshold`` (mean absolute grey difference, 0..255) and no pixel block changed a lot (a hand entering
at the edge changes little on average but much in one place).

    >>> import numpy as np
    >>> gate = SettleGate(still_frames=2)
    >>> frame = np.zeros((72, 128, 3), np.uint8)
    >>> [gate.update(frame) for _ in range(3)]
    [False, False, True]
"""

from __future__ import annotations

import cv2
import numpy as np


class SettleGate:
    """Says when consecutive frames have stopped changing."""

    def __init__(
        self,
        still_frames: int = 5,
        threshold: float = 2.0,
        local_threshold: float = 18.0,
        size: tuple[int, int] = (80, 45),
        roi: tuple[int, int, int, int] | None = None,
    ) -> None:
        """``roi`` (x0, y0, x1, y1 in frame pixels) limits the watch to the field and its surroundings."""
        if still_frames < 1 or threshold <= 0 or local_threshold <= 0:
            raise ValueError("still_frames must be >= 1 and the thresholds positive")
        self.still_frames, self.threshold, self.local_threshold = still_frames, threshold, local_threshold
        self.size, self.roi = size, roi
        self._previous: np.ndarray | None = None
        self._still = 0
        self.motion = 0.0  # the last frame's mean change, for display and tuning

    @property
    def settled(self) -> bool:
        return self._still >= self.still_frames

    def update(self, frame: np.ndarray) -> bool:
        """Feed one frame (BGR or grey); True once the board has been still for ``still_frames`` frames."""
        if frame is None or frame.ndim not in (2, 3):
            raise ValueError("expected an image array")
        if self.roi is not None:
            x0, y0, x1, y1 = self.roi
            frame = frame[y0:y1, x0:x1]
        small = cv2.resize(frame, self.size, interpolation=cv2.INTER_AREA)
        if small.ndim == 3:
            small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
        small = cv2.GaussianBlur(small, (3, 3), 0)  # sensor noise is not motion
        if self._previous is None:
            self._previous, self._still = small, 0
            return False
        diff = cv2.absdiff(small, self._previous)
        self._previous = small
        self.motion = float(diff.mean())
        blocks = cv2.resize(diff, (self.size[0] // 5, self.size[1] // 5), interpolation=cv2.INTER_AREA)
        moving = self.motion > self.threshold or float(blocks.max()) > self.local_threshold
        self._still = 0 if moving else self._still + 1
        return self.settled
