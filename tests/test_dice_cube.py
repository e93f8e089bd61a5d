"""The doubling cube: where it lies (bar centre, bar ends, tray) and its face where legible."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from bgboard.layout import ImageLayout
from synthetic.render import Camera, CubeSpec, render, scene_from_layout
from vision.cube import find_cube

START = ImageLayout((-5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2), (5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))


@pytest.mark.parametrize(
    ("style", "location", "value"),
    [("tournament", "centre", 2), ("wood", "bottom", 8), ("suede", "tray", 16)],
)
def test_rendered_cube_location(style: str, location: str, value: int) -> None:
    frame = render(
        scene_from_layout(START, style=style, cube=CubeSpec(value, location), camera=Camera(5, 2, 0, 1)),
        seed=3,
    )
    cube = find_cube(frame.image, frame.field_quad)
    assert cube is not None and cube.location == location
    assert np.hypot(cube.center[0] - frame.cube_center[0], cube.center[1] - frame.cube_center[1]) < 15
    assert cube.value in (None, value)  # a face is read only where it is clear


def test_no_cube_on_an_empty_table() -> None:
    quad = np.array([[100, 50], [500, 50], [500, 350], [100, 350]], np.float32)
    assert find_cube(np.full((400, 600, 3), 90, np.uint8), quad) is None
    with pytest.raises(ValueError):
        find_cube(np.full((400, 600, 3), 90, np.uint8), quad[:3])


def test_real_cube_in_the_tray(shared_data: Path) -> None:
    entry = next(
        e
        for e in json.loads((shared_data / "real-boards" / "labels.json").read_text())
        if e["image"] == "frame0.jpg"
    )
    image = cv2.imread(str(shared_data / "real-boards" / "frame0.jpg"))
    cube = find_cube(image, np.array(entry["board_quad"], np.float32))
    assert cube is not None and cube.location == "tray"
    assert (
        np.hypot(cube.center[0] - entry["cube"]["center"][0], cube.center[1] - entry["cube"]["center"][1])
        < 15
    )
