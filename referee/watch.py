"""What the session waits out on the current play or throw before it tells the table anything.

An illegal board must hold for a few settled frames (and, after a correction, for a while: the player
may still be replaying); an unclear play is asked about only after it has stayed unclear for a few
seconds; a question is asked once. A fresh :class:`Watch` is taken after every decision.

    >>> w = Watch()
    >>> w.ask_now(0.0, after=2.0), w.ask_now(2.5, after=2.0), w.ask_now(3.0, after=2.0)
    (False, True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bgboard.layout import Board
from referee.moves import Play
from referee.throws import Dice
from referee.turns import Say, SessionOptions
from referee.unread import Fit
from vision.reading import DieReading

# What ACCEPT does with the likeliest faces of dice the table was asked about.
TakeDice = Callable[[float | None], list[Say]]


@dataclass
class Watch:
    """What the session is waiting out on the current play or throw; a fresh one after every decision."""

    unclear_since: float | None = None  # when the reading first left the play unclear
    unclear_told: bool = False  # the table was asked about it (amber)
    illegal_run: list[Board] = field(default_factory=list)  # the last settled illegal boards seen
    replay_board: tuple[Board | None, float] = (None, 0.0)  # after a correction: the board held, since
    said_cannot_see: bool = False
    question: Play | None = None  # the play the table was asked to confirm
    dice_question: tuple[Dice, TakeDice] | None = None  # the dice asked about, and what ACCEPT does
    # the roll the table was asked whether it threw (the play fits it, not the roll read), the play
    # it makes legal, and when the question was asked
    roll_question: tuple[tuple[int, int], Play, float] | None = None
    # a throw the referee waits on, unable to read it, or asks about (a die's value None: not read surely)
    unread: Dice | None = None
    # the rolls the play made after that throw fits, likeliest first (``unread``); the one the table was
    # asked about now, and when
    fits: list[Fit] = field(default_factory=list)
    roll_from_play: Fit | None = None
    fit_asked: float = 0.0
    # the play made after that throw was called illegal whatever was thrown: the position is to be restored
    unread_illegal: bool = False
    # the dice lying in the next roller's half when that throw was first seen lifted: thrown before it
    # was, so too early (None until it is seen lifted)
    thrown_early: Dice | None = None
    # that throw as it lay, and how to cut its dice out of the frame: those the reader was unsure of are
    # kept with the faces the table confirms (``journal.TaughtDie``)
    throw_seen: tuple[Dice, Callable[[Sequence[DieReading]], list[bytes | None]]] | None = None

    def illegal_holds(self, board: Board, t: float, replay: bool, options: SessionOptions) -> bool:
        """Whether the same illegal ``board`` has now been seen long enough to call: on
        ``illegal_frames`` settled frames in a row, and after a correction for ``replay_wait`` seconds
        (the player may still be replaying)."""
        if replay:
            held, since = self.replay_board
            if held != board:
                self.replay_board = (board, t)
                return False
            if t - since < options.replay_wait:
                return False
        frames = options.illegal_frames
        self.illegal_run = [*self.illegal_run, board][-frames:]
        return len(self.illegal_run) == frames and len(set(self.illegal_run)) == 1

    def shift(self, seconds: float) -> None:
        """The referee was paused for ``seconds`` (a rule look-up): its clocks stood still, so every wait
        started that much later."""
        if self.unclear_since is not None:
            self.unclear_since += seconds
        if self.roll_question is not None:
            roll, play, asked = self.roll_question
            self.roll_question = (roll, play, asked + seconds)
        board, since = self.replay_board
        self.replay_board = (board, since + seconds)
        self.fit_asked += seconds

    def ask_now(self, t: float, after: float) -> bool:
        """True once, when the play has been unclear for ``after`` seconds: the table is asked then."""
        if self.unclear_since is None:
            self.unclear_since = t
        if self.unclear_told or t - self.unclear_since < after:
            return False
        self.unclear_told = True
        return True
