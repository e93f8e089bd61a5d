"""The table console: it never holds up the frame loop, and screenshots of its page.

1. **The frame loop with and without browsers.** The demo game is refereed at table speed (10 frames a
   second, as at a table) through the real pipeline, once with no console and once with the console
   served and three clients following it as the page does (the event stream, every camera frame, the
   record after each sentence) from another process. The time of each :meth:`FrameLoop.step` is
   measured; the runs alternate, and the figure is the ratio of the medians (target: within 10 %).
   Both runs must say the same sentences in the same order (the referee's decisions unchanged).
2. **Screenshots** of the page in a known position (a rendered board read by the real reader, a roll
   on the table), on a desktop and a phone, in headless chromium, written to ``out/console/``.

    python -m bench.console                 # both, two rounds of the whole demo game
    python -m bench.console --rounds 1 --turns 6
    python -m bench.console --screenshots-only
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import multiprocessing
import os
import shutil
import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

OUT = Path("out/console")
CLIENTS = 3
TARGET = 1.10  # the loop's median time per frame with the console at most 10 % above without
PIN = "2468"


# ---- the clients (another process) -----------------------------------------------------------------


def _get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        body = answer.read()
        return len(body)
    finally:
        conn.close()


def _client(port: int, counts: dict[str, int]) -> None:
    """One browser's traffic: the page and its files, then the stream, each frame, the record."""
    for path in ("/", "/static/console.js", "/static/console.css", "/api/history"):
        _get(port, path)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/api/events?since=0")
    answer = conn.getresponse()
    event = ""
    last_history = 0.0
    while True:
        line = answer.fp.readline()
        if not line:
            break
        text = line.decode().rstrip("\n")
        if text.startswith("event: "):
            event = text[7:]
            counts[event] = counts.get(event, 0) + 1
        elif text.startswith("data: ") and event == "frame":
            counts["bytes"] = counts.get("bytes", 0) + _get(port, "/frame.jpg")
        elif text.startswith("data: ") and event == "say" and time.monotonic() - last_history > 0.8:
            last_history = time.monotonic()
            _get(port, "/api/history")
    conn.close()


