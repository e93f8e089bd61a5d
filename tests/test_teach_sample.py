"""A sample of the teaching proof (``bench.teach``; all 320 transcripts run in ``make bench``), run as the
benchmark runs: the first real transcript replayed as lessons at the virtual table, every play made on
the rendered board and checked by the real readers through the referee's own frame loop."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.shared
def test_every_play_of_a_real_match_made_on_the_board_is_checked(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "tally.json"
    run = subprocess.run(
        [sys.executable, "-m", "bench.teach", "--matches", "1", "--jobs", "1", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    t = json.loads(out.read_text())
    assert t["games"] >= 1 and t["plays"] >= 40
    assert t["made"] + t["asked"] == t["plays"], t["misses"]
    assert t["false_not_made"] == 0 and t["stalls"] == 0, t["misses"]
