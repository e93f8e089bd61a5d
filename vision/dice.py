"""Find the dice in a frame, read their top faces, and say why a die might not count.

A fast detector (``vision.dice_detect``) proposes where dice might be, the value network
(``vision.dice_model.read``) confirms and reads each proposal; plain geometry adds the board
terms (which half of the field a die lies in, whether it is outside the field), and on a known
field a second network (``vision.dice_flags``) judges each die in the board plane: cocked (not
flat)? resting on a checker?

    >>> import numpy as np
    >>> find_dice(np.full((120, 160, 3), 200, np.uint8))
    []
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from bgboard.layout import Half
from vision import arrivals, dice_detect, dice_flags, dice_model, dice_pips
from vision.arrivals import Blob, Still
from vision.reading import DieReading

# The board's checkers as the reader knows them: the slots surely filled, and those a stack may or may
# not fill (``stacked`` of ``BoardReader``), each as (N, 4) ellipses in the field's unit square; None
# where the board is not known.
_Checkers = tuple[np.ndarray | None, np.ndarray | None]

# A candidate whose "not a die" probability is below this is a die.
DIE_PROBABILITY = 0.8
# A first look with more "not a die" than this cannot pass DIE_PROBABILITY over two looks.
REJECTED = 2 * (1 - DIE_PROBABILITY)
# A first look this sure of one class is not looked at again.
SURE_READ = 0.75
# A die whose likeliest face two looks give less than this share of its die probability is read eight
# ways (four turns, each mirrored), and those decide: a face two looks doubt is misread more often than
# eight looks misread it, and a die that sure is seldom misread.
LOOK_AGAIN = 0.7
# A die's outline: the least edge strength around it (Sobel, 8-bit grey); specks have about 5..20.
MIN_EDGE = 21.0
# Beyond the field a candidate must be surer than this to be a die.
OUTSIDE_DIE_PROBABILITY = 0.95
# A photograph's dice are read at these multiples of the detected side: the detector's sizes on the real
# photographs are off by 0.8..1.25 (5th..95th percentile), and a crop too loose or too tight misreads.
PHOTO_SCALES = (0.8, 1.0, 1.25)
# ... but only a die whose surest class (of the die classes) is below this at the detected size alone:
# the other sizes cost twice the eight looks at the detected one.
PHOTO_SURE = 0.9
# A photograph with no field whose dice the detector finds smaller than SMALL_DIE_PX (at its scale) is
# searched again at SMALL_DICE_SCALE times that scale: the detector learned dice of 6 to 20 px, and
# peaks faintly on the smallest. (Only then: at a finer scale a larger die's pips peak as small dice.)
SMALL_DIE_PX = 8.0
SMALL_DICE_SCALE = 1.6
# A die on the board that eight looks still leave below LOOK_AGAIN is read eight ways at each of these
# multiples of the detected side too, and all the looks weigh its faces: the detector's side is rough
# there as well, and one crop size misreads a small die that others read right.
DOUBT_SCALES = (0.85, 1.0, 1.15)
# A die whose best face has less probability than this is reported unreadable.
READABLE = 0.5
# The fewest pixels across a die at which real dice are read as surely as the readers' target asks: fewer
# blur a pip into its neighbour or into a dark die's body. At a die's labelled box 99 % of the dice the
# networks never trained on read right from 28 px (``bench.dice_size``); thrown on the real boards, a
# face read below READABLE was the die's about one time in two up to 29 px a die, four in five from 30
# (``bench.semireal``). On a field that gives a die fewer, such a face is not named to the table.
CLEAR_DIE_PX = 30
# A die of a pair lying against each other is read in a crop as wide as their patch of change (a die and
# the blur's spread; a looser crop takes in the other die's pips), and its face counts only at this
# confidence: the crop still holds an edge of the other die, and a face read unsurely there is more
# often wrong. Between READABLE and this the table is asked about the face.
PAIR_READABLE = 0.7
# A clean pip layout's pip diameter over pitch (corner offset); outside it the count is not trusted.
PIP_SIZE = (0.6, 1.1)
# A pip count confirms a face the network is unsure of only from this many pips. One or two pips are
# what a die whose pips fade into it shows (a dark see-through die's red pips), to the count and to the
# network alike: on real dice thrown on the boards such counts agreed with the network's face as often
# when it was wrong as when it was right. The face is then asked about instead.
CONFIRMING_PIPS = 3
# Detector peaks weaker than this are not read: a weaker peak is seldom a die, and every peak costs a read.
DETECT_HEAT = 0.3
# At most this many candidates are read: a table holds four dice and a cube; a photograph, more.
MAX_CANDIDATES_FIELD = 8
# A detector peak this hot is a die that arrived, even where the change map saw nothing, if the detector
# saw nothing die-like there (down to STILL_HEAT) in the turn's still frame.
NEW_PEAK_HEAT = 0.45
STILL_HEAT = 0.15
# A still is the window shrunk to ``arrivals.DIE_PX`` px per die and kept as a JPEG: the detector sees the
# calibration frame's things fainter in its still than in the frame itself, so looks there down to this.
CALIBRATION_HEAT = 0.1
MAX_CANDIDATES = 40
# At most this many patches of change are read where the detector saw nothing (those most like a die);
# and as many faint new peaks where a throw showed one die (``_weak_arrivals``).
MAX_PATCHES = 4
# On a field, a die is read (and judged) as at least this many times the die side the field implies:
# the value reader, trained beside a detector that erred large, calls a tight crop of a flat die
# cocked, and the fast detector errs small on small dice.
READ_SIDE_FIELD = 1.35
# On a field, a detector peak at least this hot that the reader rejects is read again RECENTRE die sides
# off its centre in the eight directions (``_recentred``).
HOT = 0.5
RECENTRE = 0.45
# A leaning die's top and side faces, found apart, lie closer than this many die sides; two dice lying
# side by side are a side apart.
LEANING_FIND = 0.9
# A standard field (24 points and the bar) is about this many dice wide.
FIELD_IN_DICE = 31.0
# Half the bar's width in field widths: a die centred on the bar lies in neither half.
BAR_HALF = 0.03
# A die leans on what lies within this many die sides of its footprint (a checker's edge, the rim, the
# bar's edge, the other die); beyond all of them it cannot lean.
SUPPORT_REACH = 1.5
# A patch of change the reader cannot make out is still reported as a die where at least this share of
# a die's core changed: something solid arrived with the throw.
UNREAD_SHARE = 0.6
# ... and beside a die found alone, where this share changed beyond the found die's box: a die lying
# against it has a quarter of its core inside that box, and one the colour of its point changes less.
BESIDE_SHARE = 0.4
# Where a throw shows one die, the detector looks again within CLOSER_WINDOW die sides of it at
# CLOSER_SCALE times its scale, and reads at most CLOSER_PEAKS of its peaks down to CLOSER_HEAT (a dark
# die on a dark point peaks faintly; each peak is read eight ways before it counts); one nearer the
# found die than CLOSER_APART sides is that die's own, and two such, PAIR_APART apart, may be the halves
# of two dice seen as one.
CLOSER_SCALE = 1.5
CLOSER_WINDOW = 2.5
CLOSER_PEAKS = 6
CLOSER_HEAT = 0.15
CLOSER_APART = 0.7
# The two dice of a pair are read at least this many die sides apart: the smallest dice (0.8 of a
# standard side) lying side by side are centred 0.8 apart.
PAIR_APART = 0.6
# A die lying against another is centred this many die sides from it (side by side, corner to corner).
AGAINST = (1.05, 1.4)
# A die's reader crop (READ_SIDE_FIELD sides) holds an edge of another die centred this many die sides
# from it or nearer: two dice lying corner to corner are up to 1.41 sides apart, a little more where
# their top faces stand nearer the camera than the board.
CROPPED_IN = 1.6
# A place where a die may lie that no read made out is read again at crops this many die sides around it.
SECOND_LOOK = 0.3


class ImageError(ValueError):
    """The frame is not an image the reader can use."""


def _as_bgr(image: np.ndarray) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ImageError("expected a BGR image as a non-empty numpy array of shape (H, W, 3)")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    elif image.shape[2] != 3:
        raise ImageError(f"expected 3 colour channels, got {image.shape[2]}")
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    if min(image.shape[:2]) < 16:
        raise ImageError(f"image of {image.shape[1]}x{image.shape[0]} px is too small to hold a die")
    return image


def _quad(field_quad: np.ndarray | Sequence | None) -> np.ndarray | None:
    if field_quad is None:
        return None
    quad = np.asarray(field_quad, dtype=np.float32).reshape(-1, 2)
    if quad.shape != (4, 2) or not np.isfinite(quad).all():
        raise ValueError("field_quad must be 4 corners (tl, tr, br, bl) as [[x, y], ...]")
    return quad


def expected_die_side(field_quad: np.ndarray | None) -> float | None:
    """The die side in pixels a field of this size implies (None without a field)."""
    return None if field_quad is None else _die_side(field_quad)


def small_dice_warning(field_quad: np.ndarray | Sequence) -> str | None:
    """What to tell the table when a field this size in the frame puts fewer than ``CLEAR_DIE_PX`` pixels
    across a die, else None.

    >>> small_dice_warning([(0, 0), (1240, 0), (1240, 600), (0, 600)]) is None
    True
    >>> small_dice_warning([(0, 0), (620, 0), (620, 300), (0, 300)])[:43]
    'a die is about 20 px across in these frames'
    """
    side = _die_side(np.asarray(field_quad, np.float64))
    if side >= CLEAR_DIE_PX:
        return None
    return (
        f"a die is about {side:.0f} px across in these frames; real dice are read surely from "
        f"{CLEAR_DIE_PX} px, so smaller ones are misread, asked about or waited on more often (python -m "
        "bench.dice_size): bring the camera nearer the board or give it a larger camera.size, then "
        "calibrate again"
    )


def _die_side(q: np.ndarray) -> float:
    width = (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    return float(width / FIELD_IN_DICE)


def _detect_scale(image: np.ndarray, die_side: float | None) -> float:
    if die_side:
        return float(np.clip(dice_detect.DIE_PX / die_side, 0.05, 1.5))
    # no field: dice in ordinary photographs are 20..70 px per 640 px of frame; the detector
    # was trained on 6..20 px
    return min(0.3, 192.0 / max(image.shape[:2]))


def search_window(quad: np.ndarray, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """Where dice are looked for (x0, y0, x1, y1): the field's bounding box widened by a fifth of its
    width each side (trays) and a tenth up and down."""
    quad = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    mx, my = 0.2 * (x1 - x0), 0.1 * (y1 - y0)
    h, w = shape[:2]
    return (
        int(max(0, x0 - mx)),
        int(max(0, y0 - my)),
        int(min(w, x1 + mx)),
        int(min(h, y1 + my)),
    )


def _one_peak_per_die(cands: list[dice_model.Candidate]) -> list[dice_model.Candidate]:
    """The strongest of peaks closer than half a die to each other: every candidate costs a read."""
    kept: list[dice_model.Candidate] = []
    for c in sorted(cands, key=lambda c: -c.heat):
        if all(math.hypot(c.x - k.x, c.y - k.y) > 0.5 * max(c.side, k.side) for k in kept):
            kept.append(c)
    return kept


def _suppress(cands: list[dice_model.Candidate], probs: np.ndarray, pairs: Sequence[_Pair] = ()) -> list[int]:
    """Indices of the candidates kept: dice only, one per die (the surest of overlapping peaks); the two
    dice of a pair lying against each other are two however close their crops."""
    die_p = 1.0 - probs[:, 0]
    order = [i for i in np.argsort(-die_p) if die_p[i] >= DIE_PROBABILITY]
    two = {frozenset((p.a, p.b)) for p in pairs}
    kept: list[int] = []
    for i in order:
        c = cands[i]
        if all(
            math.hypot(c.x - cands[k].x, c.y - cands[k].y) > 0.55 * max(c.side, cands[k].side)
            or frozenset((int(i), k)) in two
            for k in kept
        ):
            kept.append(int(i))
    return kept


def _one_per_leaning_die(
    points: list[tuple[float, float]],
    lay: list[dice_flags.Lean],
    die_side: float,
    pairs: Collection[frozenset[int]] = (),
) -> list[int]:
    """Indices of the finds to keep: of finds closer than ``LEANING_FIND`` die sides where one leans, the
    leaning one (but never one of two small dice the reads found lying together, ``pairs``).

    A cocked die shows a side face beside its top face and the detector may find both, and "three dice"
    is no call to throw again. Flat dice cannot lie that close (two lying against each other are a
    side apart); a die leaning on another is a throw again whichever of the two is kept.

        >>> flat, cocked = dice_flags.Lean.FLAT, dice_flags.Lean.COCKED
        >>> _one_per_leaning_die([(0, 0), (12, 0), (60, 0), (80, 0)], [flat, cocked, flat, flat], 22.0)
        [1, 2, 3]
    """
    order = sorted(range(len(points)), key=lambda k: lay[k] is dice_flags.Lean.FLAT)
    kept: list[int] = []
    for k in order:
        near = [
            j
            for j in kept
            if math.dist(points[k], points[j]) < LEANING_FIND * die_side and frozenset((k, j)) not in pairs
        ]
        if not any(lay[k] is not dice_flags.Lean.FLAT or lay[j] is not dice_flags.Lean.FLAT for j in near):
            kept.append(k)
    return sorted(kept)


def _gray(image: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """Grey of one window only: converting the whole frame would cost more than the detector's stem."""
    return cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY)


