"""Shared fixtures: the real data beside the clone, when it is there."""

from __future__ import annotations

from pathlib import Path

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
