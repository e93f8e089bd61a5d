"""Shared fixtures: the real data beside the clone, when it is there."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# property tests draw the same examples on every run (a failure found once is found again), and the
# whole-match strategy is slow to draw by design
settings.register_profile(
    "referee", derandomize=True, deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("referee")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; tests that need it skip when a fresh clone has no ``../shared`` beside it."""
    data = SHARED / "data"
    if not data.is_dir():
        pytest.skip(f"real data not present: {data} is missing (CI puts ../shared beside the clone)")
    return data


@dataclass
class DemoRecording:
    """A short demo (a wrong setup, the opening roll with a cocked die thrown again, one more turn)
    recorded with ``--save-frames``: ``folder`` holds frames/, profile.json and replay.toml."""

    folder: Path
    result: Any
    log: str


@pytest.fixture(scope="session")
def demo_recording(tmp_path_factory: pytest.TempPathFactory) -> DemoRecording:
    """One recording shared by every test that replays the demo through `referee run`."""
    from referee.cli.demo import run_demo
    from synthetic.demo_game import demo_game

    folder = tmp_path_factory.mktemp("demo")
    out = io.StringIO()
    result = run_demo(folder / "demo.sqlite", shots=demo_game(turns=2), out=out, save_frames=folder / "saved")
    return DemoRecording(folder / "saved", result, out.getvalue())


def one_line_error(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    """The one line a command wrote to stderr for bad input (no traceback), holding every one of
    ``words``."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]
