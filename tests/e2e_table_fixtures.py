"""The virtual table of `python -m bench.e2e` rebuilt for the tests (the tests may not import the bench
itself): a worker's table of its seed, calibrated as the bench's installer calibrates it."""

from __future__ import annotations

from functools import cache

from calibration.learn import calibrate
from synthetic.scene import CubeSpec
from synthetic.table import VirtualTable
from vision.board_reader import BoardReader


@cache
def bench_table(seed: int) -> tuple[VirtualTable, BoardReader]:
    """The bench's table of ``seed``, calibrated as its installer does (the cube centred on the bar)."""
    t = VirtualTable(noise=0.004, light_drift=0.03, seed=seed, clock=True)
    t.cube = CubeSpec(64, "centre")
    start = t.calibration_frame()
    corners = [(float(x), float(y)) for x, y in start.field_quad]
    return t, BoardReader(calibrate(start.image, corners, start=True))
