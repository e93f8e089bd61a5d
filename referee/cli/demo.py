"""``referee demo``: a whole game refereed at a virtual table, through the frame loop ``referee run`` uses.

Frames are rendered by the renderer, read by the calibrated board and dice readers, judged by the
session, and shown with the console stand-in for the table's lights and buzzer. No camera, no GPIO.
The virtual players wait for the referee's light and press the console's buttons as players would.
``--variant`` plays the same game as a house variation or tournament policy, or as a lesson
(:mod:`synthetic.variant_games`): ``pairs``, ``coaching``, ``monitor``, ``teach``.

    $ referee demo --save-frames demo-frames --video demo.mp4
    $ referee demo --variant teach
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
from referee.cli.with_console import PIN_VARIABLE, add_console_argument, at_table_speed, start_console
from referee.rules_options import RuleOptions
from referee.variations import TableSetup, Variation

if TYPE_CHECKING:  # the pipeline (numpy, OpenCV) loads only when the demo runs, not for `referee legal`
    from collections.abc import Iterator, Sequence

    from hardware.console_signals import ConsoleSignals
    from hardware.frames import Frame
    from referee.console.address import ConsoleAddress
    from referee.lesson import Lesson
    from referee.loop import FrameLoop
    from referee.session import Observation, Say, Session
    from synthetic.table import Shot, VirtualTable

DEMO_RULES = {"cubeless": True}  # the three-point house match
# The main thread wakes this often while the console serves on: a Ctrl-C the kernel hands another thread
# reaches Python's handler, which runs in the main thread, only when that thread next runs.
HEARS_CTRL_C = 0.2  # seconds
WAIT_FRAMES = 30  # how long the virtual players wait for an expected signal (3 s at 10 fps)
VARIANTS = ("pairs", "coaching", "teach", "monitor")
PAIRS = TableSetup(Variation.PAIRS, ("Ann", "Bo"), ("Cy", "Di"))
LESSON_TO = 4  # the teaching demo replays the demo game's first plays ...
LESSON_POSITION = 5  # ... then sets up the position before this play, its roll given
# JPEG quality of saved frames: the raw ones are read by the referee (at 92 a die's pips blur enough
# that the dice reader asks about a throw), the annotated ones only by people
FRAME_QUALITY = 97
ANNOTATED_QUALITY = 85


@dataclass
class Part:
    """Shots of the virtual table; the buttons pressed on the first frame of some (by shot index); the
    lesson the session starts the part with (NEW_GAME pressed first when it is not the first part)."""

    shots: list[Shot]
    cues: dict[int, Button] = field(default_factory=dict)
    lesson: Lesson | None = None


@dataclass
class Plan:
    """What the demo plays: the table's rules and players, and the parts."""

    parts: list[Part]
    rules: RuleOptions = field(default_factory=lambda: RuleOptions.from_mapping(DEMO_RULES))
    match_length: int | None = 3
    table: TableSetup = field(default_factory=TableSetup)


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
    p.add_argument(
        "--variant",
        choices=VARIANTS,
        help="pairs: two pairs, the movers named and swapped; coaching: hints on HINT, practice; "
        "monitor: a tournament without a monitor, the illegal play told when asked; teach: a recorded "
        "game replayed on the board, then a position set up",
    )
    add_console_argument(
        p,
        more=f"; the game is then played at table speed and served until Ctrl-C (the PIN for actions: the "
        f"environment variable {PIN_VARIABLE})",
    )
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
    if args.record is not None and args.record.exists():
        raise CommandError(f"{args.record} already exists: the demo writes a new record; name another file")
    if args.variant == "teach" and args.turns is not None:
        raise CommandError("--turns cuts a scripted game short; the teaching demo is a lesson of its own")
    pin = os.environ.get(PIN_VARIABLE) or None
    if pin is not None:
        from referee.console.guard import PinError, check_pin

        try:
            check_pin(pin)
        except PinError as e:
            raise CommandError(f"{PIN_VARIABLE}: {e}") from None
    # everything the demo writes is checked before the game, not found unwritable after it
    for what, path in (("--mat", args.mat), ("--save-frames", args.save_frames), ("--video", args.video)):
        if path is not None and not _writable_folder(path.parent):
            raise CommandError(f"{what} {path}: cannot write in {path.parent or '.'}; name a writable folder")
    from referee.journal import Journal, JournalError

    # the temporary folder is made only for a command line that passed every check: a refused one
    # leaves nothing behind
    try:
        record = args.record or Path(tempfile.mkdtemp(prefix="referee-demo-")) / "referee-demo.sqlite"
    except OSError as e:
        where = tempfile.gettempdir()
        raise CommandError(
            f"cannot make a folder for the record in {where} ({e.strerror}); name a record with --record"
        ) from None
    try:
        Journal(record).close()
    except JournalError as e:
        raise CommandError(str(e)) from None

    result = run_demo(
        record,
        plan=plan(args.variant, args.turns),
        save_frames=args.save_frames,
        video=args.video,
        mat=args.mat,
        console=args.console,
        pin=pin,
    )
    return 0 if not result.missed else 1


