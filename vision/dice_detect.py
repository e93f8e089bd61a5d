"""The fast dice detector: where dice might be in a frame, for ``dice_model.read`` to confirm and read.

A small fully convolutional network (``models/dice_detect.onnx``, trained by
``tools/train_dice_detect.py``) runs (``vision.onnx_net``) on the frame shrunk until a die is about
``DIE_PX`` pixels wide; at stride 4 it gives a centre heat map, the die's size and the centre's offset
within its cell. It is tuned to miss nothing: whatever it wrongly proposes, the value reader calls
"not a die". ``python -m bench.dice`` times it.

    >>> import numpy as np
    >>> detect(np.full((90, 160, 3), 128, np.uint8), 0.5)
    []
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.dice_model import Candidate
from vision.onnx_net import OnnxNet

MODEL = Path(__file__).resolve().parent / "models" / "dice_detect.onnx"
STRIDE = 4  # output cell size in detector pixels; cell (i, j) stands for pixel STRIDE * (i, j) + 1.5
# The die side in detector pixels on a calibrated board: the network learned dice of 6..20 px, and the
# fewer pixels, the quicker.
DIE_PX = 8.0
_CENTRE = 1.5


@lru_cache(maxsize=4)
def _net(path: Path) -> OnnxNet:
    return OnnxNet(path, "dice detector")


def heat_map(image: np.ndarray, scale: float) -> np.ndarray:
    """The network's maps (C, H, W) at stride 4 for ``image`` shrunk by ``scale``.

    Channel 0 is the centre logit, 1 is log(die side / 8 px), 2 and 3 (when present) the centre's
    offset within its cell in cells, x then y.

    INTER_LINEAR, not INTER_AREA: ten times cheaper at these factors, and the network was trained
    on both.
    """
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_LINEAR)
    blob = cv2.dnn.blobFromImage(small, scalefactor=1 / 255.0, mean=(127.5, 127.5, 127.5))  # x / 255 - 0.5
    return _net(MODEL).run(blob)[0]  # looked up per call, so a benchmark can point MODEL at another file


def detect(image: np.ndarray, scale: float, threshold: float = 0.2, limit: int = 10) -> list[Candidate]:
    """The ``limit`` strongest peaks above ``threshold`` heat in ``image`` (BGR) run at ``scale``.

    Candidates are in ``image`` pixels, strongest first.
    """
    out = heat_map(image, scale)
    logit = out[0]
    # peaks on the logit: sigmoid is monotonic, so only the few peaks need it
    cut = float(np.log(threshold / (1 - threshold)))
    peaks = (logit >= cut) & (logit >= cv2.dilate(logit, np.ones((3, 3), np.uint8)))
    gy, gx = np.nonzero(peaks)
    if not len(gy):
        return []
    order = np.argsort(-logit[gy, gx])[:limit]
    gy, gx = gy[order], gx[order]
    gh, gw = logit.shape
    found = []
    for y, x in zip(gy.tolist(), gx.tolist(), strict=True):
        if len(out) >= 4:  # the network's own sub-cell offset
            fx, fy = x + float(out[2, y, x]), y + float(out[3, y, x])
        else:  # the heat-weighted centre of the 3x3 cells around the peak: finer than the stride
            y0, y1, x0, x1 = max(y - 1, 0), min(y + 2, gh), max(x - 1, 0), min(x + 2, gw)
            w = 1 / (1 + np.exp(-logit[y0:y1, x0:x1]))
            fy = float((w.sum(axis=1) * np.arange(y0, y1)).sum() / w.sum())
            fx = float((w.sum(axis=0) * np.arange(x0, x1)).sum() / w.sum())
        found.append(
            Candidate(
                (STRIDE * fx + _CENTRE) / scale,
                (STRIDE * fy + _CENTRE) / scale,
                8.0 * float(np.exp(out[1, y, x])) / scale,
                float(1 / (1 + np.exp(-logit[y, x]))),
            )
        )
    return found
