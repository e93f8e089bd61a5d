"""An evening at the table: `referee run` over hours of looped demo frames, and kill -9 mid-game.

    python -m bench.soak --hours 4 --kills 50        # (make bench runs it with these)
    python -m bench.soak --hours 0.5 --kills 5       # a quick look

The demo's game is recorded once (`referee demo --save-frames`). Then:

1. **Soak**: `referee run` (the real command, as the service runs it, with a notify socket) replays
   those frames looped for ``--hours`` of stream time, as fast as the machine goes: each loop is one
   more game (a match ends every second game and the next starting position starts the next match).
   Measured: resident memory when READY arrives, after the first game and at the end (target: growth
   under 20 MB); the record's size and its growth per hour of stream time; frames handed over against
   frames listed (none may be dropped); and every game's verdicts against the first game's (none may
   be missed).
2. **kill -9**: ``--kills`` times, one uninterrupted game's replay is killed at a random moment; the
   record is checked (the session it resumes stands at the position of the last recorded event), and
   `referee run` is started again on the frames after that event. Counted: restarts resuming at the
   recorded position, records keeping every event written before the kill, games finishing with the
   uninterrupted run's result, and with all its verdicts (a play made while the referee was down is
   not judged, so a kill during an illegal play leaves that verdict out).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REFEREE = str(Path(sys.executable).with_name("referee"))
VERDICTS = ("play", "illegal", "reroll", "result", "restored", "opening", "roll")
RSS_GROWTH_MB = 20.0  # the target


def record_demo(folder: Path) -> Path:
    """The demo's frames (frames/, profile.json), recorded once; returns the frames folder."""
    if not (folder / "frames" / "timestamps.txt").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(
            [REFEREE, "demo", "--record", str(folder / "demo.sqlite"), "--save-frames", str(folder)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return folder / "frames"


def frames_of(folder: Path) -> list[tuple[str, float]]:
    lines = (folder / "timestamps.txt").read_text().split("\n")
    return [(name, float(t)) for name, t in (line.split() for line in lines if line.strip())]


def presses_of(folder: Path) -> list[tuple[float, str]]:
    path = folder / "buttons.txt"
    if not path.is_file():
        return []
    return [
        (float(t), b) for t, b in (line.split() for line in path.read_text().splitlines() if line.strip())
    ]


def replay_folder(source: Path, target: Path, loops: int = 1, after: float = -math.inf) -> int:
    """A folder that replays ``source``'s frames ``loops`` times (later loops later in time), only those
    after ``after`` seconds; the images are links. Returns the number of frames listed."""
    frames, presses = frames_of(source), presses_of(source)
    period = frames[-1][1] - frames[0][1] + 0.1
    target.mkdir(parents=True)
    for name, _ in frames:
        (target / name).symlink_to(source / name)
    times, buttons = [], []
    for k in range(loops):
        times += [f"{name} {t + k * period:.3f}" for name, t in frames if t + k * period > after]
        buttons += [f"{t + k * period:.3f} {b}" for t, b in presses if t + k * period > after]
    (target / "timestamps.txt").write_text("\n".join(times) + "\n")
    if buttons:
        (target / "buttons.txt").write_text("\n".join(buttons) + "\n")
    return len(times)


def config(frames: Path, profile: Path, record: Path, path: Path) -> Path:
    """The demo's own replay config (its match and rules), for these frames and this record."""
    path.write_text(
        f'[camera]\nsource = "replay:{frames}"\n\n[signals]\noutput = "console"\n\n'
        f'[referee]\nprofile = "{profile}"\nrecord = "{record}"\nmatch_length = 3\n'
        "unclear_after = 0.5\n\n[rules]\ncubeless = true\n"
    )
    return path


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return math.nan


class Notify:
    """A notify socket like systemd's: the time READY arrived, and how many WATCHDOG pings came."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.5)
        self.path = path
        self.ready = threading.Event()
        self.pings = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._listen, daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        while not self._done.is_set():
            try:
                message = self.sock.recv(4096).decode()
            except TimeoutError:
                continue
            if message.startswith("READY=1"):
                self.ready.set()
            self.pings += message == "WATCHDOG=1"

    def close(self) -> None:
        self._done.set()
        self._thread.join()
        self.sock.close()


def game_result(record: Path) -> str | None:
    """The last game's result, in the referee's words (None before one)."""
    from referee.journal import Journal

    with Journal.reader(record) as journal:
        games = journal.games()
        results = [e.text for e in journal.events(games[-1].id) if e.kind == "result"] if games else []
    return results[-1] if results else None


def game_verdicts(record: Path) -> list[list[str]]:
    from referee.journal import Journal

    with Journal.reader(record) as journal:
        return [[e.kind for e in journal.events(g.id) if e.kind in VERDICTS] for g in journal.games()]


@dataclass
class Soak:
    hours: float
    frames_listed: int = 0
    frames_handled: int = 0
    seconds: float = 0.0
    rss: list[tuple[float, float]] = field(default_factory=list)  # (wall seconds, MB)
    rss_ready: float = math.nan
    rss_first_game: float = math.nan
    record_bytes: int = 0
    games: int = 0
    games_like_the_first: int = 0
    pings: int = 0


def soak(frames: Path, profile: Path, work: Path, hours: float) -> Soak:
    period = frames_of(frames)[-1][1] + 0.1
    loops = max(1, math.ceil(hours * 3600 / period))
    looped = work / "looped"
    result = Soak(hours=loops * period / 3600)
    result.frames_listed = replay_folder(frames, looped, loops)
    record = work / "soak.sqlite"
    cfg = config(looped, profile, record, work / "soak.toml")
    notify = Notify(work / "notify.sock")
    env = {**os.environ, "NOTIFY_SOCKET": str(notify.path), "WATCHDOG_USEC": "30000000"}
    began = time.perf_counter()
    out = (work / "soak.out").open("w")
    child = subprocess.Popen([REFEREE, "run", "--config", str(cfg), "--no-keys"], stdout=out, env=env)
    first_game_done = False
    last_report = 0.0
    while child.poll() is None:
        time.sleep(1.0)
        now = time.perf_counter() - began
        try:
            mb = rss_mb(child.pid)
        except OSError:
            break
        if math.isnan(mb):  # the process is ending
            continue
        result.rss.append((now, mb))
        if notify.ready.is_set() and math.isnan(result.rss_ready):
            result.rss_ready = mb
        if not first_game_done and record.exists() and now > 5 and _finished_games(record) >= 1:
            first_game_done, result.rss_first_game = True, mb
        if now - last_report >= 300:
            last_report = now
            print(f"  soak after {now / 60:.0f} min: {progress(record, period)}, RSS {mb:.1f} MB", flush=True)
    out.close()
    notify.close()
    result.seconds = time.perf_counter() - began
    result.pings = notify.pings
    last = (work / "soak.out").read_text().strip().splitlines()[-1]
    result.frames_handled = int(last.split()[0])
    result.record_bytes = record.stat().st_size
    verdicts = game_verdicts(record)
    result.games = len(verdicts)
    result.games_like_the_first = sum(v == verdicts[0] for v in verdicts)
    if child.returncode != 0:
        raise RuntimeError(f"referee run exited {child.returncode}: {last}")
    return result


def progress(record: Path, period: float) -> str:
    """How far the soak has come, from the record: stream time, games, verdicts, size."""
    verdicts = game_verdicts(record)
    done = verdicts[:-1]  # the last game may be in progress
    alike = sum(v == verdicts[0] for v in done)
    hours = len(done) * period / 3600
    size = record.stat().st_size / 1e6
    games = f"{len(done)} games ({alike} with the first's verdicts)"
    return f"{hours:.2f} h of stream time, {games}, record {size:.1f} MB"


def _finished_games(record: Path) -> int:
    from referee.journal import Journal

    try:
        with Journal.reader(record) as journal:
            return sum(g.finished is not None for g in journal.games())
    except ValueError:
        return 0


@dataclass
class Kills:
    trials: int = 0
    resumed_at_recorded_position: int = 0
    events_kept: int = 0
    events_before_kill: int = 0
    finished_like_uninterrupted: int = 0  # the game's result, as the uninterrupted run's
    verdicts_like_uninterrupted: int = 0  # every verdict too (a play made while down is not judged)
    killed_at: list[float] = field(default_factory=list)


def last_position(record: Path) -> tuple[str | None, str | None]:
    """(Position ID of the last recorded event, Position ID of the board a resumed session stands on)."""
    from bgboard.layout import Side
    from referee.journal import Journal
    from referee.notation.position_id import encode_position_id
    from referee.rules_options import RuleOptions
    from referee.session import Session, SessionOptions
    from vision.profile import Profile

    if not record.exists():
        return None, None
    with Journal.reader(record) as journal:
        games = journal.games()
        if not games:
            return None, None
        # an illegal play's event holds the board it saw, which the table must put back: the session
        # stands on the position before the roll, which the event before it holds
        events = [e for e in journal.events(games[-1].id) if e.position_id and e.kind != "illegal"]
        recorded = events[-1].position_id if events else None
        orientation = Profile.load(record.parent / "profile.json").orientation
        options = SessionOptions(orientation, RuleOptions(cubeless=True), match_length=3)
        session = Session.resume(options, journal)
        on_roll = session.on_roll or Side.LIGHT
        return recorded, encode_position_id(session.board.position(on_roll))


def events_of(record: Path) -> list[tuple[int, str, str]]:
    from referee.journal import Journal

    if not record.exists():
        return []
    with Journal.reader(record) as journal:
        return [(e.id, e.kind, e.text) for g in journal.games() for e in journal.events(g.id)]


def kills(frames: Path, profile: Path, work: Path, n: int, seed: int) -> Kills:
    rng = random.Random(seed)
    reference = work / "reference"
    reference.mkdir()
    shutil.copy(profile, reference / "profile.json")
    began = time.perf_counter()
    subprocess.run(
        [REFEREE, "run", "--config", str(config(frames, reference / "profile.json", reference / "r.sqlite",
                                                 reference / "r.toml")), "--no-keys"],
        check=True,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    duration = time.perf_counter() - began
    expected = game_verdicts(reference / "r.sqlite")
    result = game_result(reference / "r.sqlite")
    out = Kills()
    for k in range(n):
        trial = work / f"kill{k:02d}"
        trial.mkdir()
        shutil.copy(profile, trial / "profile.json")
        record = trial / "r.sqlite"
        cfg = config(frames, trial / "profile.json", record, trial / "first.toml")
        child = subprocess.Popen(
            [REFEREE, "run", "--config", str(cfg), "--no-keys"], stdout=subprocess.DEVNULL
        )
        wait = rng.uniform(0.5, duration)
        out.killed_at.append(wait)
        try:
            child.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGKILL)
            child.wait()
        before = events_of(record)
        recorded, resumed = last_position(record)
        out.trials += 1
        out.resumed_at_recorded_position += recorded == resumed
        last_t = _last_t(record)
        rest = trial / "rest"
        if replay_folder(frames, rest, after=last_t) == 0:
            after = before  # killed after the last frame: nothing left to replay
        else:
            cfg = config(rest, trial / "profile.json", record, trial / "rest.toml")
            subprocess.run(
                [REFEREE, "run", "--config", str(cfg), "--no-keys"], stdout=subprocess.DEVNULL, check=True
            )
            after = events_of(record)
        out.events_before_kill += len(before)
        out.events_kept += sum(1 for a, b in zip(before, after, strict=False) if a == b)
        finished = game_result(record) == result
        alike = game_verdicts(record)[-1:] == expected[-1:]
        out.finished_like_uninterrupted += finished
        out.verdicts_like_uninterrupted += alike
        print(
            f"  kill {k + 1}/{n} at {wait:.1f} s: {len(before)} events, resumed at the recorded position: "
            f"{recorded == resumed}, the uninterrupted run's result: {finished}, and its verdicts: {alike}",
            flush=True,
        )
    return out


def _last_t(record: Path) -> float:
    from referee.journal import Journal

    if not record.exists():
        return -math.inf
    with Journal.reader(record) as journal:
        times = [e.t for g in journal.games() for e in journal.events(g.id) if e.t is not None]
    return max(times) if times else -math.inf


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hours", type=float, default=4.0, help="stream time of the soak (default 4)")
    parser.add_argument("--kills", type=int, default=50, help="kill -9 trials (default 50)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--frames", type=Path, help="a folder `referee demo --save-frames` wrote (reused)")
    parser.add_argument("--skip-soak", action="store_true")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    demo = args.frames or work / "demo"
    frames = record_demo(demo)
    profile = demo / "profile.json"
    ok = True
    if not args.skip_soak:
        s = soak(frames, profile, work, args.hours)
        growth = s.rss[-1][1] - s.rss_first_game if s.rss else math.nan
        took = f"{s.seconds / 60:.1f} min ({s.frames_handled} frames)"
        print(f"soak: {s.hours:.2f} h of stream time in {took}")
        print(
            f"  resident memory: {s.rss_ready:.1f} MB at READY, {s.rss_first_game:.1f} MB after the first "
            f"game, {s.rss[-1][1]:.1f} MB at the end (growth after the first game {growth:+.1f} MB; "
            f"target < {RSS_GROWTH_MB:.0f} MB); peak {max(mb for _, mb in s.rss):.1f} MB"
        )
        mb = s.record_bytes / 1e6
        print(f"  record: {mb:.1f} MB, {mb / s.hours:.1f} MB per hour of play")
        print(f"  frames dropped: {s.frames_listed - s.frames_handled} of {s.frames_listed}")
        print(f"  games: {s.games}; with the first game's verdicts: {s.games_like_the_first}/{s.games}")
        print(f"  watchdog pings: {s.pings}")
        ok &= growth < RSS_GROWTH_MB and s.frames_listed == s.frames_handled
        ok &= s.games_like_the_first == s.games
    if args.kills:
        k = kills(frames, profile, work, args.kills, args.seed)
        resumed = f"{k.resumed_at_recorded_position}/{k.trials}"
        print(
            f"kill -9: {k.trials} trials; resumed at the recorded position {resumed}; events kept "
            f"{k.events_kept}/{k.events_before_kill}; finished with the uninterrupted run's result "
            f"{k.finished_like_uninterrupted}/{k.trials}, with all its verdicts "
            f"{k.verdicts_like_uninterrupted}/{k.trials} (a play made while the referee was down is not "
            "judged: the restart asks for the recorded position instead)"
        )
        ok &= k.resumed_at_recorded_position == k.trials and k.events_kept == k.events_before_kill
    shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
