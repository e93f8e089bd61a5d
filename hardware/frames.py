"""What every frame source delivers, and how it fails.

A frame source hands out :class:`Frame` objects one at a time: a BGR image (the order OpenCV uses), the
time it was taken in seconds and a running index. All sources share one contract, so the live session
does not care whether frames come from the Pi camera, a USB webcam or a recorded folder:

    >>> import numpy as np
    >>> f = Frame(np.zeros((4, 6, 3), np.uint8), timestamp=1.5, index=0)
    >>> f.size
    (6, 4)

Failures are split by what the caller should do about them:

- :class:`SourceSpecError` (a ``ValueError``): the source named in the config or on the command line is
  nonsense or does not exist. Fix the argument.
- :class:`CameraUnavailable`: the camera could not be opened (missing, busy). The message says what to
  check. Raised when the source is opened.
- :class:`CameraLost`: the camera was running and stopped delivering frames. The session keeps the game,
  shows amber and reopens the source (see ``hardware.retry.RetryingSource``).
- :class:`EndOfStream`: a recording has no more frames. Not an error; iteration simply stops.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol, Self, runtime_checkable

import numpy as np


@dataclass(frozen=True, eq=False)
class Frame:
    """One picture of the table.

    ``image`` is H x W x 3 uint8 in BGR order; ``timestamp`` is in seconds on the source's own clock
    (monotonic for live cameras, the recording's time for replays); ``index`` counts frames delivered
    by the source from 0. ``lores`` is an optional small greyscale copy (the Pi camera's low-resolution
    stream) that a settle gate may use instead of shrinking ``image`` itself.
    (Arrays do not compare with ``==``, so frames compare by identity.)
    """

    image: np.ndarray
    timestamp: float
    index: int
    lores: np.ndarray | None = None

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of ``image``."""
        return int(self.image.shape[1]), int(self.image.shape[0])


class FrameSourceError(Exception):
    """A source failed to deliver a frame."""


class CameraUnavailable(FrameSourceError):
    """The camera could not be opened: missing, busy, or its library is not installed."""


class CameraLost(FrameSourceError):
    """A running camera stopped delivering frames; reopening it may help."""


class EndOfStream(Exception):
    """A recorded source has no more frames (not an error: a replay simply ended)."""


class SourceSpecError(ValueError):
    """The source named in the configuration or on the command line is not usable."""


@runtime_checkable
class FrameSource(Protocol):
    """Anything that hands out frames; a context manager and an iterable.

    ``read()`` returns the next fresh frame or raises :class:`FrameSourceError` (``CameraLost`` once
    running) or :class:`EndOfStream`. Iterating yields frames until :class:`EndOfStream`.
    ``close()`` releases the device and may be called more than once.
    """

    def read(self) -> Frame: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def __iter__(self) -> Iterator[Frame]: ...


class BaseSource:
    """Context-manager and iterator plumbing shared by the concrete sources."""

    def read(self) -> Frame:  # pragma: no cover - overridden
        raise NotImplementedError

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        while True:
            try:
                yield self.read()
            except EndOfStream:
                return


def as_bgr(image: np.ndarray, what: str) -> np.ndarray:
    """Check that ``image`` is an H x W x 3 uint8 array (grey frames are expanded), else raise.

    >>> as_bgr(np.zeros((2, 3), np.uint8), "test").shape
    (2, 3, 3)
    """
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise FrameSourceError(f"{what}: expected an 8-bit image, got {type(image).__name__}")
    if image.ndim == 2:
        return np.repeat(image[:, :, None], 3, axis=2)
    if image.ndim == 3 and image.shape[2] == 4:
        # a fourth (alpha or padding) channel carries no colour: keep the first three as they are
        return np.ascontiguousarray(image[:, :, :3])
    if image.ndim != 3 or image.shape[2] != 3:
        raise FrameSourceError(f"{what}: expected a colour image, got an array of shape {image.shape}")
    return image
