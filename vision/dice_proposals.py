"""Where dice might be: the detector's peaks in the field's window and, with the turn's still, only
what arrived since (peaks where the frame changed, new peaks where the still saw nothing die-like,
patches of change no peak explains, and the two halves of a patch that two dice lying together make)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from vision import arrivals, dice_detect, dice_field, dice_model, dice_reads
from vision.arrivals import Blob, Still

# A photograph with no field whose dice the detector finds smaller than SMALL_DIE_PX (at its scale) is
# searched again at SMALL_DICE_SCALE times that scale: the detector learned dice of 6 to 20 px, and
# peaks faintly on the smallest. (Only then: at a finer scale a larger die's pips peak as small dice.)
SMALL_DIE_PX = 8.0
SMALL_DICE_SCALE = 1.6
# Detector peaks weaker than this are not read: a weaker peak is seldom a die, and every peak costs a read.
DETECT_HEAT = 0.3
# At most this many candidates are read: a table holds four dice and a cube; a photograph, more.
MAX_CANDIDATES_FIELD = 8
# A detector peak this hot is a die that arrived, even where the change map saw nothing, if the detector
# saw nothing die-like there (down to STILL_HEAT) in the turn's still frame.
NEW_PEAK_HEAT = 0.45
STILL_HEAT = 0.15
# A still is the window shrunk to ``arrivals.DIE_PX`` px per die, fewer than the detector's own: it sees the
# calibration frame's things fainter in its still than in the frame itself, so looks there down to this.
CALIBRATION_HEAT = 0.1
MAX_CANDIDATES = 40
# At most this many patches of change are read where the detector saw nothing (those most like a die);
# and as many faint new peaks where a throw showed one die (``dice_second_look._weak_arrivals``). A throw
# is two patches; the cube turned and moved after a take adds three (where it lay, and the two halves of
# the squarish patch where it lies), which must not crowd a die out.
MAX_PATCHES = 6
# On a field, a die is read (and judged) as at least this many times the die side the field implies:
# the value reader, trained beside a detector that erred large, calls a tight crop of a flat die
# cocked, and the fast detector errs small on small dice.
READ_SIDE_FIELD = 1.35


def one_peak_per_die(cands: list[dice_model.Candidate]) -> list[dice_model.Candidate]:
    """The strongest of peaks closer than half a die to each other: every candidate costs a read."""
    kept: list[dice_model.Candidate] = []
    for c in sorted(cands, key=lambda c: -c.heat):
        if all(math.hypot(c.x - k.x, c.y - k.y) > 0.5 * max(c.side, k.side) for k in kept):
            kept.append(c)
    return kept


@dataclass(frozen=True)
class Pair:
    """The candidates (indices) that read the two halves of a patch of change that two dice lying against
    each other make, or that two small dice or one big die could make (``plain`` False: the patch's shape
    does not tell); ``added`` are those no detector peak explained."""

    a: int
    b: int
    added: tuple[int, ...]
    plain: bool = False


@dataclass
class Proposals:
    """What ``dice.find_dice`` reads: the candidates (the detector's peaks, then the patches of change none
    of them explained), the centres of every die-sized patch of change (``patches``), the candidates
    that read the two halves of a patch one big die or two small ones could make (``pairs``), and what
    changed since the still (None without one)."""

    cands: list[dice_model.Candidate]
    patches: list[tuple[float, float]] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    changed: np.ndarray | None = None
    still: Still | None = None


def candidates(
    image: np.ndarray, quad: np.ndarray | None, still: Still | None = None
) -> list[dice_model.Candidate]:
    """The proposals that ``dice.find_dice`` reads: the detector's in the field's window, of a plausible
    size, one per die, with the side the reader should crop (``image`` BGR, ``quad`` checked by
    ``dice_field.checked_quad``).

    With a ``still`` of the window (how it looked before the throw) only what arrived since is
    proposed: the detector's peaks where the frame changed, and every patch of change the size of a
    die (or of two lying together) that no peak explains.
    """
    return proposals(image, quad, still).cands


def proposals(
    image: np.ndarray,
    quad: np.ndarray | None,
    still: Still | None,
    now: Still | None = None,
    same_board: bool = False,
    peaks: Sequence[dice_model.Candidate] | None = None,
    empty_of: np.ndarray | None = None,
) -> Proposals:
    if quad is None:
        scale = dice_field.detect_scale(image, None)
        found = dice_detect.detect(image, scale, DETECT_HEAT, MAX_CANDIDATES)
        if not found or statistics.median(c.side for c in found) * scale < SMALL_DIE_PX:
            # the photograph's dice are small (a camera far off): looked for again with more pixels each
            found += dice_detect.detect(image, scale * SMALL_DICE_SCALE, DETECT_HEAT, MAX_CANDIDATES)
        return Proposals(one_peak_per_die(found))
    die_side = dice_field.die_side(quad)
    if peaks is None:
        found = in_the_window(image, quad, die_side, DETECT_HEAT, MAX_CANDIDATES_FIELD)
    else:  # the same peaks as that pass: the detector lists them hottest first
        found = [c for c in peaks if c.heat >= DETECT_HEAT][:MAX_CANDIDATES_FIELD]
    # keep the detector's centre but trust the field for plausible sizes
    found = one_peak_per_die([c for c in found if 0.6 * die_side <= c.side <= 2.0 * die_side])
    least = die_side * READ_SIDE_FIELD
    cands = [replace(c, side=max(c.side, least)) for c in found]
    window = dice_field.search_window(quad, image.shape)
    changed = still.changed(image, now) if still is not None and still.window == window else None
    if still is None or changed is None:
        return Proposals(cands)  # no still, or the light or the camera moved: the still says nothing
    # what did not change since the still is the table's own; a patch of change no peak explains is
    # read as a hot peak (off centre it is read again)
    # on the board the still shows, a peak where the detector saw nothing die-like is new too (once a
    # play has begun, a checker's art where none lay before is not)
    new = _new_peaks(still, cands, quad, image.shape, same_board, empty_of)
    kept = [c for c, n in zip(cands, new, strict=True) if n or still.arrived(changed, c.x, c.y, die_side)]
    blobs = still.blobs(changed)
    for blob in blobs:
        if blob.plainly_two:
            kept = [c for c in kept if not between(c, blob.centres)]
    # a throw brings two dice (or one and one thrown again): more patches than a few are a hand's or a
    # play's, and each costs a read
    patches = [centre for blob in blobs for centre in blob.centres][:MAX_PATCHES]
    kept, pairs = _with_patches(kept, blobs, patches, die_side)
    return Proposals(kept, patches, pairs, changed, still)


def _new_peak(still: Still, c: dice_model.Candidate, die_side: float) -> bool:
    """A plain detector peak where the detector saw nothing die-like before the throw: a die the colour
    of the point it lies on changes too little of the table to show in the change map."""
    return c.heat >= NEW_PEAK_HEAT and still.seen_before(c.x, c.y, die_side) is False


def _new_peaks(
    still: Still,
    cands: list[dice_model.Candidate],
    quad: np.ndarray,
    shape: tuple[int, ...],
    same_board: bool,
    empty_of: np.ndarray | None,
) -> list[bool]:
    """Which candidates are new peaks (``_new_peak``) that count as dice that arrived: anywhere on the
    board the still shows (``same_board``); on the calibration's still, which shows the table's fixtures
    but another position, only on the field's points that hold none of the checkers ``empty_of`` (the
    confirmed position's, (N, 4) ellipses): no checker there can put its art under the peak."""
    side = dice_field.die_side(quad)
    new = [_new_peak(still, c, side) for c in cands]
    if same_board:
        return new
    if empty_of is None or not any(new):
        return [False] * len(cands)
    _, empty = dice_field.on_empty_points(quad, shape, np.array([[c.x, c.y] for c in cands]), empty_of)
    return [bool(n and e) for n, e in zip(new, empty, strict=True)]


