"""Replay recorded frames with their own timestamps: a folder of images or a video file.

    >>> with ReplaySource("recordings/game1") as frames:  # doctest: +SKIP
    ...     for frame in frames:
    ...         print(frame.index, frame.timestamp)

A folder's images (``.png``, ``.jpg``, ``.jpeg``, ``.bmp``, ``.tif``, ``.tiff``, ``.webp``) play in
natural name order (``frame2`` before ``frame10``). Their timestamps come from, in this order:

1. a sidecar ``timestamps.txt`` in the folder: one line per frame, either ``<seconds>`` (in name order,
   one line per image) or ``<file name> <seconds>`` (only the listed files play, in the listed order);
   blank lines and lines starting with ``#`` are ignored;
2. ``fps`` when given: frame ``i`` is at ``i / fps``;
3. each file's modification time.

A video's timestamps are its own presentation times (or ``i / fps`` when ``fps`` is given).
Timestamps must never go backwards. Replays end with :class:`~hardware.frames.EndOfStream`.
"""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import numpy as np

from hardware.frames import BaseSource, EndOfStream, Frame, SourceSpecError, as_bgr
from hardware.image_file import ImageFileError, read_image

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})
SIDECAR = "timestamps.txt"


def natural_key(name: str) -> list[int | str]:
    """Sort key that orders embedded numbers by value.

    >>> sorted(["f10.png", "f2.png", "f1.png"], key=natural_key)
    ['f1.png', 'f2.png', 'f10.png']
    """
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def read_sidecar(path: Path, images: list[Path]) -> tuple[list[Path], list[float]]:
    """Parse ``timestamps.txt``; returns the frames to play and their times (see the module doc)."""
    lines = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = raw.strip()
        if text and not text.startswith("#"):
            lines.append((number, text.rsplit(maxsplit=1)))
    if not lines:
        raise SourceSpecError(f"{path}: no timestamps in it; write one '<seconds>' line per image")
    named = {len(parts) for _, parts in lines}
    if named != {1} and named != {2}:
        raise SourceSpecError(
            f"{path}: mixes '<seconds>' and '<file> <seconds>' lines; use one form for every line"
        )
    times: list[float] = []
    for number, parts in lines:
        try:
            times.append(float(parts[-1]))
        except ValueError:
            raise SourceSpecError(f"{path}:{number}: {parts[-1]!r} is not a number of seconds") from None
    if named == {1}:
        if len(times) != len(images):
            raise SourceSpecError(
                f"{path}: {len(times)} timestamps for {len(images)} images; "
                "give one line per image, or name the file on each line"
            )
        frames = images
    else:
        frames = []
        for number, parts in lines:
            image = path.parent / parts[0]
            if not image.is_file():
                raise SourceSpecError(f"{path}:{number}: {parts[0]!r} is not a file in {path.parent}")
            frames.append(image)
    return frames, times


def check_monotonic(times: list[float], where: str) -> None:
    for i in range(1, len(times)):
        if times[i] < times[i - 1]:
            raise SourceSpecError(
                f"{where}: frame {i} is at {times[i]} s, before frame {i - 1} at {times[i - 1]} s; "
                "timestamps must not go backwards"
            )