def _edge_strength(image: np.ndarray, x: float, y: float, side: float) -> float:
    """The 90th percentile gradient between 0.3 and 0.75 sides from the centre (the die's outline).

    A speck on a light table looks like the pip of a "1" to the reader, but it has no die around it.
    """
    r = int(side * 0.75) + 1
    h, w = image.shape[:2]
    x0, y0 = max(0, int(x) - r), max(0, int(y) - r)
    x1, y1 = min(w, int(x) + r + 1), min(h, int(y) + r + 1)
    if min(x1 - x0, y1 - y0) < 3:
        return 0.0
    patch = _gray(image, x0, y0, x1, y1).astype(np.float32)
    mag = cv2.magnitude(cv2.Sobel(patch, cv2.CV_32F, 1, 0), cv2.Sobel(patch, cv2.CV_32F, 0, 1))
    yy, xx = np.mgrid[0 : patch.shape[0], 0 : patch.shape[1]]
    d = np.maximum(np.abs(xx + x0 - x), np.abs(yy + y0 - y)) / side
    ring = mag[(d > 0.3) & (d < 0.75)]
    return float(np.percentile(ring, 90)) if ring.size else 0.0


def _touches_checker_mask(mask: np.ndarray, x: float, y: float, side: float) -> bool:
    """Checker pixels under the die or within a quarter of its side around it."""
    r = 0.75 * side
    h, w = mask.shape[:2]
    x0, x1 = max(0, int(x - r)), min(w, int(x + r) + 1)
    y0, y1 = max(0, int(y - r)), min(h, int(y + r) + 1)
    if x0 >= x1 or y0 >= y1:
        return False
    window = mask[y0:y1, x0:x1] > 0
    # a few stray pixels are noise in the board reader's mask, not a checker
    return window.mean() > 0.04


def _pip_count(image: np.ndarray, c: dice_model.Candidate) -> int | None:
    """The die's face counted the classical way, when its pips make a clean layout of evenly sized pips;
    None when they do not."""
    pc = dice_pips.count_pips(image, c.x, c.y, c.side)
    if pc.value is None:
        return None
    # pip diameter / pitch of real faces lies in about 0.6..1.1; a side face's pip beside a top pip does not
    return pc.value if pc.value == 1 or PIP_SIZE[0] <= pc.size <= PIP_SIZE[1] else None


