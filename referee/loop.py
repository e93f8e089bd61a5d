"""The one frame loop: frames through the settle gate and the reader, the session's words to the table.

    loop = FrameLoop(Pipeline(BoardReader(profile)), session, signals)
    loop.run(frames)

``referee run``, ``referee demo`` and ``bench.e2e`` all drive the session through :meth:`FrameLoop.step`:
button presses since the last frame first, then the frame's observation, then whatever the players at
a virtual table do on hearing it (the loop's ``players`` hook), each said to the console and shown on the
table's signals. Only settled frames are read (the reader is the heavy part). A live camera is read on a
thread of its own that keeps only the newest frame (:class:`LatestFrames`), so a slow reading never stalls
the capture; a replay hands over every frame in order, which is why replaying a recording gives the same
decisions as the live run that made it.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol, TextIO

import numpy as np

from bgboard.layout import ImageLayout
from hardware.frames import EndOfStream, Frame, FrameSource
from hardware.signals import Button, Signals
from referee.session import Observation, Say, Session
from vision.reading import BoardReading

SETTLE_FRAMES = 2  # still frames before the board counts as settled (0.2 s at 10 fps)
EVIDENCE_QUALITY = 90  # JPEG quality of evidence frames: every checker's edge and a die's pips stay sharp
BUTTONS_FILE = "buttons.txt"  # in a recorded folder: "<seconds> <BUTTON>" per press, replayed with it


class Rectifier(Protocol):
    def warp(self, frame: np.ndarray) -> np.ndarray: ...


class Reader(Protocol):
    """What the loop needs of a board reader (``vision.board_reader.BoardReader``): a frame read with
    the board the referee expects there."""

    @property
    def rectifier(self) -> Rectifier: ...

    def read(self, frame: np.ndarray, *, expected: ImageLayout | None = None) -> BoardReading: ...


class Players(Protocol):
    """Whoever sits at a virtual table: hears what the referee said about each frame and may press
    buttons at once (pressed in that frame, in order)."""

    def after(self, frame: Frame, observation: Observation, says: Sequence[Say]) -> Sequence[Button]: ...


def read_buttons(folder: Path) -> list[tuple[float, Button]]:
    """The button presses recorded beside a folder of frames (none when there is no file).

    A press is handed to the session before the first frame taken at or after its time.
    """
    path = folder / BUTTONS_FILE
    if not path.is_file():
        return []
    presses = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        try:
            presses.append((float(parts[0]), Button[parts[1].upper()]))
        except (ValueError, IndexError, KeyError):
            names = ", ".join(b.name for b in Button)
            raise ValueError(
                f"{path}:{number}: expected '<seconds> <BUTTON>' with a button of {names}, got {line!r}"
            ) from None
    return sorted(presses)


class Pipeline:
    """One frame to one :class:`Observation`: the settle gate, then the board and dice reader."""

    def __init__(self, reader: Reader, still_frames: int = SETTLE_FRAMES) -> None:
        from vision.settle import SettleGate

        self.reader = reader
        self.gate = SettleGate(still_frames=still_frames)

    def observe(self, frame: Frame, expected: ImageLayout | None = None) -> Observation:
        """``expected`` is the board the referee has confirmed (which checkers a die may rest on)."""
        image = frame.image
        if not self.gate.update(image):
            return Observation(frame.timestamp, None, index=frame.index)
        reading = self.reader.read(image, expected=expected)
        return Observation(frame.timestamp, reading, lambda: self.evidence(image), frame.index)

    def evidence(self, image: np.ndarray) -> bytes | None:
        """The rectified frame as JPEG: what the referee looked at when it called the play (a photograph
        for people settling a dispute, so lossless PNG would only fill the record)."""
        import cv2

        warped = self.reader.rectifier.warp(image)
        ok, jpeg = cv2.imencode(".jpg", warped, [cv2.IMWRITE_JPEG_QUALITY, EVIDENCE_QUALITY])
        return jpeg.tobytes() if ok else None


class FrameLoop:
    """Feeds frames to the session and tells the table what it says (see the module doc).

    ``presses`` are recorded button presses (:func:`read_buttons`) replayed at their times; buttons
    pressed on ``signals`` (its thread, or the console's keys) are handed over between frames.
    :attr:`said` holds what the table was told about the last frame, presses included.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        session: Session,
        signals: Signals,
        *,
        out: TextIO | None = None,
        presses: Iterable[tuple[float, Button]] = (),
        players: Players | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.session = session
        self.signals = signals
        self.out = out
        self.players = players
        self.said: list[Say] = []
        self._recorded = sorted(presses, key=lambda p: p[0])
        self._pressed: queue.Queue[Button] = queue.Queue()
        signals.on_button(self._pressed.put)

    def step(self, frame: Frame) -> list[Say]:
        """One frame: what the table is told about it."""
        t = frame.timestamp
        says: list[Say] = []
        for button in self._presses(t):
            says += self._press(button, t)
        observation = self.pipeline.observe(frame, self.session.expected)
        heard = self.session.observe(observation)
        self._show(heard)
        says += heard
        if self.players is not None:
            for button in self.players.after(frame, observation, says):
                says += self._press(button, t)
        self.said = says
        return says

    def run(self, frames: Iterable[Frame]) -> int:
        """Every frame in turn until the source ends; returns the number of frames."""
        n = 0
        for frame in frames:
            self.step(frame)
            n += 1
        return n

    def _presses(self, t: float) -> list[Button]:
        buttons = []
        while True:
            try:
                buttons.append(self._pressed.get_nowait())
            except queue.Empty:
                break
        while self._recorded and self._recorded[0][0] <= t + 1e-6:
            buttons.append(self._recorded.pop(0)[1])
        return buttons

    def _press(self, button: Button, t: float) -> list[Say]:
        says = self.session.press(button, t)
        self._show(says)
        return says

    def _show(self, says: Sequence[Say]) -> None:
        """Words to the console, then the signal to the table."""
        for say in says:
            print(f"  {say.text}", file=self.out or sys.stdout, flush=True)
            if say.signal is not None:
                winner = say.winner.value if say.winner else None
                self.signals.show(say.signal, winner=winner, points=say.points)


class LatestFrames:
    """Reads a live source on a thread and keeps only the newest frame (slow readings drop frames)."""

    def __init__(self, source: FrameSource) -> None:
        self.source = source
        self._slot: queue.Queue[Frame | Exception] = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="capture", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            item: Frame | Exception
            try:
                item = self.source.read()
            except Exception as e:  # the consumer re-raises it in its own thread
                item = e
            with contextlib.suppress(queue.Empty):
                self._slot.get_nowait()  # drop the stale frame
            self._slot.put(item)
            if isinstance(item, Exception):
                return

    def __iter__(self) -> Iterator[Frame]:
        while True:
            item = self._slot.get()
            if isinstance(item, EndOfStream):
                return
            if isinstance(item, Exception):
                raise item
            yield item

    def close(self) -> None:
        self._stop.set()
