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

# Two threads a network, as OpenCV's own functions use more than one: a frame's read is done sooner,
# and a Raspberry Pi's other cores are left to the capture loop and the console. The threads sleep
# while they wait for work: spinning, they fought OpenCV's threads for the cores (on a 2-core machine
# a read took twice as long).
THREADS = 2


class ModelError(RuntimeError):
    """A model file is missing or cannot be loaded."""


class OnnxNet:
    """One ONNX network with one input and one output (the first); ``run`` gives its output.

    ``what`` names the model in the ``ModelError`` a missing or broken file gives.
    """

    def __init__(self, path: Path, what: str) -> None:
        options = ort.SessionOptions()
        options.intra_op_num_threads = THREADS
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only: a model's own warnings are no news to a player
        try:
            self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own classes (NoSuchFile, InvalidProtobuf, Fail)
            raise ModelError(f"cannot load the {what} {path}: reinstall the package ({e})") from e
        self.input = self.session.get_inputs()[0].name
        self.what, self.path = what, path

    def run(self, x: np.ndarray) -> np.ndarray:
        """The network's first output for the float32 NCHW batch ``x``; a ``ModelError`` when the file
        cannot take it (a model exported for one input shape only)."""
        try:
            out = self.session.run(None, {self.input: np.ascontiguousarray(x, np.float32)})[0]
        except Exception as e:  # InvalidArgument and the like: the file, not the frame, is at fault
            raise ModelError(
                f"the {self.what} {self.path} cannot take an input of shape {tuple(x.shape)}: export it with "
                f"a free batch (tools/train_dice.py's export does) ({str(e).splitlines()[0]})"
            ) from e
        return np.asarray(out)


__all__ = ["ModelError", "OnnxNet"]