def _read(image: np.ndarray, cands: list[dice_model.Candidate]) -> np.ndarray:
    """The reader's probabilities (N, 8): one upright look, a second, turned look only where it counts,
    eight looks where two leave the face in doubt, and eight more at each other size of ``DOUBT_SCALES``
    where those eight still do.

    The reader costs as much as the detector, so a candidate it plainly rejects (two looks could not
    bring "not a die" under 1 - DIE_PROBABILITY) or plainly reads (one class at SURE_READ or more)
    keeps its first look; the rest are read again as ``dice_model.read`` does by default (two turns).
    A die whose likeliest face the two looks give less than ``LOOK_AGAIN`` of its die probability is
    read in four turns, each also mirrored (a die's faces look the same in a mirror), and those eight
    looks decide whether it is a die. Where they, too, give its likeliest face less than ``LOOK_AGAIN``,
    the looks at every size weigh its faces.
    """
    probs = dice_model.read(image, cands, turns=1, on_board=True)
    again = [i for i, p in enumerate(probs) if p[0] <= REJECTED and p.max() < SURE_READ]
    if again:
        probs[again] = dice_model.read(image, [cands[i] for i in again], on_board=True)

    def in_doubt(i: int) -> bool:  # its likeliest face has less than LOOK_AGAIN of its die probability
        return bool(probs[i, 1:7].max() < LOOK_AGAIN * (1.0 - probs[i, 0]))

    unsure = [i for i in again if in_doubt(i)]
    if unsure:
        doubted = [cands[i] for i in unsure]
        probs[unsure] = dice_model.read(image, doubted, turns=4, mirror=True, on_board=True)
    doubt = [i for i in unsure if in_doubt(i)]
    others = tuple(f for f in DOUBT_SCALES if f != 1.0)
    if doubt and others:
        more = dice_model.read(
            image, [cands[i] for i in doubt], turns=4, scales=others, mirror=True, on_board=True
        )
        # the other sizes weigh the die's classes; whether it is a die at all the detected size says (a
        # crop too tight or too loose looks less like a die, and would lose a die the eight looks found)
        die = probs[doubt, 1:] + len(others) * more[:, 1:]
        probs[doubt, 1:] = die / die.sum(axis=1, keepdims=True) * (1.0 - probs[doubt, :1])
    return probs


def _recentred(
    image: np.ndarray, cands: list[dice_model.Candidate], probs: np.ndarray, die_side: float
) -> tuple[list[dice_model.Candidate], np.ndarray]:
    """Hot peaks the reader rejects, read again a little off their centre: beside a checker the
    detector's peak is pulled towards it, and a crop half off the die reads "not a die" (a die missed
    beside a checker leaves one die on the board: a false call to throw again). The best look that
    reads a flat die replaces the peak (a look that reads "cocked" is left: a logo or a checker's rim
    read off centre can look like one, and a missed cocked die leaves one die on the board, which is a
    throw again too)."""
    hot = [i for i, (c, p) in enumerate(zip(cands, probs, strict=True)) if c.heat >= HOT and p[0] > REJECTED]
    if not hot:
        return cands, probs
    step = RECENTRE * die_side
    moved = [
        dice_model.Candidate(cands[i].x + dx * step, cands[i].y + dy * step, cands[i].side, cands[i].heat)
        for i in hot
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
        if dx or dy
    ]
    looks = dice_model.read(image, moved, on_board=True).reshape(len(hot), 8, 8)
    cands, probs = list(cands), probs.copy()
    looks[~_reads_flat(looks), 0] = 1.0
    for k, i in enumerate(hot):
        best = int(np.argmin(looks[k, :, 0]))
        if looks[k, best, 0] < probs[i, 0]:
            cands[i], probs[i] = moved[8 * k + best], looks[k, best]
    return cands, probs


def _reads_flat(probs: np.ndarray) -> np.ndarray:
    """Whether each read (the value reader's probabilities, classes last) finds a face likelier than
    "cocked": the likeliest die class is a flat die's."""
    return np.asarray(np.argmax(probs[..., 1:], axis=-1) < 6)


def _read_carefully(image: np.ndarray, cands: list[dice_model.Candidate]) -> np.ndarray:
    """The reader's probabilities (N, 8) for a photograph: every candidate not plainly rejected at a first
    look is read 24 ways (four turns, each also mirrored, at each of ``PHOTO_SCALES`` times the detected
    side) and the looks averaged.

    A photograph has no frame rate to keep up with, and one look misreads a die that a turn, a mirror
    image or another crop size reads right (a small die whose detected side is off by a third, most).
    """
    probs = dice_model.read(image, cands, turns=1)
    again = [i for i, p in enumerate(probs) if p[0] <= REJECTED]
    if again:
        probs[again] = dice_model.read(image, [cands[i] for i in again], turns=4, mirror=True)
    # only a die the eight looks leave unsure is worth the other sizes' 16 (three times the cost)
    unsure = [i for i in again if probs[i, 1:].max() < PHOTO_SURE * (1.0 - probs[i, 0])]
    others = tuple(f for f in PHOTO_SCALES if f != 1.0)
    if unsure and others:
        more = dice_model.read(image, [cands[i] for i in unsure], turns=4, scales=others, mirror=True)
        probs[unsure] = (probs[unsure] + len(others) * more) / (1 + len(others))
    return probs


def _likeliest_face(p: np.ndarray) -> int:
    """The value reader's likeliest flat face (1 to 6) of its class probabilities ``p``."""
    return int(np.argmax(p[1:7])) + 1


def _cocked_odds(p: np.ndarray) -> float:
    """The value reader's log(p cocked / p of the likeliest flat face)."""
    return math.log(float(p[7]) + 1e-4) - math.log(float(p[1:7].max()) + 1e-4)


def _leaning_in_photo(probs: np.ndarray) -> list[bool]:
    """Which dice of a photograph with no field are cocked: the reader finds "cocked" likelier than any
    single flat face (on a field, ``vision.dice_flags`` judges instead)."""
    return [float(p[7]) > float(p[1:7].max()) for p in probs]


def _rise(on_checker: bool) -> float:
    """The height of a die's top face over the board, in field widths (a checker is 0.5 die sides thick)."""
    return (1.5 if on_checker else 1.0) / FIELD_IN_DICE


@dataclass(frozen=True)
class _Pair:
    """The candidates (indices) that read the two halves of a patch of change that two dice lying against
    each other make, or that two small dice or one big die could make (``plain`` False: the patch's shape
    does not tell); ``added`` are those no detector peak explained."""

    a: int
    b: int
    added: tuple[int, ...]
    plain: bool = False


@dataclass
class _Proposals:
    """What ``find_dice`` reads: the candidates (the detector's peaks, then the patches of change none
    of them explained), the centres of every die-sized patch of change (``patches``), the candidates
    that read the two halves of a patch one big die or two small ones could make (``pairs``), and what
    changed since the still (None without one)."""

    cands: list[dice_model.Candidate]
    patches: list[tuple[float, float]] = field(default_factory=list)
    pairs: list[_Pair] = field(default_factory=list)
    changed: np.ndarray | None = None
    still: Still | None = None


def candidates(
    image: np.ndarray, quad: np.ndarray | None, still: Still | None = None
) -> list[dice_model.Candidate]:
    """The proposals that ``find_dice`` reads: the detector's in the field's window, of a plausible size,
    one per die, with the side the reader should crop (``image`` BGR, ``quad`` checked by ``_quad``).

    With a ``still`` of the window (how it looked before the throw) only what arrived since is
    proposed: the detector's peaks where the frame changed, and every patch of change the size of a
    die (or of two lying together) that no peak explains.
    """
    return _proposals(image, quad, still).cands


