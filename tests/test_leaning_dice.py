"""A die leaning on a checker, the bar's wall or the other die is a throw again, also where it lies
against the other die: throws of ``bench.e2e``'s virtual table that the referee waited on ("cannot read
a die", "3 dice on the board") instead of calling."""

from __future__ import annotations

from functools import cache

import pytest

from bgboard.layout import Board, Side
from calibration.learn import calibrate
from referee.cli.read import throw_call
from referee.rules_options import RuleOptions
from referee.session import SessionOptions
from referee.throws import Call, CallKind
from synthetic.scene import CubeSpec
from synthetic.table import DieAt, Shot, VirtualTable
from vision.board_reader import BoardReader


@cache
def bench_table(seed: int) -> tuple[VirtualTable, BoardReader]:
    """The bench's table of ``seed``, calibrated as its installer does (the cube centred on the bar)."""
    t = VirtualTable(noise=0.004, light_drift=0.03, seed=seed, clock=True)
    t.cube = CubeSpec(64, "centre")
    start = t.calibration_frame()
    corners = [(float(x), float(y)) for x, y in start.field_quad]
    return t, BoardReader(calibrate(start.image, corners, start=True))


def _call(
    seed: int, board: Board, cube: CubeSpec, still_shot: int, dice: tuple[DieAt, ...], roller: Side
) -> Call:
    """``roller``'s throw of ``dice`` as the live referee reads it: the turn's still from the settled shot
    ``still_shot`` before it, the position confirmed."""
    t, reader = bench_table(seed)
    t.cube = cube
    layout = board.layout(reader.profile.orientation)
    before = t.render(Shot(board), 0, still_shot)
    reader.read(before.image, expected=layout)
    frame = t.render(Shot(board, dice=dice), 0, still_shot + 2)
    reading = reader.read(frame.image, expected=layout, before=reader.turn_still(before.image))
    return throw_call(reading, board, roller, SessionOptions(reader.profile.orientation, RuleOptions()))


LEANING = [
    # A 3 leaning on a checker's rim beside a flat 6: the detector does not peak on it and the patch it
    # changed reads as no flat die at any crop; read again, the crop surest of a die reads a die that
    # leans, and the flags network sees the lean there too.
    pytest.param(
        7,
        (5, 0, 5, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1),
        (1, 0, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 4, 0, 0, 0, 4, 0, 1, 0, 0),
        CubeSpec(4, "top"),
        518,
        (DieAt(3, 0.548, 0.44047, cocked=True, angle=24.3565), DieAt(6, 0.57562, 0.42688, angle=24.3565)),
        Side.LIGHT,
        id="on-a-checker-no-crop-reads-flat",
    ),
    # A 6 leaning on the bar's wall against a flat 3, the two one patch of change: both networks see the
    # 6 lean (the value reader finds "cocked" likelier than any face), so the other die's edge in its
    # crop is no reason to doubt it.
    pytest.param(
        7,
        (6, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0),
        (9, 3, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        CubeSpec(2, "top"),
        2163,
        (DieAt(6, 0.452, 0.52038, cocked=True, angle=12.0265), DieAt(3, 0.42867, 0.48129, angle=12.0265)),
        Side.DARK,
        id="against-the-other-one-patch",
    ),
    # A 3 leaning on the bar's wall shows its top and a side face: one patch of change that one big die
    # or two small ones could make. Its side face, read again off its centre, moves onto the top face and
    # reads as a die there; two reads of one die are not two dice lying together ("3 dice").
    pytest.param(
        3,
        (6, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
        (2, 0, 1, 5, 0, 1, 0, 0, 1, 0, 0, 0, 0, 2, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0),
        CubeSpec(64, "centre"),
        1540,
        (DieAt(3, 0.452, 0.55220, cocked=True, angle=15.6689), DieAt(1, 0.36939, 0.45149, angle=67.7083)),
        Side.DARK,
        id="side-face-read-as-a-die",
    ),
]


@pytest.mark.parametrize(("seed", "light", "dark", "cube", "still_shot", "dice", "roller"), LEANING)
def test_a_leaning_die_is_thrown_again(seed, light, dark, cube, still_shot, dice, roller) -> None:
    call = _call(seed, Board(light, dark), cube, still_shot, dice, roller)
    assert (call.kind, call.reason) == (
        CallKind.REROLL,
        f"a die is cocked: {roller.value} throws both dice again",
    )


def test_a_flat_die_lying_corner_to_corner_with_the_other_is_never_thrown_again() -> None:
    """A 2 lying corner to corner with a 3: the flags network sees the 3's edge and side beside it as a
    lean, the value reader a 2 plainly likelier than a lean. The table is asked about the faces, not told
    to throw a good throw again."""
    board = Board(
        (0, 2, 0, 2, 0, 2, 1, 0, 0, 1, 1, 0, 0, 0, 3, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0),
        (6, 4, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 2),
    )
    dice = (DieAt(3, 0.77363, 0.54965, angle=22.997), DieAt(2, 0.78970, 0.59286, angle=22.997))
    call = _call(1, board, CubeSpec(4, "bottom"), 2424, dice, Side.LIGHT)
    assert (call.kind, sorted(call.dice)) == (CallKind.ASK, [2, 3])
