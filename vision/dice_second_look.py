"""The second looks for dice that the first reads merged or missed: a die found alone split into the two
lying together that it may be, and the places where a die may lie that no read made out (a patch of
change, a faint new peak, beside a die found alone) read again carefully."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from bgboard.layout import Half
from vision import (
    dice_detect,
    dice_field,
    dice_footing,
    dice_model,
    dice_pairs,
    dice_proposals,
    dice_reads,
    dice_verdict,
)
from vision.reading import DieReading

# A patch of change the reader cannot make out is still reported as a die where at least this share of
# a die's core changed: something solid arrived with the throw.
UNREAD_SHARE = 0.6
# ... and beside a die found alone, where this share changed beyond the found die's box: a die lying
# against it has a quarter of its core inside that box, and one the colour of its point changes less.
BESIDE_SHARE = 0.4
# ... and, where the closer look still finds no other die (on the board the turn began with, or against
# the calibration's still), this share: a die the colour of the point it lies on changed a third of that
# place, a die thrown alone (the other off the board) changed at most 0.28 of it (``bench.semireal``,
# five seeds). Only as a last resort, as an unreadable die the referee waits on: a lower share in the
# first looks would take that place for a die before the closer look could read the die lying there.
LAST_BESIDE_SHARE = 0.3
# Where a throw shows one die, the detector looks again within CLOSER_WINDOW die sides of it at each of
# CLOSER_SCALES times its scale, and reads at most CLOSER_PEAKS of its peaks down to CLOSER_HEAT (a dark
# die on a dark point peaks faintly; each peak is read eight ways before it counts); one nearer the
# found die than CLOSER_APART sides is that die's own, and two such, ``dice_pairs.PAIR_APART`` apart, may
# be the halves of two dice seen as one. A faint die's peak comes and goes as the detector's cells fall
# on it: a die it misses at one scale it may see at the other (``bench.semireal --light-dice`` seed 4
# throw 245).
CLOSER_SCALES = (1.5, 1.75)
CLOSER_WINDOW = 2.5
CLOSER_PEAKS = 6
CLOSER_HEAT = 0.15
CLOSER_APART = 0.7
# A place where a die may lie that no read made out is read again at crops this many die sides around it.
SECOND_LOOK = 0.3
# Where every look still shows one die lying flat, the detector looks over the whole search window once
# more at FIELD_SCALE times its scale, and its new peaks on empty points that are hot enough to read at all
# (``dice_proposals.DETECT_HEAT``) are read carefully: a white die on a white point changes too little to
# show in the change map and peaks faintly at the detector's own scale, where a die is two of its cells
# across, more strongly at three (``bench.semireal --raw`` seed 3 throw 81: 0.12 at its own scale, 0.42
# at 1.5 times).
FIELD_SCALE = 1.5


def lies_flat_on_the_board(die: DieReading) -> bool:
    """Whether a die lies flat on the field, off the checkers: a throw showing one such die is called
    "only one die" unless the other is found. Beside a die that leans, rests on a checker or lies off the
    field the throw is thrown again (or waited on) whatever the other shows, and the other found could
    only turn a wait into a throw again."""
    return not (die.cocked or die.on_checker or die.outside_field)


def closer_look(
    image: np.ndarray,
    quad: np.ndarray,
    alone: DieReading,
    board: dice_footing.Checkers,
    on_checker_valid: bool,
) -> list[DieReading]:
    """The dice of a throw that showed one (``alone``), looked for with the detector at ``CLOSER_SCALES``
    times its scale within ``CLOSER_WINDOW`` die sides of it: at its own scale a die is two of its cells
    across, and two dice lying together often make one peak. Where one of those looks peaks twice on
    the found die, at least ``dice_pairs.PAIR_APART`` die sides apart, it may be two dice seen as one (its
    crop between them reads a face where both show it): the two peaks are read as the halves of a pair,
    and two dice stand where both read as dice, at the second scale only where they name two faces (one
    die may peak twice there; ``bench.semireal --raw`` seed 5 throw 399: a white 1 against a black 2,
    peaked apart at the second scale alone). Otherwise a peak clear of the found die is read as any
    place the first reads missed (``_second_look``); the first that reads as a die is the other die. None
    reads: the throw still shows one die."""
    side = dice_field.die_side(quad)
    x, y = alone.center
    r = CLOSER_WINDOW * side
    h, w = image.shape[:2]
    x0, y0 = max(0, int(x - r)), max(0, int(y - r))
    x1, y1 = min(w, math.ceil(x + r)), min(h, math.ceil(y + r))
    if x1 - x0 < side or y1 - y0 < side:
        return [alone]
    scale = dice_field.detect_scale(image, side)
    at = [
        [
            dice_model.Candidate(c.x + x0, c.y + y0, side * dice_proposals.READ_SIDE_FIELD, c.heat)
            for c in dice_detect.detect(image[y0:y1, x0:x1], scale * f, CLOSER_HEAT, CLOSER_PEAKS)
        ]
        for f in CLOSER_SCALES
    ]
    # the found die split by each scale's peaks apart, never mixed: the same die peaks a little apart at
    # two scales, and two such peaks would be read as two dice of one face
    for k, peaks in enumerate(at):
        own = [c for c in peaks if math.dist((c.x, c.y), (x, y)) < CLOSER_APART * side]
        two = _split(image, quad, own, side, board, on_checker_valid)
        # at a finer scale one die may peak twice, and two crops of it read its face twice (or a face and
        # none): there only two faces named make two dice
        faces = {d.likeliest for d in two}
        if two and (k == 0 or (len(faces) == 2 and None not in faces)):
            return two
    others = [c for peaks in at for c in peaks if math.dist((c.x, c.y), (x, y)) >= CLOSER_APART * side]
    found = [dice_model.Candidate(x, y, side, dice_reads.HOT)]
    for c in dice_proposals.one_peak_per_die(others)[:CLOSER_PEAKS]:
        seen = _second_look(image, quad, (c.x, c.y), found, board, on_checker_valid)
        if seen is not None:
            return [alone, seen]
    return [alone]


def _split(
    image: np.ndarray,
    quad: np.ndarray,
    own: list[dice_model.Candidate],
    side: float,
    board: dice_footing.Checkers,
    on_checker_valid: bool,
) -> list[DieReading]:
    """The two dice that the finer look's peaks ``own`` on a found die make of it, read as a pair's
    halves (eight looks each); none where fewer than two peaks lie ``dice_pairs.PAIR_APART`` die sides
    apart or either does not read as a die. Two halves that read one face are two dice here from
    ``PAIR_APART``, not ``dice_pairs.SAME_FACE_APART``: the finer look peaks nearer each other than the
    dice's centres, 0.72 to 0.74 sides apart on two small 5s lying side by side
    (``tests/test_second_look.py::test_two_alike_dice_seen_as_one_are_two``)."""
    pairs = [(a, b) for i, a in enumerate(own) for b in own[i + 1 :]]
    if not pairs:
        return []
    a, b = max(pairs, key=lambda p: math.dist((p[0].x, p[0].y), (p[1].x, p[1].y)))
    if math.dist((a.x, a.y), (b.x, b.y)) < dice_pairs.PAIR_APART * side:
        return []
    probs = dice_model.read(image, [a, b], turns=4, mirror=True, on_board=True)
    if (probs[:, 0] > 1.0 - dice_reads.DIE_PROBABILITY).any():
        return []
    kept, looks = dice_footing.on_the_field(
        image, quad, [a, b], probs, [0, 1], board, [dice_proposals.Pair(0, 1, ())]
    )
    if len(kept) != 2:
        return []
    halves = [
        dice_verdict.reading(image, [a, b][i], probs[i], look, None, on_checker_valid, True)
        for i, look in zip(kept, looks, strict=True)
    ]
    dice = [d for d in halves if d is not None]
    return dice if len(dice) == 2 else []


def looked_for(
    image: np.ndarray,
    quad: np.ndarray,
    proposed: dice_proposals.Proposals,
    found: list[dice_model.Candidate],
    board: dice_footing.Checkers,
    peaks: Sequence[dice_model.Candidate] | None,
    on_checker_valid: bool,
    same_board: bool = True,
) -> list[DieReading]:
    """Dice the first reads missed: on the board the turn began with (``same_board``), a patch of change
    the size of a die (``_unread``) read again carefully, reported unreadable where it still cannot be
    made out; and, when the throw showed one die, the detector's weaker peaks that arrived with it
    (``_weak_arrivals``): a die the colour of the point it lies on changes too little to show in the
    change map, and the detector sees it only faintly. Against the calibration's still (another
    position: most of its change says nothing) the weak peaks are looked at on the points the confirmed
    position leaves empty, where the calibration frame showed nothing die-like; then, where the throw
    still shows one die, the patches of change on empty points, each a die only where the careful look
    reads one, and last those lying against the die (a second die lying against the first, which the
    first reads took with it for one die), reported unreadable where they cannot be made out. A weak
    peak or a patch away from the die that does not read as a die is nothing."""
    # a patch over a slot a stack may fill is left out, as over a checker
    checkers = dice_footing.every_slot(board)
    assert checkers is not None
    side = dice_field.die_side(quad)
    unread = _unread(image.shape, quad, proposed, found, checkers) if same_board else []
    out = _seen_again(image, quad, unread, found, board, on_checker_valid)
    if len(found) + len(out) != 1:
        return out
    if peaks is None:
        peaks = dice_proposals.in_the_window(
            image, quad, side, dice_proposals.STILL_HEAT, dice_proposals.MAX_CANDIDATES
        )
    # the one die is the first reads' or one seen again: the other lies clear of it
    one = found + [dice_model.Candidate(*d.center, side, dice_reads.HOT) for d in out]
    for place in _weak_arrivals(quad, image.shape, proposed, peaks, one, checkers):
        other = _second_look(image, quad, place, one, board, on_checker_valid)
        if other is not None:
            return [*out, other]
    if same_board or out:
        return out
    # against the calibration's still (another position) a patch of change on an empty point is a die
    # where a careful look reads one; unread, it says that a die arrived only where it lies against the
    # one die found: two dice lying together often make one patch, which the first reads took for one die
    for patch in _unread(image.shape, quad, proposed, found, checkers):
        other = _second_look(image, quad, patch.center, found, board, on_checker_valid)
        if other is not None:
            return [other]
    against = _unread(image.shape, quad, proposed, found, checkers, against_only=True)
    return _seen_again(image, quad, against, found, board, on_checker_valid)


def lying_against(
    shape: tuple[int, ...],
    quad: np.ndarray,
    proposed: dice_proposals.Proposals,
    alone: DieReading,
    board: dice_footing.Checkers,
) -> list[DieReading]:
    """Where every look has found one die (``alone``) on the board the turn began with, or against the
    calibration's still: a patch of change where a die lying against it would lie, of
    ``LAST_BESIDE_SHARE`` of a die's core or more, reported as an unreadable die with no face, so that
    the referee waits rather than call "only one die" on a good throw whose other die is the colour of
    the point it lies on."""
    x0, y0, x1, _ = alone.box
    found = [dice_model.Candidate(*alone.center, x1 - x0, dice_reads.HOT)]
    checkers = dice_footing.every_slot(board)
    assert checkers is not None
    return _unread(shape, quad, proposed, found, checkers, against_only=True, beside_share=LAST_BESIDE_SHARE)


def across_the_field(
    image: np.ndarray,
    quad: np.ndarray,
    proposed: dice_proposals.Proposals,
    alone: DieReading,
    board: dice_footing.Checkers,
    on_checker_valid: bool,
) -> list[DieReading]:
    """Where every look has found one die lying flat (``alone``): the other die, looked for over the whole
    search window with the detector at ``FIELD_SCALE`` times its scale, at its new peaks of
    ``dice_proposals.DETECT_HEAT`` or more on the field's empty points (``_weak_arrivals``), each read
    carefully (``_second_look``); the first that reads as a die is the other die. None reads: the throw
    shows one die. The whole field, not only the lone die's half: an opening throw's dice lie one in each
    half."""
    if proposed.still is None:
        return []  # no still to say what arrived (the light changed): every peak may be the table's own
    side = dice_field.die_side(quad)
    peaks = dice_proposals.in_the_window(
        image, quad, side, dice_proposals.DETECT_HEAT, dice_proposals.MAX_CANDIDATES, finer=FIELD_SCALE
    )
    found = [dice_model.Candidate(*alone.center, side, dice_reads.HOT)]
    checkers = dice_footing.every_slot(board)
    assert checkers is not None
    for place in _weak_arrivals(quad, image.shape, proposed, peaks, found, checkers):
        other = _second_look(image, quad, place, found, board, on_checker_valid)
        if other is not None:
            return [other]
    return []


def _seen_again(
    image: np.ndarray,
    quad: np.ndarray,
    unread: list[DieReading],
    found: list[dice_model.Candidate],
    board: dice_footing.Checkers,
    on_checker_valid: bool,
) -> list[DieReading]:
    """The ``unread`` patches read again carefully (``_second_look``): each a die as read where it now can
    be, else unreadable with no face, unless it lies within a die side of a die seen again (a leaning
    die's side face and shadow are that die's)."""
    side = dice_field.die_side(quad)
    looks = [_second_look(image, quad, die.center, found, board, on_checker_valid) for die in unread]
    seen = [d for d in looks if d is not None]
    return seen + [
        die
        for die, look in zip(unread, looks, strict=True)
        if look is None and all(math.dist(die.center, d.center) >= side for d in seen)
    ]


def _weak_arrivals(
    quad: np.ndarray,
    shape: tuple[int, ...],
    proposed: dice_proposals.Proposals,
    peaks: Sequence[dice_model.Candidate],
    found: list[dice_model.Candidate],
    checkers: np.ndarray,
) -> list[tuple[float, float]]:
    """The detector's peaks down to ``dice_proposals.STILL_HEAT`` (hottest first, at most
    ``dice_proposals.MAX_PATCHES``) where it saw nothing die-like before the throw, on the field's empty
    points and a die's side at least from the dice found: the first reads took only the hotter peaks, and
    only where the frame changed."""
    still, side = proposed.still, dice_field.die_side(quad)
    if still is None:
        return []
    weak = [c for c in peaks if still.seen_before(c.x, c.y, side) is False and _clear_of(c, found, side)]
    if not weak:
        return []
    _, empty = dice_field.on_empty_points(quad, shape, np.array([[c.x, c.y] for c in weak]), checkers)
    return [(c.x, c.y) for c, ok in zip(weak, empty, strict=True) if ok][: dice_proposals.MAX_PATCHES]


def _clear_of(c: dice_model.Candidate, found: list[dice_model.Candidate], side: float) -> bool:
    """Whether ``c`` lies at least a die lying against another away from every die ``found``: two dice
    lying together are a side apart at least, and a crop nearer a found die reads that die again."""
    return all(math.dist((c.x, c.y), (f.x, f.y)) >= min(dice_pairs.AGAINST) * side for f in found)


def _second_look(
    image: np.ndarray,
    quad: np.ndarray,
    place: tuple[float, float],
    found: list[dice_model.Candidate],
    board: dice_footing.Checkers,
    on_checker_valid: bool,
) -> DieReading | None:
    """Where a die may lie that the first reads did not make out, read again carefully: every crop of a
    die's size within SECOND_LOOK die sides of ``place`` (a patch's centre or a weak peak lies off the die
    where a shadow or the other die's edge changed too), eight looks each. The crop read surest as a flat
    die is judged as any found die; failing one, the crop read surest as a die that leans, if the flags
    network sees the lean there too (a die leaning on a checker or the bar's wall shows a side face,
    and no crop of it reads flat). None when neither reads as a die."""
    side = dice_field.die_side(quad)
    x, y = place
    step = SECOND_LOOK * side
    least = side * dice_proposals.READ_SIDE_FIELD
    looks = [
        dice_model.Candidate(x + dx * step, y + dy * step, least, dice_reads.HOT)
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
    ]
    looks = [c for c in looks if _clear_of(c, found, side)]
    if not looks:
        return None
    probs = dice_model.read(image, looks, turns=4, mirror=True, on_board=True)
    flat = dice_reads.reads_flat(probs)
    for kind in (flat, ~flat):
        die_p = np.where(kind, 1.0 - probs[:, 0], 0.0)
        best = int(np.argmax(die_p))
        c = looks[best]
        if (
            die_p[best] >= dice_reads.DIE_PROBABILITY
            and dice_reads.edge_strength(image, c.x, c.y, side) >= dice_reads.MIN_EDGE
        ):
            break
    else:
        return None
    # a die here may lean on a die found before: the two often lie together
    _, (look,) = dice_footing.on_the_field(
        image, quad, [looks[best]], probs[best : best + 1], [0], board, found=found
    )
    if not flat[best] and not look.cocked:
        return None  # the value reader alone sees a lean: no die made out
    near = any(
        math.dist((c.x, c.y), (looks[best].x, looks[best].y)) < max(dice_pairs.AGAINST) * side for c in found
    )
    few = side < dice_verdict.CLEAR_DIE_PX
    return dice_verdict.reading(
        image, looks[best], probs[best], look, None, on_checker_valid, near, few_pixels=few
    )


def _unread(
    shape: tuple[int, ...],
    quad: np.ndarray,
    proposed: dice_proposals.Proposals,
    dice: list[dice_model.Candidate],
    checkers: np.ndarray,
    against_only: bool = False,
    beside_share: float = BESIDE_SHARE,
) -> list[DieReading]:
    """Patches of change the size of a die that arrived on the field's empty points and that the reader
    could not make out as a die (apart from the ``dice`` it found, or lying against one): reported as
    unreadable dice with no face, so that the referee waits (or asks) rather than call a throw with one
    die missing. A patch over a filled checker slot is left out: a checker that moved a little changes
    like that, and a die there rests on a checker anyway. ``against_only``: only where a die lying
    against one of the ``dice`` would lie (``_beside``), not the other patches; ``beside_share``: the share of
    a die's core that must have changed there beside a lone die."""
    still, changed = proposed.still, proposed.changed
    if still is None or changed is None:
        return []
    side = dice_field.die_side(quad)
    found = [(c.x, c.y) for c in dice]
    # a throw is two dice: beside two found dice there is no other to look for
    beside = _beside(found, side) if len(found) < 2 else []
    patches = [] if against_only else proposed.patches
    places = [*((p, False) for p in patches), *((p, True) for p in beside)]
    if not places:
        return []  # most frames of a game: two dice read, no patch left over
    # a found die changed its own box (a read box is READ_SIDE_FIELD die sides at least) and a rim of
    # blur and shadow: only the change beyond that may be another die
    rest = still.unexplained(changed, [(c.x, c.y, c.side / 2 + 0.1 * side) for c in dice])
    out = []
    for (x, y), against in places:
        if any(math.hypot(x - a, y - b) < side for a, b in found):
            continue
        least = beside_share if against and len(found) == 1 else UNREAD_SHARE
        if still.share(rest, x, y, side) < least:
            continue
        ((u, _),), (empty,) = dice_field.on_empty_points(quad, shape, np.array([[x, y]]), checkers)
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
        for d in dice_pairs.AGAINST
        for a in np.linspace(0.0, 2 * math.pi, 16, endpoint=False)
    ]
