"""Where a found die stands and whether it can lean: the flags network's word on each die in the
board plane (``vision.dice_flags``), one find per leaning die, whether its footprint lies on a known
checker, and a lean with nothing within reach to lean on made a doubt."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from vision import dice_field, dice_flags, dice_model, dice_proposals, dice_reads

# The board's checkers as the reader knows them: the slots surely filled, and those a stack may or may
# not fill (``stacked`` of ``BoardReader``), each as (N, 4) ellipses in the field's unit square; None
# where the board is not known.
Checkers = tuple[np.ndarray | None, np.ndarray | None]


def every_slot(board: Checkers) -> np.ndarray | None:
    """Every slot of ``board`` a checker fills or may fill, as one (N, 4) array; None where neither is known.

    >>> every_slot((np.zeros((2, 4)), None)).shape, every_slot((None, None))
    ((2, 4), None)
    """
    known = [c for c in board if c is not None]
    return np.vstack(known) if known else None


# A leaning die's top and side faces, found apart, lie closer than this many die sides; two dice lying
# side by side are a side apart.
LEANING_FIND = 0.9
# A die leans on what lies within this many die sides of its footprint (a checker's edge, the rim, the
# bar's edge, the other die); beyond all of them it cannot lean.
SUPPORT_REACH = 1.5


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


@dataclass(frozen=True)
class Look:
    """What is known of a found die besides its face: whether it leans (``cocked``; ``p_cocked`` how
    likely), whether that is in doubt (the flags network sees a lean the value reader does not), whether
    it rests on a checker, and where its footprint stands in field coordinates (None without a field) and
    how many die sides beyond the field's edge the image shows it (0 inside)."""

    cocked: bool
    doubtful: bool
    resting: bool
    p_cocked: float
    foot: tuple[float, float] | None = None
    beyond: float = 0.0


def on_the_field(
    image: np.ndarray,
    quad: np.ndarray,
    cands: list[dice_model.Candidate],
    probs: np.ndarray,
    kept: list[int],
    checkers: Checkers,
    pairs: Sequence[dice_proposals.Pair] = (),
    found: Sequence[dice_model.Candidate] = (),
) -> tuple[list[int], list[Look]]:
    """The kept dice judged in the board plane by the flags network (cocked? on a checker?), one find per
    leaning die (the two dice of ``pairs`` stay two), and where each stands: a top face seen near the
    field's edge may lie beyond it while the die stands inside (or the other way), shifted by its height
    away from the camera's nadir. With the board's ``checkers`` known, whether a die rests on one is read
    off its footprint instead. ``found``: dice found by an earlier look, not judged here, that a die
    judged here may lean on."""
    points = [(cands[i].x, cands[i].y) for i in kept]
    known, stacked = checkers
    judged = dice_flags.judge(image, quad, points, dice_field.FIELD_IN_DICE, resting_known=known is not None)
    odds = [dice_reads.cocked_odds(probs[i]) for i in kept]
    faces = [dice_reads.likeliest_face(probs[i]) for i in kept]
    lay = [dice_flags.lean(float(j[0]), o, f) for j, o, f in zip(judged, odds, faces, strict=True)]
    at = {i: k for k, i in enumerate(kept)}
    two = {frozenset((at[p.a], at[p.b])) for p in pairs if p.a in at and p.b in at}
    ones = _one_per_leaning_die(points, lay, dice_field.die_side(quad), two)
    kept, judged, lay = [kept[k] for k in ones], judged[ones], [lay[k] for k in ones]
    centres = np.array([[cands[i].x, cands[i].y] for i in kept])
    if known is not None:
        resting, feet = _resting_on(
            known, quad, image.shape, centres, stacked, judged[:, 1] > dice_flags.ON_CHECKER
        )
    else:
        resting = [bool(j[1] > dice_flags.ON_CHECKER) for j in judged]
        feet = dice_flags.footprints(quad, image.shape, centres, [dice_field.rise(on) for on in resting])
    if known is not None:
        slots = known if stacked is None else np.concatenate([known, stacked])
        others = None
        if found:
            lying = np.array([[c.x, c.y] for c in found], np.float64)
            others = dice_flags.footprints(quad, image.shape, lying, dice_field.rise(False))
        lay = _nothing_to_lean_on(lay, feet, slots, quad, others)
    beyond = dice_field.sides_beyond(quad, image.shape, feet)
    looks = [
        Look(
            x is dice_flags.Lean.COCKED,
            x is dice_flags.Lean.DOUBTFUL,
            rests,
            float(j[0]),
            (float(u), float(v)),
            float(out),
        )
        for x, rests, j, (u, v), out in zip(lay, resting, judged, feet, beyond, strict=True)
    ]
    return kept, looks


