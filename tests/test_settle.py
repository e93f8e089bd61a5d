"""The settle gate: still frames settle it, motion resets it."""

from __future__ import annotations

import numpy as np
import pytest

from vision.settle import SettleGate


def _frame(seed: int, hand_at: int | None = None) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = np.tile(np.linspace(40, 220, 320, dtype=np.float32), (180, 1))
    img = np.clip(base[..., None] + rng.normal(0, 3, (180, 320, 3)), 0, 255).astype(np.uint8)
    if hand_at is not None:
        img[60:130, hand_at : hand_at + 50] = (90, 140, 200)
    return img


def test_settles_after_still_frames_despite_sensor_noise() -> None:
    gate = SettleGate(still_frames=3)
    results = [gate.update(_frame(seed)) for seed in range(5)]
    assert results == [False, False, False, True, True]


def test_a_moving_hand_resets_the_gate() -> None:
    gate = SettleGate(still_frames=2)
    for seed in range(4):
        gate.update(_frame(seed))
    assert gate.settled
    assert not gate.update(_frame(10, hand_at=100))
    assert not gate.update(_frame(11, hand_at=160))
    assert not gate.update(_frame(12, hand_at=160))  # first still frame after the move
    assert gate.update(_frame(13, hand_at=160))


def test_a_small_hand_at_the_edge_is_motion() -> None:
    gate = SettleGate(still_frames=1)
    gate.update(_frame(0))
    assert gate.update(_frame(1))
    assert not gate.update(_frame(2, hand_at=0))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError):
        SettleGate(still_frames=0)
    with pytest.raises(ValueError):
        SettleGate().update(np.zeros(5))
