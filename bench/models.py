"""Another network than the shipped one, for a benchmark's ``--value-model``."""

from __future__ import annotations

import argparse
from pathlib import Path

from vision import dice_model


def use_value_model(parser: argparse.ArgumentParser, path: Path | None) -> None:
    """Points the dice readers at ``path``'s folder (a ``dice_value.onnx``; a ``dice_value_board.onnx``
    beside it reads the boards, else that one does; the board reader's siblings
    (``dice_model.SIBLING_BOARD_READERS``) and the second board reader, ``dice_value_board_2.onnx``, are
    those of the folder, none where it has none); a usage error where ``path`` is not such a file."""
    if path is None:
        return
    if path.name != "dice_value.onnx" or not path.is_file():
        parser.error("--value-model must name a file called dice_value.onnx (the reader loads that name)")
    dice_model.MODELS = path.resolve().parent
