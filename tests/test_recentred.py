"""A hot detector peak the reader rejects is read again a little off its centre (``dice_reads.recentred``):
beside a checker a die's peak is pulled towards it, and a crop half off the die reads "not a die"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from real_throw_fixtures import bench_frames

from synthetic.real_throws import seen_dice
from vision import dice_field, dice_model, dice_proposals, dice_reads

REJECTED_READ = np.array([[0.9, 0.02, 0.02, 0.02, 0.02, 0.01, 0.01, 0.0]], np.float32)


def _peak(x: float, y: float, quad: np.ndarray) -> dice_model.Candidate:
    side = dice_field.die_side(quad) * dice_proposals.READ_SIDE_FIELD
    return dice_model.Candidate(x, y, side, heat=1.0)


def test_a_peak_beside_a_die_moves_onto_it(shared_data: Path) -> None:
    """`python -m bench.semireal --seed 1`, throw 16: a 6 and a 5 lying flat on `frame0.jpg`. A peak one
    step to the right of each is moved onto it and read as that die."""
    t, throw, frame, _ = bench_frames(shared_data, 1, 16)
    assert (t.name, throw.kind, throw.values) == ("frame0.jpg", "flat", (6, 5))
    side = dice_field.die_side(t.corners)
    for (x, y, _), value in zip(seen_dice(t, throw), throw.values, strict=True):
        off = _peak(x + dice_reads.RECENTRE * side, y, t.corners)
        cands, probs = dice_reads.recentred(frame, [off], REJECTED_READ, side)
        assert np.hypot(cands[0].x - x, cands[0].y - y) < 0.25 * side
        assert probs[0, 0] <= 1 - dice_reads.DIE_PROBABILITY
        assert dice_reads.likeliest_face(probs[0]) == value


def test_a_peak_far_from_any_die_is_left(shared_data: Path) -> None:
    """A peak on the board's frame, far from the dice, stays where it was, rejected."""
    t, throw, frame, _ = bench_frames(shared_data, 1, 16)
    (x, y), side = t.corners[0], dice_field.die_side(t.corners)
    assert all(np.hypot(x - d[0], y - d[1]) > 4 * side for d in seen_dice(t, throw))
    peak = _peak(float(x), float(y), t.corners)
    cands, probs = dice_reads.recentred(frame, [peak], REJECTED_READ, side)
    assert cands[0] is peak
    assert probs[0, 0] == REJECTED_READ[0, 0]