def plan(variant: str | None, turns: int | None = None) -> Plan:
    """What ``referee demo --variant`` plays (the plain demo for None)."""
    from synthetic import variant_games
    from synthetic.demo_game import demo_game

    if variant is None:
        return Plan([Part(demo_game(turns=turns))])
    if variant == "pairs":
        return Plan([Part(demo_game(turns=turns))], match_length=None, table=PAIRS)
    if variant in ("coaching", "monitor"):
        script = getattr(variant_games, f"{variant}_game")(turns=turns)
        if variant == "coaching":
            return Plan(
                [Part(script.shots, script.cues)], match_length=None, table=TableSetup(Variation.COACHING)
            )
        rules = RuleOptions.from_mapping({**DEMO_RULES, "tournament_mode": True, "monitor": False})
        return Plan([Part(script.shots, script.cues)], rules=rules)
    return teach_plan()


def teach_plan() -> Plan:
    """The demo game's first plays replayed as a lesson, then a position of it set up with its roll."""
    from bgboard.layout import Board
    from referee.lesson import Replay, SetPosition
    from referee.steps import excerpt, position_at, steps
    from synthetic import variant_games
    from synthetic.players import choose

    record = variant_games.demo_record()
    replay = Replay(excerpt(steps(record, 1), 1, LESSON_TO), "the demo's game, its first plays")
    step = position_at(record, 1, LESSON_POSITION)
    assert step.mover is not None and step.dice is not None
    position = SetPosition(step.before, step.mover, step.dice)
    played = choose(step.before, step.mover, step.dice)
    after = Board.from_position(played.result, step.mover)
    shots = variant_games.position_shots(step.before, after, step.mover)
    parts = [Part(variant_games.lesson_shots(replay.steps), lesson=replay), Part(shots, lesson=position)]
    return Plan(parts, match_length=None, table=TableSetup(Variation.LESSON))


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
    plan: Plan | None = None,
    out: TextIO | None = None,
    save_frames: Path | None = None,
    video: Path | None = None,
    mat: Path | None = None,
    seed: int = 0,
    console: ConsoleAddress | None = None,
    pin: str | None = None,
    table_speed: bool | None = None,
    serve_after: bool = True,
) -> DemoResult:
    """Plays ``plan`` (or only ``shots`` with the demo's rules; the scripted demo game by default) and
    returns what the referee did.

    With ``console``, the game is served there and played at table speed (``table_speed``, which
    defaults to whether a console is served); once it is over the console keeps serving until Ctrl-C,
    unless ``serve_after`` is false.
    """
    from calibration.learn import calibrate
    from hardware.console_signals import ConsoleSignals
    from referee.journal import Journal
    from referee.loop import FrameLoop, Pipeline
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
    plan = plan or Plan([Part(shots if shots is not None else demo_game())])
    length, rules = plan.table.settle(plan.match_length, plan.rules)
    options = SessionOptions(
        profile.orientation, rules, match_length=length, unclear_after=0.5, table=plan.table
    )
    session = Session(options, journal)
    signals = ConsoleSignals(out)
    writer = _FrameWriter(save_frames, video, profile) if (save_frames or video) else None
    if writer:
        signals.on_button(writer.pressed)
    players = _Players(session, signals, out)
    loop = FrameLoop(Pipeline(BoardReader(profile)), session, signals, out=out, players=players)
    served = None
    if console is not None:
        warp = loop.pipeline.reader.rectifier.warp
        served = start_console(console, loop, pin=pin, record=record, warp=warp, out=out)
    try:
        for number, part in enumerate(plan.parts):
            if part.lesson is not None:
                if number:
                    signals.press(Button.NEW_GAME)  # a new lesson at the same table
                session.lesson = part.lesson
                print(f"-- the lesson: {part.lesson.instructions()}", file=out)
            players.cues = part.cues
            frames: Iterator[Frame] = _frames(table, part.shots, loop, players, result, writer, out)
            if table_speed or (table_speed is None and console is not None):
                frames = at_table_speed(frames)
            loop.run(frames)
        if writer:
            writer.close()
        _write_mat(journal, session, mat or record.with_suffix(".mat"), result, out)
        if served is not None and serve_after:
            _serve_until_interrupted(served, out)
    finally:
        if served is not None:
            served.stop()
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
        self.cues: dict[int, Button] = {}  # by shot index: pressed on the shot's first frame
        self.cue: Button | None = None

    def after(self, frame: Frame, observation: Observation, says: Sequence[Say]) -> Sequence[Button]:
        self.settled = observation.reading is not None
        if self.cue is not None:
            print(f"-- the players press {self.cue.name}", file=self.out)
            self.signals.press(self.cue)
            self.cue = None
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
    index = result.frames  # a later part goes on where the last ended
    misses_in_a_row = 0
    for shot_index, shot in enumerate(shots):
        if shot.caption:
            print(f"-- {shot.caption}", file=out, flush=True)
        players.shot = shot
        players.cue = players.cues.get(shot_index)
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


def _serve_until_interrupted(served: Any, out: TextIO) -> None:
    """After the game: the console goes on serving the record until Ctrl-C (SIGINT) ends the demo."""
    try:
        served.hub.end()
        print(
            f"the game is over; the console keeps serving at {served.url}: Ctrl-C to stop",
            file=out,
            flush=True,
        )
        while True:
            time.sleep(HEARS_CTRL_C)
    except KeyboardInterrupt:
        pass


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
