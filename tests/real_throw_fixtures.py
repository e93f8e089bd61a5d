"""Throws of `python -m bench.semireal` rebuilt for the tests: throw ``n`` of a seed, the same real dice
never trained on pasted onto the same real board photograph, called as `referee read --position
--on-roll` calls it (the tests may not import the bench itself)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from bgboard.layout import Board
from calibration.labelled import Labelled, labelled_cameras
from referee.cli.read import throw_call
from referee.rules_options import RuleOptions
from referee.session import SessionOptions
from referee.throws import Call
from synthetic.pasted import Cutout, held_out_dice, turned_light_for_dark
from synthetic.real_throws import RealTable, Throw, make_throw, render_throw
from vision.board_reader import BoardReader
from vision.reading import BoardReading


@lru_cache(maxsize=1)
def _cameras(boards: Path) -> list[Labelled]:
    return labelled_cameras(boards)


def _camera(shared_data: Path, n: int) -> Labelled:
    """The board throw ``n`` lands on, as the bench picks it."""
    cams = _cameras(shared_data / "real-boards")
    return cams[n % len(cams)]


@lru_cache(maxsize=2)
def _held_out(dice: Path, pale: bool = False) -> dict[int, list[Cutout]]:
    by_face = held_out_dice(dice / "labels.csv", dice / "images")
    if pale:  # as ``--light-dice`` turns them
        by_face = {v: turned_light_for_dark(cs) for v, cs in by_face.items()}
    return by_face


def bench_throw(
    shared_data: Path, seed: int, n: int, in_game: bool, jpeg: bool = True, pale: bool = False
) -> tuple[RealTable, Throw, Call]:
    """Throw ``n`` of ``python -m bench.semireal --seed SEED`` (its table, as the bench picks it, and
    its own stream of random numbers) and the referee's call on it, the thrown position confirmed: *in
    a game* (``in_game``: knowing the settled frame the turn began with) or as *a first throw* (knowing
    only the calibration frame). ``jpeg`` False: the frames as ``--raw`` throws them, uncompressed;
    ``pale``: the dice turned light for dark, as ``--light-dice`` throws them."""
    t, throw, reading = bench_reading(shared_data, seed, n, in_game, jpeg, pale)
    board = Board.from_layout(t.layout, t.orientation)
    return t, throw, throw_call(reading, board, throw.roller, SessionOptions(t.orientation, RuleOptions()))


def bench_frames(
    shared_data: Path, seed: int, n: int, jpeg: bool = True, pale: bool = False
) -> tuple[RealTable, Throw, np.ndarray, np.ndarray]:
    """Throw ``n`` of a seed as ``bench_throw`` makes it: its table, the throw, and the frames with the
    dice and before the throw."""
    t = RealTable.of_labelled(_camera(shared_data, n))
    rng = np.random.default_rng([seed, n])
    throw = make_throw(t, rng)
    frame, before = render_throw(t, throw, _held_out(shared_data / "real-dice", pale), rng, jpeg=jpeg)
    return t, throw, frame, before


def bench_reading(
    shared_data: Path, seed: int, n: int, in_game: bool, jpeg: bool = True, pale: bool = False
) -> tuple[RealTable, Throw, BoardReading]:
    """Throw ``n`` of a seed as ``bench_throw`` makes it, and the board reader's reading of it."""
    t, throw, frame, before = bench_frames(shared_data, seed, n, jpeg, pale)
    reader = BoardReader(_camera(shared_data, n).profile)
    still = None
    if in_game:
        reader.read(before, expected=t.layout)
        still = reader.turn_still(before)
    return t, throw, reader.read(frame, expected=t.layout, before=still)