def follow(port: int, clients: int, report: Any) -> None:
    """``clients`` followers in threads, started once the console answers; reports what they got.
    They stand for phones, which do not share the referee's processor: they yield it to the referee."""
    os.nice(19)
    deadline = time.monotonic() + 120
    while True:
        try:
            _get(port, "/api/state")
            break
        except OSError:
            if time.monotonic() > deadline:
                report.put({})
                return
            time.sleep(0.05)
    counts: list[dict[str, int]] = [{} for _ in range(clients)]
    threads = [threading.Thread(target=_client, args=(port, c)) for c in counts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report.put({"clients": counts})


# ---- the frame loop, timed -------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _thread_cpu(names: tuple[str, ...]) -> dict[str, float]:
    """CPU seconds used so far by this process's threads of these names (Linux: /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    out = {}
    for t in threading.enumerate():
        if t.name in names and t.native_id is not None:
            try:
                fields = Path(f"/proc/self/task/{t.native_id}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out[t.name] = (int(fields[11]) + int(fields[12])) / ticks  # utime + stime
    return out


def timed_demo(
    turns: int | None, console: bool
) -> tuple[list[float], list[float], list[str], dict[str, Any]]:
    """The demo at table speed: every loop step's wall time and the loop thread's CPU time in it, the
    sentences said, the clients' counts."""
    from referee.cli.demo import run_demo
    from referee.console.address import parse_address
    from referee.console.server import Console
    from referee.loop import FrameLoop
    from synthetic.demo_game import demo_game

    times: list[float] = []
    cpu: list[float] = []
    original = FrameLoop.step

    def step(self: FrameLoop, frame: Any) -> Any:
        t0, c0 = time.perf_counter(), time.thread_time()
        said = original(self, frame)
        times.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        return said

    FrameLoop.step = step  # type: ignore[method-assign]
    used: dict[str, float] = {}
    stop = Console.stop

    def stop_and_count(self: Console) -> None:  # the console's threads' CPU, before they end
        used.update(_thread_cpu(("console", "console-frames")))
        stop(self)

    Console.stop = stop_and_count  # type: ignore[method-assign]
    folder = Path(tempfile.mkdtemp(prefix="bench-console-"))
    clients: Any = None
    report: Any = None
    address = None
    if console:
        port = _free_port()
        address = parse_address(f"127.0.0.1:{port}")
        context = multiprocessing.get_context("spawn")
        report = context.Queue()
        clients = context.Process(target=follow, args=(port, CLIENTS, report))
        clients.start()
    try:
        result = run_demo(
            folder / "record.sqlite",
            shots=demo_game(turns=turns),
            out=io.StringIO(),
            console=address,
            pin=PIN,
            table_speed=True,
            serve_after=False,
        )
    finally:
        FrameLoop.step = original  # type: ignore[method-assign]
        Console.stop = stop  # type: ignore[method-assign]
        shutil.rmtree(folder, ignore_errors=True)
    got: dict[str, Any] = {}
    if clients is not None:
        got = report.get(timeout=60)
        clients.join(timeout=30)
    if result.missed:
        raise SystemExit(f"the demo missed expected signals: {result.missed}")
    got["thread_cpu"] = used
    got["seconds"] = result.frames / 10.0
    return times, cpu, [s.text for s in result.says], got


def loop_figures(rounds: int, turns: int | None) -> bool:
    medians: dict[bool, list[float]] = {False: [], True: []}
    cpus: dict[bool, list[float]] = {False: [], True: []}
    says: dict[bool, list[str]] = {}
    for r in range(rounds):
        for console in (False, True):
            times, cpu, said, got = timed_demo(turns, console)
            medians[console].append(statistics.median(times))
            cpus[console].append(statistics.median(cpu))
            says.setdefault(console, said)
            same = said == says[False]
            extra = ""
            if console:
                per = got.get("clients", [])
                frames = [c.get("frame", 0) for c in per]
                sentences = [c.get("say", 0) for c in per]
                kb = sum(c.get("bytes", 0) for c in per) / 1024
                cpu = got.get("thread_cpu", {})
                share = 100 * sum(cpu.values()) / got["seconds"]
                extra = (
                    f"; {len(per)} clients got {sentences} sentences, {frames} frames, {kb:.0f} KB of JPEG; "
                    f"the console's threads used {share:.1f} % of a core "
                    f"({', '.join(f'{k} {v:.2f} s' for k, v in cpu.items())})"
                )
                if any(s != len(said) for s in sentences):
                    print(f"  a client missed sentences: {sentences} of {len(said)}")
                    return False
            print(
                f"round {r + 1}, {'console + 3 clients' if console else 'no console':>19}: "
                f"{len(times)} frames, median {1000 * medians[console][-1]:.2f} ms a frame "
                f"({1000 * cpus[console][-1]:.2f} ms of the loop thread's CPU), "
                f"same sentences: {same}{extra}",
                flush=True,
            )
            if not same:
                return False
    without, with_ = statistics.median(medians[False]), statistics.median(medians[True])
    ratio = with_ / without
    cpu_ratio = statistics.median(cpus[True]) / statistics.median(cpus[False])
    load = os.getloadavg()[0]
    print(
        f"frame loop, median time a frame: {1000 * without:.2f} ms without the console, "
        f"{1000 * with_:.2f} ms with it and {CLIENTS} clients: ratio {ratio:.3f} (target <= {TARGET}); "
        f"the loop thread's CPU a frame: ratio {cpu_ratio:.3f}; "
        f"load average {load:.1f} on {os.cpu_count()} cores"
    )
    return ratio <= TARGET


# ---- screenshots -----------------------------------------------------------------------------------


def screenshots(folder: Path) -> bool:
    """The page in a known position: a rendered mid-game board read by the real reader, dark's 6-4
    lying in dark's half, the legal plays shown."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        chromium = None
    if chromium is None:
        print("screenshots skipped: needs Debian's chromium and playwright's Python package")
        return True
    from bgboard.layout import Board, Side
    from bgboard.position import Position
    from calibration.learn import calibrate
    from hardware.console_signals import ConsoleSignals
    from referee.console.address import parse_address
    from referee.console.server import Console
    from referee.loop import FrameLoop, Pipeline
    from referee.session import Session, SessionOptions
    from synthetic.table import DieAt, Shot, VirtualTable
    from vision.board_reader import BoardReader
    from vision.profile import Profile

    board = Board.from_position(
        Position.from_points({24: 1, 13: 4, 8: 2, 6: 5, 5: 2, 3: 1}, {24: 2, 13: 5, 8: 3, 6: 3, 4: 2}),
        Side.LIGHT,
    )
    table = VirtualTable(seed=3)
    start = table.calibration_frame()
    corners = [(float(x), float(y)) for x, y in start.field_quad]
    profile = Profile.from_json(calibrate(start.image, corners, start=True, source="bench").to_json())
    session = Session(SessionOptions(profile.orientation))
    sink = io.StringIO()
    pipeline = Pipeline(BoardReader(profile))
    loop = FrameLoop(pipeline, session, ConsoleSignals(sink), out=sink)
    port = _free_port()
    console = Console.open(
        parse_address(f"127.0.0.1:{port}"),
        session,
        loop.submit,
        pin=PIN,
        record=None,
        warp=pipeline.reader.rectifier.warp,
    )
    loop.watchers.append(console.hub)
    console.start()
    ok = True
    try:
        session.start_from(board, Side.DARK)
        half = profile.orientation.throwing_half(Side.DARK)
        x = 0.27 if half.value == "left" else 0.73
        shot = Shot(board, dice=(DieAt(6, x - 0.05, 0.47, angle=12), DieAt(4, x + 0.05, 0.53, angle=-20)))
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=chromium,
                args=[
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                ],
            )
            pages = {"desktop": (1280, 900), "phone": (412, 915)}
            opened = {
                name: browser.new_page(viewport={"width": w, "height": h}) for name, (w, h) in pages.items()
            }
            for page in opened.values():
                page.goto(f"http://127.0.0.1:{port}/")
            for k in range(12):  # the dice settle and are read; the page gets the frame and the state
                loop.step(table.frame(shot, k, 0, k))
                time.sleep(0.1)
            time.sleep(1.5)
            state = json.loads(http_get(port, "/api/state"))
            ok = state["stage"] == "play" and state["dice"] == [6, 4] and state["legal_plays"] is not None
            folder.mkdir(parents=True, exist_ok=True)
            for name, page in opened.items():
                path = folder / f"{name}.png"
                page.screenshot(path=str(path), full_page=True)
                print(f"screenshot: {path}")
            browser.close()
        print(
            f"known position shown: stage {state['stage']}, dice {state['dice']}, "
            f"{len(state['legal_plays'] or [])} legal plays, Position ID {state['position_id']}"
        )
    finally:
        console.stop()
    return ok


def http_get(port: int, path: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        return conn.getresponse().read().decode()
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2, help="alternating runs of each (default 2)")
    ap.add_argument("--turns", type=int, default=None, help="turns of the demo game (default: all)")
    ap.add_argument("--screenshots-only", action="store_true")
    ap.add_argument("--out", type=Path, default=OUT, help=f"where the screenshots go (default {OUT})")
    args = ap.parse_args(argv)
    ok = screenshots(args.out)
    if not args.screenshots_only:
        ok = loop_figures(args.rounds, args.turns) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
