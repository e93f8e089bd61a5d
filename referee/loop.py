"""The one frame loop: frames through the settle gate and the reader, the session's words to the table.

    loop = FrameLoop(Pipeline(BoardReader(profile)), session, signals)
    loop.run(frames)

``referee run``, ``referee demo`` and ``bench.e2e`` all drive the session through :meth:`FrameLoop.step`:
button presses since the last frame first, then the frame's observation, then whatever the players at
a virtual table do on hearing it (the loop's ``players`` hook), each said to the console and shown on the
table's signals. Only settled frames are read (the reader is the heavy part). Where frames come from
(a live camera on a thread of its own, or a recording in order) is :mod:`referee.feed`; what a service
adds around the loop (systemd, a camera that drops out, a record that cannot be written) is
:mod:`referee.service`.
"""

from __future__ import annotations

import queue
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol, TextIO

import numpy as np

from bgboard.layout import ImageLayout
from hardware.frames import Frame
from hardware.signals import Button, Signals
from referee.session import Observation, Say, Session
from vision.arrivals import Still
from vision.reading import BoardReading, DieReading

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

    def read(
        self,
        frame: np.ndarray,
        *,
        expected: ImageLayout | None = None,
        before: Still | None = None,
        same_board: bool = True,
    ) -> BoardReading: ...

    def turn_still(self, frame: np.ndarray) -> Still: ...

    def arrivals(self, frame: np.ndarray, before: Still) -> int: ...


class Watcher(Protocol):
    """Whoever follows the loop from outside (the console): told about each frame once it is judged.
    Called in the loop's thread, so it must return at once."""

    def stepped(self, frame: Frame, observation: Observation, says: Sequence[Say]) -> None: ...


# Something to do in the loop's thread before a frame is observed, given the frame's time: a press from
# another thread (the console), or a change of settings between matches. What it returns is said.
Action = Callable[[float], Sequence[Say]]


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


class Sight(Protocol):
    """Whether the camera still looks at the board as calibrated (``vision.alignment.FieldEdges``)."""

    def moved(self, frame: np.ndarray) -> bool | None: ...


class Pipeline:
    """One frame to one :class:`Observation`: the settle gate, then the board and dice reader.

    The gate watches the camera's small greyscale stream where it has one (``Frame.lores``), else the
    frame itself. With a ``sight``, a settled frame whose field edges no longer sit where the profile has
    them is not read at all (:attr:`moved` says so): a moved camera would read every point wrong.
    """

    def __init__(self, reader: Reader, still_frames: int = SETTLE_FRAMES, sight: Sight | None = None) -> None:
        from vision.settle import SettleGate

        self.reader = reader
        self.gate = SettleGate(still_frames=still_frames)
        # the settled frame the turn began with, and the board confirmed then: only what arrived since
        # can be a die (``vision.arrivals``); until the first such frame, the calibration's still
        self.before: Still | None = None
        self._before_board: ImageLayout | None = None
        self.sight = sight
        self.moved = False

    def observe(
        self, frame: Frame, expected: ImageLayout | None = None, *, throwing: bool = True
    ) -> Observation:
        """``expected`` is the board the referee has confirmed (which checkers a die may rest on).

        The turn's still frame says what arrived since the turn began. It shows the board of the frame
        only while the referee waits for a throw (``throwing``) on the board it was taken on: once the
        play begins checkers move, and a checker on a point that was empty (or on the bar) is a new
        object the size of a die, not a die."""
        image = frame.image
        if not self.gate.update(frame.lores if frame.lores is not None else image):
            return Observation(frame.timestamp, None, index=frame.index)
        self.moved = bool(self.sight is not None and self.sight.moved(image))
        if self.moved:
            return Observation(frame.timestamp, None, index=frame.index)
        same = throwing and expected == self._before_board
        reading = self.reader.read(image, expected=expected, before=self.before, same_board=same)
        return Observation(
            frame.timestamp,
            reading,
            lambda: self.evidence(image),
            frame.index,
            lambda dice: die_crops(image, dice),
        )

    def awaiting_throw(self, frame: Frame, observation: Observation, expected: ImageLayout) -> None:
        """A settled frame while the referee waits for a throw: with no dice on it and nothing over the
        board it is the turn's still frame, unless something die-sized arrived since the last one on
        the same board (a throw the reader did not make out must not become the table's furniture)."""
        reading = observation.reading
        if reading is None or reading.dice or reading.occluded:
            return
        if (
            self.before is not None
            and expected == self._before_board
            and self.reader.arrivals(frame.image, self.before)
        ):
            return
        self.before = self.reader.turn_still(frame.image)
        self._before_board = expected

    def evidence(self, image: np.ndarray) -> bytes | None:
        """The rectified frame as JPEG: what the referee looked at when it called the play (a photograph
        for people settling a dispute, so lossless PNG would only fill the record)."""
        import cv2

        warped = self.reader.rectifier.warp(image)
        ok, jpeg = cv2.imencode(".jpg", warped, [cv2.IMWRITE_JPEG_QUALITY, EVIDENCE_QUALITY])
        return jpeg.tobytes() if ok else None


