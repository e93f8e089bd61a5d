"""Occlusion: when a slot looks like nothing the calibration showed, something foreign is over it.

A hand, a sleeve, a dice cup or glare changes a slot's rim and colour features far more than the frame
noise, light drift and checker drift that the calibration frame (and its pasted variants) already cover.
The threshold is set from the calibration samples themselves: a new slot farther from every sample than
almost all samples are from their nearest neighbour is *novel*, and :mod:`vision.stacks` makes a point
with a novel slot in or just past its stack unreadable.

    >>> import numpy as np
    >>> round(novelty_threshold(np.array([0.1, 0.2, 0.3, 0.4])), 3)
    0.516
"""

from __future__ import annotations

import numpy as np

# the share of calibration samples whose nearest-neighbour distance counts as ordinary
ORDINARY = 99.0
# how far past the ordinary a slot must lie to be foreign
FACTOR = 1.3
FLOOR = 0.3


def novelty_threshold(nearest: np.ndarray) -> float:
    """The novelty distance from leave-one-out nearest-neighbour distances of the calibration samples."""
    nearest = np.asarray(nearest, dtype=np.float64)
    nearest = nearest[np.isfinite(nearest)]
    if not len(nearest):
        return 1.0
    return float(max(FLOOR, FACTOR * np.percentile(nearest, ORDINARY)))


# a slot this far past the ordinary counts as foreign when a neighbouring slot is too: hands are large
NEIGHBOUR_SHARE = 0.8


def foreign_points(nearest: np.ndarray, novelty: float) -> np.ndarray:
    """Novel slots of a 2 x 12 x K grid of nearest-sample distances (rows, points, slots from the edge).

    A slot beyond ``novelty`` is foreign; so is one beyond ``NEIGHBOUR_SHARE * novelty`` next to another
    such slot (along the point, or the same slot of the next point): a hand or a cup covers several
    slots at once, whereas an odd slot (a drifted checker's edge) stands alone.
    """
    d = np.asarray(nearest, dtype=np.float64)
    high = d > novelty
    low = d > NEIGHBOUR_SHARE * novelty
    pad = np.pad(low, ((0, 0), (1, 1), (1, 1)))
    neighbours = pad[:, :-2, 1:-1] | pad[:, 2:, 1:-1] | pad[:, 1:-1, :-2] | pad[:, 1:-1, 2:]
    return high | (low & neighbours)


def foreign_line(nearest: np.ndarray, novelty: float) -> np.ndarray:
    """The same rule for a line of candidates (the bar)."""
    d = np.asarray(nearest, dtype=np.float64)
    low = d > NEIGHBOUR_SHARE * novelty
    pad = np.pad(low, 1)
    return (d > novelty) | (low & (pad[:-2] | pad[2:]))


def lone_spots(
    nearest: np.ndarray, novelty: float, centers: np.ndarray | None = None, gap: float = 0.0
) -> np.ndarray:
    """Candidates of a line beyond ``novelty`` that no neighbour backs: one odd spot (a glint, the
    shading at the bar's end), unlike a hand, which pushes its neighbours past ``NEIGHBOUR_SHARE *
    novelty`` too. A neighbour whose search settled within ``gap`` of the spot (given ``centers``) found
    the same spot and is no second witness. A spot only a little past the share is never lone: a hand's
    edge often looks no more than that (the synthetic suite has one), so such a pair stays foreign.

        >>> lone_spots(np.array([0.1, 1.5, 0.2, 0.9, 1.2, 0.3, 0.85]), 1.0).tolist()
        [False, True, False, False, False, False, False]
        >>> c = np.array([[0, 0], [0, 10], [0, 10], [0, 30]])
        >>> lone_spots(np.array([0.1, 1.1, 1.1, 0.1]), 1.0, c, gap=5).tolist()
        [False, True, True, False]
    """
    d = np.asarray(nearest, dtype=np.float64)
    low = d > NEIGHBOUR_SHARE * novelty
    n = len(d)
    backed = np.zeros(n, dtype=bool)
    twins = []
    for step in (-1, 1):
        j = np.arange(n) + step
        jj = np.clip(j, 0, n - 1)
        apart = np.ones(n, dtype=bool)
        if centers is not None:
            c = np.asarray(centers, dtype=np.float64)
            apart = np.hypot(*(c - c[jj]).T) >= gap
        ok = (j >= 0) & (j < n)
        backed |= ok & low[jj] & apart
        twins.append((ok & ~apart, jj))
    # a spot found twice is backed when either finding is
    for _ in range(n):
        grown = backed.copy()
        for twin, jj in twins:
            grown |= twin & backed[jj]
        if (grown == backed).all():
            break
        backed = grown
    return (d > novelty) & ~backed
