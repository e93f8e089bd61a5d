"""The labelled real board photographs, one profile per camera, calibrated as the checks calibrate.

``../shared/data/real-boards/labels.json`` labels each photograph's position, field corners, dice and
cube. The first photograph of each camera that no hand covers is calibrated on itself with its
labelled position (``referee calibrate IMAGE --corners ... --known ...``, as
``../shared/checks/boards.py`` does): the tables the semi-real benchmark and the dice training throw on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from bgboard.layout import ImageLayout
from calibration.learn import calibrate
from vision import dice_flags
from vision.board_reader import BoardReader
from vision.profile import Profile


@dataclass(frozen=True)
class Labelled:
    """One camera's calibration photograph, its labels and the profile calibrated on it."""

    name: str
    image: np.ndarray
    layout: ImageLayout
    profile: Profile
    dice: tuple[tuple[float, float], ...]  # centres of the photograph's own dice, px
    cube: tuple[float, float] | None  # centre of its cube, px
    zoom: float = 1.0  # the photograph enlarged this many times (``labelled_cameras``)

    @property
    def checkers(self) -> np.ndarray:
        """The labelled position's first-layer checkers as (u, v, ru, rv) in the field's unit square. These
        tables lay a stack's sixth checker in the column (``frame0.jpg``), so its slot is filled too."""
        reader = BoardReader(self.profile, use_dice=False, use_counts=False)
        return np.vstack(reader.slots(self.layout))

    @property
    def pose(self) -> tuple[float, float, float, float]:
        """The camera over the field as the dice reader solves it from the field's corners: its nadir
        (x, y) and height in field widths, and the field's height over its width (``dice_flags.camera``)."""
        _, (nx, ny), height, aspect = dice_flags.camera(np.asarray(self.profile.corners), self.image.shape)
        return float(nx), float(ny), height, aspect


def labelled_cameras(boards: Path, zoom: float = 1.0) -> list[Labelled]:
    """One :class:`Labelled` per camera of ``boards`` (a folder with ``labels.json``). ``zoom`` enlarges
    each photograph (and its labels) first, as a camera with that many times the pixels across the
    field would see the board: the semi-real benchmark's dice then lie larger in the frame."""
    out = []
    seen: set[str] = set()
    for d in json.loads((boards / "labels.json").read_text()):
        if d["hand_over_board"] or d["camera"] in seen:
            continue
        seen.add(d["camera"])
        image = cv2.imread(str(boards / d["image"]))
        if image is None:
            raise ValueError(f"cannot read {boards / d['image']}")
        if zoom != 1.0:
            image = cv2.resize(image, None, fx=zoom, fy=zoom, interpolation=cv2.INTER_CUBIC)
        layout = ImageLayout.from_json(d)
        quad = [(zoom * x, zoom * y) for x, y in d["board_quad"]]
        profile = calibrate(image, quad, known=layout, source=d["image"])
        dice = tuple((zoom * x, zoom * y) for x, y in (die["center"] for die in d.get("dice") or []))
        cube = tuple(zoom * v for v in d["cube"]["center"]) if d.get("cube") else None
        out.append(Labelled(d["image"], image, layout, profile, dice, cube, zoom))
    return out
