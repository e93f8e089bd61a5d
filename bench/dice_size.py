"""How surely the referee reads a die of a given size in pixels.

    python -m bench.dice_size                  # the held-out real dice at 16..48 px (under a minute)
    python -m bench.dice_size --sizes 20 28    # some sizes only

The photographs of ``../shared/data/real-dice`` that the dice networks never trained on (every 10th) are
shrunk so that each labelled die is N px across, as a camera farther from the board (or one giving fewer
pixels) sees it, passed through a camera's JPEG, and each die is read at its labelled box as the board
reader reads a die on a calibrated field (``vision.dice_reads.read``'s cascade of looks). The detector is
left out: this is what the pixels allow the reader, not what a whole frame gives.

Per size: dice read right; read at ``SURE_ROLL`` or more (a roll taken without a question) and how many
of those are wrong (each one a legal play the referee may call illegal); read below ``READABLE`` (the
referee asks or waits), and the smallest size that reads at least 99 % of them right, which
``vision.dice_verdict.CLEAR_DIE_PX`` (the size below which ``referee calibrate`` warns) must not be under.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from referee.throws import SURE_ROLL
from synthetic import pasted
from vision import dice_model, dice_reads
from vision.dice_verdict import CLEAR_DIE_PX, READABLE

DICE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "real-dice"
SIZES = (16, 20, 24, 28, 30, 32, 40, 48)
TARGET = 0.99  # the real photographs' value target (README)
JPEG_QUALITY = 90


def shrunk(image: np.ndarray, factor: float) -> np.ndarray:
    """``image`` made ``factor`` times smaller, as a camera's JPEG gives it."""
    small = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    ok, jpg = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    decoded = cv2.imdecode(jpg, cv2.IMREAD_COLOR) if ok else None
    return decoded if decoded is not None else small


Boxes = list[tuple[int, float, float, float, float]]


def read_at(size: int, photographs: list[tuple[np.ndarray, Boxes]]) -> np.ndarray:
    """(value, face read, confidence) of every die of ``photographs`` (each image with its labelled
    dice) shrunk to ``size`` px a die."""
    rows = []
    for image, boxes in photographs:
        for value, x0, y0, x1, y1 in boxes:
            f = size / ((x1 - x0 + y1 - y0) / 2)
            small = shrunk(image, f)
            c = dice_model.Candidate((x0 + x1) / 2 * f, (y0 + y1) / 2 * f, float(size), 1.0)
            p = dice_reads.read(small, [c])[0]
            faces = p[1:7] / max(float(p[1:7].sum()), 1e-9)
            rows.append((value, int(np.argmax(faces)) + 1, float(faces.max())))
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="die sides in px")
    args = parser.parse_args(argv)
    if any(not 8 <= s <= 96 for s in args.sizes):
        parser.error("--sizes must lie between 8 and 96 px")
    labels = DICE / "labels.csv"
    if not labels.is_file():
        print(f"real data not present ({DICE}): skipped")
        return 0
    began = time.perf_counter()
    kept = pasted.held_out(labels)
    # each photograph read from disk once, for every size
    loaded = [
        (cv2.imread(str(DICE / "images" / name)), boxes)
        for name, boxes in sorted(pasted.labelled(labels).items())
        if name in kept
    ]
    photographs = [(image, boxes) for image, boxes in loaded if image is not None]
    clear = None
    for size in sorted(args.sizes):
        rows = read_at(size, photographs)
        n = len(rows)
        right = rows[:, 0] == rows[:, 1]
        sure = rows[:, 2] >= SURE_ROLL
        print(
            f"die {size:3d} px: right {int(right.sum())}/{n} ({100 * right.mean():.1f} %), "
            f"read at {SURE_ROLL} or more {int(sure.sum())} ({int((sure & ~right).sum())} of them wrong), "
            f"below {READABLE} {int((rows[:, 2] < READABLE).sum())}"
        )
        if clear is None and right.mean() >= TARGET:
            clear = size
    print(
        f"{sum(len(b) for _, b in photographs)} held-out real dice of {len(photographs)} photographs, "
        f"{time.perf_counter() - began:.0f} s; smallest size read {100 * TARGET:.0f} % right: "
        f"{clear if clear is not None else 'none'} px (CLEAR_DIE_PX = {CLEAR_DIE_PX})"
    )
    return 0 if clear is not None and clear <= CLEAR_DIE_PX else 1


if __name__ == "__main__":
    raise SystemExit(main())
