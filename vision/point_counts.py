"""A second, independent eye on every point: how many checkers stand on it, from the whole point at once.

The slot reader (:mod:`vision.checkers`) calls each checker slot on its own and is at its weakest where
it matters most: tall stacks, whose second layer sits between the slots, and checkers that wear the
point's own colour. This module cuts each point into a *strip* (edge to beyond the sixth checker,
bottom-row strips turned so the edge is always on top), and a small network trained on rendered boards
of many styles (``tools/train_counts.py``) gives the probability of every count 0..15, whatever the
colour. Colour stays the slot reader's job; :func:`fuse` joins the two readings so that a count is
only sure when both eyes agree and the slots plainly tell its colour.

The bar is two more strips, cut the same way: light checkers stack from just above the bar's middle
upwards, dark ones from just below it downwards (``BAR_GAP`` of a pitch left free for the cube), so
each half is a "point" whose edge is the middle. There the colour is known: a bar
strip's count is that colour's count (:func:`fuse` with ``known=True``).

    >>> from vision.geometry import BoardGeometry
    >>> g = BoardGeometry(320, 280, 152.0, 168.0, 22.0, 11.0, 11.0)
    >>> strips(np.zeros((328, 368, 3), np.uint8), g, margin=24).shape
    (26, 112, 32, 3)
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from bgboard.layout import Row
from vision.geometry import ROWS, BoardGeometry
from vision.onnx_net import OnnxNet
from vision.reading import CONFIDENT, CellReading

MODEL = Path(__file__).resolve().parent / "models" / "point_counts.onnx"
STRIP_W, STRIP_H = 32, 112  # a strip as cut, px
NET_W, NET_H = 16, 56  # the network's input: half size, enough for a checker's rim and a small Pi
WIDTH_SHARE = 1.5  # strip width / point width: checkers drift a third of a checker sideways
LENGTH_PITCHES = 6.3  # strip length in checker pitches from the edge
COVERED = 16  # the last class: a hand, arm or cup hides the point
CLASSES = 17  # counts 0..15, covered
POINTS = 24  # strips 0..23 are the points (top row left to right, then bottom)
BAR_LIGHT, BAR_DARK = 24, 25  # then the bar's light (upper) and dark (lower) half
STRIPS = 26
# the bar's middle is the cube's: bar checkers stand outward from this far either side of it, in pitches
BAR_GAP = 0.45
# a count the network gives at least this probability is its call; below it the network abstains (it
# learned with label smoothing and never says much above 0.98). A count is sure only when the slot
# reader agrees.
SURE = 0.9
# a point the slots cannot place is read only when the network gives "covered" less than this
UNCOVERED = 0.02
# a sure slot reading stays sure only while the network gives "covered" less than this (a hand's edge
# over an empty point's far end leaves both eyes counting 0 and only the network a little uneasy)
OPEN = 0.05
# an unsure slot reading takes the network's count as its best guess (never sure) from this probability
LEAN = 0.5
# where the slots leave a count's colour open (both n and -n plausible), the network, which sees no
# colour, cannot settle it: the count is sure only when the filled slots find its colour at least this
# much nearer than the other (mean log distance ratio; 1.5 times).
COLOUR_MARGIN = math.log(1.5)


def strips(canonical: np.ndarray, geometry: BoardGeometry, margin: int) -> np.ndarray:
    """The 26 strips of a rectified frame, edge on top: the 24 points (top row left to right, then
    bottom), then the bar's light and dark halves (their edge is the bar's middle)."""
    g = geometry
    half_w = WIDTH_SHARE * g.point_width / 2
    length = LENGTH_PITCHES * g.pitch
    sx, sy = STRIP_W / (2 * half_w), STRIP_H / length
    # (x of the strip's axis, y of its edge, +1 when it runs down the image, -1 when up)
    edges = {Row.TOP: (g.top_edge, 1.0), Row.BOTTOM: (g.bottom, -1.0)}
    axes = [(g.point_x(row, i), *edges[row]) for row in ROWS for i in range(12)]
    # the bar's middle as the slot reader takes it (the renderer's too: half the field)
    middle, gap, bar_x = g.height / 2, BAR_GAP * g.pitch, (g.bar_x0 + g.bar_x1) / 2
    axes += [(bar_x, middle - gap, -1.0), (bar_x, middle + gap, 1.0)]
    out = np.empty((STRIPS, STRIP_H, STRIP_W, 3), np.uint8)
    for n, (x0, y0, flip) in enumerate(axes):
        x, y = x0 + margin, y0 + margin
        # canonical -> strip: scale, and for a strip running up the image a half turn so the edge comes first
        m = np.array(
            [[flip * sx, 0.0, STRIP_W / 2 - flip * sx * x], [0.0, flip * sy, -flip * sy * y]],
            dtype=np.float64,
        )
        out[n] = cv2.warpAffine(
            canonical, m, (STRIP_W, STRIP_H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
        )
    return out


def normalise(batch: np.ndarray) -> np.ndarray:
    """uint8 strips (N, H, W, 3) -> the network's float NCHW input at half size, each channel centred
    and scaled over the whole batch.

    One frame's strips share one light: taking it out here lets the network see rims and shapes, not
    the lamp.
    """
    x = np.stack([cv2.resize(s, (NET_W, NET_H), interpolation=cv2.INTER_AREA) for s in batch]).astype(
        np.float32
    )
    mean = x.mean(axis=(0, 1, 2), keepdims=True)
    std = x.std(axis=(0, 1, 2), keepdims=True) + 8.0
    return ((x - mean) / std).transpose(0, 3, 1, 2).copy()


class CountNet:
    """The strip network (``vision.onnx_net``; a ``ModelError`` when its file is missing or broken)."""

    def __init__(self, path: Path = MODEL) -> None:
        self._onnx = OnnxNet(path, "point-count model")

    def probabilities(self, strip_batch: np.ndarray) -> np.ndarray:
        """(N, 17) probabilities for N strips: each count 0..15, then "covered"."""
        logits = self._onnx.run(normalise(strip_batch))
        logits = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)


@lru_cache(maxsize=1)
def count_net() -> CountNet | None:
    """The shipped network, or None when the package was installed without it."""
    return CountNet() if MODEL.is_file() else None


def fuse(
    cell: CellReading,
    p: np.ndarray,
    colour: float = 0.0,
    known: bool = False,
    seen: tuple[int, ...] = (),
) -> CellReading:
    """Join the slot reader's ``cell`` with the strip network's probabilities ``p`` (counts, covered).

    The count is sure only when both agree: the slot reader's best count is the network's sure count.
    A sure slot reading the network contradicts loses its certainty; an unsure one takes
    the network's count, and its colour from the counts the slot reader still allows. A point the
    network sees covered is unreadable unless the slots read it surely; then it is only unsure. A point
    the slots could not read is read, unsure, when the network plainly sees it uncovered.
    ``colour`` is how the slot reader's filled slots lean between the colours (see
    :func:`colour_lean`: > 0 light, < 0 dark, 0 unknown). Its sign is the last resort when the plausible
    counts leave the colour open, and a count coloured that way is never sure; its size is how sure the
    colour is: where the slots allow the network's count in both colours, the agreed count is sure only
    with a lean of ``COLOUR_MARGIN`` or more its way (the network carries no colour at all). With
    ``known`` the colour is no question (a bar half: pass ``colour=1`` for its unsigned count). The
    network's likeliest count short of sure (``LEAN``) only becomes an unsure reading's best guess,
    within what the slots allow. ``seen`` are the counts an unreadable point's slots allow when what is
    novel over them may be anything (see :func:`_unfamiliar`).

        >>> p = np.eye(17)[3] * 0.99 + 0.01 / 17
        >>> fuse(CellReading(-3, 0.6, (-2, -3, 0)), p).plausible
        (-3,)
        >>> fuse(CellReading(-2, 0.6, (-2, -3, 0)), p)
        CellReading(count=-3, confidence=0.6, plausible=(-3, -2, 0))
        >>> fuse(CellReading(3, 0.9, (1, 2, 3)), p, colour=1, known=True).plausible  # a bar half
        (3,)
        >>> fuse(CellReading(-3, 0.6, (-3, 0, 3)), p, colour=-0.1).plausible  # 3 checkers, colour open
        (-3, 3)
    """
    covered = float(p[COVERED]) if len(p) > COVERED else 0.0
    doubt = min(cell.confidence, CONFIDENT - 0.05)
    if not cell.readable:
        return _unfamiliar(cell, p, covered, colour, seen)
    if covered >= 0.5:
        # two eyes that both doubt the view: unreadable; the slots' sure count only loses its certainty
        return (
            CellReading(cell.count, doubt, cell.plausible)
            if cell.certain
            else CellReading(cell.count, 0.0, ())
        )
    n = int(p[:COVERED].argmax())
    sure = float(p[n]) >= SURE
    colours, guessed = _colours(cell, n, colour, known)
    signed = [s * n for s in colours] if n else [0]
    if cell.certain:
        if abs(cell.count) == n or not sure:
            return cell if covered < OPEN else CellReading(cell.count, doubt, cell.plausible)
        return CellReading(cell.count, doubt, tuple(sorted({cell.count, *signed})))
    if len(signed) != 1:
        return cell
    count = signed[0]
    if not sure:
        # a fair lean of the network picks among the slots' own doubts; it settles nothing
        if float(p[n]) >= LEAN and count in cell.plausible and count != cell.count:
            return CellReading(count, doubt, cell.plausible)
        return cell
    if count == cell.count and not guessed:
        if not known and -count in cell.plausible and count * colour < n * COLOUR_MARGIN:
            # the slots' best count has the colour they barely prefer: the number is settled, not the colour
            return CellReading(count, doubt, tuple(sorted((count, -count))))
        # both eyes' best counts agree: what the slots left open is settled (sure once p is CONFIDENT)
        return CellReading(count, max(cell.confidence, float(p[n])), (count,))
    # the network is sure of another count: take it, keep both doubts
    return CellReading(count, doubt, tuple(sorted({*cell.plausible, count})))


def past_die(p: np.ndarray) -> np.ndarray:
    """The probabilities ``p`` (counts, covered) of a strip that a known die lies on, with "covered" given
    up: the network takes a die on a point (often on the stack's last checker, at the strip's far end) for
    a hand, whereas the slot reader knows the die and leaves the slots under it open. What covers the
    point is then the die, and the counts keep their odds among themselves.

        >>> p = np.zeros(17); p[6], p[COVERED] = 0.3, 0.6; p[5] = 0.1
        >>> [round(float(v), 2) for v in past_die(p)[[5, 6, COVERED]]]
        [0.25, 0.75, 0.0]
    """
    counts = np.asarray(p, dtype=np.float64)[:COVERED]
    out = np.zeros(len(p))
    out[:COVERED] = counts / max(float(counts.sum()), 1e-9)
    return out


def slot_leans(light: np.ndarray, dark: np.ndarray) -> np.ndarray:
    """How each slot leans between the colours, from its distance to the light and the dark checkers of
    calibration: log(dark / light), > 0 light. A class never seen (infinite distance) counts as 10 at most.

        >>> slot_leans(np.array([1.0, 1.0]), np.array([1.0, np.inf])).tolist()
        [0.0, 10.0]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.log(np.maximum(dark, 1e-6) / np.maximum(light, 1e-6))
    return np.clip(np.nan_to_num(ratio, nan=0.0), -10.0, 10.0)


