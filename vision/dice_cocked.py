"""Is a die on the field cocked (leaning, no face flat up)? The reader's odds, weighed by perspective.

The value reader (``vision.dice_model``) has a "cocked" class; a die used to count as cocked when
that class beat every flat face. But a camera sees the side faces of a flat die too, the more the
farther the die lies from the point under the camera: on 4 x 300 rendered frames (``bench.dice``
scenes, seeds 3, 7, 11, 13) the reader calls 0.7 % of the flat dice within 150 px of the frame's
centre cocked and 9 % of those 350..450 px out, while the cocked dice it flags stay at about 82 %
everywhere. So the odds a die must reach grow with its distance from the frame's centre (where a
camera looking down has its nadir): 441 of 525 cocked dice flagged instead of 436, and 33 of
1,595 flat dice instead of 44, no worse on any of the four seeds, at no cost (no extra look).

    >>> import numpy as np
    >>> p = np.array([0.0, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0, 0.7])
    >>> is_cocked(p, 640.0, 360.0, (720, 1280)), is_cocked(p, 1200.0, 700.0, (720, 1280))
    (True, False)
"""

from __future__ import annotations

import math

import numpy as np

# Cocked when log(p cocked / p likeliest face) > THRESHOLD + SLOPE * off_centre. Chosen on the
# frames above (flagged cocked / flat called cocked of 525 / 1,595): -0.7, 2.0 gives 441 / 33;
# -0.6, 2.0 437 / 27; -0.8, 2.5 438 / 28; -0.9, 1.5 461 / 68; the old rule (0, 0) 436 / 44.
THRESHOLD = -0.7
SLOPE = 2.0
# Keeps the log finite.
_EPS = 1e-4


def cocked_odds(probs: np.ndarray) -> float:
    """log(p cocked / p of the likeliest flat face) from the reader's 8 probabilities."""
    return math.log(float(probs[7]) + _EPS) - math.log(float(np.max(probs[1:7])) + _EPS)


def off_centre(x: float, y: float, shape: tuple[int, ...]) -> float:
    """Distance of (x, y) from the frame's centre in half diagonals: 0 at the centre, 1 in a corner."""
    h, w = shape[:2]
    if h <= 0 or w <= 0:
        raise ValueError(f"a frame of {w}x{h} px has no centre: give the image's shape (H, W[, 3])")
    return math.hypot(x - w / 2, y - h / 2) / math.hypot(w / 2, h / 2)


def is_cocked(probs: np.ndarray, x: float, y: float, shape: tuple[int, ...]) -> bool:
    """Whether the die read as ``probs`` (8 classes) at (x, y) in a frame of ``shape`` leans.

    For dice on a field seen by a camera looking down on it (the field's centre near the frame's);
    ``vision.dice.find_dice`` uses it when it is given the field.
    """
    if len(probs) != 8:
        raise ValueError(f"expected the reader's 8 class probabilities, got {len(probs)}")
    return cocked_odds(probs) > THRESHOLD + SLOPE * off_centre(x, y, shape)
