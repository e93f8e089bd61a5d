"""`referee teach --replay` over the real match transcripts, with a virtual board that makes every play.

    python -m bench.teach                  # every game of the 320 transcripts of ../shared/data/real-matches
    python -m bench.teach --matches 4 --jobs 1

Each game of each transcript is replayed as a lesson (:class:`referee.lesson.Replay`) through the
referee's own frame loop: the virtual teacher sets up the first position, and on each announcement makes
the play on the virtual table (:mod:`synthetic.table`: a hand over the board, then the board after the
play, rendered at 10 fps with sensor noise and the room's light drifting), read by the real board reader.
A still picture is rendered and read once (its repeated frames are the same picture). When the referee
asks (amber: it cannot see well enough), the teacher confirms the play was made (ACCEPT), as a teacher
at a table would. When the referee gives no word within the wait, the bench counts a *stall* and starts
the lesson again from the next play.

Figures: steps checked (made, seen by the camera or confirmed when asked; target every one), false "not
made" (the referee calls a play not made while the board shows it made; target 0), stalls, and the
median stream time from the board settling to "made".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields
from pathlib import Path

from bench.e2e import SameFrameReader
from bench.e2e import Tally as E2ETally
from bgboard.layout import Board
from calibration.learn import calibrate
from hardware.console_signals import ConsoleSignals
from hardware.frames import Frame
from hardware.signals import Button, Signal
from referee.lesson import Replay
from referee.loop import FrameLoop, Pipeline
from referee.notation.matfile import parse_mat
from referee.rules_options import RuleOptions
from referee.session import Observation, Say, Session, SessionOptions, Stage
from referee.steps import Step, StepKind, steps
from referee.variations import TableSetup, Variation
from synthetic.table import HandAt, Shot, VirtualTable
from vision.board_reader import BoardReader

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "real-matches"
WAIT = 30  # frames the teacher waits for the referee's word on a play (3 s)


@dataclass
class Tally:
    games: int = 0
    plays: int = 0  # plays the lessons asked for (every one made on the virtual board)
    made: int = 0  # seen made by the camera
    asked: int = 0  # the referee asked (amber), the teacher confirmed
    false_not_made: int = 0  # "not made" said while the board showed the play made
    stalls: int = 0  # no word within the wait: the lesson restarts from the next play
    setup_stalls: int = 0  # the starting position was never recognised
    ends: Counter = field(default_factory=Counter)  # how the lessons ended
    latency: list[float] = field(default_factory=list)  # board settled -> "made", stream seconds
    frames: int = 0
    reads: int = 0
    cpu: float = 0.0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))


class Teacher:
    """A virtual board and the teacher who makes each announced play on it (the loop's players hook)."""

    def __init__(self, seed: int, noise: float, drift: float) -> None:
        self.table = VirtualTable(noise=noise, light_drift=drift, seed=seed)
        start = self.table.calibration_frame()
        corners = [(float(x), float(y)) for x, y in start.field_quad]
        self.profile = calibrate(start.image, corners, start=True)
        self.tally = Tally()
        self._reads = E2ETally()
        self.reader = SameFrameReader(BoardReader(self.profile), self._reads)
        self._quiet = open(os.devnull, "w")  # noqa: SIM115 - the bench's table speaks to nobody
        signals = ConsoleSignals(self._quiet)
        self.loop = FrameLoop(
            Pipeline(self.reader), self.new_session(), signals, out=self._quiet, players=self
        )
        self.index = 0
        self.shot_index = 0
        self.heard: list[Say] = []

    def new_session(self, lesson: Replay | None = None) -> Session:
        """A referee starting afresh with ``lesson`` (a new settle gate too)."""
        options = SessionOptions(
            self.profile.orientation, RuleOptions(cubeless=True), table=TableSetup(Variation.LESSON)
        )
        session = Session(options)
        session.lesson = lesson
        if hasattr(self, "loop"):
            self.loop.session, self.loop.pipeline = session, Pipeline(self.reader)
        return session

    @property
    def lesson(self) -> Replay:
        lesson = self.loop.session.lesson
        assert isinstance(lesson, Replay)
        return lesson

    def after(self, frame: Frame, observation: Observation, says: Sequence[Say]) -> Sequence[Button]:
        """Asked whether the play is made (amber), the teacher, who made it, confirms."""
        if any(s.signal is Signal.CANNOT_SEE for s in says) and self.lesson.asked:
            self.tally.asked += 1
            return (Button.ACCEPT,)
        return ()

    def show(
        self, board: Board, hand: bool, frames: int, until: Callable[[], bool] | None = None
    ) -> Generator[Frame, None, float | None]:
        """``frames`` frames of ``board`` (with a hand over it: a picture each frame); with ``until``, on
        until it holds (at most WAIT frames more). Returns the stream time of the frame after which it
        held (None if it never did); :attr:`heard` holds what the referee said."""
        shot = Shot(board, hands=(HandAt(0.5, 0.6),) if hand else ())
        still: Frame | None = None
        self.heard = []
        k = 0
        while k < frames or (until is not None and k < frames + WAIT):
            if still is None or hand:
                frame = still = self.table.frame(shot, k, self.shot_index, self.index)
            else:
                frame = Frame(still.image, self.index / self.table.fps, self.index)
            self.index += 1
            self.tally.frames += 1
            k += 1
            yield frame
            self.heard += self.loop.said
            if until is not None and until():
                self.shot_index += 1
                return frame.timestamp
        self.shot_index += 1
        return None

    def game(self, found: list[Step], name: str) -> Generator[Frame, None, None]:
        """One game's lesson: the teacher sets up the board and makes every play."""
        self.tally.games += 1
        lesson = Replay(found, name)
        self.new_session(lesson)
        while True:
            began = yield from self.show(
                lesson.board, False, 4, until=lambda: self.loop.session.stage is Stage.LESSON
            )
            if began is None:
                self.tally.setup_stalls += 1
                self.tally.misses.append(f"{name}: the position to begin from was never recognised")
                return
            while not lesson.done:
                at, step = lesson.at, lesson.step
                self.tally.plays += 1
                asked = self.tally.asked
                yield from self.show(step.after, True, 1)
                settled = self.index / self.table.fps
                made = yield from self.show(step.after, False, 4, until=past(lesson, at))
                told = [s.text for s in self.heard if s.signal is Signal.ILLEGAL]
                if told:
                    self.tally.false_not_made += len(told)
                    self.tally.misses.append(f"{name} play {step.number}: {told[0]}")
                if made is None:
                    break
                if self.tally.asked == asked:
                    self.tally.made += 1
                    self.tally.latency.append(made - settled)
            if lesson.done:
                end = lesson.step
                self.tally.ends["won" if end.result else end.text.split(":")[0]] += 1
                return
            # no word on the play: a stall; the lesson starts again from the next play
            self.tally.stalls += 1
            self.tally.misses.append(f"{name} play {lesson.step.number}: no word on {lesson.step.text}")
            rest = lesson.steps[lesson.at + 1 :]
            if not any(s.kind is StepKind.PLAY for s in rest):
                self.tally.ends["stalled at the last play"] += 1
                return
            lesson = Replay(rest, name)
            self.new_session(lesson)


def past(lesson: Replay, at: int) -> Callable[[], bool]:
    """Whether ``lesson`` has gone past step index ``at``."""
    return lambda: lesson.at != at or lesson.done


def lessons(files: Sequence[Path]) -> Iterator[tuple[list[Step], str]]:
    for path in files:
        record = parse_mat(path.read_text(encoding="utf-8"))
        for number in range(1, len(record.games) + 1):
            found = steps(record, number)
            if any(s.kind is StepKind.PLAY for s in found):
                yield found, f"{path.name} game {number}"


def run_lessons(files: Sequence[Path], seed: int, noise: float, drift: float, worker: int = 0) -> Tally:
    """Every game of ``files`` as a lesson at one virtual table (one process)."""
    teacher = Teacher(seed, noise, drift)
    began, cpu = time.perf_counter(), time.process_time()

    def frames() -> Iterator[Frame]:
        for n, (found, name) in enumerate(lessons(files), start=1):
            yield from teacher.game(found, name)
            t = teacher.tally
            if n % 20 == 0:
                print(
                    f"[{worker}] {n} games, {t.plays} plays, {t.frames} frames, "
                    f"{(time.perf_counter() - began) / t.plays * 1e3:.0f} ms a play",
                    flush=True,
                )

    teacher.loop.run(frames())
    teacher.tally.reads = teacher._reads.reads
    teacher.tally.cpu = time.process_time() - cpu
    return teacher.tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=None, help="transcripts to replay (default all)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--noise", type=float, default=0.004)
    parser.add_argument("--drift", type=float, default=0.03, help="the room's light drifts by this much")
    parser.add_argument("--json", type=Path, help="write the tally to this file as JSON")
    args = parser.parse_args(argv)
    if not REAL.is_dir():
        print(f"real matches: {REAL} is missing (../shared beside the clone), skipped")
        return 0
    files = sorted(REAL.rglob("*.txt"))[: args.matches]
    if not files or args.jobs < 1:
        parser.error("--matches and --jobs must be at least 1")
    began = time.perf_counter()
    jobs = min(args.jobs, len(files))
    if jobs == 1:
        tallies = [run_lessons(files, args.seed, args.noise, args.drift)]
    else:
        with ProcessPoolExecutor(jobs) as pool:
            runs = [
                pool.submit(run_lessons, files[j::jobs], args.seed + 1000 * j, args.noise, args.drift, j)
                for j in range(jobs)
            ]
            tallies = [r.result() for r in runs]
    t = Tally()
    for one in tallies:
        t.add(one)
    seconds = time.perf_counter() - began
    checked = t.made + t.asked
    lines = [
        f"{len(files)} transcripts, {t.games} games, {t.plays} plays made on the virtual board; "
        f"{t.frames} frames ({t.frames / 10:.0f} s at the table; {t.reads} read), {seconds:.0f} s to run "
        f"with {jobs} process(es): {t.cpu / max(t.plays, 1) * 1e3:.0f} ms of CPU a play",
        f"plays checked: {checked}/{t.plays} (target every one): {t.made} seen made, {t.asked} confirmed "
        "when the referee asked",
        f'false "not made": {t.false_not_made} (target 0)',
        f"stalls (no word within {WAIT / 10:.0f} s): {t.stalls}; positions to begin from never recognised: "
        f"{t.setup_stalls}",
        f"lessons ended: {dict(t.ends)}",
    ]
    if t.latency:
        lines.append(
            f"board settled -> made: median {statistics.median(t.latency):.2f} s of stream time, "
            f"n={len(t.latency)}"
        )
    print("\n" + "\n".join(lines))
    for miss in t.misses[:40]:
        print("missed:", miss)
    if args.json is not None:
        summary = {f.name: getattr(t, f.name) for f in fields(t) if f.name != "latency"}
        args.json.write_text(json.dumps(summary, indent=1, default=dict), encoding="utf-8")
    return 1 if t.false_not_made or checked < t.plays or t.setup_stalls else 0


if __name__ == "__main__":
    raise SystemExit(main())
