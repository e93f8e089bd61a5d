"""A short load check: twenty clients follow a demo game through the console's event stream at once;
none misses a sentence, and the referee decides exactly what it decides with no console at all."""

from __future__ import annotations

import io
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from referee.cli.demo import run_demo
from synthetic.demo_game import demo_game
from tests.console_fixtures import ctrl_c_reaches_it, read_events

CLIENTS = 20
TURNS = 3
REFEREE = [sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())"]


def follow(port: int, into: list[tuple[str, int, dict[str, Any]]]) -> None:
    """Every event from the first sentence on, until the demo's game is over."""
    into.extend(
        read_events(
            port, 0, lambda seen: seen[-1][0] == "state" and not seen[-1][1]["refereeing"], timeout=120
        )
    )


def test_twenty_clients_follow_a_demo_game_and_miss_nothing(tmp_path: Path) -> None:
    alone = run_demo(tmp_path / "alone.sqlite", shots=demo_game(turns=TURNS), out=io.StringIO())
    reference = [s.text for s in alone.says]
    assert not alone.missed

    demo = subprocess.Popen(
        [
            *REFEREE,
            "demo",
            "--turns",
            str(TURNS),
            "--console",
            "127.0.0.1:0",
            "--record",
            str(tmp_path / "served.sqlite"),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "REFEREE_CONSOLE_PIN": "2468"},
        preexec_fn=ctrl_c_reaches_it,
    )
    try:
        assert demo.stdout is not None
        lines = []
        for line in demo.stdout:
            lines.append(line)
            if line.startswith("console: "):
                break
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", lines[-1]).group(1))
        streams: list[list[tuple[str, int, dict[str, Any]]]] = [[] for _ in range(CLIENTS)]
        clients = [threading.Thread(target=follow, args=(port, s)) for s in streams]
        for c in clients:
            c.start()
        for c in clients:
            c.join(timeout=180)
        for line in demo.stdout:
            lines.append(line)
            if "keeps serving" in line:
                break
    finally:
        demo.send_signal(signal.SIGINT)
        rest, _ = demo.communicate(timeout=30)
    output = "".join(lines) + rest
    assert demo.returncode == 0 and "every expected signal was given" in output, output
    # the referee's decisions: the same sentences with twenty clients watching as with none
    served = [line.strip() for line in output.splitlines() if line.startswith("  ") and "no .mat" not in line]
    assert served == reference
    finals = []
    for events in streams:
        says = [(i, d["text"]) for e, i, d in events if e == "say"]
        assert [i for i, _ in says] == list(range(1, len(reference) + 1))  # none missed, none twice
        assert [t for _, t in says] == reference
        finals.append([d for e, _, d in events if e == "state"][-1])
    assert all(f == finals[0] for f in finals) and finals[0]["refereeing"] is False
