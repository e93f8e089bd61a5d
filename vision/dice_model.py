"""The dice value network, run through ONNX Runtime (no torch at run time).

``dice_value.onnx`` reads one 48x48 crop per candidate that :mod:`vision.dice_detect` found: "not a
die", the top face 1..6 of a flat die, or "cocked" (leaning, no face up). It is trained by
``tools/train_dice.py`` (its docstring gives the data recipe).

    >>> import numpy as np
    >>> Candidate(10.0, 12.0, 20.0, 0.9).box
    (0.0, 2.0, 20.0, 22.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.onnx_net import OnnxNet

MODELS = Path(__file__).resolve().parent / "models"
CROP = 48  # reader input side, px (the value network is exported for this size)
CROP_MARGIN = 1.35  # reader crop side / die side, as in training
# A die kept to train the reader on (a die it was unsure of, whose face the table confirmed) is cut out
# with twice the reader's window around it, so that training can shift and rescale it as far as the
# detector strays, at this many px square.
TAUGHT_PX = 96
TAUGHT_WINDOW = 2 * CROP_MARGIN  # the taught crop's side in die sides


@dataclass(frozen=True)
class Candidate:
    """A detector peak in image pixels: centre, die side and heat (0..1)."""

    x: float
    y: float
    side: float
    heat: float

    @property
    def box(self) -> tuple[float, float, float, float]:
        h = self.side / 2
        return (self.x - h, self.y - h, self.x + h, self.y + h)


# Two readers of one design: one learned from photographs of dice on a table, one that went on from it
# with real dice pasted onto real boards (a board's points, checkers and rims around the die). Each
# reads best what it learned: the board reader misreads more of the photographs, the photograph
# reader more of the dice thrown onto a board.
PHOTO_READER, BOARD_READER = "dice_value.onnx", "dice_value_board.onnx"
# A second board reader went on from the board reader on other throws. Where a die on the board is read
# carefully (``CAREFUL_TURNS`` turns or more: a die the first looks left in doubt or that lies against
# another, a second look), a face both find likeliest is read with both, averaged: two readers agreeing
# on a face are surer of it than one. Where they name different faces the board reader's read stands,
# so the second can firm up a face but never change one.
SECOND_BOARD_READER = "dice_value_board_2.onnx"
# Two more runs of the board reader's recipe, from the same start with other seeds (and a lamp's streak
# laid on some crops): where a die on the board is read carefully, its faces are weighed by the three
# alike. Each run misreads dice of its own (two seeds of one recipe misread as many dice, not the same
# ones), so the three misread fewer together than any one of them alone; and a face they dispute is
# one none of them reads surely (``faces_weighed``), which the second board reader does not settle.
SIBLING_BOARD_READERS = ("dice_value_board_b.onnx", "dice_value_board_c.onnx")
CAREFUL_TURNS = 4


# room for every reader of a folder (five) and a second folder's: a board read alone uses four, and a
# smaller cache reloads a network on every read once a photograph has been read in the same process
@lru_cache(maxsize=12)
def nets(folder: Path = MODELS, name: str = PHOTO_READER) -> OnnxNet:
    """The value network ``name`` of ``folder`` (a folder with only the photograph reader uses it for
    both)."""
    path = folder / name
    if not path.exists() and name == BOARD_READER:
        path = folder / PHOTO_READER
    return OnnxNet(path, "dice value model")


def _blob(img: np.ndarray) -> np.ndarray:
    """BGR uint8 (N, H, W, 3) or (H, W, 3) -> float NCHW scaled as in training (x / 255 - 0.5)."""
    arr = img if img.ndim == 4 else img[None]
    return (arr.astype(np.float32) * (1 / 255.0) - 0.5).transpose(0, 3, 1, 2).copy()


def crop(image: np.ndarray, x: float, y: float, side: float, angle: float = 0.0) -> np.ndarray:
    """The reader's CROP x CROP window on a die centred at (x, y), turned by ``angle`` degrees."""
    return _window(image, x, y, side * CROP_MARGIN, CROP, angle)


def taught_crop(image: np.ndarray, x: float, y: float, side: float) -> np.ndarray:
    """A die of ``side`` px centred at (x, y) as it is kept to train the reader on: TAUGHT_PX square,
    ``TAUGHT_WINDOW`` die sides across, the die in the middle.

    >>> taught_crop(np.zeros((100, 100, 3), np.uint8), 50.0, 50.0, 20.0).shape
    (96, 96, 3)
    """
    return _window(image, x, y, side * TAUGHT_WINDOW, TAUGHT_PX)


def _window(image: np.ndarray, x: float, y: float, window: float, px: int, angle: float = 0.0) -> np.ndarray:
    """The ``window`` px square centred at (x, y), turned by ``angle`` degrees, as ``px`` x ``px``."""
    m = cv2.getRotationMatrix2D((x, y), angle, px / window)
    m[0, 2] += px / 2 - x
    m[1, 2] += px / 2 - y
    return cv2.warpAffine(image, m, (px, px), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT)