def _proposals(
    image: np.ndarray,
    quad: np.ndarray | None,
    still: Still | None,
    now: Still | None = None,
    same_board: bool = False,
    peaks: Sequence[dice_model.Candidate] | None = None,
    empty_of: np.ndarray | None = None,
) -> _Proposals:
    if quad is None:
        scale = _detect_scale(image, None)
        found = dice_detect.detect(image, scale, DETECT_HEAT, MAX_CANDIDATES)
        if not found or statistics.median(c.side for c in found) * scale < SMALL_DIE_PX:
            # the photograph's dice are small (a camera far off): looked for again with more pixels each
            found += dice_detect.detect(image, scale * SMALL_DICE_SCALE, DETECT_HEAT, MAX_CANDIDATES)
        return _Proposals(_one_peak_per_die(found))
    die_side = _die_side(quad)
    if peaks is None:
        found = _in_the_window(image, quad, die_side, DETECT_HEAT, MAX_CANDIDATES_FIELD)
    else:  # the same peaks as that pass: the detector lists them hottest first
        found = [c for c in peaks if c.heat >= DETECT_HEAT][:MAX_CANDIDATES_FIELD]
    # keep the detector's centre but trust the field for plausible sizes
    found = _one_peak_per_die([c for c in found if 0.6 * die_side <= c.side <= 2.0 * die_side])
    least = die_side * READ_SIDE_FIELD
    cands = [replace(c, side=max(c.side, least)) for c in found]
    window = search_window(quad, image.shape)
    changed = still.changed(image, now) if still is not None and still.window == window else None
    if still is None or changed is None:
        return _Proposals(cands)  # no still, or the light or the camera moved: the still says nothing
    # what did not change since the still is the table's own; a patch of change no peak explains is
    # read as a hot peak (off centre it is read again)
    # on the board the still shows, a peak where the detector saw nothing die-like is new too (once a
    # play has begun, a checker's art where none lay before is not)
    new = _new_peaks(still, cands, quad, image.shape, same_board, empty_of)
    kept = [c for c, n in zip(cands, new, strict=True) if n or still.arrived(changed, c.x, c.y, die_side)]
    blobs = still.blobs(changed)
    for blob in blobs:
        if blob.plainly_two:
            kept = [c for c in kept if not _between(c, blob.centres)]
    # a throw brings two dice (or one and one thrown again): more patches than a few are a hand's or a
    # play's, and each costs a read
    patches = [centre for blob in blobs for centre in blob.centres][:MAX_PATCHES]
    kept, pairs = _with_patches(kept, blobs, patches, die_side)
    return _Proposals(kept, patches, pairs, changed, still)


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
    side = _die_side(quad)
    new = [_new_peak(still, c, side) for c in cands]
    if same_board:
        return new
    if empty_of is None or not any(new):
        return [False] * len(cands)
    _, empty = _on_empty_points(quad, shape, np.array([[c.x, c.y] for c in cands]), empty_of)
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
    window, in image px: one detector pass over a frame serves both ``find_dice`` (``peaks``: it reads
    the hotter ones) and, for a frame with no dice on it, the turn's still (``table_peaks``). The field is
    taken as ``find_dice`` takes it (``_quad``), so that the pass is the one it would make."""
    quad = _quad(field_quad)
    if quad is None:
        raise ValueError("window_peaks needs the field's corners")
    return _in_the_window(image, quad, _die_side(quad), STILL_HEAT, MAX_CANDIDATES)


def table_peaks(peaks: Sequence[dice_model.Candidate]) -> tuple[tuple[float, float], ...]:
    """Where the detector saw anything die-like (``window_peaks``) in a frame with no dice on it: the
    table's own things, kept with the turn's still (``Still.peaks``)."""
    return tuple((float(c.x), float(c.y)) for c in peaks)


def _in_the_window(
    image: np.ndarray, quad: np.ndarray, die_side: float, heat: float, most: int
) -> list[dice_model.Candidate]:
    """The detector's ``most`` hottest peaks of at least ``heat`` in the field's search window (only the
    field and a margin for the trays: dice beyond are not the table's business), in image px."""
    x0, y0, x1, y1 = search_window(quad, image.shape)
    found = dice_detect.detect(image[y0:y1, x0:x1], _detect_scale(image, die_side), heat, most)
    return [replace(c, x=c.x + x0, y=c.y + y0) for c in found]


def _with_patches(
    kept: list[dice_model.Candidate],
    blobs: list[Blob],
    patches: list[tuple[float, float]],
    die_side: float,
) -> tuple[list[dice_model.Candidate], list[_Pair]]:
    """``kept`` and a hot peak at every patch of change no peak explains (a peak within 0.6 die sides),
    and the pairs: for each patch of two halves, the candidates that read them. A peak near one half
    whose box takes in both must not hide the other half's die, so a pair is never one die for its
    crops' overlap alone (``_pairs_decided`` says whether it is two). Where the patch's shape does not
    tell two small dice from one big die, the peaks between the halves are kept (both readings are made,
    and ``_pairs_decided`` chooses), they explain no half, and a half no peak explains is read in a crop
    as wide as the patch."""
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
            if math.hypot(x - c.x, y - c.y) <= 0.6 * die_side
            and (two is None or not _between(c, two.centres))
        ]
        if two is not None:
            read_by[(x, y)] = near[0] if near else len(kept)
        if not near:
            if two is not None:
                added.add(len(kept))
            side = least if two is None or two.decided else min(max(two.width, die_side), least)
            kept.append(dice_model.Candidate(x, y, side, HOT))
    pairs = []
    for blob in halved:
        a, b = blob.centres
        if a in read_by and b in read_by:
            unexplained = tuple(read_by[c] for c in (a, b) if read_by[c] in added)
            pairs.append(_Pair(read_by[a], read_by[b], unexplained, blob.decided))
    return kept, pairs


def _between(c: dice_model.Candidate, pair: tuple[tuple[float, float], ...]) -> bool:
    """Whether a peak lies between two dice lying against each other, nearer their meeting edge than
    either die's centre: the detector seeing the pair as one die (its read would then be "cocked").

        >>> _between(dice_model.Candidate(10.0, 0.0, 20.0, 1.0), ((0.0, 0.0), (20.0, 0.0)))
        True
        >>> _between(dice_model.Candidate(2.0, 1.0, 20.0, 1.0), ((0.0, 0.0), (20.0, 0.0)))
        False
    """
    (ax, ay), (bx, by) = pair
    mid = math.hypot(c.x - (ax + bx) / 2, c.y - (ay + by) / 2)
    within = mid < 0.5 * math.hypot(ax - bx, ay - by)  # a peak beyond the pair is no read of it
    return within and mid < min(math.hypot(c.x - ax, c.y - ay), math.hypot(c.x - bx, c.y - by))


def _pairs_decided(
    cands: list[dice_model.Candidate], probs: np.ndarray, pairs: list[_Pair], die_side: float
) -> tuple[np.ndarray, list[_Pair]]:
    """The reads of patches of two halves (two dice lying together, or one big die or two small ones),
    and the pairs that are two dice. Two dice when both halves read as dice where they lie apart (a
    half read again off its centre, ``_recentred``, may have moved onto the other half's die), and a
    peak between them is then the pair seen as one die. Otherwise one die, as the other peaks read it
    (a half no peak explained is a crop half off that die).

        >>> c = [dice_model.Candidate(x, 0.0, 10.0, 1.0) for x in (0.0, 5.0, 10.0)]
        >>> dice = np.array([[0.0, 0.9, 0, 0, 0, 0, 0, 0.1]] * 3)
        >>> probs, two = _pairs_decided(c, dice, [_Pair(0, 2, (0, 2))], 10.0)
        >>> probs[:, 0].tolist(), two
        ([0.0, 1.0, 0.0], [_Pair(a=0, b=2, added=(0, 2), plain=False)])
        >>> probs, two = _pairs_decided(c, dice, [_Pair(0, 1, (1,))], 10.0)  # both read one die
        >>> probs[:, 0].tolist(), two
        ([0.0, 1.0, 0.0], [])
        >>> dice[2, 0] = 0.5  # one half is no die
        >>> probs, two = _pairs_decided(c, dice, [_Pair(0, 2, (0, 2))], 10.0)
        >>> probs[:, 0].tolist(), two
        ([1.0, 0.0, 1.0], [])
    """
    probs, two = probs.copy(), []
    for p in pairs:
        pair = ((cands[p.a].x, cands[p.a].y), (cands[p.b].x, cands[p.b].y))
        apart = math.dist(*pair) >= PAIR_APART * die_side
        if apart and min(1.0 - probs[p.a, 0], 1.0 - probs[p.b, 0]) >= DIE_PROBABILITY:
            two.append(p)
            for j, c in enumerate(cands):
                if j not in (p.a, p.b) and _between(c, pair):
                    probs[j, 0] = 1.0
        else:
            probs[list(p.added), 0] = 1.0
    return probs, two


