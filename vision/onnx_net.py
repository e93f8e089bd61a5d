"""One ONNX network run through ONNX Runtime: the loader every shipped model shares.

ONNX Runtime runs these small convolutional networks two to three times faster than ``cv2.dnn`` on the
same CPU (``python -m bench.dice`` times the dice), and a session may be run from several threads at once.

>>> from pathlib import Path
>>> try:
...     OnnxNet(Path("missing.onnx"), "test model")
... except ModelError as e:
...     print(str(e).split(":")[0])
cannot load the test model missing.onnx
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort

# One thread a network: a read runs on one worker thread, and the capture loop, the console and the
# signals need the other cores of a Raspberry Pi (the networks are too small to gain from splitting).
THREADS = 1


class ModelError(RuntimeError):
    """A model file is missing or cannot be loaded."""


class OnnxNet:
    """One ONNX network with one input and one output (the first); ``run`` gives its output.

    ``what`` names the model in the ``ModelError`` a missing or broken file gives.
    """

    def __init__(self, path: Path, what: str) -> None:
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = THREADS
        options.log_severity_level = 3  # errors only: a model's own warnings are no news to a player
        try:
            self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own classes (NoSuchFile, InvalidProtobuf, Fail)
            raise ModelError(f"cannot load the {what} {path}: reinstall the package ({e})") from e
        self.input = self.session.get_inputs()[0].name

    def run(self, x: np.ndarray) -> np.ndarray:
        """The network's first output for the float32 NCHW batch ``x``."""
        out = self.session.run(None, {self.input: np.ascontiguousarray(x, np.float32)})[0]
        return np.asarray(out)


__all__ = ["ModelError", "OnnxNet"]
