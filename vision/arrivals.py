"""What arrived since the board was last still: a die is what comes with a throw.

The referee knows how the table looked before the throw (:class:`Still`: the settled frame the turn
began with, or the calibration frame with its clear dice painted out, for the first throw). What is
the same as then (a clock beside the board, the cube where it lies, a logo, the art on a checker, the
contents of a tray) is no die, however much it looks like one; what changed in a solid patch the
size of a die is where a die may be, and is read even where the detector saw nothing (two dice lying
against each other are one blob to it, and a die unlike the ones it learned may not be seen at all).

The frame is compared at the scale where a die is ``DIE_PX`` pixels across, blurred so that thin
strokes (a clock's changing digits, a seam of the board) and a pixel of camera jitter fade, and with
the overall shift of light between the two frames taken out.

    >>> import numpy as np
    >>> board = np.full((200, 300, 3), 120, np.uint8)
    >>> still = Still.of(board, (0, 0, 300, 200), die_side=20.0)
    >>> thrown = board.copy(); thrown[90:110, 140:160] = 240
    >>> changed = still.changed(thrown)
    >>> still.share(changed, 150.0, 100.0), still.share(changed, 60.0, 50.0)
    (1.0, 0.0)
"""

from __future__ import annotations

import base64
import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

# A die is compared at this many pixels across: enough for a solid patch, too few for a digit's stroke.
DIE_PX = 6.0
# A pixel changed when its colour moved this far (CIE Lab units, after the frames' shift of light):
# a white die on a cream point differs by about 10 (its shading, pips and shadow), a camera's noise
# by 2 to 3 at this scale.
CHANGED_DE = 7.0
# A die arrived where at least this share of its core (a disc of 0.4 sides) changed.
ARRIVED = 0.35
# When more than this share of the window changed, the light or the camera moved: nothing can be said.
TOO_MUCH = 0.35
# Blobs of change this many die areas count as one die, and up to TWO_DICE as two lying together;
# bigger ones are a hand or a stack that changed. A die's patch is wider than the die: the blur
# spreads it by about a pixel each side and its shadow adds a little ((6 + 2)^2 / 6^2 = 1.8 areas).
# A dark see-through die on a dark point changes only where its pips and lit edge are: a quarter of a
# die's area, or a little more. A patch only proposes a place to read; the reader decides.
ONE_DIE = (0.25, 2.3)
TWO_DICE = 4.5
# What one die's patch usually measures, in die areas: of patches alike in shape, those nearest this
# are read first.
TYPICAL = 1.8
# Two dice lying against each other make a blob at least this much longer than wide.
ELONGATED = 1.45
# Two small dice lying against each other make a patch one big die could make, but longer: at least
# PAIR_AREA die areas and PAIR_ELONGATED times longer than wide. A die alone, even with its shadow, is
# squarer than that; such a patch is read both ways and the reads decide
# (``vision.dice_pairs.pairs_decided``).
PAIR_AREA = 1.5
PAIR_ELONGATED = 1.55
# The halves of a squarish patch bigger than one die lie at least this many die sides apart when it
# holds two dice lying together: side by side about a die's side plus the blur's pixel (0.97 sides for
# dice of 0.8 standard sides), more corner to corner. One die up to 1.4 sides across puts them at most
# 0.87 apart, the blur's spread included.
APART = 0.9


class StillError(ValueError):
    """A stored still frame that cannot be used."""


@dataclass(frozen=True)
class Blob:
    """A patch of change the size of one die or two: centres of the dice it may hold, in image px."""

    centres: tuple[tuple[float, float], ...]
    area: float  # in die areas
    width: float = 0.0  # the patch's short side in image px: about a die's side and the blur's spread
    decided: bool = True  # False: the reads say whether the patch holds one die or two (``one_or_two``)

    @property
    def plainly_two(self) -> bool:
        """Two centres in a patch whose shape shows two dice lying against each other."""
        return self.decided and len(self.centres) == 2

    @property
    def one_or_two(self) -> bool:
        """Two centres in a patch whose shape does not tell one die from two: two small dice, or one die
        (or something else that arrived), as the reads say."""
        return len(self.centres) == 2 and not self.decided