def still_peaks(still: Still) -> tuple[tuple[float, float], ...]:
    """Where the detector sees anything die-like in ``still``'s own image (image px): the table's own
    things in a frame kept only as its still, such as the calibration frame of a profile.

        >>> blank = Still((0, 0, 600, 400), 0.3, np.full((120, 180, 3), 200, np.uint8))
        >>> still_peaks(blank)
        ()
    """
    scale = dice_detect.DIE_PX / arrivals.DIE_PX
    found = dice_detect.detect(still.image, scale, CALIBRATION_HEAT, MAX_CANDIDATES)
    x0, y0 = still.window[:2]
    return tuple((x0 + c.x / still.scale, y0 + c.y / still.scale) for c in found)


def window_peaks(image: np.ndarray, field_quad: np.ndarray) -> list[dice_model.Candidate]:
    """Every detector peak down to ``STILL_HEAT`` (the ``MAX_CANDIDATES`` hottest) in the field's search
    window, in image px: one detector pass over a frame serves both ``dice.find_dice`` (``peaks``: it reads
    the hotter ones) and, for a frame with no dice on it, the turn's still (``table_peaks``). The field is
    taken as ``dice.find_dice`` takes it (``dice_field.checked_quad``), so that the pass is the one it
    would make."""
    quad = dice_field.checked_quad(field_quad)
    if quad is None:
        raise ValueError("window_peaks needs the field's corners")
    return in_the_window(image, quad, dice_field.die_side(quad), STILL_HEAT, MAX_CANDIDATES)