def _nothing_to_lean_on(
    lay: list[dice_flags.Lean],
    feet: np.ndarray,
    checkers: np.ndarray,
    quad: np.ndarray,
    found: np.ndarray | None = None,
) -> list[dice_flags.Lean]:
    """``lay`` with a lean the networks see where there is nothing to lean on made a doubt (the table is
    asked about the face). A die cannot rest on an edge on a flat board: it leans on a checker, the
    field's rim or the bar's wall, or the other die. One whose footprint lies farther than
    ``SUPPORT_REACH`` die sides from all of them cannot be leaning, whatever its picture suggests (a die
    photographed from the side shows a side face; a glossy face a streak of light), and what shows on
    top is asked about rather than a good throw thrown again.

    ``checkers``: (u, v, ru, rv) ellipses of every slot a checker may fill; ``found``: the footprints of
    dice an earlier look found, as ``feet`` are given."""
    width = (np.linalg.norm(quad[1] - quad[0]) + np.linalg.norm(quad[2] - quad[3])) / 2
    height = (np.linalg.norm(quad[3] - quad[0]) + np.linalg.norm(quad[2] - quad[1])) / 2
    side = (
        np.array([1.0, width / height]) / dice_field.FIELD_IN_DICE
    )  # a die's side in the unit square's u and v
    every = feet if found is None else np.concatenate([feet, found])
    out = list(lay)
    for k, x in enumerate(lay):
        others = np.delete(every, k, axis=0)
        if x is dice_flags.Lean.COCKED and not _in_reach(feet[k], others, checkers, side):
            out[k] = dice_flags.Lean.DOUBTFUL
    return out


def _in_reach(foot: np.ndarray, dice: np.ndarray, checkers: np.ndarray, side: np.ndarray) -> bool:
    """Whether something a die can lean on lies within ``SUPPORT_REACH`` die sides of its ``foot``: the
    field's rim, the bar's wall, one of the other ``dice`` (footprints) or ``checkers`` (ellipses); all in
    the field's unit square, ``side`` a die's side there (u, v)."""
    reach = SUPPORT_REACH * side
    u, v = float(foot[0]), float(foot[1])
    if (
        min(u, 1.0 - u) < reach[0]
        or min(v, 1.0 - v) < reach[1]
        or abs(u - 0.5) < dice_field.BAR_HALF + reach[0]
    ):
        return True
    if len(dice) and (np.hypot(*((dice - foot) / side).T) < 1.0 + SUPPORT_REACH).any():
        return True
    # a checker's ellipse widened by the reach: the footprint lies within it
    widened = checkers + np.array([0.0, 0.0, reach[0], reach[1]])
    return bool(dice_field.on_a_checker(widened, foot[None, :])[0])


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
    flat = dice_flags.footprints(quad, shape, centres, dice_field.rise(False))
    raised = dice_flags.footprints(quad, shape, centres, dice_field.rise(True))
    on = dice_field.on_a_checker(checkers, flat) | dice_field.on_a_checker(checkers, raised)
    if stacked is not None and seen_resting is not None:
        on |= (
            dice_field.on_a_checker(stacked, flat) | dice_field.on_a_checker(stacked, raised)
        ) & seen_resting
    return on.tolist(), np.where(on[:, None], raised, flat)


def in_a_photograph(probs: np.ndarray) -> list[Look]:
    """Dice of a photograph with no field: cocked when the value reader finds that likelier than any
    single flat face (no board to rest on, no footprint)."""
    return [
        Look(cocked, False, False, float(p[7]) / max(1.0 - float(p[0]), 1e-6))
        for cocked, p in zip(dice_reads.leaning_in_photo(probs), probs, strict=True)
    ]
