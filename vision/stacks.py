"""From slot calls to cell readings: stacks on the points, checkers on the bar, and conservation.

Checkers stack from a row's edge without gaps, so a point's count is the run of like checkers from slot 0.
Every count the slot calls do not rule out stays in ``plausible``; a novel slot (a hand, a cup) inside or
just past the stack makes the point unreadable, never a guess. A full column (every slot occupied) may
hide more checkers on top: its count is open upwards until conservation closes it.

    >>> from vision.checkers import SlotCall
    >>> full = SlotCall(1, frozenset({1}), 0.99, False)
    >>> free = SlotCall(0, frozenset({0}), 0.99, False)
    >>> point_cell([full, full, free, free], limit=15).plausible
    (2,)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bgboard.layout import Cell, Side
from bgboard.position import CHECKERS
from vision.checkers import DARK, EMPTY, LIGHT, SlotCall
from vision.reading import CONFIDENT, CellReading

UNREADABLE = CellReading(0, 0.0, ())
# players fill a first row of five (or six) before stacking on top; shorter stacks have no second layer
FIRST_ROW = 5
SIGN = {LIGHT: 1, DARK: -1}


def _run_lengths(allowed: Sequence[frozenset[int]], colour: int, longest: int) -> list[int]:
    """Run lengths ``m`` (0..longest) the calls allow: slots 0..m-1 may hold ``colour``, slot m be empty.

    ``longest`` itself is allowed when every slot up to it may hold the colour (nothing after it is seen).
    """
    out = []
    for m in range(longest + 1):
        if m > 0 and colour not in allowed[m - 1]:
            break
        if m == longest or EMPTY in allowed[m]:
            out.append(m)
    return out


def point_cell(
    calls: Sequence[SlotCall],
    limit: int = CHECKERS,
    wildcard: Sequence[bool] = (),
    upper: Sequence[SlotCall] | None = None,
    doubtful: Sequence[bool] = (),
) -> CellReading:
    """The reading of one point from its slot calls (slot 0 at the edge).

    ``upper`` are the calls of the dips between slots (``upper[j - 1]`` between slots j-1 and j), where a
    second layer of checkers sits once the first row is full. ``wildcard`` marks slots whose view is
    spoiled by something known (a die): they may hold anything but do not make the point unreadable.
    ``doubtful`` slots are called empty but look changed (see :meth:`EmptyField.doubtful`): the count
    stands, without confidence.
    """
    k_max = len(calls)
    first_row = min(FIRST_ROW, k_max)
    spoiled = [c.novel or (i < len(wildcard) and wildcard[i]) for i, c in enumerate(calls)]
    anything = frozenset((EMPTY, LIGHT, DARK))
    allowed = [anything if sp else c.possible for c, sp in zip(calls, spoiled, strict=True)]
    up_allowed = [anything if c.novel else c.possible for c in upper] if upper else []
    plausible: set[int] = set()
    if EMPTY in allowed[0]:
        plausible.add(0)
    for colour in (LIGHT, DARK):
        for n in (n for n in _run_lengths(allowed, colour, k_max) if n > 0):
            if n == k_max and not upper:
                plausible.update(SIGN[colour] * m for m in range(k_max, limit + 1))
                continue
            if n < first_row or not upper:
                plausible.add(SIGN[colour] * n)
                continue
            for m in _run_lengths(up_allowed, colour, n - 1):
                if m == n - 1 and n - 1 > 0 and colour in up_allowed[n - 2]:
                    # a full second layer may carry a third: open upwards
                    plausible.update(SIGN[colour] * v for v in range(n + m, limit + 1))
                else:
                    plausible.add(SIGN[colour] * (n + m))
    # the calls' own best reading
    best, n0, n1 = 0, 0, 0
    first = calls[0].best
    if first != EMPTY:
        while n0 < k_max and calls[n0].best == first:
            n0 += 1
        if upper and n0 >= first_row:
            while n1 < n0 - 1 and upper[n1].best == first:
                n1 += 1
        best = SIGN[first] * (n0 + n1)
    # anything foreign over the column (a hand, a cup) may hide checkers: the whole point is unreadable
    if any(c.novel for c in calls):
        return UNREADABLE
    if upper and n0 >= first_row and any(upper[j].novel for j in range(min(len(upper), n0 - 1))):
        return UNREADABLE
    if not plausible:
        # no consistent stack (e.g. a gap between checkers): say so rather than pick one
        return CellReading(best, 0.2, tuple(sorted({best, *range(-k_max, k_max + 1)})))
    if best not in plausible:
        best = min(plausible, key=lambda v: (abs(v - best), abs(v)))
    run_best = best
    likeliest = _likeliest(calls, upper or [], spoiled, first_row, plausible, best)
    if likeliest is not None:
        best = likeliest
    # a checker sitting beyond the stack (drift, a stray) is a warning, not a count
    stray = any(calls[i].best != EMPTY and not spoiled[i] for i in range(n0 + 1, k_max))
    used = [calls[i].confidence for i in range(min(k_max, n0 + 1)) if not spoiled[i]]
    if upper and n0 >= first_row:
        used += [upper[j].confidence for j in range(min(len(upper), n1 + 1))]
    confidence = float(np.prod(used)) if used else 0.5
    if stray or any(d and not sp for d, sp in zip(doubtful, spoiled, strict=False)):
        confidence = min(confidence, 0.6)
    if len(plausible) > 1 or best != run_best:
        confidence = min(confidence, CONFIDENT - 0.05)
    return CellReading(best, round(confidence, 4), tuple(sorted(plausible)))


def _likeliest(
    calls: Sequence[SlotCall],
    upper: Sequence[SlotCall],
    spoiled: Sequence[bool],
    first_row: int,
    plausible: set[int],
    prior: int = 0,
) -> int | None:
    """The plausible count whose first row the slot calls fit best (the sum of each slot's cost), with
    the second layer as the run of its calls; None when the calls carry no costs. One misread slot (the
    edge checker half hidden by a second layer, a checker much like its point) then costs a little
    instead of cutting the stack short. Ties go to ``prior``, the run of the calls' own best classes."""
    if len(plausible) == 1:
        return next(iter(plausible))
    if not plausible or any(c.costs is None for c in calls):
        return None
    k = len(calls)
    # the first row runs to the column's end whether or not a second layer is read: players fill it with
    # five or with six, and a sixth checker in the last slot is as much a count as the fifth
    top = k
    # prefix sums: a colour's cost over slots 0..n-1 plus empty's over slots n..k-1
    seen = [(0.0, 0.0, 0.0) if spoiled[s] or c.costs is None else c.costs for s, c in enumerate(calls)]
    prefix = {LIGHT: [0.0], DARK: [0.0]}
    for colour, sums in prefix.items():
        for c in seen:
            sums.append(sums[-1] + c[colour])
    empty_suffix = [0.0] * (k + 1)
    for s in range(k - 1, -1, -1):
        empty_suffix[s] = empty_suffix[s + 1] + seen[s][EMPTY]

    def cost(v: int) -> float:
        n = min(abs(v), k)
        if v == 0:
            return empty_suffix[0]
        return prefix[LIGHT if v > 0 else DARK][n] + empty_suffix[n]

    rows = [v for v in range(-top, top + 1) if v in plausible or (upper and first_row <= abs(v))]
    if not rows:
        return None
    # ties (a slot under a die costs nothing either way) go to the run the calls themselves show
    best = min(rows, key=lambda v: (round(cost(v), 6), abs(v - prior), abs(v)))
    if upper and abs(best) >= first_row:
        # a first row of n carries at most n - 1 in its second layer
        colour, n = (LIGHT if best > 0 else DARK), abs(best)
        m = 0
        while m < min(len(upper), n - 1) and upper[m].best == colour:
            m += 1
        best = (n + m) * (1 if best > 0 else -1)
    if best not in plausible:
        return min(sorted(plausible, key=abs), key=lambda v: abs(v - best))
    return best


def bar_cells(
    calls: Sequence[SlotCall],
    centers: np.ndarray,
    min_gap: float,
    limit: int = CHECKERS,
    middle: float | None = None,
) -> tuple[CellReading, CellReading]:
    """Light and dark checkers on the bar from calls at closely spaced centres along it.

    Neighbouring centres find the same checker, so detections closer than ``min_gap`` merge. With the
    bar's ``middle`` (its centre's y) given, a doubtful detection counts only when it joins the chain
    of checkers reaching out from the middle, where hit checkers are put: a lone doubtful one near the
    bar's far end (shading where the bar meets the frame) stays plausible but is not counted.
    """
    if any(c.novel for c in calls):
        return UNREADABLE, UNREADABLE
    # along the bar in order, keeping each detection clear of the last kept one: this finds the most
    # checkers that fit (a candidate between two touching checkers must not merge them into one)
    order = sorted(range(len(calls)), key=lambda i: (centers[i][1], -calls[i].confidence))
    kept: list[int] = []
    for i in order:
        if calls[i].best == EMPTY:
            continue
        if all(
            np.hypot(*(centers[i] - centers[j])) >= min_gap for j in kept if calls[j].best == calls[i].best
        ):
            kept.append(i)
    out = []
    for colour in (LIGHT, DARK):
        sure = [i for i in kept if calls[i].best == colour and calls[i].possible == frozenset({colour})]
        maybe = [i for i in kept if calls[i].best == colour and i not in sure]
        # empty bar centres that might hold this colour (merged with found ones when close)
        maybe_extra = [
            i
            for i, c in enumerate(calls)
            if c.best == EMPTY
            and colour in c.possible
            and all(np.hypot(*(centers[i] - centers[j])) >= min_gap for j in kept)
        ]
        lo = len(sure)
        hi = len(sure) + len(maybe) + _spread(maybe_extra, centers, min_gap)
        count = len(sure) + (
            len(maybe) if middle is None else _chained(sure, maybe, centers, min_gap, middle)
        )
        plausible = tuple(range(lo, min(hi, limit) + 1))
        used = [calls[i].confidence for i in sure + maybe]
        confidence = float(np.prod(used)) if used else 0.99
        if len(plausible) > 1:
            confidence = min(confidence, CONFIDENT - 0.05)
        out.append(CellReading(count, round(confidence, 4), plausible))
    return out[0], out[1]


def _chained(sure: list[int], maybe: list[int], centers: np.ndarray, min_gap: float, middle: float) -> int:
    """How many doubtful detections join a chain from the bar's middle (within two gaps of it, or of a
    checker already in the chain, nearest the middle first)."""
    reach = 2.0 * min_gap
    chain = [float(centers[i][1]) for i in sure]
    joined = 0
    for i in sorted(maybe, key=lambda i: abs(centers[i][1] - middle)):
        y = float(centers[i][1])
        if abs(y - middle) <= reach or any(abs(y - c) <= reach for c in chain):
            chain.append(y)
            joined += 1
    return joined


def _spread(indices: list[int], centers: np.ndarray, min_gap: float) -> int:
    """How many checkers at most fit among these centres."""
    taken: list[int] = []
    for i in indices:
        if all(np.hypot(*(centers[i] - centers[j])) >= min_gap for j in taken):
            taken.append(i)
    return len(taken)


def conserve(cells: dict[Cell, CellReading]) -> tuple[dict[Cell, CellReading], list[str]]:
    """Narrow open-ended counts with 15 a side, and warn when a side shows more than 15.

    Only upper bounds are used: checkers borne off or held in a hand are out of view, so conservation
    can close a tall stack from above but never adds checkers.
    """
    notes = []
    out = dict(cells)
    for side in Side:
        sign, name, bar_name = side.sign, side.value, Cell.bar_of(side)

        def low(c: CellReading, bar: bool, sign: int = sign) -> int:
            if bar:
                return min(c.plausible)
            return min(max(0, v * sign) for v in c.plausible)

        readable = {k: c for k, c in out.items() if c.readable}
        everything_seen = len(readable) == len(out)
        minimum = {k: low(c, False) for k, c in readable.items() if not k.is_bar}
        if bar_name in readable:
            minimum[bar_name] = low(readable[bar_name], True)
        total_min = sum(minimum.values())
        if total_min > CHECKERS:
            notes.append(f"{name}: at least {total_min} checkers seen, more than {CHECKERS}")
            continue
        for k, c in readable.items():
            if k.is_bar and k != bar_name:
                continue
            cap = CHECKERS - (total_min - minimum.get(k, 0))
            if k == bar_name:
                keep = tuple(v for v in c.plausible if v <= cap)
            else:
                keep = tuple(v for v in c.plausible if v * sign <= cap)
            if keep and keep != c.plausible:
                count = c.count if c.count in keep else max(keep, key=lambda v: -abs(v - c.count))
                confidence = c.confidence
                others_sure = everything_seen and all(o.certain for n, o in readable.items() if n != k)
                if len(keep) == 1 and confidence >= CONFIDENT - 0.05 and others_sure:
                    # only the width of the range held it below confident, and every other cell is sure
                    confidence = max(confidence, CONFIDENT)
                elif len(keep) > 1:
                    confidence = min(confidence, CONFIDENT - 0.05)
                out[k] = CellReading(count, confidence, keep)
    return out, notes
