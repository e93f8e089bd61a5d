"""Find the dice in a frame, read their top faces, and say why a die might not count.

A fast detector (``vision.dice_detect``) proposes where dice might be, the value network
(``vision.dice_model.read``) confirms and reads each proposal; plain geometry adds the board
terms (which half of the field a die lies in, whether it is outside the field), and on a known
field a second network (``vision.dice_flags``) judges each die in the board plane: cocked (not
flat)? resting on a checker?

``find_dice`` runs these stages, each in a module of its own (``vision.dice_field`` holds the field's
geometry they all share):

- ``vision.dice_proposals``: where dice might be (the detector's peaks; what arrived since the still);
- ``vision.dice_reads``: the value reader's looks at each proposal, as many as its doubt calls for;
- ``vision.dice_footing``: where each die found stands on the field, and whether it can lean;
- ``vision.dice_pairs``: two dice lying together kept two, and the side faces of a die that leans dropped;
- ``vision.dice_verdict``: each die as the referee reads it, or why it may not count;
- ``vision.dice_second_look``: the dice the first reads merged (two lying together) or missed.

    >>> import numpy as np
    >>> find_dice(np.full((120, 160, 3), 200, np.uint8))
    []
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision import (
    dice_field,
    dice_footing,
    dice_model,
    dice_pairs,
    dice_proposals,
    dice_reads,
    dice_second_look,
    dice_verdict,
)
from vision.arrivals import Still
from vision.reading import DieReading


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


def small_dice_warning(field_quad: np.ndarray | Sequence) -> str | None:
    """What to tell the table when a field this size in the frame puts fewer than
    ``dice_verdict.CLEAR_DIE_PX`` pixels across a die, else None.

    >>> small_dice_warning([(0, 0), (1240, 0), (1240, 600), (0, 600)]) is None
    True
    >>> small_dice_warning([(0, 0), (620, 0), (620, 300), (0, 300)])[:43]
    'a die is about 20 px across in these frames'
    """
    side = dice_field.die_side(np.asarray(field_quad, np.float64))
    if side >= dice_verdict.CLEAR_DIE_PX:
        return None
    return (
        f"a die is about {side:.0f} px across in these frames; real dice are read surely from "
        f"{dice_verdict.CLEAR_DIE_PX} px, so smaller ones are misread, asked about or waited on more "
        "often (python -m bench.dice_size): bring the camera nearer the board or give it a larger "
        "camera.size, then calibrate again"
    )


def _suppress(
    cands: list[dice_model.Candidate], probs: np.ndarray, pairs: Sequence[dice_proposals.Pair] = ()
) -> list[int]:
    """Indices of the candidates kept: dice only, one per die (the surest of overlapping peaks); the two
    dice of a pair lying against each other are two however close their crops."""
    die_p = 1.0 - probs[:, 0]
    order = [i for i in np.argsort(-die_p) if die_p[i] >= dice_reads.DIE_PROBABILITY]
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
    shifted away from the camera's nadir by the die's height; a footprint the image shows less than
    ``dice_verdict.EDGE_DOUBT`` die sides beyond the field's edge is ``at_edge`` instead, in its half,
    and the table is asked), ``cocked`` and ``on_checker`` from the
    flags network (``vision.dice_flags``: the die in the board plane). Where the board's checkers are
    known, ``checkers`` gives them as (N, 4) ellipses in the field's unit square (centre u, v and radii
    across and down): a die then rests on a checker when its footprint lies on one, whatever the network
    thinks (geometry first: a die on an empty point beside a stack is on the board); on
    ``stacked`` (the slots of a stack past its fifth checker, which a table lays in the column or over the
    first five) only the network can tell, and it does. ``checker_mask``
    (uint8, non-zero on checker pixels) is the other way to say where checkers are. With
    ``on_checker_valid`` (the table lets a die lying flat on a checker count) a flat die is never flagged
    ``on_checker``. A die cannot lean on nothing: with ``checkers`` known, one the networks see cocked
    whose footprint lies beyond ``dice_footing.SUPPORT_REACH`` die sides of every checker slot, the rim,
    the bar's wall and the other die is reported unreadable with its likeliest face instead (the table
    is asked). Without a field a die is cocked when the value reader finds that likelier than any
    flat face. A die lying within ``dice_pairs.CROPPED_IN`` die sides of another is read eight ways at
    least (``dice_reads.closely``), and judged as such (below) also where only a later look found the
    other (``_crowded_after_all``). A cocked die and a die too unclear to read have ``value`` None; so
    has a die the flags network sees cocked while the value reader plainly reads a face (flagged
    ``unreadable``, with that face as ``likeliest``: the referee asks the table), and one lying within
    ``dice_pairs.CROPPED_IN`` die sides of another die unless the flags network is sure of the lean
    (``dice_verdict.CROWDED_LEAN``) and the value reader, too, finds "cocked" likelier than every face
    (the other die's edge in the crops looks like a lean), and such a die the flags network is sure lies
    flat (``dice_verdict.CROWDED_FLAT``) is read by its flat faces alone, whatever "cocked" the value
    reader gives it. Where more than two dice are read, a find with no face lying within
    ``dice_pairs.CROPPED_IN`` die sides of a die that leans is its side face, and dropped, as is a find
    that leans lying as near a surer one.
    With a ``still`` (``vision.arrivals``: the field's window before the throw) only what arrived since
    can be a die: what changed, or, when the still shows
    the same checkers as the frame (``same_board``: the settled frame the turn began with), a hot
    detector peak where the still's own peaks (``dice_proposals.table_peaks``) saw nothing die-like. With
    ``calibration`` the still is the calibration frame's (``dice_proposals.still_peaks`` its peaks), which
    shows the table's fixtures but another position: such a peak counts there only on a point of the
    field that holds none of the known ``checkers``. On the board the turn began with,
    with ``checkers`` known, a die-sized patch that arrived on an empty point and that the first reads
    did not make out is read again more carefully, and reported as an unreadable die with no face where
    it still cannot be (the referee waits rather than miss a die); a throw that shows one die has its
    fainter new peaks read the same way (``dice_second_look.looked_for``), and against the calibration's
    still, where it still shows one die, its patches of change on empty points (a die only where the
    careful look reads one, or where the patch lies against the one die). On the board the turn began
    with, and against the calibration's still, where every look still shows one die lying flat, a
    smaller patch of change where a die lying against it would lie (``dice_second_look.lying_against``)
    is reported as an unreadable die, and failing that, the detector's new peaks at a finer scale over
    the whole field are read carefully (``dice_second_look.across_the_field``: a white die on a white
    point far from the other). A find on the bar that is no clear die
    (``dice_verdict.unclear_on_the_bar``: the cube pushed to the bar's end) is returned, for the board
    reader to drop, but is none of the throw's dice for these looks.
    ``now`` is ``image`` made a still of (``Still.of``) when the caller has it: the image is then not
    shrunk again; ``peaks``, likewise, its ``dice_proposals.window_peaks``: the detector is then not run
    again.
    """
    image = _as_bgr(image)
    quad = dice_field.checked_quad(field_quad)
    board: dice_footing.Checkers = (checkers, stacked)
    empty_of = dice_footing.every_slot(board) if calibration else None
    proposed = dice_proposals.proposals(image, quad, still, now, same_board, peaks, empty_of)
    cands = proposed.cands
    close: set[int] = set()
    if quad is not None:
        probs, close = dice_reads.looked_at(image, cands)
        first = cands
        cands, probs = dice_reads.recentred(image, cands, probs, dice_field.die_side(quad))
        # a peak read again off its centre has only the looks recentred gave it
        close = {i for i in close if cands[i] is first[i]}
        probs, pairs = dice_pairs.pairs_decided(cands, probs, proposed.pairs, dice_field.die_side(quad))
    else:
        probs, pairs = dice_reads.read_carefully(image, cands), []
    halves = {i for p in pairs if not p.plain for i in (p.a, p.b)}
    kept = [
        i
        for i in _suppress(cands, probs, pairs)
        if dice_reads.edge_strength(image, cands[i].x, cands[i].y, cands[i].side) >= dice_reads.MIN_EDGE
    ]
    if quad is not None:
        # a die with another's edge in its crop is read eight ways, whatever its first look said: one look
        # at a crop holding the other die's pips can take them for its own, and surely
        near = dice_pairs.crowded([cands[i] for i in kept], dice_field.die_side(quad))
        probs = dice_reads.closely(
            image, cands, probs, [kept[k] for k in sorted(near) if kept[k] not in close]
        )
        kept, looks = dice_footing.on_the_field(image, quad, cands, probs, kept, board, pairs)
    else:
        looks = dice_footing.in_a_photograph(probs[kept])
    crowded = (
        dice_pairs.crowded([cands[i] for i in kept], dice_field.die_side(quad)) if quad is not None else set()
    )
    few = quad is not None and dice_field.die_side(quad) < dice_verdict.CLEAR_DIE_PX
    read: dict[int, DieReading] = {}
    for k, (i, look) in enumerate(zip(kept, looks, strict=True)):
        die = dice_verdict.reading(
            image, cands[i], probs[i], look, checker_mask, on_checker_valid, i in halves, k in crowded, few
        )
        if die is not None:
            read[i] = die
    readings = [read[i] for i in dice_pairs.one_leaning_die_of_a_pair(read, probs, pairs)]
    # what arrived since a still, on a known board, is looked at again where the first reads missed it
    looks_again = checkers is not None and (same_board or calibration)
    if quad is not None and looks_again:
        # a find beyond the field that is no clear die (the cube in a tray), or on the bar (the cube at
        # its end), is none of the throw's dice
        found = [cands[i] for i in kept if i in read and not dice_verdict.unclear_on_the_bar(read[i])]
        readings += dice_second_look.looked_for(
            image, quad, proposed, found, board, peaks, on_checker_valid, same_board
        )
    if quad is not None:
        readings = dice_pairs.side_faces_dropped(readings, dice_field.die_side(quad))
        readings = _looked_at_closer(image, quad, proposed, readings, board, on_checker_valid, looks_again)
        alone = {read[i].center: (i, looks[k]) for k, i in enumerate(kept) if i in read and k not in crowded}
        side = dice_field.die_side(quad)
        readings = _crowded_after_all(
            image, readings, alone, cands, probs, side, checker_mask, on_checker_valid, few
        )
    return sorted(readings, key=lambda d: d.center)


