"""``referee demo``: a whole game refereed at a virtual table, through the frame loop ``referee run`` uses.

Frames are rendered by the renderer, read by the calibrated board and dice readers, judged by the
session, and shown with the console stand-in for the table's lights and buzzer. No camera, no GPIO.
The virtual players wait for the referee's light and press the console's buttons as players would.

    $ referee demo --save-frames demo-frames --video demo.mp4
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from hardware.signals import Button, Signal
from referee.cli import CommandError

if TYPE_CHECKING:  # the pipeline (numpy, OpenCV) loads only when the demo runs, not for `referee legal`
    from collections.abc import Iterator, Sequence

    from hardware.console_signals import ConsoleSignals
    from hardware.frames import Frame
    from referee.loop import FrameLoop
    from referee.session import Observation, Say, Session
    from synthetic.table import Shot, VirtualTable

DEMO_RULES = {"cubeless": True}  # the three-point house match
WAIT_FRAMES = 30  # how long the virtual players wait for an expected signal (3 s at 10 fps)
# JPEG quality of saved frames: the raw ones are read by the referee (at 92 a die's pips blur enough
# that the dice reader asks about a throw), the annotated ones only by people
FRAME_QUALITY = 97
ANNOTATED_QUALITY = 85


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "demo",
        help="referee a scripted game at a virtual table (no camera needed)",
        description="Plays a whole game at a virtual table through the real pipeline: rendered frames, "
        "the board and dice readers, the session, console lights and tones. Under a minute.",
    )
    p.add_argument(
        "--record", type=Path, help="the SQLite record to write (default: in a new temporary folder)"
    )
    p.add_argument(
        "--mat", type=Path, help="where to write the game as a .mat file (default: beside the record)"
    )
    p.add_argument(
        "--save-frames",
        type=Path,
        metavar="DIR",
        help="save the frames: DIR/frames (raw, with timestamps.txt, replayable with `referee run`) and "
        "DIR/annotated; also writes DIR/profile.json and DIR/replay.toml",
    )
    p.add_argument(
        "--video", type=Path, metavar="FILE", help="save the annotated frames as a video (.mp4 or .avi)"
    )
    p.add_argument("--turns", type=int, default=None, help="stop the scripted game after this many turns")
    p.set_defaults(run=run)


@dataclass
class DemoResult:
    """What happened: the signals in order, which expected ones were missed, where the record is."""

    signals: list[Signal] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    says: list[Say] = field(default_factory=list)
    record: Path | None = None
    mat: Path | None = None
    frames: int = 0
    seconds: float = 0.0
    confirmed: int = 0  # plays the referee asked about and the players confirmed


def run(args: argparse.Namespace) -> int:
    if args.turns is not None and args.turns < 1:
        raise CommandError("--turns must be at least 1")
    if args.video is not None and args.video.suffix.lower() not in (".mp4", ".avi"):
        raise CommandError(f"--video {args.video}: name a .mp4 or .avi file")
    record = args.record or Path(tempfile.mkdtemp(prefix="referee-demo-")) / "referee-demo.sqlite"
    if record.exists():
        raise CommandError(f"{record} already exists: the demo writes a new record; name another file")
    # everything the demo writes is checked before the game, not found unwritable after it
    for what, path in (("--mat", args.mat), ("--save-frames", args.save_frames), ("--video", args.video)):
        if path is not None and not _writable_folder(path.parent):
            raise CommandError(f"{what} {path}: cannot write in {path.parent or '.'}; name a writable folder")
    from referee.journal import Journal, JournalError
    from synthetic.demo_game import demo_game

    try:
        Journal(record).close()
    except JournalError as e:
        raise CommandError(str(e)) from None

    result = run_demo(
        record,
        shots=demo_game(turns=args.turns),
        save_frames=args.save_frames,
        video=args.video,
        mat=args.mat,
    )
    return 0 if not result.missed else 1


def _writable_folder(folder: Path) -> bool:
    """Whether files can be made in ``folder`` (or in the nearest folder above it that exists)."""
    folder = folder.resolve()
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def run_demo(
    record: Path,
    *,
    shots: list[Shot] | None = None,
    out: TextIO | None = None,
    save_frames: Path | None = None,
    video: Path | None = None,
    mat: Path | None = None,
    seed: int = 0,
) -> DemoResult:
    """Plays ``shots`` (the scripted demo game by default) and returns what the referee did."""
    from calibration.learn import calibrate
    from hardware.console_signals import ConsoleSignals
    from referee.journal import Journal
    from referee.loop import FrameLoop, Pipeline
    from referee.rules_options import RuleOptions
    from referee.session import Session, SessionOptions
    from synthetic.demo_game import demo_game
    from synthetic.table import VirtualTable
    from vision.board_reader import BoardReader
    from vision.profile import Profile

    out = out or sys.stdout
    began = time.perf_counter()
    table = VirtualTable(seed=seed)
    print("referee demo: a virtual table, a rendered camera, the real readers and rules", file=out)
    start = table.calibration_frame()
    corners = [(float(x), float(y)) for x, y in start.field_quad]
    profile = calibrate(start.image, corners, start=True, source="demo start frame")
    profile = Profile.from_json(profile.to_json())  # exactly what a saved profile gives `referee run`
    print(f"calibrated on the starting position: light's home is {profile.orientation.value}", file=out)
    for note in profile.notes:
        print(f"  calibration note: {note}", file=out)
    result = DemoResult(record=record)
    journal = Journal(record)
    options = SessionOptions(
        profile.orientation, RuleOptions.from_mapping(DEMO_RULES), match_length=3, unclear_after=0.5
    )
    session = Session(options, journal)
    signals = ConsoleSignals(out)
    writer = _FrameWriter(save_frames, video, profile) if (save_frames or video) else None
    if writer:
        signals.on_button(writer.pressed)
    players = _Players(session, signals, out)
    loop = FrameLoop(Pipeline(BoardReader(profile)), session, signals, out=out, players=players)
    shown = shots if shots is not None else demo_game()
    loop.run(_frames(table, shown, loop, players, result, writer, out))
    if writer:
        writer.close()
    _write_mat(journal, session, mat or record.with_suffix(".mat"), result, out)
    journal.close()
    result.seconds = time.perf_counter() - began
    print(f"record: {record}", file=out)
    if result.mat:
        print(f"match file (gnubg: import mat): {result.mat}", file=out)
    if save_frames:
        print(
            f"frames: {save_frames}/frames (replay: referee run --config {save_frames}/replay.toml)", file=out
        )
    verdict = (
        "every expected signal was given" if not result.missed else f"MISSED: {', '.join(result.missed)}"
    )
    table_time = result.frames / table.fps
    print(
        f"{result.frames} frames ({table_time:.1f} s at the table) in {result.seconds:.1f} s; {verdict}",
        file=out,
    )
    return result


class _Players:
    """The demo's players, through the loop's hook: when the referee asks about the play they made, they
    confirm it with the table's ACCEPT button (handed to the referee with the next frame)."""

    def __init__(self, session: Session, signals: ConsoleSignals, out: TextIO) -> None:
        self.session = session
        self.signals = signals
        self.out = out
        self.shot: Shot | None = None
        self.settled = False  # the last frame was read (the board was still)
        self.confirmed = 0

    def after(self, frame: Frame, observation: Observation, says: Sequence[Say]) -> Sequence[Button]:
        self.settled = observation.reading is not None
        if (
            self.shot is not None
            and self.session.question is not None
            and self.session.question == self.shot.board
        ):
            print("-- the players confirm: they press ACCEPT", file=self.out)
            self.signals.press(Button.ACCEPT)
            self.confirmed += 1
        return ()


