"""Two dice lying together: the patches of two halves read as two dice or one, the finds a leaning die's
side faces make dropped, and which dice lie close enough for another's edge to be in their crops."""

from __future__ import annotations

import math

import numpy as np

from vision import dice_model, dice_proposals, dice_reads
from vision.reading import DieReading

# The two dice of a pair are read at least this many die sides apart: the smallest dice (0.8 of a
# standard side) lying side by side are centred 0.8 apart.
PAIR_APART = 0.6
# ... and two halves read as the same face at least this far apart: the smallest dice lying side by side
# are 0.8 apart, and nearer, the two reads of one face are one die read twice (or a die with another
# leaning over its edge, whose own face neither half reads).
SAME_FACE_APART = 0.8
# A die lying against another is centred this many die sides from it (side by side, corner to corner).
AGAINST = (1.05, 1.4)
# A die's reader crop (READ_SIDE_FIELD sides) holds an edge of another die centred this many die sides
# from it or nearer: two dice lying corner to corner are up to 1.41 sides apart, a little more where
# their top faces stand nearer the camera than the board.
CROPPED_IN = 1.6


def pairs_decided(
    cands: list[dice_model.Candidate], probs: np.ndarray, pairs: list[dice_proposals.Pair], die_side: float
) -> tuple[np.ndarray, list[dice_proposals.Pair]]:
    """The reads of patches of two halves (two dice lying together, or one big die or two small ones),
    and the pairs that are two dice. Two dice when both halves read as dice where they lie apart
    (``PAIR_APART``, or ``SAME_FACE_APART`` where both read one face; a half read again off its centre,
    ``dice_reads.recentred``, may have moved onto the other half's die), and a peak between them is then
    the pair seen as one die. Otherwise one die, as the other peaks read it
    (a half no peak explained is a crop half off that die); where no other peak lies on the patch, as
    its half surer of a die reads it.

        >>> c = [dice_model.Candidate(x, 0.0, 10.0, 1.0) for x in (0.0, 5.0, 10.0)]
        >>> dice = np.array([[0.0, 0.9, 0, 0, 0, 0, 0, 0.1]] * 3)
        >>> probs, two = pairs_decided(c, dice, [dice_proposals.Pair(0, 2, (0, 2))], 10.0)
        >>> probs[:, 0].tolist(), two
        ([0.0, 1.0, 0.0], [Pair(a=0, b=2, added=(0, 2), plain=False)])
        >>> probs, two = pairs_decided(c, dice, [dice_proposals.Pair(0, 1, (1,))], 10.0)  # both read one die
        >>> probs[:, 0].tolist(), two
        ([0.0, 1.0, 0.0], [])
        >>> dice[2, 0] = 0.5  # one half is no die
        >>> probs, two = pairs_decided(c, dice, [dice_proposals.Pair(0, 2, (0, 2))], 10.0)
        >>> probs[:, 0].tolist(), two
        ([1.0, 0.0, 1.0], [])
        >>> probs, two = pairs_decided(c[::2], dice[::2], [dice_proposals.Pair(0, 1, (0, 1))], 10.0)
        >>> probs[:, 0].tolist(), two  # no peak between: the surer half reads the one die
        ([0.0, 1.0], [])
        >>> near = [dice_model.Candidate(x, 0.0, 10.0, 1.0) for x in (0.0, 7.0)]
        >>> ones = np.array([[0.0, 0.9, 0, 0, 0, 0, 0, 0.1]] * 2)
        >>> len(pairs_decided(near, ones, [dice_proposals.Pair(0, 1, (0, 1))], 10.0)[1])  # one 1 read twice
        0
        >>> ones[1] = [0.0, 0.0, 0.9, 0, 0, 0, 0, 0.1]  # a 1 and a 2 this near are two dice
        >>> len(pairs_decided(near, ones, [dice_proposals.Pair(0, 1, (0, 1))], 10.0)[1])
        1
    """
    probs, two = probs.copy(), []
    for p in pairs:
        pair = ((cands[p.a].x, cands[p.a].y), (cands[p.b].x, cands[p.b].y))
        apart = math.dist(*pair) >= (SAME_FACE_APART if _same_face(probs, p) else PAIR_APART) * die_side
        if apart and min(1.0 - probs[p.a, 0], 1.0 - probs[p.b, 0]) >= dice_reads.DIE_PROBABILITY:
            two.append(p)
            for j, c in enumerate(cands):
                if j not in (p.a, p.b) and dice_proposals.between(c, pair):
                    probs[j, 0] = 1.0
        else:
            gone = list(p.added)
            explained = any(j not in (p.a, p.b) and _on_the_patch(c, pair) for j, c in enumerate(cands))
            if not explained and set(gone) == {p.a, p.b}:
                # no peak reads the patch: the half surer of a die stands for its one die
                gone.remove(p.a if probs[p.a, 0] <= probs[p.b, 0] else p.b)
            probs[gone, 0] = 1.0
    return probs, two