@dataclass(frozen=True)
class Still:
    """The dice window of a frame as it was before the throw, at ``scale`` (``DIE_PX`` px per die)."""

    window: tuple[int, int, int, int]  # x0, y0, x1, y1 in image px
    scale: float
    image: np.ndarray  # BGR uint8, the window shrunk by ``scale``
    # where the dice detector saw something die-like in the frame the still was made of (image px): the
    # table's own (a logo, the clock, the cube); None when it was not looked at
    peaks: tuple[tuple[float, float], ...] | None = None

    def seen_before(self, x: float, y: float, side: float) -> bool | None:
        """Whether the detector saw something die-like within half a die of (``x``, ``y``) before the throw
        (None when the still does not say).

            >>> still = Still((0, 0, 60, 60), 0.3, np.zeros((18, 18, 3), np.uint8), ((20.0, 20.0),))
            >>> still.seen_before(24.0, 21.0, 12.0), still.seen_before(40.0, 20.0, 12.0)
            (True, False)
        """
        if self.peaks is None:
            return None
        return any(math.hypot(x - a, y - b) <= 0.5 * side for a, b in self.peaks)

    @classmethod
    def of(cls, frame: np.ndarray, window: tuple[int, int, int, int], die_side: float) -> Still:
        """The still of ``frame`` (BGR) in ``window`` for dice of ``die_side`` image px."""
        scale = DIE_PX / max(die_side, 1.0)
        return cls(window, scale, _shrink(frame, window, scale))

    @functools.cached_property
    def lab(self) -> np.ndarray:
        """The still blurred, in OpenCV's 8-bit Lab as float32 (made once, then compared with every frame)."""
        return cv2.cvtColor(_blur(self.image), cv2.COLOR_BGR2LAB).astype(np.float32)

    def changed(self, frame: np.ndarray, now: Still | None = None) -> np.ndarray | None:
        """Where ``frame`` differs from the still (bool, at the still's scale), or None when too much of
        it changed to tell (the light or the camera moved). ``now``: ``frame`` already made a still of
        (``Still.of``), so that a frame compared with several stills is shrunk once."""
        if now is None or (now.window, now.scale) != (self.window, self.scale):
            now = Still(self.window, self.scale, _shrink(frame, self.window, self.scale))
        if now.image.shape != self.image.shape:
            return None
        diff = now.lab - self.lab
        # the light's shift over the whole window (every other pixel each way is as good a median)
        diff -= np.median(diff[::2, ::2].reshape(-1, 3), axis=0)
        # OpenCV's 8-bit Lab scales L by 255/100: bring it back to Lab units
        diff[..., 0] *= 100.0 / 255.0
        moved = np.einsum("ijk,ijk->ij", diff, diff) > CHANGED_DE**2
        if moved.mean() > TOO_MUCH:
            return None
        return moved

    def share(self, changed: np.ndarray | None, x: float, y: float, side: float | None = None) -> float:
        """The share of the die's core at image (``x``, ``y``) that changed (1 when nothing can be said)."""
        if changed is None:
            return 1.0
        r = 0.4 * (side * self.scale if side else DIE_PX)
        cx, cy = (x - self.window[0]) * self.scale, (y - self.window[1]) * self.scale
        h, w = changed.shape
        x0, x1 = max(0, int(cx - r)), min(w, int(math.ceil(cx + r)) + 1)
        y0, y1 = max(0, int(cy - r)), min(h, int(math.ceil(cy + r)) + 1)
        if x0 >= x1 or y0 >= y1:
            return 0.0
        yy, xx = np.mgrid[y0:y1, x0:x1]
        disc = (xx - cx) ** 2 + (yy - cy) ** 2 <= max(r, 1.0) ** 2
        if not disc.any():
            return 0.0
        return float(changed[y0:y1, x0:x1][disc].mean())

    def unexplained(self, changed: np.ndarray, dice: list[tuple[float, float, float]]) -> np.ndarray:
        """``changed`` less what the ``dice`` found cover (image x, y and radius): their bodies, blur and
        shadow."""
        rest = changed.astype(np.uint8)
        for x, y, r in dice:
            cx, cy = (x - self.window[0]) * self.scale, (y - self.window[1]) * self.scale
            cv2.circle(rest, (round(cx), round(cy)), round(r * self.scale), 0, -1)
        return rest.astype(bool)

    def arrived(self, changed: np.ndarray | None, x: float, y: float, side: float | None = None) -> bool:
        """Whether something new lies at image (``x``, ``y``): a die here came with the throw."""
        return self.share(changed, x, y, side) >= ARRIVED

    def blobs(self, changed: np.ndarray | None) -> list[Blob]:
        """The patches of change the size of one die, or of two lying against each other: those plainly
        two dice lying together first (nothing else leaves that long a patch), then those most like a
        die's, each die's share of it against ``TYPICAL``. A squarish patch bigger than a die may be two
        dice lying corner to corner, or the cube turned and moved after a take, which changes the frame
        where it lay and where it lies; a sliver of change where a checker or the cube's shadow shifted
        is far smaller than a die's. None of these must crowd a throw's dice out of the few that are
        read."""
        if changed is None:
            return []
        solid = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        n, labels, stats, centres = cv2.connectedComponentsWithStats(solid)
        die_area = DIE_PX * DIE_PX
        found = []
        for k in range(1, n):
            area = stats[k, cv2.CC_STAT_AREA] / die_area
            if area < ONE_DIE[0] or area > TWO_DICE:
                continue
            points = np.column_stack(np.nonzero(labels == k)[::-1]).astype(np.float32)
            (_, _), (w, h), _ = cv2.minAreaRect(points)
            long, short = max(w, h), min(w, h)
            dice: list[tuple[float, float]] | None
            if area <= ONE_DIE[1]:
                dice = _two(points, long, short, PAIR_ELONGATED) if area >= PAIR_AREA else None
                decided = dice is None
                dice = dice or [(float(centres[k][0]), float(centres[k][1]))]
            else:
                dice = _two(points, long, short, ELONGATED)
                decided = dice is not None
                if dice is None:
                    # a squarish patch bigger than a die: two dice lying close at an angle to each other
                    # (their shadows fill the corners), or the cube, a cup's base, a hand's shadow
                    dice = _halves(points)
                    if math.dist(*dice) < APART * DIE_PX:
                        continue  # one die bigger than ours: the detector's peak reads it
            back = [(self.window[0] + x / self.scale, self.window[1] + y / self.scale) for x, y in dice]
            at = tuple((float(x), float(y)) for x, y in back)
            found.append(Blob(at, float(area), float(short) / self.scale, decided))
        return sorted(found, key=lambda b: (not b.plainly_two, abs(b.area / len(b.centres) - TYPICAL)))

    def to_json(self) -> dict:
        """The still as a profile keeps it: losslessly (PNG). At ``DIE_PX`` pixels a die, a JPEG's
        ringing round a checker's rim moves pixels past ``CHANGED_DE``: a real calibration frame compared
        with its still read back showed, besides its own two dice, eleven patches of change of a quarter
        of a die's area or more, each read as a die that may have arrived, on every first throw."""
        ok, png = cv2.imencode(".png", self.image)
        if not ok:
            raise StillError("cannot encode the still frame")
        return {
            "window": list(self.window),
            "scale": self.scale,
            "png": base64.b64encode(png.tobytes()).decode("ascii"),
        }

    @classmethod
    def from_json(cls, data: dict) -> Still:
        """A still ``to_json`` wrote (or, from a profile written before it kept PNG, a JPEG one)."""
        try:
            window = tuple(int(v) for v in data["window"])
            scale = float(data["scale"])
            encoded = data["png"] if "png" in data else data["jpeg"]
            raw = np.frombuffer(base64.b64decode(encoded, validate=True), np.uint8)
        except (KeyError, TypeError, ValueError) as e:
            raise StillError(f"the still frame is damaged ({e})") from None
        image = cv2.imdecode(raw, cv2.IMREAD_COLOR) if raw.size else None
        if len(window) != 4 or not (0 < scale < 10) or image is None:
            raise StillError("the still frame is damaged")
        x0, y0, x1, y1 = window
        if image.shape[:2] != _shrunk_size(window, scale)[::-1]:
            raise StillError("the still frame does not match its window")
        return cls((x0, y0, x1, y1), scale, image)