def _frames(
    table: VirtualTable,
    shots: list[Shot],
    loop: FrameLoop,
    players: _Players,
    result: DemoResult,
    writer: _FrameWriter | None,
    out: TextIO,
) -> Iterator[Frame]:
    """The frames of the shots, each shot kept on the table until the signal it expects (players wait for
    the referee's light; once the referee is out of step with the script, waiting is of no use)."""
    index = 0
    misses_in_a_row = 0
    for shot_index, shot in enumerate(shots):
        if shot.caption:
            print(f"-- {shot.caption}", file=out, flush=True)
        players.shot = shot
        seen = False
        k = 0
        wait = WAIT_FRAMES if misses_in_a_row < 2 else 0
        while k < shot.frames or (shot.expect and not seen and k < shot.frames + wait):
            frame = table.frame(shot, min(k, shot.frames - 1), shot_index, index)
            if writer:
                frame = writer.as_saved(frame)  # the referee judges the very frame a replay reads
            yield frame
            says = loop.said
            result.says += says
            for say in says:
                if say.signal:
                    result.signals.append(say.signal)
                    seen = seen or say.signal is shot.expect
            if writer:
                writer.add(frame, shot.caption, players.settled, says)
            result.frames += 1
            index += 1
            k += 1
        if shot.expect and not seen:
            result.missed.append(f"{shot.expect.name} at '{shot.caption}'")
            print(f"  (the demo expected {shot.expect.name} here)", file=out)
            misses_in_a_row += 1
        elif shot.expect:
            misses_in_a_row = 0
    result.confirmed = players.confirmed


def _write_mat(journal: Any, session: Session, path: Path, result: DemoResult, out: TextIO) -> None:
    if session.match_id is None:
        return
    from referee.export import ExportError, write_match_mat

    try:
        path.write_text(write_match_mat(journal, session.match_id))
        result.mat = path
    except ExportError as e:
        print(f"  no .mat written: {e}", file=out)
    except OSError as e:
        print(f"  no .mat written: cannot write {path}: {e.strerror or e}", file=out)


