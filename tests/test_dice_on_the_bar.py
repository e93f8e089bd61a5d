"""A find on the bar that is no clear die (the cube pushed to the bar's end, whose face the reader
cannot make out) is none of the throw's dice: the die beside it is looked at as a lone die, the die
against it is still looked for, and a die leaning on the bar is not found twice. The frames are those of
`python -m bench.dice --skip-real --rendered 200 --seed S` (the tests may not import the bench)."""

from __future__ import annotations

import math

import numpy as np

from synthetic.random_scenes import BENCH_DICE, dice_scene
from synthetic.render import Rendered, render
from vision.dice import find_dice


def bench_frame(seed: int, i: int) -> Rendered:
    """Frame ``i`` of the bench's rendered frames of ``seed``: its scenes are drawn from one stream."""
    rng = np.random.default_rng(seed)
    for _ in range(i):
        dice_scene(rng, BENCH_DICE)
    return render(dice_scene(rng, BENCH_DICE), seed=seed * 1000 + i)


def test_a_die_beside_an_unclear_find_on_the_bar_is_found() -> None:
    """Seed 3 frame 69: a 3 lying against a 6 on the bar, the 6 unreadable. The throw shows only that
    find on the bar, and the die against it is looked for around it."""
    frame = bench_frame(3, 69)
    three = next(t for t in frame.dice if t.value == 3)
    found = find_dice(frame.image, frame.field_quad)
    assert any(d.value == 3 and math.dist(d.center, three.center) < 10 for d in found), found


def test_a_die_leaning_on_the_bar_is_not_found_twice() -> None:
    """Seed 3 frame 15: a 2 leaning on the bar, a 3 flat beside it. Beside a die that leans, even on the
    bar, nothing is looked for again (the throw is thrown again whatever else lies there)."""
    frame = bench_frame(3, 15)
    found = find_dice(frame.image, frame.field_quad)
    assert len(found) == 2 and sum(d.cocked for d in found) == 1, found