def _crowded_after_all(
    image: np.ndarray,
    readings: list[DieReading],
    alone: dict[tuple[float, float], tuple[int, dice_footing.Look]],
    cands: list[dice_model.Candidate],
    probs: np.ndarray,
    side: float,
    checker_mask: np.ndarray | None,
    on_checker_valid: bool,
    few: bool,
) -> list[DieReading]:
    """``readings`` with each die that the first reads judged with no other beside it (``alone``: its
    candidate and look, by centre) judged again as crowded where a die a later look found lies within
    ``dice_pairs.CROPPED_IN`` die sides of it. The first reads had not found that die, and its edge in
    the crop looks like a lean to the value reader, which then leaves a flat die's face unread. A die
    judged to lean keeps its lean: whatever lies against it, the throw is thrown again."""
    # the cube at the bar's end, read as a find with no clear face, is no die beside it
    dice = [k for k, d in enumerate(readings) if not dice_verdict.unclear_on_the_bar(d)]
    found = [
        dice_model.Candidate(*readings[k].center, readings[k].box[2] - readings[k].box[0], 1.0) for k in dice
    ]
    out = list(readings)
    for k in (dice[j] for j in dice_pairs.crowded(found, side)):
        if readings[k].center not in alone or readings[k].cocked:
            continue
        i, look = alone[readings[k].center]
        p = dice_reads.closely(image, [cands[i]], probs[i : i + 1], [0])[0]
        die = dice_verdict.reading(
            image, cands[i], p, look, checker_mask, on_checker_valid, crowded=True, few_pixels=few
        )
        if die is not None:
            out[k] = die
    return out


