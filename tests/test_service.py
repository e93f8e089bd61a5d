"""`referee run` as systemd runs it: READY after the first frame, WATCHDOG while frames flow, a clean
stop on SIGTERM, a camera that goes away and comes back, a record that cannot be written for a while."""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import DemoRecording

from hardware.frames import BaseSource, CameraLost, Frame
from referee.cli import main
from referee.journal import Journal

REFEREE = str(Path(sys.executable).with_name("referee"))


def said(text: str) -> list[str]:
    """The table's words in `referee run`'s output (they are indented)."""
    return [line.strip() for line in text.splitlines() if line.startswith("  ")]


def config_for(demo: DemoRecording, tmp_path: Path, **camera: str) -> Path:
    """The demo's replay config with its record in ``tmp_path`` (and [camera] keys replaced)."""
    text = (demo.folder / "replay.toml").read_text()
    text = text.replace(str((demo.folder / "replay.sqlite").resolve()), str(tmp_path / "record.sqlite"))
    for key, value in camera.items():
        head, _, rest = text.partition("[camera]\n")
        text = (
            head
            + f'[camera]\n{key} = "{value}"\n'
            + "\n".join(line for line in rest.splitlines() if not line.startswith(f"{key} ="))
            + "\n"
        )
    path = tmp_path / "referee.toml"
    path.write_text(text)
    return path


