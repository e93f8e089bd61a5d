"""A sample of the end-to-end proof (``bench.e2e``; its 200 games run in ``make bench``), run as the
benchmark runs: one whole game of random legal play at the virtual table, rendered, read and judged
through the referee's own frame loop."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_whole_game_at_the_virtual_table_is_refereed_right(tmp_path: Path) -> None:
    out = tmp_path / "tally.json"
    run = subprocess.run(
        [sys.executable, "-m", "bench.e2e", "--games", "1", "--jobs", "1", "--seed", "5", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    t = json.loads(out.read_text())
    # the sample holds what the proof measures: illegal plays and throws to be thrown again
    assert sum(t["illegal"].values()) >= 3 and sum(t["rerolls"].values()) >= 3
    assert t["legal"].get("illegal", 0) == 0, t["misses"]
    assert t["illegal"].get("caught", 0) == sum(t["illegal"].values()), t["misses"]
    assert t["rerolls"].get("missed", 0) == 0, t["misses"]
    assert t["rolls"].get("read", 0) == sum(t["rolls"].values()), t["misses"]
    assert t["results"] == {"right": 1}
