"""Frames from any OpenCV capture: a USB webcam by index or device path, or a video file played live.

    >>> with OpenCVSource(0) as camera:  # doctest: +SKIP
    ...     frame = camera.read()

Live cameras queue a few frames inside the driver; a referee wants the board as it is *now*, so the
buffer is shrunk to one frame where the backend allows it and ``fresh_grabs`` stale frames are dropped
before each read. Timestamps are ``time.monotonic()`` at the moment the frame was retrieved.
"""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np

from hardware.frames import BaseSource, CameraLost, CameraUnavailable, EndOfStream, Frame, as_bgr


class OpenCVSource(BaseSource):
    """A ``cv2.VideoCapture`` as a frame source.

    ``device`` is a camera index (``0``), a device path (``"/dev/video0"``) or a video file. ``size``
    and ``fps`` are requests the driver may round. ``fresh_grabs`` frames are discarded before each
    read of a live camera (0 for files).
    """

    def __init__(
        self,
        device: int | str,
        *,
        size: tuple[int, int] | None = None,
        fps: float | None = None,
        fresh_grabs: int = 1,
    ) -> None:
        self.device = device
        self._is_file = isinstance(device, str) and Path(device).is_file()
        self._fresh_grabs = 0 if self._is_file else max(0, fresh_grabs)
        self._index = 0
        self._capture: cv2.VideoCapture | None = cv2.VideoCapture(device)
        if not self._capture.isOpened():
            self._capture.release()
            if self._is_file:
                raise CameraUnavailable(
                    f"cannot open video {device!r}: OpenCV does not understand it; "
                    "check the file plays (e.g. with ffprobe) or convert it to MJPG/H.264"
                )
            raise CameraUnavailable(
                f"cannot open camera {device!r}: is it plugged in, and is another program using it? "
                "list cameras with `v4l2-ctl --list-devices` (or `libcamera-hello --list-cameras` "
                'for a Pi camera, which needs the source "picamera")'
            )
        if not self._is_file:
            self._capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
            if size is not None:
                self._capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
                self._capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
            if fps is not None:
                self._capture.set(cv2.CAP_PROP_FPS, fps)

    def read(self) -> Frame:
        if self._capture is None:
            raise CameraLost(f"camera {self.device!r} is closed")
        for _ in range(self._fresh_grabs):
            self._capture.grab()
        ok, image = self._capture.read()
        if not ok or image is None:
            if self._is_file:
                raise EndOfStream(f"{self.device}: no more frames")
            raise CameraLost(f"camera {self.device!r} stopped delivering frames (unplugged or busy?)")
        frame = Frame(as_bgr(np.asarray(image), str(self.device)), time.monotonic(), self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None
