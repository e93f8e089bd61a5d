"""Rendered boards for the reader's tests: a club calibrated as an installer would, and the renderer's
dice as a sure reading (so a test of the board reader does not depend on the dice reader)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgboard.layout import Orientation
from calibration.learn import calibrate
from synthetic.random_scenes import Club, club
from synthetic.render import Camera, Rendered
from vision.profile import Profile
from vision.reading import DieReading


@dataclass(frozen=True)
class CalibratedClub:
    """One board style under one camera, with the profile calibrated on its starting position."""

    board: Club
    profile: Profile

    @property
    def style(self) -> str:
        return self.board.style

    @property
    def camera(self) -> Camera:
        return self.board.camera

    @property
    def orientation(self) -> Orientation:
        return self.board.orientation


def tournament_club() -> CalibratedClub:
    board = club("tournament", np.random.default_rng(11))
    return CalibratedClub(board, calibrate(board.start.image, board.corners, start=True))


def truth_dice(frame: Rendered) -> tuple[DieReading, ...]:
    """The dice the renderer drew, as a sure reading."""
    return tuple(DieReading(d.value, d.center, d.box, 1.0) for d in frame.dice)
