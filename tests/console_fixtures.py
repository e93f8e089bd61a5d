"""A table for the console's tests: the real frame loop, session and console over real HTTP on 127.0.0.1,
with a reader that reads whatever board the test puts on the table (the readers are tested elsewhere).

    with LiveTable(pin="2468") as table:
        table.set_position(board, Side.LIGHT)
        state = table.get_json("/api/state")
"""

from __future__ import annotations

import http.client
import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import numpy as np

from bgboard.layout import Board, Orientation, Side
from hardware.console_signals import ConsoleSignals
from hardware.frames import Frame
from referee.console.address import parse_address
from referee.console.server import Console
from referee.journal import Journal
from referee.loop import FrameLoop, Pipeline
from referee.observe import reading_of
from referee.rules_options import RuleOptions
from referee.session import Say, Session, SessionOptions
from vision.arrivals import Still
from vision.reading import BoardReading, DieReading

ORIENTATION = Orientation.BOTTOM_RIGHT
FPS = 25.0


def ctrl_c_reaches_it() -> None:
    """For ``Popen(preexec_fn=...)``: the child starts with SIGINT at its default, so the test's SIGINT is
    Ctrl-C to it. Run as a background job (``make test &``), the tests inherit SIGINT ignored, and a
    Python child that starts with it ignored keeps ignoring it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Identity:
    def warp(self, frame: np.ndarray) -> np.ndarray:
        return frame


class TableReader:
    """The loop's reader: the board (and dice) the test put on the table, read surely."""

    def __init__(self) -> None:
        self.board = Board.start()
        self.dice: tuple[DieReading, ...] = ()
        self.hidden: tuple[Any, ...] = ()
        self.rectifier = Identity()

    def read(
        self, frame: np.ndarray, *, expected: Any = None, before: Any = None, same_board: bool = True
    ) -> BoardReading:
        return replace(reading_of(self.board, ORIENTATION, self.hidden), dice=self.dice)

    def turn_still(self, frame: np.ndarray) -> Still:
        height, width = frame.shape[:2]
        return Still.of(frame, (0, 0, width, height), die_side=20.0)

    def arrivals(self, frame: np.ndarray, before: Still) -> int:
        return 0  # the test puts its dice in the reading, not in the picture


class LiveTable:
    """The frame loop on a thread of its own at :data:`FPS`, with the console started on a free port."""

    def __init__(
        self,
        pin: str | None = "2468",
        *,
        match_length: int | None = None,
        rules: RuleOptions | None = None,
        record: Any = None,
    ) -> None:
        options = SessionOptions(ORIENTATION, rules or RuleOptions(), match_length=match_length)
        self.journal = Journal(record) if record is not None else None
        self.session = Session(options, self.journal)
        self.reader = TableReader()
        self.signals = ConsoleSignals(_Sink())
        self.loop = FrameLoop(Pipeline(self.reader), self.session, self.signals, out=_Sink())
        self.console = Console.open(
            parse_address("127.0.0.1:0"), self.session, self.loop.submit, pin=pin, record=record, warp=None
        )
        self.logged: list[str] = []
        self.console.ctx.log = self.logged.append
        self.loop.watchers.append(self.console.hub)
        self.port = self.console.listener.sock.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="test-table", daemon=True)

    def __enter__(self) -> LiveTable:
        self.console.start()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.console.stop()
        if self.journal is not None:
            self.journal.close()

    def _run(self) -> None:
        image = np.full((90, 160, 3), 90, np.uint8)
        index = 0
        began = time.monotonic()
        while not self._stop.is_set():
            self.loop.step(Frame(image, time.monotonic() - began, index))
            index += 1
            time.sleep(1 / FPS)

    # ---- acting on the table ------------------------------------------------------------------------

    def in_loop(self, action: Callable[[Session, float], Any], timeout: float = 5.0) -> Any:
        """Runs ``action(session, t)`` in the loop's thread and returns its result."""
        done = threading.Event()
        box: list[Any] = []

        def run(t: float) -> list[Say]:
            box.append(action(self.session, t))
            done.set()
            said = box[0]
            return said if isinstance(said, list) and all(isinstance(s, Say) for s in said) else []

        self.loop.submit(run)
        assert done.wait(timeout), "the frame loop did not take the action"
        return box[0]

    def set_position(self, board: Board, on_roll: Side) -> None:
        """The game starts from ``board`` with ``on_roll`` to roll; the table shows it."""
        self.reader.board = board
        self.in_loop(lambda s, t: s.start_from(board, on_roll, t))
        self.wait_for(lambda st: st.get("stage") == "roll" and st["board"]["light"] == list(board.light))

    def wait_for(self, ok: Callable[[dict[str, Any]], bool], timeout: float = 5.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            state = self.get_json("/api/state")[1]
            if ok(state):
                return state
            assert time.monotonic() < end, f"the console never showed it; last state: {state.get('status')}"
            time.sleep(0.05)

    # ---- HTTP ---------------------------------------------------------------------------------------

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            data = json.dumps(body).encode() if body is not None and not isinstance(body, bytes) else body
            sent = {"Content-Type": "application/json", **(headers or {})}
            conn.request(method, path, body=data, headers=sent)
            answer = conn.getresponse()
            return answer.status, {k.lower(): v for k, v in answer.getheaders()}, answer.read()
        finally:
            conn.close()

    def get_json(self, path: str) -> tuple[int, Any]:
        status, _, data = self.request("GET", path)
        return status, json.loads(data)

    def csrf(self) -> str:
        return str(self.get_json("/api/state")[1]["csrf_token"])

    def act(self, path: str, body: dict[str, Any], csrf: str | None = "") -> tuple[int, Any]:
        headers = {} if csrf is None else {"X-CSRF-Token": csrf or self.csrf()}
        status, _, data = self.request("POST", path, body, headers)
        return status, json.loads(data) if data else None


class _Sink:
    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def read_events(
    port: int,
    since: int | None,
    until: Callable[[list[tuple[str, dict[str, Any]]]], bool],
    timeout: float = 30.0,
    last_id: int | None = None,
) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """(event, id, data) from ``GET /api/events`` until ``until(events so far)`` or the stream ends."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    path = "/api/events" + (f"?since={since}" if since is not None else "")
    headers = {"Last-Event-ID": str(last_id)} if last_id is not None else {}
    conn.request("GET", path, headers=headers)
    answer = conn.getresponse()
    assert answer.status == 200 and answer.getheader("content-type", "").startswith("text/event-stream")
    seen: list[tuple[str, dict[str, Any]]] = []
    fields: dict[str, str] = {}
    try:
        while True:
            line = answer.fp.readline()
            if not line:
                return
            text = line.decode("utf-8").rstrip("\n")
            if text == "":
                if "event" in fields:
                    event = (fields["event"], json.loads(fields["data"]))
                    seen.append(event)
                    yield fields["event"], int(fields.get("id", "0")), event[1]
                    if until(seen):
                        return
                fields = {}
            elif not text.startswith(":"):
                key, _, value = text.partition(": ")
                fields[key] = value
    finally:
        conn.close()
