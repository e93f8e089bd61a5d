"""The semi-real bench's throws (``synthetic.real_throws``) lie where a table's dice can lie."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from calibration.labelled import labelled_cameras
from synthetic.pasted import held_out_dice
from synthetic.real_throws import RealTable, make_throw, render_throw, still_frames

# test2.jpg's two dice cups standing on its field (x0, y0, x1, y1 in px), read off the photograph
CUPS = ((287, 133, 431, 303), (743, 117, 895, 267))


def test_no_die_is_thrown_onto_a_cup_standing_on_the_field(shared_data: Path) -> None:
    """A die lands beside a dice cup, never on top of it: the bench's truth would call it flat while
    the frame shows it tilted on the cup's rim. A die in front of a cup may hide the cup's foot."""
    cam = next(c for c in labelled_cameras(shared_data / "real-boards") if c.name == "test2.jpg")
    t = RealTable.of_labelled(cam)
    rng = np.random.default_rng(0)
    on_a_cup = []
    for n in range(400):
        throw = make_throw(t, rng)
        for u, v, size in throw.spots:
            x, y = t.image_at(u, v)  # where the die stands on the board
            r = size * t.die_side() / 2
            if any(x0 - r < x < x1 + r and y0 - r < y < y1 + r for x0, y0, x1, y1 in CUPS):
                on_a_cup.append((n, throw.kind, round(x), round(y)))
    assert not on_a_cup


def test_a_raw_frame_is_the_same_throw_without_the_jpeg(shared_data: Path) -> None:
    """A frame as a Pi camera hands it over (``jpeg=False``) is the throw a webcam's MJPEG frame shows,
    the same dice in the same places, without the compression; the stream of random numbers stays in
    step, so every later throw is the same too."""
    cam = next(c for c in labelled_cameras(shared_data / "real-boards") if c.name == "test10.jpg")
    t = RealTable.of_labelled(cam)
    dice = held_out_dice(shared_data / "real-dice" / "labels.csv", shared_data / "real-dice" / "images")
    frames, after = [], []
    for jpeg in (True, False):
        rng = np.random.default_rng([1, 5])
        frame, _ = render_throw(t, make_throw(t, rng), dice, rng, jpeg=jpeg)
        frames.append(frame.astype(np.int16))
        after.append(rng.integers(1 << 30))
    assert after[0] == after[1]
    difference = np.abs(frames[0] - frames[1])
    assert 0 < difference.mean() < 2.0 and np.percentile(difference, 99) < 12


def test_still_frames_differ_by_the_sensors_noise_alone() -> None:
    """Frames of a still scene each carry their own noise of about the asked size, and nothing else
    changes: their mean lies nearer the scene than any one of them."""
    scene = np.tile(np.linspace(40, 210, 64, dtype=np.float32), (48, 1))
    scene = np.dstack([scene] * 3).astype(np.uint8)
    frames = still_frames(scene, np.random.default_rng(3), 4, 3.0, jpeg=False)
    off = [float(np.std(f.astype(np.float32) - scene)) for f in frames]
    assert len(frames) == 4 and all(2.5 < s < 3.5 for s in off)
    assert not np.array_equal(frames[0], frames[1])
    mean = np.mean([f.astype(np.float32) for f in frames], axis=0)
    assert float(np.std(mean - scene)) < min(off) * 0.7
    seen = still_frames(scene, np.random.default_rng(3), 2, 3.0, jpeg=True)
    assert all(f.shape == scene.shape and f.dtype == np.uint8 for f in seen)