class Listener:
    """A datagram socket standing in for systemd's notify socket; keeps (time, message) of each."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.2)
        self.got: list[tuple[float, str]] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._listen, daemon=True)
        self.thread.start()

    def _listen(self) -> None:
        while not self.done.is_set():
            try:
                data = self.sock.recv(4096)
            except TimeoutError:
                continue
            self.got.append((time.monotonic(), data.decode()))

    def wait_for(self, prefix: str, timeout: float = 60.0) -> float:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for t, message in list(self.got):
                if message.startswith(prefix):
                    return t
            time.sleep(0.02)
        raise AssertionError(f"no {prefix!r} datagram; got {self.got}")

    def close(self) -> None:
        self.done.set()
        self.thread.join()
        self.sock.close()


def test_ready_after_the_first_frame_and_watchdog_while_frames_flow(
    demo_recording: DemoRecording, tmp_path: Path
) -> None:
    listener = Listener(tmp_path / "notify.sock")
    # a 3 ms watchdog asks for a ping after nearly every frame, however fast the replay runs here
    env = {**os.environ, "NOTIFY_SOCKET": str(listener.path), "WATCHDOG_USEC": "3000"}
    try:
        done = subprocess.run(
            [REFEREE, "run", "--config", str(config_for(demo_recording, tmp_path)), "--no-keys"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        listener.close()
    assert done.returncode == 0, done.stderr
    messages = [m for _, m in listener.got]
    assert messages[0].startswith("READY=1\nSTATUS=")
    pings = [t for t, m in listener.got if m == "WATCHDOG=1"]
    assert len(pings) >= 5  # the replay is 40 frames, each at least a millisecond apart
    assert all(b - a < 2.0 for a, b in zip(pings, pings[1:], strict=False))
    statuses = [m.removeprefix("STATUS=") for m in messages if m.startswith("STATUS=")]
    assert "opening roll: one die each" in statuses  # the stage in words, as it changed

    # no frame read, no READY: the first frame of the replay is cut off
    frames = tmp_path / "broken"
    shutil.copytree(demo_recording.folder / "frames", frames)
    first = sorted(frames.glob("*.jpg"))[0]
    first.write_bytes(first.read_bytes()[:4000])
    listener = Listener(tmp_path / "notify2.sock")
    env["NOTIFY_SOCKET"] = str(listener.path)
    (tmp_path / "record.sqlite").unlink()
    try:
        done = subprocess.run(
            [
                REFEREE,
                "run",
                "--config",
                str(config_for(demo_recording, tmp_path, source=f"replay:{frames}")),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        listener.close()
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "cut off" in done.stderr and first.name in done.stderr
    assert not [m for _, m in listener.got if m.startswith("READY")]


def test_no_watchdog_while_the_loop_is_stuck(demo_recording: DemoRecording, tmp_path: Path) -> None:
    """Pings come from the frame loop: a loop that waits for a frame that never comes sends none, so
    systemd restarts the referee."""
    from hardware.console_signals import ConsoleSignals
    from hardware.notify import Notifier
    from hardware.replay import ReplaySource
    from referee.loop import FrameLoop, Pipeline
    from referee.service import Service
    from referee.session import Session, SessionOptions
    from vision.board_reader import BoardReader
    from vision.profile import Profile

    profile = Profile.load(demo_recording.folder / "profile.json")
    listener = Listener(tmp_path / "notify.sock")
    journal = Journal(tmp_path / "record.sqlite")
    options = SessionOptions(profile.orientation)
    loop = FrameLoop(
        Pipeline(BoardReader(profile)),
        Session(options, journal),
        ConsoleSignals(io.StringIO()),
        out=io.StringIO(),
    )
    env = {"NOTIFY_SOCKET": str(listener.path), "WATCHDOG_USEC": "60000"}
    service = Service(loop, journal, options, Notifier(env), frame_size=profile.image_size)
    stuck: list[float] = []

    def feed() -> Any:
        with ReplaySource(demo_recording.folder / "frames") as source:
            for i, frame in enumerate(source):
                if i == 30:
                    stuck.append(time.monotonic())
                    time.sleep(1.0)  # the camera hangs
                    stuck.append(time.monotonic())
                if i == 40:
                    return
                yield frame

    try:
        service.run(feed())
    finally:
        listener.close()
        journal.close()
    pings = [t for t, m in listener.got if m == "WATCHDOG=1"]
    assert [t for t in pings if t < stuck[0]], "pings while frames flowed"
    assert not [t for t in pings if stuck[0] + 0.05 < t < stuck[1]], "no ping while stuck"
    assert [t for t in pings if t > stuck[1]], "pings again once frames flow"


class Camera(BaseSource):
    """A camera made of the demo's recorded frames, one a read, paced like a live camera; it can drop out
    (``CameraLost`` at read ``fail_at``) and be opened again where it left off."""

    def __init__(self, frames: list[Frame], state: dict[str, Any]) -> None:
        self.frames, self.state = frames, state
        state["opened"] = state.get("opened", 0) + 1

    def read(self) -> Frame:
        s = self.state
        if s["next"] == s.get("fail_at"):
            s["fail_at"] = None
            raise CameraLost("the ribbon cable came loose")
        if s["next"] >= len(self.frames):
            from hardware.frames import EndOfStream

            raise EndOfStream("no more frames")
        time.sleep(s.get("pace", 0.0))
        frame = self.frames[s["next"]]
        s["next"] += 1
        return frame

    def close(self) -> None:
        self.state["closed_with_capture_running"] = any(
            t.name == "capture" and t.is_alive() and t is not threading.current_thread()
            for t in threading.enumerate()
        )


def recorded_frames(demo: DemoRecording) -> list[Frame]:
    from hardware.replay import ReplaySource

    with ReplaySource(demo.folder / "frames") as source:
        return list(source)


def test_sigterm_stops_cleanly_record_closed_lights_off(
    demo_recording: DemoRecording,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """SIGTERM mid-game: the loop ends after the frame in hand, the capture thread is joined before the
    camera closes, every light is off, the record is closed whole, and the exit is 0."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    import hardware.sources

    frames = recorded_frames(demo_recording)
    state: dict[str, Any] = {"next": 0, "pace": 0.1}  # 10 frames a second, as the Pi camera runs
    monkeypatch.setattr(hardware.sources, "open_source", lambda config, settings=None: Camera(frames, state))
    factory = MockFactory(pin_class=MockPWMPin)
    monkeypatch.setattr(Device, "pin_factory", factory)
    cfg = config_for(demo_recording, tmp_path, source="picamera")  # a live camera: read on its own thread
    text = cfg.read_text().replace(
        '[signals]\noutput = "console"\n',
        '[signals]\noutput = "gpio"\nlights = { green = 17, amber = 27, red = 22 }\nbuzzer = { pin = 18 }\n',
    )
    cfg.write_text(text)
    listener = Listener(tmp_path / "notify.sock")
    monkeypatch.setenv("NOTIFY_SOCKET", str(listener.path))
    previous = signal.getsignal(signal.SIGTERM)

    def stop_after_some_play() -> None:
        listener.wait_for("READY=1")
        while state["next"] < 25:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)

    killer = threading.Thread(target=stop_after_some_play, daemon=True)
    killer.start()
    try:
        assert main(["run", "--config", str(cfg), "--no-keys"]) == 0
    finally:
        signal.signal(signal.SIGTERM, previous)
        listener.close()
    out = capsys.readouterr().out
    assert "(stopped)" in out.splitlines()[-1]
    assert state["next"] < len(frames)  # it stopped mid-game
    assert state["closed_with_capture_running"] is False
    assert "STOPPING=1" in [m for _, m in listener.got]
    assert all(factory.pin(p).state == 0 for p in (17, 27, 22, 18))  # lights off, buzzer silent
    record = tmp_path / "record.sqlite"
    assert not Path(f"{record}-wal").exists()  # closed: the write-ahead log folded back in
    with Journal.reader(record) as journal:
        kinds = [e.kind for e in journal.events(journal.games()[0].id)]
    # a live camera's frames are dropped while the reader is busy, so how far the game got depends on
    # the machine's load; that it began, and that the record reads whole, does not
    assert kinds[0] == "setup"
    check = sqlite3.connect(f"file:{record}?mode=ro", uri=True).execute("PRAGMA quick_check").fetchone()
    assert check == ("ok",)
    # the lock went with the process's hold on it: the next start takes the record at once
    assert main(["history", str(record)]) == 0