def _same_face(probs: np.ndarray, pair: dice_proposals.Pair) -> bool:
    """Whether the two halves of ``pair`` read the same face likeliest."""
    return dice_reads.likeliest_face(probs[pair.a]) == dice_reads.likeliest_face(probs[pair.b])


def _on_the_patch(c: dice_model.Candidate, pair: tuple[tuple[float, float], ...]) -> bool:
    """Whether a peak lies on a pair's patch (within the halves' distance of its middle: between them, on
    either or just past one), so that it reads the patch's one die."""
    (ax, ay), (bx, by) = pair
    return math.hypot(c.x - (ax + bx) / 2, c.y - (ay + by) / 2) <= math.hypot(ax - bx, ay - by)


def side_faces_dropped(readings: list[DieReading], side: float) -> list[DieReading]:
    """``readings`` less the finds that are a leaning die's side faces, where there are more than a
    throw's two: a find with no face read lying within ``CROPPED_IN`` die sides of a die that leans, and
    a find that leans lying as near a surer one that leans. A die leaning on the bar's wall or a checker
    shows side faces around its top one, and each may read as a die no face of which can be made out, or
    as a die that leans too: the throw shows three dice or four, and the referee waits on a throw that
    must be thrown again. Two dice cannot hold a third, and whatever lies against a leaning die (its
    side face, or the other die leaning on it), the throw is thrown again.

    >>> def die(x, value, sure, cocked=False):
    ...     return DieReading(value, (x, 0.0), (x - 5, -5.0, x + 5, 5.0), sure, cocked=cocked)
    >>> found = [die(0.0, None, 0.6, cocked=True), die(7.0, None, 1.0, cocked=True), die(60.0, 4, 0.95)]
    >>> [d.center for d in side_faces_dropped(found, 10.0)]
    [(7.0, 0.0), (60.0, 0.0)]
    """
    if len(readings) <= 2:
        return readings
    leaning = sorted((d for d in readings if d.cocked), key=lambda d: -d.confidence)

    def near(d: DieReading, others: list[DieReading]) -> bool:
        return any(math.dist(d.center, o.center) < CROPPED_IN * side for o in others)

    def side_face(d: DieReading) -> bool:
        if d.cocked:
            return near(d, leaning[: next(k for k, o in enumerate(leaning) if o is d)])
        return d.value is None and near(d, leaning)

    return [d for d in readings if not side_face(d)]


def one_leaning_die_of_a_pair(
    read: dict[int, DieReading], probs: np.ndarray, pairs: list[dice_proposals.Pair]
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
        leaning = [i for i in (p.a, p.b) if read[i].cocked and dice_reads.cocked_odds(probs[i]) > 0.0]
        if len(leaning) == 1:
            dropped.add(p.b if leaning == [p.a] else p.a)
    return [i for i in read if i not in dropped]


def crowded(found: list[dice_model.Candidate], die_side: float) -> set[int]:
    """Which of the ``found`` dice have another within ``CROPPED_IN`` die sides, its edge in their crops.

    >>> sorted(crowded([dice_model.Candidate(x, 0.0, 30.0, 1.0) for x in (0.0, 30.0, 100.0)], 22.0))
    [0, 1]
    """
    return {
        k
        for k, c in enumerate(found)
        if any(
            j != k and math.dist((c.x, c.y), (o.x, o.y)) < CROPPED_IN * die_side for j, o in enumerate(found)
        )
    }