def table_peaks(peaks: Sequence[dice_model.Candidate]) -> tuple[tuple[float, float], ...]:
    """Where the detector saw anything die-like (``window_peaks``) in a frame with no dice on it: the
    table's own things, kept with the turn's still (``Still.peaks``)."""
    return tuple((float(c.x), float(c.y)) for c in peaks)


def in_the_window(
    image: np.ndarray, quad: np.ndarray, die_side: float, heat: float, most: int, finer: float = 1.0
) -> list[dice_model.Candidate]:
    """The detector's ``most`` hottest peaks of at least ``heat`` in the field's search window (only the
    field and a margin for the trays: dice beyond are not the table's business), in image px; run at
    ``finer`` times its scale for dice of ``die_side`` px."""
    x0, y0, x1, y1 = dice_field.search_window(quad, image.shape)
    scale = dice_field.detect_scale(image, die_side) * finer
    found = dice_detect.detect(image[y0:y1, x0:x1], scale, heat, most)
    return [replace(c, x=c.x + x0, y=c.y + y0) for c in found]


def _with_patches(
    kept: list[dice_model.Candidate],
    blobs: list[Blob],
    patches: list[tuple[float, float]],
    die_side: float,
) -> tuple[list[dice_model.Candidate], list[Pair]]:
    """``kept`` and a hot peak at every patch of change no peak explains (a peak within 0.6 die sides),
    and the pairs: for each patch of two halves, the candidates that read them. A peak near one half
    whose box takes in both must not hide the other half's die, so a pair is never one die for its
    crops' overlap alone (``dice_pairs.pairs_decided`` says whether it is two). Where the patch's
    shape does not tell two small dice from one big die, the peaks between the halves are kept (both
    readings are made, and ``dice_pairs.pairs_decided`` chooses), they explain no half, and a half no
    peak explains is read in a crop as wide as the patch."""
    kept = list(kept)
    least = die_side * READ_SIDE_FIELD
    halved = [blob for blob in blobs if len(blob.centres) == 2]
    of_a_pair = {centre: blob for blob in halved for centre in blob.centres}
    read_by: dict[tuple[float, float], int] = {}  # a pair's half, and the candidate that reads it
    added = set()
    for x, y in patches:
        two = of_a_pair.get((x, y))
        near = [
            k
            for k, c in enumerate(kept)
            if math.hypot(x - c.x, y - c.y) <= 0.6 * die_side and (two is None or not between(c, two.centres))
        ]
        if two is not None:
            read_by[(x, y)] = near[0] if near else len(kept)
        if not near:
            if two is not None:
                added.add(len(kept))
            side = least if two is None or two.decided else min(max(two.width, die_side), least)
            kept.append(dice_model.Candidate(x, y, side, dice_reads.HOT))
    pairs = []
    for blob in halved:
        a, b = blob.centres
        if a in read_by and b in read_by:
            unexplained = tuple(read_by[c] for c in (a, b) if read_by[c] in added)
            pairs.append(Pair(read_by[a], read_by[b], unexplained, blob.decided))
    return kept, pairs


def between(c: dice_model.Candidate, pair: tuple[tuple[float, float], ...]) -> bool:
    """Whether a peak lies between two dice lying against each other, nearer their meeting edge than
    either die's centre: the detector seeing the pair as one die (its read would then be "cocked").

        >>> between(dice_model.Candidate(10.0, 0.0, 20.0, 1.0), ((0.0, 0.0), (20.0, 0.0)))
        True
        >>> between(dice_model.Candidate(2.0, 1.0, 20.0, 1.0), ((0.0, 0.0), (20.0, 0.0)))
        False
    """
    (ax, ay), (bx, by) = pair
    mid = math.hypot(c.x - (ax + bx) / 2, c.y - (ay + by) / 2)
    within = mid < 0.5 * math.hypot(ax - bx, ay - by)  # a peak beyond the pair is no read of it
    return within and mid < min(math.hypot(c.x - ax, c.y - ay), math.hypot(c.x - bx, c.y - by))