def die_crops(image: np.ndarray, dice: Sequence[DieReading]) -> list[bytes | None]:
    """Each die cut out of ``image`` as the reader is taught it (``vision.dice_model.taught_crop``), a
    PNG (lossless: it is training data); None where it cannot be encoded."""
    import cv2

    from vision.dice_model import taught_crop

    out: list[bytes | None] = []
    for d in dice:
        x0, _, x1, _ = d.box
        ok, png = cv2.imencode(".png", taught_crop(image, d.center[0], d.center[1], x1 - x0))
        out.append(png.tobytes() if ok else None)
    return out


class FrameLoop:
    """Feeds frames to the session and tells the table what it says (see the module doc).

    ``presses`` are recorded button presses (:func:`read_buttons`) replayed at their times; buttons
    pressed on ``signals`` (its thread, or the console's keys) and actions handed to :meth:`submit` are
    taken between frames. :attr:`said` holds what the table was told about the last frame, presses
    included; each of ``watchers`` is told it too.
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
        watchers: Sequence[Watcher] = (),
    ) -> None:
        self.pipeline = pipeline
        self.session = session
        self.signals = signals
        self.out = out
        self.players = players
        self.watchers = list(watchers)
        self.said: list[Say] = []
        self.showing: Say | None = None  # the last signal the table was shown (with its words)
        self.observed: Observation | None = None  # the last frame's observation
        self._recorded = sorted(presses, key=lambda p: p[0])
        self._pressed: queue.Queue[Button | Action] = queue.Queue()
        signals.on_button(self._pressed.put)

    def step(self, frame: Frame) -> list[Say]:
        """One frame: what the table is told about it."""
        t = frame.timestamp
        says: list[Say] = []
        for button in self._presses(t):
            says += self._press(button, t)
        expected = self.session.expected
        observation = self.pipeline.observe(frame, expected, throwing=self.session.awaiting_throw)
        if self.session.awaiting_throw:
            self.pipeline.awaiting_throw(frame, observation, expected)
        self.observed = observation
        heard = self.session.observe(observation)
        self._show(heard)
        says += heard
        if self.players is not None:
            for button in self.players.after(frame, observation, says):
                says += self._press(button, t)
        self.said = says
        for watcher in self.watchers:
            watcher.stepped(frame, observation, says)
        return says

    def submit(self, action: Action) -> None:
        """Runs ``action(t)`` in the loop's thread before the next frame is observed, and tells the table
        what it returns, as for a button. Safe to call from any thread."""
        self._pressed.put(action)

    def run(self, frames: Iterable[Frame]) -> int:
        """Every frame in turn until the source ends; returns the number of frames."""
        n = 0
        for frame in frames:
            self.step(frame)
            n += 1
        return n

    def _presses(self, t: float) -> list[Button | Action]:
        buttons: list[Button | Action] = []
        while True:
            try:
                buttons.append(self._pressed.get_nowait())
            except queue.Empty:
                break
        while self._recorded and self._recorded[0][0] <= t + 1e-6:
            buttons.append(self._recorded.pop(0)[1])
        return buttons

    def _press(self, button: Button | Action, t: float) -> list[Say]:
        says = self.session.press(button, t) if isinstance(button, Button) else list(button(t))
        self._show(says)
        return says

    def tell(self, says: Sequence[Say]) -> None:
        """Tells the table what is not the session's to say (the camera is away, the record is full);
        :attr:`showing` keeps the session's last signal, to show again once that has passed."""
        self._show(says, remember=False)

    def _show(self, says: Sequence[Say], remember: bool = True) -> None:
        """Words to the console, then the signal to the table."""
        for say in says:
            print(f"  {say.text}", file=self.out or sys.stdout, flush=True)
            if say.signal is not None:
                winner = say.winner.value if say.winner else None
                self.signals.show(say.signal, winner=winner, points=say.points)
                if remember:
                    self.showing = say