def colour_lean(leans: np.ndarray) -> float:
    """How a point's filled slots lean between the colours: the mean of their :func:`slot_leans`, 0 when
    no slot is given.

        >>> leans = slot_leans(np.array([1.0, 1.0]), np.array([2.0, 1.0]))  # one slot 2x nearer light
        >>> round(colour_lean(leans), 3)
        0.347
    """
    return float(leans.mean()) if len(leans) else 0.0


def _colours(cell: CellReading, n: int, colour: float, known: bool) -> tuple[set[int], bool]:
    """The colours (+1, -1) a count of ``n`` may have on the slots' ``cell``, and whether the one taken
    is a guess from the nearer checker: the slots' best count's colour when it counts ``n`` too, else
    the one colour their plausible counts of ``n`` leave, else the best count's (or any plausible
    count's) colours; the nearer checker's colour decides where that leaves both."""
    if known:
        return {1 if colour >= 0 else -1}, False
    if n and abs(cell.count) == n:
        return {1 if cell.count > 0 else -1}, False
    same = {1 if v > 0 else -1 for v in cell.plausible if v != 0 and abs(v) == n}
    if n and same:
        colours = same
    else:
        colours = {1 if v > 0 else -1 for v in ([cell.count] if cell.count else cell.plausible) if v != 0}
    if n > 0 and len(colours) != 1 and colour != 0:
        return {1 if colour > 0 else -1}, True
    return colours, False