def _shrunk_size(window: tuple[int, int, int, int], scale: float) -> tuple[int, int]:
    x0, y0, x1, y1 = window
    return max(1, round((x1 - x0) * scale)), max(1, round((y1 - y0) * scale))


def _shrink(frame: np.ndarray, window: tuple[int, int, int, int], scale: float) -> np.ndarray:
    x0, y0, x1, y1 = window
    crop = frame[y0:y1, x0:x1]
    size = _shrunk_size(window, scale)
    # a halving first while two more steps remain (a Gaussian pyramid level is cheap), then by area: as
    # sharp as one area resize, in half the time
    while crop.shape[1] >= 4 * size[0] and crop.shape[0] >= 4 * size[1]:
        crop = cv2.pyrDown(crop)
    return cv2.resize(crop, size, interpolation=cv2.INTER_AREA)


def _blur(image: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(image, (3, 3), 0.8)


def _two(points: np.ndarray, long: float, short: float, elongated: float) -> list[tuple[float, float]] | None:
    """The centres of two dice in a blob of change (its ``long`` and ``short`` sides, from its least
    rectangle), or None when the blob is no pair (not ``elongated`` times longer than wide): the blob's
    halves along its long axis."""
    return None if long < elongated * max(short, 1.0) else _halves(points)


def _halves(points: np.ndarray) -> list[tuple[float, float]]:
    """The centres of a blob's two halves along its long axis."""
    centre = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - centre, full_matrices=False)
    along = (points - centre) @ vt[0]
    halves = [points[side].mean(axis=0) for side in (along < 0, along >= 0)]
    return [(float(x), float(y)) for x, y in halves]
