"""The latest rectified camera frame for the console, a few a second at most, made off the frame loop.

The frame loop only hands over a reference to each frame (:meth:`FrameFeed.offer`, no copy, no lock);
a thread of the feed's own wakes ``fps`` times a second, and only while someone is watching warps the
newest frame to the field and encodes it as JPEG (both in OpenCV, which lets the loop's thread run).

    feed = FrameFeed(reader.rectifier.warp, on_new=hub_number_callback)
    feed.start(); ...; feed.stop()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import cv2
import numpy as np

from hardware.frames import Frame

FPS = 2.0  # frames a second at most: enough to see the table, little for a Pi to encode
QUALITY = 80  # JPEG quality
WIDTH = 800  # pixels at most: a phone's width twice over, a third of the encoding of a full frame
WATCHED = 10.0  # seconds a fetch of the frame counts as someone watching


class FrameFeed:
    """See the module doc. ``watching()`` says whether a client follows the stream; ``on_new(number)`` is
    called from the feed's thread after each new frame."""

    def __init__(
        self,
        warp: Callable[[np.ndarray], np.ndarray] | None,
        *,
        fps: float = FPS,
        on_new: Callable[[int], None] | None = None,
        watching: Callable[[], bool] | None = None,
    ) -> None:
        self.warp = warp
        self.period = 1.0 / fps
        self.on_new = on_new
        self.watching = watching
        self.jpeg: bytes | None = None
        self.number = 0
        self._offered: Frame | None = None
        self._done: Frame | None = None
        self._fetched = -WATCHED
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="console-frames", daemon=True)

    def offer(self, frame: Frame) -> None:
        """The newest frame (the frame loop's thread): a reference is kept, nothing else is done."""
        self._offered = frame

    def fetched(self) -> bytes | None:
        """The newest JPEG for a client (which keeps the feed running for a while)."""
        self._fetched = time.monotonic()
        return self.jpeg

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5.0)

    def _wanted(self) -> bool:
        recently = time.monotonic() - self._fetched < WATCHED
        return recently or (self.watching is not None and self.watching())

    def _run(self) -> None:
        while not self._stop.wait(self.period):
            frame = self._offered
            if frame is None or frame is self._done or not self._wanted():
                continue
            self._done = frame
            jpeg = self.encode(frame.image)
            if jpeg is None:
                continue
            self.jpeg = jpeg
            self.number += 1
            if self.on_new is not None:
                self.on_new(self.number)

    def encode(self, image: np.ndarray) -> bytes | None:
        """``image`` warped to the field (when a warp is known) as JPEG."""
        field = self.warp(image) if self.warp is not None else image
        if field.shape[1] > WIDTH:
            height = round(field.shape[0] * WIDTH / field.shape[1])
            field = cv2.resize(field, (WIDTH, height), interpolation=cv2.INTER_AREA)
        ok, data = cv2.imencode(".jpg", field, [cv2.IMWRITE_JPEG_QUALITY, QUALITY])
        return data.tobytes() if ok else None