def find_dice(
    image: np.ndarray,
    field_quad: np.ndarray | None = None,
    checker_mask: np.ndarray | None = None,
    on_checker_valid: bool = False,
    checkers: np.ndarray | None = None,
    still: Still | None = None,
    same_board: bool = False,
    stacked: np.ndarray | None = None,
    now: Still | None = None,
    peaks: Sequence[dice_model.Candidate] | None = None,
    calibration: bool = False,
) -> list[DieReading]:
    """Every die in ``image`` (BGR), left to right.

    With ``field_quad`` (tl, tr, br, bl of the playing field in image px) each die also gets its
    ``half`` and ``outside_field`` (of its footprint, ``dice_flags.footprints``: the top face is seen
    shifted away from the camera's nadir by the die's height), ``cocked`` and ``on_checker`` from the
    flags network (``vision.dice_flags``: the die in the board plane). Where the board's checkers are
    known, ``checkers`` gives them as (N, 4) ellipses in the field's unit square (centre u, v and radii
    across and down): a die then rests on a checker when its footprint lies on one, whatever the network
    thinks (geometry first: a die on an empty point beside a stack is on the board); on
    ``stacked`` (the slots of a stack past its fifth checker, which a table lays in the column or over the
    first five) only the network can tell, and it does. ``checker_mask``
    (uint8, non-zero on checker pixels) is the other way to say where checkers are. With
    ``on_checker_valid`` (the table lets a die lying flat on a checker count) a flat die is never flagged
    ``on_checker``. A die cannot lean on nothing: with ``checkers`` known, one the networks see cocked
    whose footprint lies beyond ``SUPPORT_REACH`` die sides of every checker slot, the rim, the bar's wall
    and the other die is reported unreadable with its likeliest face instead (the table is asked).
    Without a field a die is cocked when the value reader finds that likelier than any
    flat face. A cocked die and a die too unclear to read have ``value`` None; so has a die the flags
    network sees cocked while the value reader plainly reads a face (flagged ``unreadable``, with that
    face as ``likeliest``: the referee asks the table), and one lying within ``CROPPED_IN`` die sides of
    another die unless the value reader, too, finds "cocked" likelier than every face (the other die's
    edge in the crops looks like a lean). Where more than two dice are read, a find with no face lying
    within ``CROPPED_IN`` die sides of a die that leans is its side face, and dropped. With a ``still``
    (``vision.arrivals``: the field's window before the throw) only what arrived since can be a die:
    what changed, or, when the still shows
    the same checkers as the frame (``same_board``: the settled frame the turn began with), a hot
    detector peak where the still's own peaks (``table_peaks``) saw nothing die-like. With
    ``calibration`` the still is the calibration frame's (``still_peaks`` its peaks), which shows the
    table's fixtures but another position: such a peak counts there only on a point of the field that
    holds none of the known ``checkers``. On the board the turn began with,
    with ``checkers`` known, a die-sized patch that arrived on an empty point and that the first reads
    did not make out is read again more carefully, and reported as an unreadable die with no face where
    it still cannot be (the referee waits rather than miss a die); a throw that shows one die has its
    fainter new peaks read the same way (``_looked_for``).
    ``now`` is ``image`` made a still of (``Still.of``) when the caller has it: the image is then not
    shrunk again; ``peaks``, likewise, its ``window_peaks``: the detector is then not run again.
    """
    image = _as_bgr(image)
    quad = _quad(field_quad)
    board: _Checkers = (checkers, stacked)
    known = [c for c in board if c is not None]
    empty_of = np.vstack(known) if calibration and known else None
    proposed = _proposals(image, quad, still, now, same_board, peaks, empty_of)
    cands = proposed.cands
    if quad is not None:
        cands, probs = _recentred(image, cands, _read(image, cands), _die_side(quad))
        probs, pairs = _pairs_decided(cands, probs, proposed.pairs, _die_side(quad))
    else:
        probs, pairs = _read_carefully(image, cands), []
    halves = {i for p in pairs if not p.plain for i in (p.a, p.b)}
    kept = [
        i
        for i in _suppress(cands, probs, pairs)
        if _edge_strength(image, cands[i].x, cands[i].y, cands[i].side) >= MIN_EDGE
    ]
    if quad is not None:
        kept, looks = _on_the_field(image, quad, cands, probs, kept, board, pairs)
    else:
        looks = _in_a_photograph(probs[kept])
    crowded = _crowded([cands[i] for i in kept], _die_side(quad)) if quad is not None else set()
    few = quad is not None and _die_side(quad) < CLEAR_DIE_PX
    read: dict[int, DieReading] = {}
    for k, (i, look) in enumerate(zip(kept, looks, strict=True)):
        die = _reading(
            image, cands[i], probs[i], look, checker_mask, on_checker_valid, i in halves, k in crowded, few
        )
        if die is not None:
            read[i] = die
    readings = [read[i] for i in _one_leaning_die_of_a_pair(read, probs, pairs)]
    if quad is not None and checkers is not None and (same_board or calibration):
        found = [cands[i] for i in kept]
        readings += _looked_for(image, quad, proposed, found, board, peaks, on_checker_valid, same_board)
    if quad is not None:
        readings = _side_faces_dropped(readings, _die_side(quad))
    if quad is not None and len(readings) == 1 and _lies_flat_on_the_board(readings[0]):
        readings = _closer_look(image, quad, readings[0], board, on_checker_valid)
    return sorted(readings, key=lambda d: d.center)


def _side_faces_dropped(readings: list[DieReading], side: float) -> list[DieReading]:
    """``readings`` less the finds with no face read that lie within ``CROPPED_IN`` die sides of a die
    that leans, where there are more than a throw's two. A die leaning on the bar's wall or a checker
    shows side faces around its top one, and each may read as a die no face of which can be made out:
    the throw shows three dice or four, and the referee waits on a throw that must be thrown again.
    Two dice cannot hold a third, and whatever lies against a leaning die, the throw is thrown again."""
    if len(readings) <= 2:
        return readings
    leaning = [d.center for d in readings if d.cocked]

    def side_face(d: DieReading) -> bool:
        faceless = d.value is None and not d.cocked
        return faceless and any(math.dist(d.center, c) < CROPPED_IN * side for c in leaning)

    return [d for d in readings if not side_face(d)]


def _one_leaning_die_of_a_pair(
    read: dict[int, DieReading], probs: np.ndarray, pairs: list[_Pair]
) -> list[int]:
    """The candidates ``read`` as dice, less one half of a pair whose other half leans by both networks'
    word, where they make more than a throw's two dice. A die leaning on the bar's wall or a checker shows
    its top and a side face, one patch of change that two small dice lying together could make; read
    as two dice beside the throw's other die, the throw shows three. Two dice cannot hold a third, so
    the patch is one die, and it leans (a die leaning on the other is a throw again all the same)."""
    if len(read) <= 2:
        return list(read)
    dropped = set()
    for p in pairs:
        if p.plain or p.a not in read or p.b not in read:
            continue
        leaning = [i for i in (p.a, p.b) if read[i].cocked and _cocked_odds(probs[i]) > 0.0]
        if len(leaning) == 1:
            dropped.add(p.b if leaning == [p.a] else p.a)
    return [i for i in read if i not in dropped]