def test_the_camera_goes_away_and_comes_back_the_game_goes_on(
    demo_recording: DemoRecording,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import hardware.sources

    frames = recorded_frames(demo_recording)
    state: dict[str, Any] = {"next": 0, "fail_at": 22}
    monkeypatch.setattr(hardware.sources, "open_source", lambda config, settings=None: Camera(frames, state))
    # a replay's config: frames are handed over in order, so the decisions are the demo's
    cfg = config_for(demo_recording, tmp_path)
    assert main(["run", "--config", str(cfg), "--no-keys"]) == 0
    out = capsys.readouterr().out
    words = said(out)
    lost = next(i for i, w in enumerate(words) if w.startswith("the camera is lost (the ribbon cable"))
    assert words[lost + 1].startswith("the camera is back")
    assert "[amber steady]" in out.split("the camera is lost")[1].splitlines()[1]
    assert state["opened"] == 2
    # apart from the outage the table heard what the demo's table heard, in the same game
    assert words[:lost] + words[lost + 2 :] == [s.text for s in demo_recording.result.says]
    with Journal.reader(tmp_path / "record.sqlite") as journal:
        assert len(journal.games()) == 1


def test_a_full_disk_holds_the_referee_until_the_record_takes_writes(
    demo_recording: DemoRecording, tmp_path: Path
) -> None:
    """SQLite's own "database or disk is full": amber and the reason; nothing is said that was not
    recorded, and once space is back the referee decides again from the board and records it."""
    from hardware.console_signals import ConsoleSignals
    from hardware.notify import Notifier
    from referee.loop import FrameLoop, Pipeline
    from referee.service import Service
    from referee.session import Session, SessionOptions
    from vision.board_reader import BoardReader
    from vision.profile import Profile

    profile = Profile.load(demo_recording.folder / "profile.json")
    journal = Journal(tmp_path / "record.sqlite")
    options = SessionOptions(profile.orientation, unclear_after=0.5)
    out = io.StringIO()
    signals = ConsoleSignals(out)
    loop = FrameLoop(Pipeline(BoardReader(profile)), Session(options, journal), signals, out=out)
    service = Service(loop, journal, options, Notifier({}), frame_size=profile.image_size)
    frames = recorded_frames(demo_recording)
    service.run(frames[:8])  # the setup is recorded (at 0.3 s; 10 frames a second)
    pages = journal._db.execute("PRAGMA page_count").fetchone()[0]
    journal._db.execute(f"PRAGMA max_page_count={pages}")  # the disk is full from here on
    service.run(frames[8:13])  # the cocked die (1.1 s) and its evidence frame cannot be recorded
    assert service.record_down is not None and "full" in service.record_down, out.getvalue()
    full = out.getvalue()
    assert "cannot write the record: the disk holding the record" in full
    assert "throws again" not in full  # what was not recorded was not said
    assert signals.shown[-1][0].name == "CANNOT_SEE"
    recorded = [e.kind for e in journal.events(journal.games()[0].id)]
    journal._db.execute("PRAGMA max_page_count=1073741823")  # space again
    service.run(frames[13:])
    assert service.record_down is None
    assert "the record takes writes again" in out.getvalue()
    after = [e.kind for e in journal.events(journal.games()[0].id)]
    assert after[: len(recorded)] == recorded and len(after) > len(recorded)
    journal.close()
