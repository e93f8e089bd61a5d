"""The fast dice detector: it proposes every die, few other things, in image pixels."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from bgboard.layout import ImageLayout
from synthetic.render import Camera, DieSpec, render, scene_from_layout
from vision import dice_detect
from vision.dice_field import detect_scale, expected_die_side
from vision.onnx_net import ModelError

START = ImageLayout((-5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2), (5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))


def board(dice: tuple[DieSpec, ...], seed: int):
    return render(scene_from_layout(START, dice=dice, camera=Camera(4, 1, 0, 1)), seed=seed)


def test_plain_table_has_no_candidates() -> None:
    assert dice_detect.detect(np.full((360, 640, 3), 170, np.uint8), 0.4) == []


def test_heat_map_is_at_stride_four_of_the_shrunk_image() -> None:
    maps = dice_detect.heat_map(np.zeros((400, 600, 3), np.uint8), 0.5)
    # 300x200 after shrinking, two stride-2 convolutions with padding: ceil(ceil(n / 2) / 2)
    assert maps.shape[1:] == (50, 75) and maps.shape[0] >= 2


@pytest.mark.parametrize("seed", [3, 4])
def test_every_die_on_a_rendered_board_is_proposed_where_it_lies(seed: int) -> None:
    frame = board((DieSpec(3, 0.7, 0.5, 20, colour="red"), DieSpec(6, 0.85, 0.3, 65, colour="white")), seed)
    scale = detect_scale(frame.image, expected_die_side(frame.field_quad))
    cands = dice_detect.detect(frame.image, scale)
    assert cands == sorted(cands, key=lambda c: -c.heat)
    for truth in frame.dice:
        side = truth.box[2] - truth.box[0]
        near = [c for c in cands if np.hypot(c.x - truth.center[0], c.y - truth.center[1]) < 0.25 * side]
        assert near, f"no candidate at the die {truth.center}"
        assert 0.6 * side <= near[0].side <= 1.4 * side
        assert near[0].heat > 0.5
    # the board's checkers and points are not dice: at most one strong proposal beside the two dice
    assert sum(c.heat > 0.5 for c in cands) <= 3


def test_limit_and_threshold_bound_the_candidates() -> None:
    frame = board((DieSpec(3, 0.7, 0.5), DieSpec(5, 0.8, 0.45)), 1)
    scale = detect_scale(frame.image, expected_die_side(frame.field_quad))
    assert len(dice_detect.detect(frame.image, scale, limit=1)) == 1
    assert all(c.heat >= 0.6 for c in dice_detect.detect(frame.image, scale, threshold=0.6))


def test_dice_free_board_photo_has_no_strong_candidates(shared_data: Path) -> None:
    entry = next(
        e
        for e in json.loads((shared_data / "real-boards" / "labels.json").read_text())
        if e["image"] == "test4.jpg"
    )
    image = cv2.imread(str(shared_data / "real-boards" / "test4.jpg"))
    scale = detect_scale(image, expected_die_side(np.array(entry["board_quad"], np.float32)))
    assert [c for c in dice_detect.detect(image, scale) if c.heat > 0.5] == []


def test_a_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="reinstall"):
        dice_detect._net(tmp_path / "nothing.onnx")
