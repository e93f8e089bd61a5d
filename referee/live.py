"""The thin loop around the session: frames through the settle gate and the reader, says to the signals.

    pipeline = Pipeline(BoardReader(profile))
    for frame in source:
        for say in session.observe(pipeline.observe(frame)):
            show(signals, say)

Only settled frames are read (the reader is the heavy part). A live camera is read on its own thread
that keeps only the newest frame (:class:`LatestFrames`), so a slow reading never stalls the capture; a
replay hands over every frame in order, which is why replaying a recording gives the same decisions as
the live run that made it. OpenCV and the vision modules are imported here only, never by the session.
"""

from __future__ import annotations

import contextlib
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from hardware.signals import Button
from referee.session import Observation, Say, Session

SETTLE_FRAMES = 2  # still frames before the board counts as settled (0.2 s at 10 fps)
BUTTONS_FILE = "buttons.txt"  # in a recorded folder: "<seconds> <BUTTON>" per press, replayed with it


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
    """One frame to one :class:`Observation`: settle gate, then the board and dice reader."""

    def __init__(self, reader: Any, still_frames: int = SETTLE_FRAMES) -> None:
        from vision.settle import SettleGate

        self.reader = reader
        self.gate = SettleGate(still_frames=still_frames)

    def observe(self, image: np.ndarray, t: float, index: int = 0) -> Observation:
        if not self.gate.update(image):
            return Observation(t, None, index=index)
        reading = self.reader.read(image)
        return Observation(t, reading, lambda: self.evidence(image), index)

    def evidence(self, image: np.ndarray) -> bytes | None:
        """The rectified frame as PNG: what the referee looked at when it called the play."""
        import cv2

        ok, png = cv2.imencode(".png", self.reader.rectifier.warp(image))
        return png.tobytes() if ok else None


def show(signals: Any, say: Say, out: TextIO | None = None) -> None:
    """Words to the console, then the signal (``hardware.signals.Signal``) to the table."""
    print(f"  {say.text}", file=out or sys.stdout, flush=True)
    if say.signal is not None:
        winner = say.winner.value if say.winner else None
        signals.show(say.signal, winner=winner, points=say.points)


class Buttons:
    """Button presses from the signals' thread, handed to the session between frames."""

    def __init__(self, signals: Any) -> None:
        self._queue: queue.Queue[Button] = queue.Queue()
        signals.on_button(self._queue.put)

    def drain(self) -> Iterator[Button]:
        while True:
            try:
                yield self._queue.get_nowait()
            except queue.Empty:
                return


class LatestFrames:
    """Reads a live source on a thread and keeps only the newest frame (slow readings drop frames)."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self._slot: queue.Queue[Any] = queue.Queue(maxsize=1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="capture", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frame = self.source.read()
            except Exception as e:  # the consumer re-raises it in its own thread
                frame = e
            with contextlib.suppress(queue.Empty):
                self._slot.get_nowait()  # drop the stale frame
            self._slot.put(frame)
            if isinstance(frame, Exception):
                return

    def __iter__(self) -> Iterator[Any]:
        from hardware.frames import EndOfStream

        while True:
            item = self._slot.get()
            if isinstance(item, EndOfStream):
                return
            if isinstance(item, Exception):
                raise item
            yield item

    def close(self) -> None:
        self._stop.set()


def drive(
    frames: Iterator[Any],
    pipeline: Pipeline,
    session: Session,
    signals: Any,
    buttons: Buttons | None = None,
    on_frame: Callable[[Any, Observation, list[Say]], None] | None = None,
    out: TextIO | None = None,
    presses: list[tuple[float, Button]] | None = None,
) -> int:
    """Feeds every frame to the session and shows what it says; returns the number of frames.

    ``presses`` are recorded button presses (:func:`read_buttons`) replayed at their times.
    """
    n = 0
    pending = list(presses or [])
    for frame in frames:
        names = list(buttons.drain()) if buttons is not None else []
        while pending and pending[0][0] <= frame.timestamp + 1e-6:
            names.append(pending.pop(0)[1])
        for name in names:
            for say in session.press(name, frame.timestamp):
                show(signals, say, out)
        obs = pipeline.observe(frame.image, frame.timestamp, frame.index)
        says = session.observe(obs)
        for say in says:
            show(signals, say, out)
        if on_frame is not None:
            on_frame(frame, obs, says)
        n += 1
    return n
