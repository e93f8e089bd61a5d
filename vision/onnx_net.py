"""One ONNX network run through ``cv2.dnn``: the loader every shipped model shares.

>>> from pathlib import Path
>>> try:
...     OnnxNet(Path("missing.onnx"), "test model")
... except ModelError as e:
...     print(str(e).split(":")[0])
cannot load the test model missing.onnx
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2


class ModelError(RuntimeError):
    """A model file is missing or cannot be loaded."""


class OnnxNet:
    """One ONNX network through ``cv2.dnn``; its calls hold ``lock`` (dnn nets are not thread-safe).

    ``what`` names the model in the ``ModelError`` a missing or broken file gives.
    """

    def __init__(self, path: Path, what: str) -> None:
        try:
            self.net = cv2.dnn.readNetFromONNX(str(path))
        except cv2.error as e:
            raise ModelError(f"cannot load the {what} {path}: reinstall the package ({e})") from e
        self.lock = threading.Lock()


__all__ = ["ModelError", "OnnxNet"]
