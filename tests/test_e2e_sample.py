"""A sample of the end-to-end proof (``bench.e2e``; its 200 games run in ``make bench``), run as the
benchmark runs: one whole game of random legal play at the virtual table, rendered, read and judged
through the referee's own frame loop, its dice thrown as a table throws them (a third of the pairs
lying against each other, a cocked die leaning on the bar's wall or on the other die), a clock ticking
beside the board, the cube moving to the taker's side."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("e2e") / "tally.json"
    run = subprocess.run(
        [sys.executable, "-m", "bench.e2e", "--games", "1", "--jobs", "1", "--seed", "5", "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.exists(), run.stdout[-2000:] + run.stderr[-2000:]
    return json.loads(out.read_text())


def test_a_game_at_the_virtual_table_is_never_judged_wrong(game: dict[str, Any]) -> None:
    """What ends trust at once: a legal play called illegal, an illegal one passed, a bad throw taken,
    a roll misread. Where the referee cannot see, it may wait; it never guesses."""
    t = game
    assert sum(t["rerolls"].values()) >= 3, t["misses"]  # the sample holds throws to be thrown again
    assert t["legal"].get("illegal", 0) == 0, t["misses"]
    assert t["illegal"].get("passed", 0) == 0, t["misses"]
    assert t["rerolls_taken"] == 0, t["misses"]
    assert t["rolls"].get("wrong", 0) == 0, t["misses"]


@pytest.mark.xfail(
    strict=True,
    reason="not met yet: a die lying against another that the flags network is not sure lies flat "
    "(P(cocked) from 0.1) is still waited on: 1 roll of 128 in this game (see the README's live-referee "
    "figures)",
)
def test_a_whole_game_at_the_virtual_table_is_refereed_right(game: dict[str, Any]) -> None:
    """Every roll read, every bad throw called, the result right."""
    t = game
    assert t["rolls"].get("read", 0) == sum(t["rolls"].values()), t["misses"]
    assert t["rerolls"].get("missed", 0) == 0, t["misses"]  # every bad throw called, none waited on
    assert t["results"] == {"right": 1}