def _unfamiliar(
    cell: CellReading, p: np.ndarray, covered: float, colour: float, seen: tuple[int, ...] = ()
) -> CellReading:
    """A point the slots found unlike anything seen at calibration (a hand, or a stack the calibration
    frame never showed: a half-hidden checker under a second layer, a neighbour's drifted checker over a
    slot). When the network sees plainly that nothing covers it and is sure of the count, the count is
    read, never sure. So it is when the network only leans (``LEAN``) to a count that the slots' ``seen``
    allow, taking what is novel over them as anything: two eyes then agree on what both can see.
    Otherwise the point stays unreadable.

        >>> p = np.eye(17)[7] * 0.8 + 0.2 / 17
        >>> _unfamiliar(CellReading(0, 0.0, ()), p, 0.01, 1.0, seen=(6, 7, 8)).count
        7
        >>> _unfamiliar(CellReading(0, 0.0, ()), p, 0.01, 1.0, seen=(5, 6)).readable
        False
    """
    n = int(p[:COVERED].argmax())
    if covered >= UNCOVERED or (n and not colour):
        return cell
    count = (1 if colour > 0 else -1) * n
    if float(p[n]) >= SURE:
        return CellReading(count, 0.5, (count,))
    if float(p[n]) >= LEAN and count in seen:
        return CellReading(count, 0.5, tuple(sorted(seen)))
    return cell


__all__ = [
    "BAR_DARK",
    "BAR_LIGHT",
    "CLASSES",
    "POINTS",
    "STRIPS",
    "STRIP_H",
    "STRIP_W",
    "CountNet",
    "colour_lean",
    "count_net",
    "fuse",
    "normalise",
    "past_die",
    "slot_leans",
    "strips",
]
