"""The value reader's looks at candidate dice (``vision.dice_model.read``): how many looks, at which
sizes and how far off centre a candidate gets before its read is trusted (each look costs as much as
the detector), and what the reads say of it: a die? which face? leaning?"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision import dice_model, dice_pips

# A candidate whose "not a die" probability is below this is a die.
DIE_PROBABILITY = 0.8
# A first look with more "not a die" than this cannot pass DIE_PROBABILITY over two looks.
REJECTED = 2 * (1 - DIE_PROBABILITY)
# A first look this sure of one class is not looked at again, and a face read so is taken as the roll
# without asking (``referee.throws.SURE_ROLL``, 0.9). One look must be surer than the roll needs: on a
# die unlike those the reader learned, one look can give a wrong face 0.9 and two looks half that (a
# dark red see-through 3 read as a 1 at 0.91, then at 0.53). A face one look reads less surely gets the
# looks any doubt gets.
SURE_READ = 0.95
# A die whose likeliest face two looks give less than this share of its die probability is read eight
# ways (four turns, each mirrored), and those decide: a face two looks doubt is misread more often than
# eight looks misread it, and a die that sure is seldom misread.
LOOK_AGAIN = 0.7
# A die's outline: the least edge strength around it (Sobel, 8-bit grey); specks have about 5..20.
MIN_EDGE = 21.0
# A photograph's dice are read at these multiples of the detected side: the detector's sizes on the real
# photographs are off by 0.8..1.25 (5th..95th percentile), and a crop too loose or too tight misreads.
PHOTO_SCALES = (0.8, 1.0, 1.25)
# ... but only a die whose surest class (of the die classes) is below this at the detected size alone:
# the other sizes cost twice the eight looks at the detected one.
PHOTO_SURE = 0.9
# A die on the board that eight looks still leave below LOOK_AGAIN is read eight ways at each of these
# multiples of the detected side too, and all the looks weigh its faces: the detector's side is rough
# there as well, and one crop size misreads a small die that others read right.
DOUBT_SCALES = (0.85, 1.0, 1.15)
# A clean pip layout's pip diameter over pitch (corner offset); outside it the count is not trusted.
PIP_SIZE = (0.6, 1.1)
# On a field, a detector peak at least this hot that the reader rejects is read again RECENTRE die sides
# off its centre in the eight directions (``recentred``).
HOT = 0.5
RECENTRE = 0.45


def _gray(image: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """Grey of one window only: converting the whole frame would cost more than the detector's stem."""
    return cv2.cvtColor(np.ascontiguousarray(image[y0:y1, x0:x1]), cv2.COLOR_BGR2GRAY)


def _in_doubt(p: np.ndarray) -> bool:
    """Whether a read's likeliest face has less than ``LOOK_AGAIN`` of its die probability."""
    return bool(p[1:7].max() < LOOK_AGAIN * (1.0 - p[0]))


def edge_strength(image: np.ndarray, x: float, y: float, side: float) -> float:
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


def pip_count(image: np.ndarray, c: dice_model.Candidate) -> int | None:
    """The die's face counted the classical way, when its pips make a clean layout of evenly sized pips;
    None when they do not."""
    pc = dice_pips.count_pips(image, c.x, c.y, c.side)
    if pc.value is None:
        return None
    # pip diameter / pitch of real faces lies in about 0.6..1.1; a side face's pip beside a top pip does not
    return pc.value if pc.value == 1 or PIP_SIZE[0] <= pc.size <= PIP_SIZE[1] else None


def read(image: np.ndarray, cands: list[dice_model.Candidate]) -> np.ndarray:
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
    return looked_at(image, cands)[0]


def looked_at(image: np.ndarray, cands: list[dice_model.Candidate]) -> tuple[np.ndarray, set[int]]:
    """The reader's probabilities as ``read`` gives them, and the candidates it read ``closely`` (a
    candidate read so needs no second reading: the same looks give the same read)."""
    probs = dice_model.read(image, cands, turns=1, on_board=True)
    again = [i for i, p in enumerate(probs) if p[0] <= REJECTED and p.max() < SURE_READ]
    probs = turned_too(image, cands, probs, again)
    close = [i for i in again if _in_doubt(probs[i])]
    return closely(image, cands, probs, close), set(close)


