"""A second, independent eye on every point: how many checkers stand on it, from the whole point at once.

The slot reader (:mod:`vision.checkers`) calls each checker slot on its own and is at its weakest where
it matters most: tall stacks, whose second layer sits between the slots, and checkers that wear the
point's own colour. This module cuts each point into a *strip* (edge to beyond the sixth checker,
bottom-row strips turned so the edge is always on top), and a small network trained on rendered boards
of many styles (``tools/train_counts.py``) gives the probability of every count 0..15, whatever the
colour. Colour stays the slot reader's job; :func:`fuse` joins the two readings so that a count is
only sure when both eyes agree.

    >>> from vision.geometry import BoardGeometry
    >>> g = BoardGeometry(320, 280, 152.0, 168.0, 22.0, 11.0, 11.0)
    >>> strips(np.zeros((328, 368, 3), np.uint8), g, margin=24).shape
    (24, 112, 32, 3)
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.geometry import ROWS, BoardGeometry
from vision.reading import CONFIDENT, CellReading

MODEL = Path(__file__).resolve().parent / "models" / "point_counts.onnx"
STRIP_W, STRIP_H = 32, 112  # a strip as cut, px
NET_W, NET_H = 16, 56  # the network's input: half size, enough for a checker's rim and a small Pi
WIDTH_SHARE = 1.5  # strip width / point width: checkers drift a third of a checker sideways
LENGTH_PITCHES = 6.3  # strip length in checker pitches from the edge
COVERED = 16  # the last class: a hand, arm or cup hides the point
CLASSES = 17  # counts 0..15, covered
# a count the network gives at least this probability is its call; below it the network abstains.
# (Trained with label smoothing, it never says much above 0.98; on held-out rendered clubs 1 call in
# about 3,500 at 0.9 or more was wrong.)
SURE = 0.9
# a point the slots cannot place is read only when the network gives "covered" less than this
UNCOVERED = 0.02


def strips(canonical: np.ndarray, geometry: BoardGeometry, margin: int) -> np.ndarray:
    """The 24 point strips of a rectified frame (top row left to right, then bottom), edge on top."""
    g = geometry
    half_w = WIDTH_SHARE * g.point_width / 2
    length = LENGTH_PITCHES * g.pitch
    sx, sy = STRIP_W / (2 * half_w), STRIP_H / length
    out = np.empty((24, STRIP_H, STRIP_W, 3), np.uint8)
    n = 0
    for row in ROWS:
        for i in range(12):
            x = g.point_x(row, i) + margin
            if row == "top":
                y0, flip = g.top_edge + margin, 1.0
            else:
                y0, flip = g.bottom + margin, -1.0
            # canonical -> strip: scale, and for the bottom row a half turn so the edge comes first
            m = np.array(
                [[flip * sx, 0.0, STRIP_W / 2 - flip * sx * x], [0.0, flip * sy, -flip * sy * y0]],
                dtype=np.float64,
            )
            out[n] = cv2.warpAffine(
                canonical, m, (STRIP_W, STRIP_H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
            )
            n += 1
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
    """The strip network through ``cv2.dnn``; calls hold a lock (dnn nets are not thread-safe)."""

    def __init__(self, path: Path = MODEL) -> None:
        try:
            self.net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as e:
            raise RuntimeError(
                f"cannot load the point-count model {path}: reinstall the package ({e})"
            ) from e
        self.lock = threading.Lock()

    def probabilities(self, strip_batch: np.ndarray) -> np.ndarray:
        """(N, 17) probabilities for N strips: each count 0..15, then "covered"."""
        with self.lock:
            self.net.setInput(normalise(strip_batch))
            logits = self.net.forward()
        logits = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)


@lru_cache(maxsize=1)
def count_net() -> CountNet | None:
    """The shipped network, or None when the package was installed without it."""
    return CountNet() if MODEL.is_file() else None


def fuse(cell: CellReading, p: np.ndarray, colour: int = 0) -> CellReading:
    """Join the slot reader's ``cell`` with the strip network's probabilities ``p`` (counts, covered).

    The count is sure only when both agree: the slot reader's best count is the network's sure count.
    A sure slot reading the network contradicts loses its certainty; an unsure one takes
    the network's count, and its colour from the counts the slot reader still allows. A point the
    network sees covered is unreadable unless the slots read it surely; then it is only unsure. A point
    the slots could not read is read, unsure, when the network plainly sees it uncovered.
    ``colour`` (+1 light, -1 dark, 0 unknown) is the slot reader's nearer checker colour on the point,
    the last resort when its plausible counts leave the colour open; a count coloured that way is
    never sure.

        >>> p = np.eye(17)[3] * 0.99 + 0.01 / 17
        >>> fuse(CellReading(-3, 0.6, (-2, -3, 0)), p).plausible
        (-3,)
        >>> fuse(CellReading(-2, 0.6, (-2, -3, 0)), p)
        CellReading(count=-3, confidence=0.6, plausible=(-3, -2, 0))
    """
    covered = float(p[COVERED]) if len(p) > COVERED else 0.0
    doubt = min(cell.confidence, CONFIDENT - 0.05)
    if not cell.readable:
        return _unfamiliar(cell, p, covered, colour)
    if covered >= 0.5:
        # two eyes that both doubt the view: unreadable; the slots' sure count only loses its certainty
        return (
            CellReading(cell.count, doubt, cell.plausible)
            if cell.certain
            else CellReading(cell.count, 0.0, ())
        )
    n = int(p[:COVERED].argmax())
    sure = float(p[n]) >= SURE
    # the colour: the slots' best count's, else the one colour their plausible counts leave
    colours = {1 if v > 0 else -1 for v in ([cell.count] if cell.count else cell.plausible) if v != 0}
    guessed = n > 0 and len(colours) != 1 and colour != 0
    if guessed:
        colours = {colour}
    signed = [s * n for s in colours] if n else [0]
    if cell.certain:
        if abs(cell.count) == n or not sure:
            return cell if covered < 1 - SURE else CellReading(cell.count, doubt, cell.plausible)
        return CellReading(cell.count, doubt, tuple(sorted({cell.count, *signed})))
    if not sure or len(signed) != 1:
        return cell
    count = signed[0]
    if count == cell.count and not guessed:
        # both eyes' best counts agree: what the slots left open is settled (sure once p is CONFIDENT)
        return CellReading(count, max(cell.confidence, float(p[n])), (count,))
    # the network is sure of another count: take it, keep both doubts
    return CellReading(count, doubt, tuple(sorted({*cell.plausible, count})))


def _unfamiliar(cell: CellReading, p: np.ndarray, covered: float, colour: int) -> CellReading:
    """A point the slots found unlike anything seen at calibration (a hand, or a stack the calibration
    frame never showed). When the network sees plainly that nothing covers it and is sure of the count,
    the count is read, never sure; otherwise the point stays unreadable."""
    n = int(p[:COVERED].argmax())
    if covered >= UNCOVERED or float(p[n]) < SURE or (n and not colour):
        return cell
    count = colour * n
    return CellReading(count, 0.5, (count,))


__all__ = ["CLASSES", "STRIP_H", "STRIP_W", "CountNet", "count_net", "fuse", "normalise", "strips"]