def _looked_at_closer(
    image: np.ndarray,
    quad: np.ndarray,
    proposed: dice_proposals.Proposals,
    readings: list[DieReading],
    board: dice_footing.Checkers,
    on_checker_valid: bool,
    looks_again: bool,
) -> list[DieReading]:
    """``readings`` with the other die looked for closer where the throw shows one die lying flat on the
    field (``dice_second_look.closer_look``, then, with ``looks_again``, ``lying_against`` and
    ``across_the_field``). An unclear
    find on the bar (the cube pushed to its end) is no die of the throw: it is kept for the board reader,
    which drops it, and the die beside it is looked at as a lone die. A throw that shows only such a
    find is looked at around it (the other die may lie against it), and beside a die that leans, even on
    the bar, nothing is looked for (the throw is thrown again whatever else lies there)."""
    thrown = [d for d in readings if not dice_verdict.unclear_on_the_bar(d)] or readings
    if len(thrown) != 1 or not all(dice_second_look.lies_flat_on_the_board(d) for d in readings):
        return readings
    (alone,) = thrown
    bar = [d for d in readings if d is not alone]
    seen = dice_second_look.closer_look(image, quad, alone, board, on_checker_valid)
    if len(seen) == 1 and looks_again:
        seen += dice_second_look.lying_against(image.shape, quad, proposed, alone, board)
    if len(seen) == 1 and looks_again:
        seen += dice_second_look.across_the_field(image, quad, proposed, alone, board, on_checker_valid)
    return seen + bar
