"""The legal plays against two independent engines (OpenSpiel, gnubg) on positions from random games,
through the benchmark that runs 100,000 of them in `make bench` (bench/rules.py); a small sample here.
The judge accepts every legal result of any position."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from strategies import positions

from bgboard.position import Position
from referee.judge import judge
from referee.moves import legal_plays

ROOT = Path(__file__).resolve().parents[1]


def test_same_results_as_openspiel_and_gnubg() -> None:
    args = ["--n", "1500", "--gnubg", "300", "--timed", "20", "--seed", "20261129"]
    run = subprocess.run(
        [sys.executable, "-m", "bench.rules", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OpenSpiel: 0 mismatches in 1500 positions" in run.stdout
    assert "gnubg: 0 disagreements in 300 positions" in run.stdout


@given(positions(), st.integers(1, 6), st.integers(1, 6))
def test_the_judge_accepts_every_legal_result(position: Position, d1: int, d2: int) -> None:
    for play in legal_plays(position, (d1, d2)):
        assert judge(position, (d1, d2), play.result).legal
