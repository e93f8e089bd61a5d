"""The doubling cube: where it lies (bar centre, bar ends, tray) and its face where legible."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from bgboard.layout import ImageLayout, Row
from synthetic.render import Camera, CubeSpec, render, scene_from_layout
from vision.cube import find_cube
from vision.reading import CubePlace

START = ImageLayout((-5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2), (5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))


@pytest.mark.parametrize(
    ("style", "location", "value", "place", "beside"),
    [
        ("tournament", "centre", 2, CubePlace.BAR, None),
        ("wood", "bottom", 8, CubePlace.BAR, Row.BOTTOM),
        ("suede", "tray", 16, CubePlace.TRAY, None),
    ],
)
def test_rendered_cube_location(
    style: str, location: str, value: int, place: CubePlace, beside: Row | None
) -> None:
    frame = render(
        scene_from_layout(START, style=style, cube=CubeSpec(value, location), camera=Camera(5, 2, 0, 1)),
        seed=3,
    )
    cube = find_cube(frame.image, frame.field_quad)
    assert cube is not None and (cube.place, cube.beside) == (place, beside)
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
    assert cube is not None and cube.place is CubePlace.TRAY and cube.beside is None
    assert (
        np.hypot(cube.center[0] - entry["cube"]["center"][0], cube.center[1] - entry["cube"]["center"][1])
        < 15
    )


def test_the_cube_is_read_apart_from_the_dice() -> None:
    """The reader reports where the cube lies and never counts it as a die, wherever it lies."""
    from calibration.learn import calibrate
    from synthetic.scene import DieSpec
    from vision.board_reader import BoardReader

    start = render(scene_from_layout(START, style="tournament", noise=0.01), seed=3)
    reader = BoardReader(calibrate(start.image, [tuple(c) for c in start.field_quad], start=True))
    dice = (DieSpec(5, 0.62, 0.45, 10.0), DieSpec(2, 0.8, 0.55, 40.0))
    for location, place in (("tray", CubePlace.TRAY), ("centre", CubePlace.BAR), ("bottom", CubePlace.BAR)):
        frame = render(
            scene_from_layout(START, style="tournament", dice=dice, cube=CubeSpec(2, location), noise=0.01),
            seed=4,
        )
        reading = reader.read(frame.image)
        assert reading.cube is not None and reading.cube.place is place, location
        assert sorted(d.value for d in reading.dice) == [2, 5], location
        assert reading.to_json()["cube"]["place"] == place.value