def _crowded(found: list[dice_model.Candidate], die_side: float) -> set[int]:
    """Which of the ``found`` dice have another within ``CROPPED_IN`` die sides, its edge in their crops.

    >>> sorted(_crowded([dice_model.Candidate(x, 0.0, 30.0, 1.0) for x in (0.0, 30.0, 100.0)], 22.0))
    [0, 1]
    """
    return {
        k
        for k, c in enumerate(found)
        if any(
            j != k and math.dist((c.x, c.y), (o.x, o.y)) < CROPPED_IN * die_side for j, o in enumerate(found)
        )
    }


def _lies_flat_on_the_board(die: DieReading) -> bool:
    """Whether a die lies flat on the field, off the checkers: a throw showing one such die is called
    "only one die" unless the other is found. Beside a die that leans, rests on a checker or lies off the
    field the throw is thrown again (or waited on) whatever the other shows, and the other found could
    only turn a wait into a throw again."""
    return not (die.cocked or die.on_checker or die.outside_field)


def _closer_look(
    image: np.ndarray,
    quad: np.ndarray,
    alone: DieReading,
    board: _Checkers,
    on_checker_valid: bool,
) -> list[DieReading]:
    """The dice of a throw that showed one (``alone``), looked for with the detector at ``CLOSER_SCALE``
    times its scale within ``CLOSER_WINDOW`` die sides of it: at its own scale a die is two of its cells
    across, and two dice lying together often make one peak. Where the finer look peaks twice on the
    found die, at least ``PAIR_APART`` die sides apart, it may be two dice seen as one (its crop between
    them reads a face where both show it): the two peaks are read as the halves of a pair, and two dice
    stand where both read as dice. Otherwise a peak clear of the found die is read as any place the
    first reads missed (``_second_look``); the first that reads as a die is the other die. None reads:
    the throw still shows one die."""
    side = _die_side(quad)
    x, y = alone.center
    r = CLOSER_WINDOW * side
    h, w = image.shape[:2]
    x0, y0 = max(0, int(x - r)), max(0, int(y - r))
    x1, y1 = min(w, math.ceil(x + r)), min(h, math.ceil(y + r))
    if x1 - x0 < side or y1 - y0 < side:
        return [alone]
    scale = _detect_scale(image, side) * CLOSER_SCALE
    peaks = [
        dice_model.Candidate(c.x + x0, c.y + y0, side * READ_SIDE_FIELD, c.heat)
        for c in dice_detect.detect(image[y0:y1, x0:x1], scale, CLOSER_HEAT, CLOSER_PEAKS)
    ]
    own = [c for c in peaks if math.dist((c.x, c.y), (x, y)) < CLOSER_APART * side]
    two = _split(image, quad, own, side, board, on_checker_valid)
    if two:
        return two
    found = [dice_model.Candidate(x, y, side, HOT)]
    for c in peaks:
        if c in own:
            continue  # the found die's own peak
        seen = _second_look(image, quad, (c.x, c.y), found, board, on_checker_valid)
        if seen is not None:
            return [alone, seen]
    return [alone]


def _split(
    image: np.ndarray,
    quad: np.ndarray,
    own: list[dice_model.Candidate],
    side: float,
    board: _Checkers,
    on_checker_valid: bool,
) -> list[DieReading]:
    """The two dice that the finer look's peaks ``own`` on a found die make of it, read as a pair's
    halves (eight looks each); none where fewer than two peaks lie ``PAIR_APART`` die sides apart or
    either does not read as a die."""
    pairs = [(a, b) for i, a in enumerate(own) for b in own[i + 1 :]]
    if not pairs:
        return []
    a, b = max(pairs, key=lambda p: math.dist((p[0].x, p[0].y), (p[1].x, p[1].y)))
    if math.dist((a.x, a.y), (b.x, b.y)) < PAIR_APART * side:
        return []
    probs = dice_model.read(image, [a, b], turns=4, mirror=True, on_board=True)
    if (probs[:, 0] > 1.0 - DIE_PROBABILITY).any():
        return []
    kept, looks = _on_the_field(image, quad, [a, b], probs, [0, 1], board, [_Pair(0, 1, ())])
    if len(kept) != 2:
        return []
    halves = [
        _reading(image, [a, b][i], probs[i], look, None, on_checker_valid, True)
        for i, look in zip(kept, looks, strict=True)
    ]
    dice = [d for d in halves if d is not None]
    return dice if len(dice) == 2 else []


def _looked_for(
    image: np.ndarray,
    quad: np.ndarray,
    proposed: _Proposals,
    found: list[dice_model.Candidate],
    board: _Checkers,
    peaks: Sequence[dice_model.Candidate] | None,
    on_checker_valid: bool,
    same_board: bool = True,
) -> list[DieReading]:
    """Dice the first reads missed: on the board the turn began with (``same_board``), a patch of change
    the size of a die (``_unread``) read again carefully, reported unreadable where it still cannot be
    made out; and, when the throw showed one die, the detector's weaker peaks that arrived with it
    (``_weak_arrivals``): a die the colour of the point it lies on changes too little to show in the
    change map, and the detector sees it only faintly. Against the calibration's still (another
    position: its change says nothing) only the weak peaks are looked at, on the points the confirmed
    position leaves empty, where the calibration frame showed nothing die-like. A weak peak that does
    not read as a die is nothing."""
    # a patch over a slot a stack may fill is left out, as over a checker
    checkers = np.vstack([c for c in board if c is not None])
    side = _die_side(quad)
    unread = _unread(image.shape, quad, proposed, found, checkers) if same_board else []
    looks = [_second_look(image, quad, die.center, found, board, on_checker_valid) for die in unread]
    seen = [d for d in looks if d is not None]
    # a patch a die seen again lies over (a leaning die's side face and shadow) is that die's
    out = seen + [
        die
        for die, look in zip(unread, looks, strict=True)
        if look is None and all(math.dist(die.center, d.center) >= side for d in seen)
    ]
    if len(found) + len(out) != 1:
        return out
    if peaks is None:
        peaks = _in_the_window(image, quad, side, STILL_HEAT, MAX_CANDIDATES)
    # the one die is the first reads' or one seen again: the other lies clear of it
    one = found + [dice_model.Candidate(*d.center, side, HOT) for d in out]
    for place in _weak_arrivals(quad, image.shape, proposed, peaks, one, checkers):
        other = _second_look(image, quad, place, one, board, on_checker_valid)
        if other is not None:
            return [*out, other]
    return out


def _weak_arrivals(
    quad: np.ndarray,
    shape: tuple[int, ...],
    proposed: _Proposals,
    peaks: Sequence[dice_model.Candidate],
    found: list[dice_model.Candidate],
    checkers: np.ndarray,
) -> list[tuple[float, float]]:
    """The detector's peaks down to ``STILL_HEAT`` (hottest first, at most ``MAX_PATCHES``) where it saw
    nothing die-like before the throw, on the field's empty points and a die's side at least from the
    dice found: the first reads took only the hotter peaks, and only where the frame changed."""
    still, side = proposed.still, _die_side(quad)
    if still is None:
        return []
    weak = [c for c in peaks if still.seen_before(c.x, c.y, side) is False and _clear_of(c, found, side)]
    if not weak:
        return []
    _, empty = _on_empty_points(quad, shape, np.array([[c.x, c.y] for c in weak]), checkers)
    return [(c.x, c.y) for c, ok in zip(weak, empty, strict=True) if ok][:MAX_PATCHES]


def _clear_of(c: dice_model.Candidate, found: list[dice_model.Candidate], side: float) -> bool:
    """Whether ``c`` lies at least a die lying against another away from every die ``found``: two dice
    lying together are a side apart at least, and a crop nearer a found die reads that die again."""
    return all(math.dist((c.x, c.y), (f.x, f.y)) >= min(AGAINST) * side for f in found)


