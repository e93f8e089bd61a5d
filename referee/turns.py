"""The turn cycle's vocabulary: its stages, what the session is fed and what it says, and its options.

>>> Say(None, "light to roll").signal is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

from bgboard.layout import Orientation, Side
from hardware.signals import Signal
from referee.rules_options import RuleOptions
from referee.variations import TableSetup
from vision.reading import BoardReading, DieReading


@dataclass(frozen=True)
class Observation:
    """One frame as the session needs it.

    ``reading`` is None while the settle gate says the board is moving (hands, dice rolling).
    ``evidence`` returns the rectified frame as image bytes; it is called only for illegal or unclear
    calls. ``die_crops`` cuts each of the frame's ``dice`` out of it (a PNG each, or None), for the dice
    the reader was unsure of whose faces the table then confirms (``journal.TaughtDie``).
    """

    t: float
    reading: BoardReading | None
    evidence: Callable[[], bytes | None] | None = None
    index: int = 0
    die_crops: Callable[[Sequence[DieReading]], list[bytes | None]] | None = None


@dataclass(frozen=True)
class Say:
    """What the table is told: a signal (None for words only) and the words; ``winner`` and ``points``
    go with ``Signal.GAME_OVER``: ``points`` is 1, 2 or 3, a single, gammon or backgammon, as the lights
    and the buzzer show it (what the game scores, the cube's value included, is in the words)."""

    signal: Signal | None
    text: str
    winner: Side | None = None
    points: int = 1


@dataclass(frozen=True)
class SessionOptions:
    """How the session watches the table.

    ``dice_frames``: settled readings of dice lying still in the same places before they are called
    (and called again after as many more, on what every reading since they came to rest agrees on).
    ``illegal_frames``: consecutive settled readings that must show the same illegal board.
    ``unclear_after``: seconds of unclear readings before the table is asked (amber).
    ``replay_wait``: after a correction, seconds an illegal-looking board must stay before it is called.
    ``match_length``: None for money play; the house match is ``match_length=3`` with ``cubeless`` rules.
    ``die_tolerance``: pixels; a die that moved less than this has not been thrown again.
    ``table``: the players and the house variation (:mod:`referee.variations`); its match length and
    cubeless rule are already in ``match_length`` and ``rules`` (:meth:`TableSetup.settle`).
    ``next_match_on_start``: after a match, the next starting position starts the next match (False:
    only the NEW_GAME button does).
    """

    orientation: Orientation
    rules: RuleOptions = field(default_factory=RuleOptions)
    match_length: int | None = None
    dice_frames: int = 2
    illegal_frames: int = 2
    unclear_after: float = 2.0
    replay_wait: float = 3.0
    die_tolerance: float = 12.0
    table: TableSetup = field(default_factory=TableSetup)
    next_match_on_start: bool = True


class Stage(Enum):
    SETUP = "setup"  # waiting for the starting position
    OPENING = "opening"  # one die each
    ROLL = "roll"  # the side on roll may double, or throw
    DOUBLED = "doubled"  # waiting for take or drop
    PLAY = "play"  # dice read; waiting for them to be lifted
    RESTORE = "restore"  # house remedy: waiting for the pre-roll position
    REPLAY = "replay"  # position restored: the same numbers again
    ACCEPT = "accept"  # tournament mode: the opponent may accept the illegal play
    PASSED = "passed"  # a roll with no legal move: waiting for its dice to be lifted
    OVER = "over"  # game over: waiting for the next setup
    MATCH_OVER = "match_over"
    LESSON = "lesson"  # `referee teach --replay`: waiting for the teacher to make the step announced
