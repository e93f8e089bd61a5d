"""Between the frame loop and the console's web thread: what the loop hands over, and the live stream.

After every frame the loop's thread calls :meth:`Hub.stepped` (the loop's watcher hook). That takes an
immutable :class:`~referee.console.view.TableView` and hands it, with the settled reading and what the
table was told, to the web thread's event loop (``call_soon_threadsafe``): the frame loop never waits
for a browser, a lock the web thread holds, or a slow client.

In the web thread the hub keeps

- the narration: every :class:`~referee.turns.Say` in order, numbered from 1 (the stream's event ids), the
  last :data:`KEPT` of them kept so that a client that reconnects (``Last-Event-ID``) misses none;
- the state: rebuilt only when the view, the reading's counts and dice, or the console's own switches
  changed; a slow client gets the newest state, not a queue of old ones;
- the number of the newest camera frame (:mod:`referee.console.feed`).

A client's stream (:meth:`Hub.stream`) sends the narration it has not had, then the state and the frame
number if they are newer than what it had, then waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections import deque
from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol

from referee.console.state import StateBuilder
from referee.console.view import TableView, ViewBuilder
from referee.session import Session
from referee.turns import Observation, Say
from vision.reading import BoardReading

KEPT = 5000  # sentences of narration kept for clients that reconnect (a long evening's worth)
KEEP_ALIVE = 15.0  # seconds between comments on an idle stream, so proxies and phones keep it open


class FrameSink(Protocol):
    """Where the camera frames go (the console's frame feed)."""

    def offer(self, frame: Any) -> None: ...


def _reading_key(reading: BoardReading | None) -> object:
    """What the drawing shows of a reading: counts, doubts and dice, not the reader's timings or the
    dice's exact pixels (those change every frame)."""
    if reading is None:
        return None
    cells = tuple((c.count, c.certain, c.readable) for c in reading.cells().values())
    dice = tuple((d.value, d.likeliest, tuple(d.flags), d.half) for d in reading.dice)
    return cells, dice


def _sources(session: Session) -> object:
    """Everything a :class:`TableView` is made of: the game's state is an immutable snapshot replaced
    on every change (an unchanged one compares by identity, at once), the log only grows."""
    game = session.game
    return (
        session.stage,
        game.state if game is not None else None,
        len(game.history) if game is not None else 0,
        len(session.log),
        session.game_number,
        session.match_id,
        session.watch.question,
        session.watch.dice_question is not None,
        session.options,
        len(session.match.games),
    )


def sse(event: str, data: object, event_id: int) -> str:
    """One server-sent event.

    >>> sse("say", {"text": "light to roll"}, 3)
    'id: 3\\nevent: say\\ndata: {"text": "light to roll"}\\n\\n'
    """
    return f"id: {event_id}\nevent: {event}\ndata: {json.dumps(data, separators=(', ', ': '))}\n\n"


class Hub:
    """See the module doc. ``frames`` receives every camera frame (the feed encodes a few a second)."""

    def __init__(self, session: Session, frames: FrameSink | None = None) -> None:
        self.session = session
        self.frames = frames
        self._views = ViewBuilder()
        self._sources: object = None  # what the last view was made from (loop thread)
        self._handed: object = None  # the last reading handed over, as drawn (loop thread)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = threading.Event()
        # --- the web thread's side (touched only in its event loop) ---
        self.says: deque[dict[str, Any]] = deque(maxlen=KEPT)
        self.said = 0  # sentences so far: the id of the newest
        self.view: TableView | None = None
        self.reading: BoardReading | None = None
        self.state: dict[str, Any] | None = None
        self._state_text = ""
        self.state_version = 0
        self.frame_number = 0
        self.show_legal: bool | None = None  # the teacher's switch; None: off in a match, on in money play
        self.subscribers = 0
        self.refereeing = True  # the frame loop runs (actions can be taken)
        self._key: object = None
        self._states = StateBuilder()
        self._waiters: list[asyncio.Future[None]] = []

    # ---- the frame loop's thread ------------------------------------------------------------------

    def stepped(self, frame: Any, observation: Observation, says: Sequence[Say]) -> None:
        """After each frame (the loop's watcher hook): copy the session's view and hand it over."""
        if self.frames is not None:
            self.frames.offer(frame)
        loop = self._loop
        if loop is None or self._closed.is_set():
            return
        # most frames change nothing the console shows: hand over only what is new
        sources = _sources(self.session)
        view = self._views.view(self.session) if says or sources != self._sources else None
        self._sources = sources
        reading = observation.reading
        key = _reading_key(reading) if reading is not None else self._handed
        if view is None and key == self._handed and not says:
            return
        self._handed = key
        with contextlib.suppress(RuntimeError):  # the web thread's loop has just closed
            loop.call_soon_threadsafe(self._take, view, reading, tuple(says))

    def end(self) -> None:
        """The frame loop has stopped (a demo's game is over): the state says so, actions are refused."""
        loop = self._loop
        if loop is not None and not self._closed.is_set():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._end)

    def _end(self) -> None:
        self.refereeing = False
        self._publish_state(force=True)
        self._wake()

    def prime(self) -> None:
        """The first view, before any frame (call in the loop's thread, before the console starts)."""
        self.view = self._views.view(self.session)
        self._sources = _sources(self.session)

    # ---- the web thread ---------------------------------------------------------------------------

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """The web thread's event loop, from which every other method is called."""
        self._loop = loop
        self._publish_state(force=True)

    def close(self) -> None:
        """Ends every stream (the server is stopping); safe from any thread."""
        self._closed.set()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._wake)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def _take(self, view: TableView | None, reading: BoardReading | None, says: tuple[Say, ...]) -> None:
        for say in says:
            self.said += 1
            signal = say.signal.value if say.signal is not None else None
            self.says.append({"id": self.said, "signal": signal, "text": say.text})
        if view is not None:
            self.view = view
        if reading is not None:
            self.reading = reading
        changed = self._publish_state()
        if says or changed:
            self._wake()

    def legal_shown(self) -> bool:
        if self.show_legal is not None:
            return self.show_legal
        return self.view is None or self.view.match_length is None

    def set_show_legal(self, shown: bool) -> None:
        self.show_legal = shown
        self._publish_state()
        self._wake()

    def _publish_state(self, force: bool = False) -> bool:
        view = self.view
        if view is None:
            return False
        shown = self.legal_shown()
        key = (view, _reading_key(self.reading), shown)
        if key == self._key and not force:
            return False
        self._key = key
        self.state = {
            **self._states.state(view, self.reading, show_legal=shown),
            "refereeing": self.refereeing,
        }
        self.state_version += 1
        self._state_text = json.dumps({**self.state, "version": self.state_version})  # once, for all
        return True

    def frame_ready(self, number: int) -> None:
        """A new camera frame has been encoded (called in the web thread)."""
        self.frame_number = number
        self._wake()

    def _wake(self) -> None:
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    async def _changed(self, timeout: float) -> bool:
        """Waits for anything new; False on a time-out."""
        assert self._loop is not None
        waiter: asyncio.Future[None] = self._loop.create_future()
        self._waiters.append(waiter)
        try:
            await asyncio.wait_for(waiter, timeout)
            return True
        except TimeoutError:
            return False

    def says_after(self, said: int) -> list[dict[str, Any]] | None:
        """The narration after sentence ``said``; None if some of it is no longer kept."""
        if said >= self.said:
            return []
        first = self.said - len(self.says) + 1
        if said + 1 < first:
            return None
        return list(self.says)[said + 1 - first :]

    async def stream(self, since: int | None) -> AsyncIterator[str]:
        """A client's server-sent events: narration after ``since`` (None: from now), the state, frames."""
        self.subscribers += 1
        try:
            cursor = self.said if since is None else max(0, min(since, self.said))
            sent_state, sent_frame = -1, self.frame_number
            yield "retry: 2000\n\n"
            while not self.closed:
                out = []
                says = self.says_after(cursor)
                if says is None:  # the client was away too long: it starts again from the state
                    out.append(sse("reset", {"from": self.said}, self.said))
                    says, cursor = [], self.said
                for say in says:
                    out.append(sse("say", say, say["id"]))
                    cursor = say["id"]
                if self.state_version != sent_state and self.state is not None:
                    out.append(f"id: {cursor}\nevent: state\ndata: {self._state_text}\n\n")
                    sent_state = self.state_version
                if self.frame_number != sent_frame:
                    out.append(sse("frame", {"number": self.frame_number}, cursor))
                    sent_frame = self.frame_number
                if out:
                    yield "".join(out)
                elif not await self._changed(KEEP_ALIVE):
                    yield ": still here\n\n"
        finally:
            self.subscribers -= 1