def _on_empty_points(
    quad: np.ndarray, shape: tuple[int, ...], centres: np.ndarray, checkers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The footprints (N, 2; unit square) of dice on the board whose top faces are seen at ``centres``
    (N, 2; image px), and which lie on the field's points, off the bar and off every known checker."""
    feet = dice_flags.footprints(quad, shape, centres, _rise(False))
    inside = (feet >= 0.0).all(axis=1) & (feet <= 1.0).all(axis=1) & (np.abs(feet[:, 0] - 0.5) >= BAR_HALF)
    return feet, inside & ~_on_a_checker(checkers, feet)


def _second_look(
    image: np.ndarray,
    quad: np.ndarray,
    place: tuple[float, float],
    found: list[dice_model.Candidate],
    board: _Checkers,
    on_checker_valid: bool,
) -> DieReading | None:
    """Where a die may lie that the first reads did not make out, read again carefully: every crop of a
    die's size within SECOND_LOOK die sides of ``place`` (a patch's centre or a weak peak lies off the die
    where a shadow or the other die's edge changed too), eight looks each. The crop read surest as a flat
    die is judged as any found die; failing one, the crop read surest as a die that leans, if the flags
    network sees the lean there too (a die leaning on a checker or the bar's wall shows a side face,
    and no crop of it reads flat). None when neither reads as a die."""
    side = _die_side(quad)
    x, y = place
    step = SECOND_LOOK * side
    least = side * READ_SIDE_FIELD
    looks = [
        dice_model.Candidate(x + dx * step, y + dy * step, least, HOT)
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
    ]
    looks = [c for c in looks if _clear_of(c, found, side)]
    if not looks:
        return None
    probs = dice_model.read(image, looks, turns=4, mirror=True, on_board=True)
    flat = _reads_flat(probs)
    for kind in (flat, ~flat):
        die_p = np.where(kind, 1.0 - probs[:, 0], 0.0)
        best = int(np.argmax(die_p))
        c = looks[best]
        if die_p[best] >= DIE_PROBABILITY and _edge_strength(image, c.x, c.y, side) >= MIN_EDGE:
            break
    else:
        return None
    _, (look,) = _on_the_field(image, quad, [looks[best]], probs[best : best + 1], [0], board)
    if not flat[best] and not look.cocked:
        return None  # the value reader alone sees a lean: no die made out
    near = any(math.dist((c.x, c.y), (looks[best].x, looks[best].y)) < max(AGAINST) * side for c in found)
    few = side < CLEAR_DIE_PX
    return _reading(image, looks[best], probs[best], look, None, on_checker_valid, near, few_pixels=few)


def _unread(
    shape: tuple[int, ...],
    quad: np.ndarray,
    proposed: _Proposals,
    dice: list[dice_model.Candidate],
    checkers: np.ndarray,
) -> list[DieReading]:
    """Patches of change the size of a die that arrived on the field's empty points and that the reader
    could not make out as a die (apart from the ``dice`` it found, or lying against one): reported as
    unreadable dice with no face, so that the referee waits (or asks) rather than call a throw with one
    die missing. A patch over a filled checker slot is left out: a checker that moved a little changes
    like that, and a die there rests on a checker anyway."""
    still, changed = proposed.still, proposed.changed
    if still is None or changed is None:
        return []
    side = _die_side(quad)
    found = [(c.x, c.y) for c in dice]
    # a throw is two dice: beside two found dice there is no other to look for
    beside = _beside(found, side) if len(found) < 2 else []
    places = [*((p, False) for p in proposed.patches), *((p, True) for p in beside)]
    if not places:
        return []  # most frames of a game: two dice read, no patch left over
    # a found die changed its own box (a read box is READ_SIDE_FIELD die sides at least) and a rim of
    # blur and shadow: only the change beyond that may be another die
    rest = still.unexplained(changed, [(c.x, c.y, c.side / 2 + 0.1 * side) for c in dice])
    out = []
    for (x, y), against in places:
        if any(math.hypot(x - a, y - b) < side for a, b in found):
            continue
        least = BESIDE_SHARE if against and len(found) == 1 else UNREAD_SHARE
        if still.share(rest, x, y, side) < least:
            continue
        ((u, _),), (empty,) = _on_empty_points(quad, shape, np.array([[x, y]]), checkers)
        if not empty:
            continue
        half = Half.LEFT if u < 0.5 else Half.RIGHT
        box = (x - side / 2, y - side / 2, x + side / 2, y + side / 2)
        out.append(DieReading(None, (float(x), float(y)), box, 0.0, unreadable=True, half=half))
        found.append((x, y))
    return out


def _beside(found: list[tuple[float, float]], side: float) -> list[tuple[float, float]]:
    """Where a second die lying against a found one would be centred: side by side or corner to corner,
    all round. Two dice lying together often make one patch of change, read as the one die the reader
    makes out; the other's core changed as much as any die's."""
    return [
        (x + d * side * math.cos(a), y + d * side * math.sin(a))
        for x, y in found
        for d in AGAINST
        for a in np.linspace(0.0, 2 * math.pi, 16, endpoint=False)
    ]


@dataclass(frozen=True)
class _Look:
    """What is known of a found die besides its face: whether it leans (``cocked``; ``p_cocked`` how
    likely), whether that is in doubt (the flags network sees a lean the value reader does not), whether
    it rests on a checker, and where its footprint stands in field coordinates (None without a field)."""

    cocked: bool
    doubtful: bool
    resting: bool
    p_cocked: float
    foot: tuple[float, float] | None = None


def _on_the_field(
    image: np.ndarray,
    quad: np.ndarray,
    cands: list[dice_model.Candidate],
    probs: np.ndarray,
    kept: list[int],
    checkers: _Checkers,
    pairs: Sequence[_Pair] = (),
) -> tuple[list[int], list[_Look]]:
    """The kept dice judged in the board plane by the flags network (cocked? on a checker?), one find per
    leaning die (the two dice of ``pairs`` stay two), and where each stands: a top face seen near the
    field's edge may lie beyond it while the die stands inside (or the other way), shifted by its height
    away from the camera's nadir. With the board's ``checkers`` known, whether a die rests on one is read
    off its footprint instead."""
    points = [(cands[i].x, cands[i].y) for i in kept]
    known, stacked = checkers
    judged = dice_flags.judge(image, quad, points, FIELD_IN_DICE, resting_known=known is not None)
    odds = [_cocked_odds(probs[i]) for i in kept]
    faces = [_likeliest_face(probs[i]) for i in kept]
    lay = [dice_flags.lean(float(j[0]), o, f) for j, o, f in zip(judged, odds, faces, strict=True)]
    at = {i: k for k, i in enumerate(kept)}
    two = {frozenset((at[p.a], at[p.b])) for p in pairs if p.a in at and p.b in at}
    ones = _one_per_leaning_die(points, lay, _die_side(quad), two)
    kept, judged, lay = [kept[k] for k in ones], judged[ones], [lay[k] for k in ones]
    centres = np.array([[cands[i].x, cands[i].y] for i in kept])
    if known is not None:
        resting, feet = _resting_on(
            known, quad, image.shape, centres, stacked, judged[:, 1] > dice_flags.ON_CHECKER
        )
    else:
        resting = [bool(j[1] > dice_flags.ON_CHECKER) for j in judged]
        feet = dice_flags.footprints(quad, image.shape, centres, [_rise(on) for on in resting])
    if known is not None:
        slots = known if stacked is None else np.concatenate([known, stacked])
        lay = _nothing_to_lean_on(lay, feet, slots, quad)
    looks = [
        _Look(
            x is dice_flags.Lean.COCKED,
            x is dice_flags.Lean.DOUBTFUL,
            rests,
            float(j[0]),
            (float(u), float(v)),
        )
        for x, rests, j, (u, v) in zip(lay, resting, judged, feet, strict=True)
    ]
    return kept, looks


def _nothing_to_lean_on(
    lay: list[dice_flags.Lean], feet: np.ndarray, checkers: np.ndarray, quad: np.ndarray
) -> list[dice_flags.Lean]:
    """``lay`` with a lean the networks see where there is nothing to lean on made a doubt (the table is
    asked about the face). A die cannot rest on an edge on a flat board: it leans on a checker, the
    field's rim or the bar's wall, or the other die. One whose footprint lies farther than
    ``SUPPORT_REACH`` die sides from all of them cannot be leaning, whatever its picture suggests (a die
    photographed from the side shows a side face; a glossy face a streak of light), and what shows on
    top is asked about rather than a good throw thrown again.

    ``checkers``: (u, v, ru, rv) ellipses of every slot a checker may fill."""
    width = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    height = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    side = np.array([1.0, width / height]) / FIELD_IN_DICE  # a die's side in the unit square's u and v
    out = list(lay)
    for k, x in enumerate(lay):
        others = np.delete(feet, k, axis=0)
        if x is dice_flags.Lean.COCKED and not _in_reach(feet[k], others, checkers, side):
            out[k] = dice_flags.Lean.DOUBTFUL
    return out


def _in_reach(foot: np.ndarray, dice: np.ndarray, checkers: np.ndarray, side: np.ndarray) -> bool:
    """Whether something a die can lean on lies within ``SUPPORT_REACH`` die sides of its ``foot``: the
    field's rim, the bar's wall, one of the other ``dice`` (footprints) or ``checkers`` (ellipses); all in
    the field's unit square, ``side`` a die's side there (u, v)."""
    reach = SUPPORT_REACH * side
    u, v = float(foot[0]), float(foot[1])
    if min(u, 1.0 - u) < reach[0] or min(v, 1.0 - v) < reach[1] or abs(u - 0.5) < BAR_HALF + reach[0]:
        return True
    if len(dice) and (np.hypot(*((dice - foot) / side).T) < 1.0 + SUPPORT_REACH).any():
        return True
    # a checker's ellipse widened by the reach: the footprint lies within it
    widened = checkers + np.array([0.0, 0.0, reach[0], reach[1]])
    return bool(_on_a_checker(widened, foot[None, :])[0])


def _resting_on(
    checkers: np.ndarray,
    quad: np.ndarray,
    shape: tuple[int, ...],
    centres: np.ndarray,
    stacked: np.ndarray | None = None,
    seen_resting: np.ndarray | None = None,
) -> tuple[list[bool], np.ndarray]:
    """Which dice rest on one of the known ``checkers``, and their footprints. A die's top face is seen
    shifted away from the nadir by its height, and a die on a checker stands a checker's thickness
    higher: its footprint is looked for both ways (the two lie a tenth of a die apart at most, a checker
    is two and a half dice across). On a slot a stack may or may not fill (``stacked``) a die rests on a
    checker where the flags network sees it resting (``seen_resting``, one per die)."""
    if not len(centres):
        return [], np.empty((0, 2))
    flat = dice_flags.footprints(quad, shape, centres, _rise(False))
    raised = dice_flags.footprints(quad, shape, centres, _rise(True))
    on = _on_a_checker(checkers, flat) | _on_a_checker(checkers, raised)
    if stacked is not None and seen_resting is not None:
        on |= (_on_a_checker(stacked, flat) | _on_a_checker(stacked, raised)) & seen_resting
    return on.tolist(), np.where(on[:, None], raised, flat)


def _on_a_checker(checkers: np.ndarray, feet: np.ndarray) -> np.ndarray:
    """Which footprints (N, 2; unit square) lie within one of the ``checkers`` ellipses (M, 4).

    >>> _on_a_checker(np.array([[0.5, 0.5, 0.02, 0.03]]), np.array([[0.51, 0.52], [0.53, 0.5]])).tolist()
    [True, False]
    """
    if not len(checkers) or not len(feet):
        return np.zeros(len(feet), dtype=bool)
    du = (feet[:, None, 0] - checkers[None, :, 0]) / checkers[None, :, 2]
    dv = (feet[:, None, 1] - checkers[None, :, 1]) / checkers[None, :, 3]
    return np.asarray(((du**2 + dv**2) <= 1.0).any(axis=1))


def _in_a_photograph(probs: np.ndarray) -> list[_Look]:
    """Dice of a photograph with no field: cocked when the value reader finds that likelier than any
    single flat face (no board to rest on, no footprint)."""
    return [
        _Look(cocked, False, False, float(p[7]) / max(1.0 - float(p[0]), 1e-6))
        for cocked, p in zip(_leaning_in_photo(probs), probs, strict=True)
    ]


def _reading(
    image: np.ndarray,
    c: dice_model.Candidate,
    p: np.ndarray,
    look: _Look,
    checker_mask: np.ndarray | None,
    on_checker_valid: bool,
    half_of_a_pair: bool = False,
    crowded: bool = False,
    few_pixels: bool = False,
) -> DieReading | None:
    """One found die as the referee reads it; None for a find beyond the field that is no clear die.
    ``half_of_a_pair``: one of two small dice lying against each other, whose crop holds a little of the
    other: its face counts only when surely read (``PAIR_READABLE``); an unsure one is asked about
    where it is read at ``READABLE`` or more, or the flags network sees it lean (the table is asked
    whether every die lies flat), and waited on otherwise. ``crowded``:
    another die lies within ``CROPPED_IN`` die sides (as the two of a pair do). ``few_pixels``: the field
    gives a die fewer than ``CLEAR_DIE_PX`` pixels, and a face read below ``READABLE`` is not named."""
    if (half_of_a_pair or crowded) and look.cocked and _cocked_odds(p) <= 0.0:
        # the other die's edge and side beside a flat die look like a lean to the flags network: unless
        # the value reader, too, finds "cocked" likelier than every face, the table is asked about the
        # face, and never told to throw again on that look alone
        look = replace(look, cocked=False, doubtful=True)
    value = _likeliest_face(p)
    die_p = 1.0 - float(p[0])
    confidence = look.p_cocked if look.cocked else float(p[value]) / die_p
    unreadable = not look.cocked and confidence < (PAIR_READABLE if half_of_a_pair else READABLE)
    likeliest: int | None = None if look.cocked else value
    if look.doubtful:
        # a die the flags network sees cocked, with a face up: whether it counts is the table's call, so
        # it is reported unreadable with its likeliest face (pips cannot tell a lean). The table asked
        # throws a leaning die again and plays flat dice showing another face, which names the roll
        unreadable, confidence = True, min(confidence, 1.0 - look.p_cocked)
    elif half_of_a_pair:
        if unreadable and confidence < READABLE:
            # the other die's pips are in the crop (and would be in a pip count): no face is likely
            # enough to name. Between READABLE and PAIR_READABLE the face is asked about
            likeliest = None
    elif unreadable:
        pips = _pip_count(image, c)
        if pips == value and pips >= CONFIRMING_PIPS:
            unreadable = False  # the network is unsure but the pips, counted the classical way, agree
        elif (pips is not None and pips != value) or few_pixels:
            # the two disagree, or the die has too few pixels for a face read below READABLE to be more
            # than a coin toss: no face is likely enough to ask the table about (the referee waits, and
            # the play names the roll)
            likeliest = None
    outside, half, on_checker = False, None, False
    if look.foot is not None:
        u, v = look.foot
        outside = not (0.0 <= u <= 1.0 and 0.0 <= v <= 1.0)
        if outside and (look.cocked or unreadable or die_p < OUTSIDE_DIE_PROBABILITY):
            # trays hold the cube, clocks and score cards: beyond the field only a clear die counts
            return None
        on_bar = abs(u - 0.5) < BAR_HALF
        half = None if outside or on_bar else (Half.LEFT if u < 0.5 else Half.RIGHT)
        if checker_mask is not None:
            on_checker = _touches_checker_mask(checker_mask, c.x, c.y, c.side)
        elif not outside:
            on_checker = look.resting
        if on_checker_valid and not look.cocked:
            on_checker = False
    return DieReading(
        value=None if (look.cocked or unreadable) else value,
        center=(float(c.x), float(c.y)),
        box=c.box,
        confidence=confidence,
        cocked=look.cocked,
        on_checker=on_checker,
        outside_field=outside,
        unreadable=unreadable,
        half=half,
        likeliest=likeliest,
    )