class _FrameWriter:
    """Raw frames for replay, annotated frames for people, and a video."""

    COLOURS = {
        Signal.READY: (60, 200, 60),
        Signal.ROLL_OK: (60, 200, 60),
        Signal.REROLL: (0, 170, 255),
        Signal.CANNOT_SEE: (0, 170, 255),
        Signal.ILLEGAL: (40, 40, 230),
        Signal.GAME_OVER: (230, 180, 40),
    }

    def __init__(self, folder: Path | None, video: Path | None, profile: Any) -> None:
        self.folder = folder
        self.jpeg = b""  # the frame in hand as saved
        self.video_path = video
        self.video: Any = None
        self.times: list[str] = []
        self.buttons: list[str] = []
        self.pending: list[Button] = []  # pressed while this frame was judged
        self.handed: list[Button] = []  # pressed while the last frame was judged
        self.banner = ("", (200, 200, 200))
        if folder is not None:
            (folder / "frames").mkdir(parents=True, exist_ok=True)
            (folder / "annotated").mkdir(parents=True, exist_ok=True)
            profile.save(folder / "profile.json")
            (folder / "replay.toml").write_text(_replay_config(folder))

    def as_saved(self, frame: Frame) -> Frame:
        """The frame as its JPEG file gives it back (a replay then reads exactly what the demo judged)."""
        import cv2

        from hardware.frames import Frame

        ok, data = cv2.imencode(".jpg", frame.image, [cv2.IMWRITE_JPEG_QUALITY, FRAME_QUALITY])
        if not ok:
            return frame
        self.jpeg = data.tobytes()
        image = cv2.imdecode(data, cv2.IMREAD_COLOR)
        return frame if image is None else Frame(image, frame.timestamp, frame.index, frame.lores)

    def add(self, frame: Frame, caption: str, settled: bool, says: Sequence[Say]) -> None:
        import cv2

        if self.folder is not None:
            name = f"frame_{frame.index:05d}.jpg"
            (self.folder / "frames" / name).write_bytes(self.jpeg)
            self.times.append(f"{name} {frame.timestamp:.3f}")
        # presses of the last frame were handed to the referee with this one: recorded with its time
        self.buttons += [f"{frame.timestamp:.3f} {b.name}" for b in self.handed]
        self.handed, self.pending = self.pending, []
        for say in says:
            if say.signal:
                self.banner = (
                    f"{say.signal.name}: {say.text}",
                    self.COLOURS.get(say.signal, (200, 200, 200)),
                )
        img = frame.image.copy()
        h, w = img.shape[:2]
        cv2.rectangle(img, (0, 0), (w, 58), (30, 30, 30), -1)
        cv2.putText(
            img,
            f"{frame.timestamp:5.1f}s  {caption}"[:110],
            (10, 22),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.6,
            (255, 255, 255),
            1,
            cv2.LINE_AA,
        )
        text, colour = self.banner
        cv2.putText(img, text[:120], (10, 48), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour, 1, cv2.LINE_AA)
        cv2.circle(img, (w - 20, 20), 9, (60, 200, 60) if settled else (0, 170, 255), -1)
        if self.folder is not None:
            path = self.folder / "annotated" / f"frame_{frame.index:05d}.jpg"
            cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, ANNOTATED_QUALITY])
        if self.video_path is not None:
            if self.video is None:
                fourcc = cv2.VideoWriter.fourcc(
                    *("mp4v" if self.video_path.suffix.lower() == ".mp4" else "MJPG")
                )
                self.video = cv2.VideoWriter(str(self.video_path), fourcc, 10.0, (w, h))
            self.video.write(img)

    def pressed(self, button: Button) -> None:
        """A button pressed at the table: handed to the referee with the next frame and recorded with it."""
        self.pending.append(button)

    def close(self) -> None:
        if self.folder is not None:
            (self.folder / "frames" / "timestamps.txt").write_text("\n".join(self.times) + "\n")
            if self.buttons:
                from referee.loop import BUTTONS_FILE

                (self.folder / "frames" / BUTTONS_FILE).write_text("\n".join(self.buttons) + "\n")
        if self.video is not None:
            self.video.release()


def _replay_config(folder: Path) -> str:
    return (
        "# Replays the demo's frames through `referee run`: the same decisions as the demo made.\n"
        "[camera]\n"
        f'source = "replay:{(folder / "frames").resolve()}"\n\n'
        "[signals]\n"
        'output = "console"\n\n'
        "[referee]\n"
        f'profile = "{(folder / "profile.json").resolve()}"\n'
        f'record = "{(folder / "replay.sqlite").resolve()}"\n'
        "match_length = 3\n"
        "settle_frames = 2\n"
        "unclear_after = 0.5\n\n"
        "[rules]\n"
        "cubeless = true\n"
    )