def turned_too(
    image: np.ndarray, cands: list[dice_model.Candidate], upright: np.ndarray, which: list[int]
) -> np.ndarray:
    """The upright looks ``upright`` at ``cands`` with those of ``which`` read turned as well and the two
    averaged: two looks, as ``dice_model.read`` takes them by default (the upright one is the first)."""
    probs = upright.copy()
    if which:
        turned = dice_model.read(image, [cands[i] for i in which], on_board=True, first_turn=1)
        probs[which] = (probs[which] + turned) / 2
    return probs


def closely(
    image: np.ndarray, cands: list[dice_model.Candidate], probs: np.ndarray, which: list[int]
) -> np.ndarray:
    """``probs`` with the candidates ``which`` read eight ways (four turns, each mirrored), and where those
    leave the likeliest face below ``LOOK_AGAIN`` of the die probability, eight more at each other size
    of ``DOUBT_SCALES`` weighing the faces."""
    probs = probs.copy()
    if not which:
        return probs
    probs[which] = dice_model.read(image, [cands[i] for i in which], turns=4, mirror=True, on_board=True)
    doubt = [i for i in which if _in_doubt(probs[i])]
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


def recentred(
    image: np.ndarray, cands: list[dice_model.Candidate], probs: np.ndarray, die_side: float
) -> tuple[list[dice_model.Candidate], np.ndarray]:
    """Hot peaks the reader rejects, read again a little off their centre: beside a checker the
    detector's peak is pulled towards it, and a crop half off the die reads "not a die" (a die missed
    beside a checker leaves one die on the board: a false call to throw again). The best look that
    reads a flat die replaces the peak (a look that reads "cocked" is left: a logo or a checker's rim
    read off centre can look like one, and a missed cocked die leaves one die on the board, which is a
    throw again too). Each look is read upright first, and turned only where the upright read leaves it
    a die's chance (``REJECTED``): a look that cannot pass ``DIE_PROBABILITY`` finds no die. Read against
    the calibration's still, where whatever moved since is new, a first throw has many such peaks."""
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
    upright = dice_model.read(image, moved, turns=1, on_board=True)
    far = upright[:, 0] > REJECTED
    if far.all():
        return cands, probs
    looks = turned_too(image, moved, upright, np.flatnonzero(~far).tolist())
    looks[far, 0] = 1.0
    looks = looks.reshape(len(hot), 8, 8)
    cands, probs = list(cands), probs.copy()
    looks[~reads_flat(looks), 0] = 1.0
    for k, i in enumerate(hot):
        best = int(np.argmin(looks[k, :, 0]))
        if looks[k, best, 0] < probs[i, 0]:
            cands[i], probs[i] = moved[8 * k + best], looks[k, best]
    return cands, probs


def reads_flat(probs: np.ndarray) -> np.ndarray:
    """Whether each read (the value reader's probabilities, classes last) finds a face likelier than
    "cocked": the likeliest die class is a flat die's."""
    return np.asarray(np.argmax(probs[..., 1:], axis=-1) < 6)


def read_carefully(image: np.ndarray, cands: list[dice_model.Candidate]) -> np.ndarray:
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


def likeliest_face(p: np.ndarray) -> int:
    """The value reader's likeliest flat face (1 to 6) of its class probabilities ``p``."""
    return int(np.argmax(p[1:7])) + 1


def cocked_odds(p: np.ndarray) -> float:
    """The value reader's log(p cocked / p of the likeliest flat face)."""
    return math.log(float(p[7]) + 1e-4) - math.log(float(p[1:7].max()) + 1e-4)


def as_flat(p: np.ndarray) -> np.ndarray:
    """The class probabilities ``p`` of a die known to lie flat: its share of "cocked" given to the flat
    faces in proportion, so that each face is read as likely as the faces alone make it (the share of
    "not a die" kept).

    >>> as_flat(np.array([0.1, 0.2, 0.1, 0, 0, 0, 0, 0.6])).round(2).tolist()
    [0.1, 0.6, 0.3, 0.0, 0.0, 0.0, 0.0, 0.0]
    """
    faces = float(p[1:7].sum())
    if faces <= 0.0:
        return p
    out = p.copy()
    out[1:7] *= (faces + float(p[7])) / faces
    out[7] = 0.0
    return out


def leaning_in_photo(probs: np.ndarray) -> list[bool]:
    """Which dice of a photograph with no field are cocked: the reader finds "cocked" likelier than any
    single flat face (on a field, ``vision.dice_flags`` judges instead)."""
    return [float(p[7]) > float(p[1:7].max()) for p in probs]
