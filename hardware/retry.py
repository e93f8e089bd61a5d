"""Keep frames coming when a running camera drops out: reopen it, tell the session, keep the index going.

    >>> source = RetryingSource(lambda: open_source(config), on_lost=show_amber)  # doctest: +SKIP
    >>> frame = source.read()  # doctest: +SKIP

Contract: the *first* open happens in the constructor and its error (``CameraUnavailable``: missing or
busy camera) goes straight to the caller, so a mis-set-up Pi stops with a clear message. Once frames
have flowed, a :class:`~hardware.frames.FrameSourceError` from ``read()`` or from reopening closes the
source, calls ``on_lost(error)`` once per outage (the session shows amber and keeps the game), waits
``delays[k]`` seconds (the last delay repeats) and tries again; ``on_restored()`` is called with the
first frame after an outage. ``max_attempts`` (``None`` = forever) bounds the tries per outage, after
which the last error is raised. No watchdog ping is sent meanwhile, so systemd restarts the service if
an outage outlasts ``WatchdogSec``. ``EndOfStream`` and bad-source errors (``ValueError``) are not retried.
``stop`` (an event) ends the waiting at once: ``read()`` then raises ``EndOfStream``. ``sleep`` waits
between tries (by default on ``stop``); a true result from it means stop.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

from hardware.frames import BaseSource, EndOfStream, Frame, FrameSource, FrameSourceError

log = logging.getLogger(__name__)


class RetryingSource(BaseSource):
    """A frame source that reopens its inner source after it fails (see the module doc)."""

    def __init__(
        self,
        opener: Callable[[], FrameSource],
        *,
        on_lost: Callable[[FrameSourceError], None] | None = None,
        on_restored: Callable[[], None] | None = None,
        delays: Sequence[float] = (0.5, 1.0, 2.0, 5.0),
        max_attempts: int | None = None,
        stop: threading.Event | None = None,
        sleep: Callable[[float], object] | None = None,
    ) -> None:
        if not delays:
            raise ValueError("delays must hold at least one number of seconds")
        self._opener = opener
        self._on_lost = on_lost
        self._on_restored = on_restored
        self._delays = tuple(delays)
        self._max_attempts = max_attempts
        self._sleep = sleep if sleep is not None else (stop or threading.Event()).wait
        self._index = 0
        self.outages = 0
        self._source: FrameSource | None = opener()

    def read(self) -> Frame:
        attempts = 0
        failing = False
        while True:
            try:
                if self._source is None:
                    self._source = self._opener()
                frame = self._source.read()
            except EndOfStream:
                raise
            except FrameSourceError as e:
                self._drop()
                if not failing:
                    failing = True
                    self.outages += 1
                    log.warning("frame source lost: %s; reopening", e)
                    if self._on_lost is not None:
                        self._on_lost(e)
                attempts += 1
                if self._max_attempts is not None and attempts >= self._max_attempts:
                    raise
                if self._sleep(self._delays[min(attempts - 1, len(self._delays) - 1)]):
                    raise EndOfStream("stopped while the camera was away") from None
                continue
            if failing:
                log.info("frame source back after %d attempt(s)", attempts)
                if self._on_restored is not None:
                    self._on_restored()
            result = Frame(frame.image, frame.timestamp, self._index, frame.lores)
            self._index += 1
            return result

    def _drop(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            try:
                source.close()
            except Exception as e:  # the camera is already in trouble; closing must not add to it
                log.debug("closing the lost source failed: %r", e)

    def close(self) -> None:
        self._drop()