def read(
    image: np.ndarray,
    candidates: list[Candidate],
    turns: int = 2,
    scales: tuple[float, ...] = (1.0,),
    mirror: bool = False,
    on_board: bool = False,
    first_turn: int = 0,
) -> np.ndarray:
    """Class probabilities (N, 8) for each candidate: 0 "not a die", 1..6 the top face, 7 cocked.

    Each crop is read ``turns`` times, turned by multiples of 90 / turns degrees, at each of
    ``scales`` times the detected side, and with ``mirror`` also mirrored; the probabilities are
    averaged: the detector's size is rough, and a face read the same way whichever way up (a die's
    faces look the same in a mirror) is a surer read. ``on_board``: the dice lie on a calibrated
    board (the board reader reads them; from ``CAREFUL_TURNS`` turns its faces are weighed with its
    ``SIBLING_BOARD_READERS``' too, ``faces_weighed``, then averaged with the second board reader's
    where both find one face likeliest and the three do not dispute it, ``agreed``), else in a
    photograph. ``first_turn``: the turns below it are left out (the caller has read them), so that
    ``read(..., first_turn=1)`` is the default's turned look alone.
    """
    if not candidates:
        return np.zeros((0, 8), np.float32)
    crops = [
        crop(image, c.x, c.y, c.side * f, angle=k * 90.0 / turns)
        for c in candidates
        for k in range(first_turn, turns)
        for f in scales
    ]
    looks = (turns - first_turn) * len(scales)
    if mirror:
        crops = [v for c in crops for v in (c, c[:, ::-1])]
        looks *= 2
    # looked up at call time, so that a benchmark can point MODELS at another folder
    blob = _blob(np.stack(crops))
    p = _averaged(nets(MODELS, BOARD_READER if on_board else PHOTO_READER), blob, looks)
    careful = on_board and turns >= CAREFUL_TURNS
    if careful:
        siblings = [_averaged(nets(MODELS, n), blob, looks) for n in SIBLING_BOARD_READERS if _has(MODELS, n)]
        # a face the board reader and its siblings dispute is read by none of them surely; the second
        # board reader, another recipe, does not settle it
        settled = ~disputed(p, siblings)
        p = faces_weighed(p, siblings)
        if settled.any() and _has(MODELS, SECOND_BOARD_READER):
            second = _averaged(nets(MODELS, SECOND_BOARD_READER), blob, looks)
            p[settled] = agreed(p[settled], second[settled])
    if p.shape[1] == 7:  # a reader trained without the cocked class
        p = np.concatenate([p, np.zeros((len(p), 1), p.dtype)], axis=1)
    return p


def _averaged(net: OnnxNet, blob: np.ndarray, looks: int) -> np.ndarray:
    """The class probabilities ``net`` gives each candidate, averaged over its ``looks`` crops of ``blob``."""
    logits = net.run(blob)
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    return p.reshape(-1, looks, p.shape[1]).mean(axis=1)


def faces_weighed(p: np.ndarray, others: list[np.ndarray]) -> np.ndarray:
    """The reads ``p`` (N, classes) with their flat faces weighed by ``p``'s and every read of ``others``
    alike; whether a crop is a die at all, and whether it leans, ``p`` alone says (a sibling's own doubt
    of a die would lose dice the board reader finds, and find others). Where they do not all find one
    face likeliest (``disputed``), each face gets the least share any of them gives it: no face then
    has more than half of the flat faces' probability (a reader that finds another face likelier gives
    this one at most half), so none is read as surely as ``dice_verdict.READABLE`` asks.

    >>> p = np.array([[0.1, 0.6, 0.2, 0, 0, 0, 0, 0.1]])
    >>> faces_weighed(p, [np.array([[0.5, 0.3, 0.2, 0, 0, 0, 0, 0.0]])]).round(2).tolist()
    [[0.1, 0.54, 0.26, 0.0, 0.0, 0.0, 0.0, 0.1]]
    >>> faces_weighed(p, [np.array([[0.5, 0.0, 0.5, 0, 0, 0, 0, 0.0]])]).round(2).tolist()
    [[0.1, 0.0, 0.2, 0.0, 0.0, 0.0, 0.0, 0.1]]
    """
    if not others:
        return p
    flat = [q[:, 1:7] for q in (p, *others)]
    shares = np.array([f / np.maximum(f.sum(axis=1, keepdims=True), 1e-9) for f in flat])
    weighed = np.where(disputed(p, others)[:, None], shares.min(axis=0), shares.mean(axis=0))
    out = p.copy()
    out[:, 1:7] = weighed * p[:, 1:7].sum(axis=1, keepdims=True)
    return out


def disputed(p: np.ndarray, others: list[np.ndarray]) -> np.ndarray:
    """Whether the reads ``p`` and ``others`` (each (N, classes)) do not all find one flat face likeliest.

    >>> p = np.array([[0.1, 0.6, 0.2, 0, 0, 0, 0, 0.1]] * 2)
    >>> disputed(p, [np.array([[0.5, 0.3, 0.2, 0, 0, 0, 0, 0], [0.5, 0.2, 0.3, 0, 0, 0, 0, 0]])]).tolist()
    [False, True]
    """
    faces = np.array([np.argmax(q[:, 1:7], axis=1) for q in (p, *others)])
    return np.asarray((faces != faces[0]).any(axis=0))


@lru_cache(maxsize=8)
def _has(folder: Path, name: str) -> bool:
    return (folder / name).exists()


def agreed(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The reads ``first`` (N, classes), averaged with ``second``'s where both find the same flat face
    likeliest; elsewhere ``first``'s.

    >>> first = np.array([[0.1, 0.5, 0.4, 0, 0, 0, 0, 0]] * 2)
    >>> second = np.array([[0.1, 0.9, 0.0, 0, 0, 0, 0, 0], [0.1, 0.2, 0.7, 0, 0, 0, 0, 0]])
    >>> agreed(first, second)[:, 1].round(2).tolist()
    [0.7, 0.5]
    """
    same = np.argmax(first[:, 1:7], axis=1) == np.argmax(second[:, 1:7], axis=1)
    out = first.copy()
    out[same] = (first[same] + second[same]) / 2
    return out
