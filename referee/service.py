"""``referee run`` as a service: the frame loop, systemd's protocol, and the faults of an evening.

    service = Service(loop, journal, options, Notifier(), frame_size=profile.image_size)
    frames = service.run(feed)

Around :class:`~referee.loop.FrameLoop` this adds what a table left alone all evening needs:

- systemd hears ``READY=1`` once the first frame is read, ``WATCHDOG=1`` while frames flow and
  ``STATUS=`` with the stage in words (:class:`hardware.notify.Notifier`);
- a camera that drops out shows amber with the reason, and the game goes on once it is back
  (:class:`~referee.feed.SourceLost`, :class:`~referee.feed.SourceBack`);
- a record that cannot be written (a full disk, another program's lock) shows amber with the reason;
  what was decided but not written was not said either, so the session is put back to the last event
  the record holds and decides again from the board in front of it once the record takes writes again;
- nothing it sees fitting what it expects for a while is said in words (:mod:`referee.quiet`);
- the first frame must have the size the profile was calibrated at, or nothing is read at all.
"""

from __future__ import annotations

from collections.abc import Iterable

from hardware.frames import Frame
from hardware.notify import Notifier
from hardware.signals import Signal
from referee.feed import Item, SourceBack, SourceLost
from referee.journal import Journal, RecordWriteError
from referee.loop import FrameLoop
from referee.quiet import Quiet
from referee.session import Say, Session, SessionOptions


class FrameSizeError(ValueError):
    """The camera's frames are not the size the calibration profile was made for."""


class Service:
    """Runs the frame loop over a feed (see the module doc); :attr:`frames` counts the frames handled."""

    def __init__(
        self,
        loop: FrameLoop,
        journal: Journal,
        options: SessionOptions,
        notifier: Notifier,
        *,
        frame_size: tuple[int, int],
        quiet: Quiet | None = None,
    ) -> None:
        self.loop = loop
        self.journal = journal
        self.options = options
        self.notifier = notifier
        self.frame_size = (int(frame_size[0]), int(frame_size[1]))
        self.quiet = quiet
        self.frames = 0
        self.camera_down: str | None = None  # why the camera is away, while it is
        self.record_down: str | None = None  # why the record cannot be written, while it cannot
        self.outages = 0

    def status(self) -> str:
        """The stage in words, for ``systemctl status`` (and the journal's line when it changes)."""
        words = self.loop.session.status()
        if self.camera_down:
            return f"camera lost, reconnecting: {self.camera_down} ({words})"
        if self.record_down:
            return f"waiting to write the record: {self.record_down} ({words})"
        return words

    def run(self, feed: Iterable[Item]) -> int:
        for item in feed:
            if isinstance(item, SourceLost):
                self._lost(item.reason)
            elif isinstance(item, SourceBack):
                self._back()
            else:
                if self.frames == 0:
                    self._check_size(item)
                self._step(item)
                self.frames += 1
            if isinstance(item, Frame):
                self.notifier.frame(self.status())
            else:
                self.notifier.status(self.status())
        return self.frames

    def _check_size(self, frame: Frame) -> None:
        if frame.size != self.frame_size:
            w, h = frame.size
            pw, ph = self.frame_size
            raise FrameSizeError(
                f"the camera gives {w}x{h} frames but the profile was calibrated on {pw}x{ph} frames: "
                f"set [camera] size = [{pw}, {ph}] in the config, or calibrate again at {w}x{h}"
            )

    def _step(self, frame: Frame) -> None:
        written = self.journal.written
        try:
            self.loop.step(frame)
        except RecordWriteError as e:
            self._record_failed(str(e))
            return
        if self.record_down and self.journal.written > written:
            self.record_down = None
            self._say(Say(None, "the record takes writes again: refereeing as before"))
        if self.quiet is not None and not self.record_down:
            moved = self.loop.pipeline.moved
            self.loop.tell(self.quiet.after(frame.timestamp, self.loop.observed, self.loop.said, moved))

    def _record_failed(self, reason: str) -> None:
        """Back to the last event the record holds: the decision that could not be written was not said,
        and is made again from the board once the record can be written."""
        if self.record_down != reason:
            self.record_down = reason
            self._say(Say(Signal.CANNOT_SEE, f"cannot write the record: {reason}. The referee waits"))
        self.loop.session = Session.resume(self.options, self.journal)

    def _lost(self, reason: str) -> None:
        self.camera_down = reason
        self.outages += 1
        self._say(Say(Signal.CANNOT_SEE, f"the camera is lost ({reason}): reconnecting; the game is kept"))

    def _back(self) -> None:
        self.camera_down = None
        showing = self.loop.showing
        text = f"the camera is back: {self.loop.session.status()}"
        if showing is None or showing.signal is None:
            self._say(Say(None, text))
        else:
            self._say(Say(showing.signal, text, showing.winner, showing.points))

    def _say(self, say: Say) -> None:
        """A fault or its end: to the table, and one line on the console (what ``journalctl -u``
        shows under systemd)."""
        self.loop.tell([say])