class ReplaySource(BaseSource):
    """A recorded folder of images or a video file, replayed with its timestamps (as fast as read)."""

    def __init__(self, path: str | Path, *, fps: float | None = None) -> None:
        self.path = Path(path)
        if fps is not None and not fps > 0:
            raise SourceSpecError(f"fps must be a positive number of frames per second, not {fps!r}")
        self._fps = fps
        self._index = 0
        self._video: cv2.VideoCapture | None = None
        self._video_fps: float | None = None
        self._files: list[Path] = []
        self._times: list[float] = []
        self._last_time = float("-inf")
        if self.path.is_dir():
            self._open_folder()
        elif self.path.is_file():
            self._open_video()
        else:
            raise SourceSpecError(
                f"replay source {str(self.path)!r} does not exist; give a folder or a video"
            )

    def _open_folder(self) -> None:
        images = sorted(
            (p for p in self.path.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES),
            key=lambda p: natural_key(p.name),
        )
        sidecar = self.path / SIDECAR
        if sidecar.is_file():
            files, times = read_sidecar(sidecar, images)
            where = str(sidecar)
        else:
            files = images
            if self._fps is not None:
                times = [i / self._fps for i in range(len(files))]
            else:
                times = [p.stat().st_mtime for p in files]
            where = str(self.path)
        if not files:
            raise SourceSpecError(
                f"{self.path}: no images in it (looked for {', '.join(sorted(IMAGE_SUFFIXES))})"
            )
        check_monotonic(times, where)
        self._files, self._times = files, times

    def _open_video(self) -> None:
        video = cv2.VideoCapture(str(self.path))
        if not video.isOpened():
            video.release()
            raise SourceSpecError(
                f"{self.path}: not a folder and not a video OpenCV can read; "
                "give a folder of images or an .avi/.mp4 file"
            )
        rate = video.get(cv2.CAP_PROP_FPS)
        self._video_fps = rate if rate and rate > 0 else None
        self._video = video

    def __len__(self) -> int:
        """Number of frames (for a video, as its header says)."""
        if self._video is not None:
            return int(self._video.get(cv2.CAP_PROP_FRAME_COUNT))
        return len(self._files)

    def read(self) -> Frame:
        if self._video is not None:
            return self._read_video()
        if self._index >= len(self._files):
            raise EndOfStream(f"{self.path}: all {len(self._files)} frames replayed")
        path = self._files[self._index]
        try:
            image = read_image(path)
        except ImageFileError as e:
            raise SourceSpecError(f"{e}; or remove it from the replay folder") from None
        frame = Frame(as_bgr(image, str(path)), self._times[self._index], self._index)
        self._index += 1
        return frame

    def _read_video(self) -> Frame:
        assert self._video is not None
        ok, image = self._video.read()
        if not ok or image is None:
            raise EndOfStream(f"{self.path}: all {self._index} frames replayed")
        if self._fps is not None:
            timestamp = self._index / self._fps
        else:
            # after a read, the position is the presentation time of the frame just decoded
            timestamp = self._video.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
            if timestamp < self._last_time or (self._index > 0 and timestamp == 0.0):
                # some containers report no times: fall back to the nominal rate
                rate = self._video_fps or 1.0
                timestamp = max(self._last_time, self._index / rate)
        self._last_time = timestamp
        frame = Frame(as_bgr(np.asarray(image), str(self.path)), timestamp, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None
        self._index = len(self._files)


class ReplayWriter:
    """Record frames as a folder :class:`ReplaySource` plays back identically (PNG, lossless).

    >>> with ReplayWriter("recordings/game1") as rec:  # doctest: +SKIP
    ...     for frame in camera:
    ...         rec.write(frame)

    Files are ``frame000000.png`` ... with ``timestamps.txt`` naming each file and its time, rewritten
    line by line so a recording cut short by a power loss still replays up to its last whole frame.
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        if any(self.folder.iterdir()):
            raise SourceSpecError(f"{self.folder} is not empty; record into a new folder")
        self._sidecar = (self.folder / SIDECAR).open("w", encoding="utf-8")
        self._count = 0
        self._last = float("-inf")

    def write(self, frame: Frame) -> Path:
        if frame.timestamp < self._last:
            raise SourceSpecError(f"frame at {frame.timestamp} s comes before the last one at {self._last} s")
        name = f"frame{self._count:06d}.png"
        path = self.folder / name
        if not cv2.imwrite(str(path), frame.image):
            raise SourceSpecError(f"cannot write {path}: is the disk full?")
        # repr keeps every digit of the float, so the replay's timestamps are exactly the recorded ones
        self._sidecar.write(f"{name} {frame.timestamp!r}\n")
        self._sidecar.flush()
        self._count += 1
        self._last = frame.timestamp
        return path

    def close(self) -> None:
        if not self._sidecar.closed:
            self._sidecar.close()

    def __enter__(self) -> ReplayWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
