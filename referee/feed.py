"""Frames for the frame loop, with news of the camera between them (lost, back), on the loop's thread.

    feed = Feed(live=True, stop=stop)
    source = RetryingSource(opener, on_lost=feed.lost, on_restored=feed.back, stop=stop)
    feed.start(source)
    for item in feed:        # a Frame, or SourceLost / SourceBack
        ...
    feed.close()             # joins the capture thread; then close the source

A live camera is read on a thread of its own that keeps only the newest frame, so a slow reading drops
frames (counted in :attr:`Feed.dropped`) instead of stalling the capture; a recording is read in the
caller's thread, every frame in order, which is why a replay gives the decisions of the live run that
made it. News of the camera comes from the source's callbacks (on the capture thread for a live camera)
and is handed over in order with the frames, so the session and the lights are only ever touched from
the loop's own thread. ``stop`` ends the iteration after the frame in hand.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from hardware.frames import EndOfStream, Frame, FrameSource, FrameSourceError

POLL = 0.2  # seconds between looks at the stop event while no frame comes
JOIN = 10.0  # seconds close() waits for the capture thread (a camera read times out sooner)


@dataclass(frozen=True)
class SourceLost:
    """The camera stopped delivering frames; it is being reopened."""

    reason: str


@dataclass(frozen=True)
class SourceBack:
    """The camera delivers frames again after an outage."""


Item = Frame | SourceLost | SourceBack


class Feed:
    """Frames of one source and news of it, for one consumer (see the module doc)."""

    def __init__(self, *, live: bool, stop: threading.Event | None = None) -> None:
        self.live = live
        self.stop = stop if stop is not None else threading.Event()
        self.dropped = 0  # live frames replaced by a newer one before the loop took them
        self._news: queue.SimpleQueue[SourceLost | SourceBack] = queue.SimpleQueue()
        self._slot: queue.Queue[Frame | BaseException] = queue.Queue(maxsize=1)
        self._source: FrameSource | None = None
        self._thread: threading.Thread | None = None

    def lost(self, error: FrameSourceError) -> None:
        """The source's ``on_lost`` callback."""
        self._news.put(SourceLost(str(error)))

    def back(self) -> None:
        """The source's ``on_restored`` callback."""
        self._news.put(SourceBack())

    def start(self, source: FrameSource) -> None:
        self._source = source
        if self.live:
            self._thread = threading.Thread(target=self._capture, name="capture", daemon=True)
            self._thread.start()

    def _capture(self) -> None:
        assert self._source is not None
        while not self.stop.is_set():
            item: Frame | BaseException
            try:
                item = self._source.read()
            except Exception as e:  # the consumer re-raises it in its own thread
                item = e
            with contextlib.suppress(queue.Empty):
                self._slot.get_nowait()  # drop the stale frame
                self.dropped += 1
            self._slot.put(item)
            if not isinstance(item, Frame):
                return

    def __iter__(self) -> Iterator[Item]:
        if self._source is None:
            raise RuntimeError("Feed.start(source) first")
        while not self.stop.is_set():
            yield from self._drain_news()
            try:
                item = self._next()
            except EndOfStream:
                break
            if item is None:
                continue
            yield from self._drain_news()  # news raised while this frame was read comes before it
            yield item
        yield from self._drain_news()

    def _next(self) -> Frame | None:
        """The next frame, or None when none came within a poll (so the stop event is looked at)."""
        if not self.live:
            assert self._source is not None
            return self._source.read()
        try:
            item = self._slot.get(timeout=POLL)
        except queue.Empty:
            return None
        if isinstance(item, BaseException):
            raise item
        return item

    def _drain_news(self) -> Iterator[SourceLost | SourceBack]:
        while True:
            try:
                yield self._news.get_nowait()
            except queue.Empty:
                return

    def close(self) -> None:
        """Stops the capture thread and waits for it, so the caller may then close the source."""
        self.stop.set()
        if self._thread is not None:
            self._thread.join(JOIN)
            self._thread = None
