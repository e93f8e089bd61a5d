"""End-to-end: whole games of random legal play, rendered at 10 fps, read and judged by the real pipeline.

    python -m bench.e2e --games 2             # a quick look
    python -m bench.e2e --games 200 --jobs 2  # the full proof

Each turn is a few shots of the virtual table (:mod:`synthetic.table`): the throw (a hand), the dice
at rest, a hand moving checkers, the dice lifted, the board settling. Only the frames of those shots are
made, and a still shot is rendered and read once: its later frames are the same picture (the renderer
draws a still table identically), so the settle gate and the session see every frame at 10 fps while
the reader's answer for the repeated picture is reused. Hand frames are rendered each, as hands move.
The virtual players wait for the referee's signal, as players at a table do. Mixed in: cocked and
off-half dice (a reroll is due; a cocked die leans on the bar's wall or, in half the cocked throws of
two dice, on the other die), an illegal play in about one turn in ten (the house remedy: restore, play
again), sensor noise, the room's light drifting. A chess clock stands beside the board,
its digits moving on with every shot; a third of the throws leave the two dice lying against each
other; now and then the side on roll doubles and the other takes, and the taker puts the cube on its
side of the bar at the new value (the referee must follow it, and never take it for a die). When the
referee gives no verdict within the wait, the bench counts a *stall* and starts the session again
from the true position so the game can go on.

Figures: legal plays called illegal (target 0), illegal plays caught (target >= 99 %), rerolls caught
(target all), results and scores right, the cube followed through every take with no question asked
about it, and the median stream time from the dice lifted to the verdict (target <= 0.5 s).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import time
from collections import Counter
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from bgboard.layout import Board, Half, ImageLayout, Row, Side
from calibration.learn import calibrate
from hardware.console_signals import ConsoleSignals
from hardware.frames import Frame
from hardware.signals import Button, Signal
from referee.events import EventKind
from referee.loop import FrameLoop, Pipeline
from referee.moves import legal_plays
from referee.rules_options import RuleOptions
from referee.scoring import classify
from referee.session import Observation, Say, Session, SessionOptions
from synthetic.players import miscount
from synthetic.scene import CubeSpec
from synthetic.table import DieAt, HandAt, Shot, VirtualTable, lean_on_the_bar
from vision.arrivals import Still
from vision.board_reader import BoardReader
from vision.reading import BoardReading
from vision.rectify import Rectifier

WAIT = 30  # frames the virtual players wait for a signal (3 s)
EARLY = 0.03  # the share of legal plays after which the opponent throws before the dice are lifted
TOUCHING = 0.33  # the share of throws whose two dice lie against each other
ON_THE_DIE = 0.5  # the share of cocked throws of two dice whose cocked die leans on the other die
DOUBLES = 0.04  # the share of turns before which the side on roll doubles (and the other takes)
CENTRED = CubeSpec(64, "centre")  # the cube as a game starts: on the bar, 64 up
GAMES = 200  # `make bench`


@dataclass
class Tally:
    legal: Counter = field(default_factory=Counter)  # legal plays: "legal", "illegal" (false alarm), "stall"
    illegal: Counter = field(
        default_factory=Counter
    )  # illegal plays: "caught", "passed" (called legal), "stall"
    rerolls: Counter = field(default_factory=Counter)  # bad throws: "caught", "missed"
    rerolls_missed: Counter = field(default_factory=Counter)  # the missed ones by kind of bad throw
    reroll_kinds: Counter = field(default_factory=Counter)  # every bad throw by kind (opening ties too)
    rerolls_asked: int = 0  # bad throws caught by asking the table what the dice show
    rerolls_taken: int = 0  # missed bad throws the referee took as a roll (the rest it waited on)
    rolls: Counter = field(default_factory=Counter)  # good throws: "read", "wrong", "stall"
    cube: Counter = field(default_factory=Counter)  # "taken" (the record follows), "missed", "questions"
    results: Counter = field(default_factory=Counter)  # games: "right", "wrong", "stall"
    latency: list[float] = field(default_factory=list)  # dice lifted -> verdict, stream seconds
    latency_asked: list[float] = field(default_factory=list)  # the same when the table was asked first
    frames: int = 0
    turns: int = 0
    confirmed: int = 0  # plays the referee asked the table about, and the table confirmed
    dice_confirmed: int = 0  # throws the referee asked the table about, and the table confirmed
    roll_confirmed: int = 0  # rolls misread that the table was asked about (a play fitting another)
    # throws the referee waited on (it could not read them), or asked about naming a face they did not
    # show, that the players played
    played_on: int = 0
    played_confirmed: int = 0  # of those, the ones whose play named the roll and the table confirmed it
    played_unnamed: int = 0  # of those, plays left without a verdict (counted here, not as legal or illegal)
    reads: int = 0  # frames the board reader actually read (a still picture is read once)
    misses: list[str] = field(default_factory=list)  # what the reader saw at each missed call, to trace it
    decisions: list[str] = field(default_factory=list)  # every signal and its words, in order (``--log``)
    cpu: float = 0.0  # CPU seconds the games took (the machine may be shared: wall time says less)

    def add(self, other: Tally) -> None:
        """Adds another worker's tally to this one."""
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            setattr(self, f.name, mine + theirs)


def throwing_hand(half: Half) -> HandAt:
    """A hand over the image ``half`` it throws into, reaching in from its own side."""
    return HandAt(0.75 if half is Half.RIGHT else 0.25, 0.5, 0 if half is Half.RIGHT else 180)


class SameFrameReader:
    """The board reader, answering again without reading when it is handed the very same picture.

    A still table rendered twice is the same picture, so its reading is too; this only saves time.
    """

    def __init__(self, reader: BoardReader, tally: Tally) -> None:
        self.reader = reader
        self.tally = tally
        self._image: Any = None  # kept alive so that its id cannot be taken by another picture
        self._asked: tuple[ImageLayout | None, Still | None, bool] | None = None
        self._reading: BoardReading | None = None

    @property
    def rectifier(self) -> Rectifier:
        return self.reader.rectifier

    def read(
        self,
        image: np.ndarray,
        *,
        expected: ImageLayout | None = None,
        before: Still | None = None,
        same_board: bool = True,
    ) -> BoardReading:
        asked = (expected, before, same_board)
        same = (
            image is self._image
            and self._asked is not None
            and before is self._asked[1]
            and (expected, same_board) == (self._asked[0], self._asked[2])
        )
        if not same or self._reading is None:
            self._reading = self.reader.read(image, expected=expected, before=before, same_board=same_board)
            self._image, self._asked = image, asked
            self.tally.reads += 1
        return self._reading

    def turn_still(self, image: np.ndarray) -> Still:
        return self.reader.turn_still(image)

    def arrivals(self, image: np.ndarray, before: Still) -> int:
        return self.reader.arrivals(image, before)

    @property
    def last(self) -> BoardReading | None:
        """The last reading given (None before the first)."""
        return self._reading


class Bench:
    def __init__(self, seed: int, noise: float, drift: float) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        # where a cocked die leans is drawn apart, so that a seed's other throws and plays do not depend
        # on it: a bench run before and after a change to it differs only in those throws
        self.lean_rng = random.Random(f"{seed} leaning dice")
        self.table = VirtualTable(noise=noise, light_drift=drift, seed=seed, clock=True)
        self.table.cube = CENTRED  # the installer calibrates on the table as it stands
        start = self.table.calibration_frame()
        corners = [tuple(float(v) for v in c) for c in start.field_quad]
        self.profile = calibrate(start.image, corners, start=True)
        self.tally = Tally()
        self.real_reader = BoardReader(self.profile)
        self.reader = SameFrameReader(self.real_reader, self.tally)
        self.orientation = self.profile.orientation
        self.index = 0
        self.shot_index = 0
        self.shot = Shot(Board.start())  # the shot on the table
        self._quiet = open(os.devnull, "w")  # noqa: SIM115 - the bench's table speaks to nobody
        signals = ConsoleSignals(self._quiet)
        self.loop = FrameLoop(
            Pipeline(self.reader), self.new_session(), signals, out=self._quiet, players=self
        )
        self.answer_t = 0.0
        self.asked = False
        self.pending: list[Button] = []  # buttons the players are about to press, one a frame
        self.thrown: tuple[int, int] | None = None  # the roll of the throw that counted last
        self.playing_on = False  # the players play a throw the referee could not read
        self.heard: list[Signal] = []  # every signal of the last shot
        self.said: list[Say] = []  # ... and what the referee said with each

    # ---- feeding the referee ----------------------------------------------------------------------

    @property
    def session(self) -> Session:
        return self.loop.session

    def new_session(self) -> Session:
        """A referee starting afresh: the loop is given a new session and a new settle gate."""
        session = Session(SessionOptions(self.orientation, RuleOptions()))
        if hasattr(self, "loop"):
            self.loop.session, self.loop.pipeline = session, Pipeline(self.reader)
        return session

    def show(
        self, shot: Shot, until: tuple[Signal, ...] = (), frames: int | None = None
    ) -> Generator[Frame, None, tuple[Say | None, float]]:
        """Plays a shot; with ``until``, keeps it on the table until one of those signals (or WAIT frames).
        Returns the signal given (or None) and the stream time of the shot's first frame; ``heard``
        holds every signal of the shot."""
        n = frames if frames is not None else shot.frames
        first_t = self.index / self.table.fps
        k = 0
        answer = None
        self.heard, self.said = [], []
        self.shot = shot
        still: Frame | None = None
        while k < n or (until and answer is None and k < n + WAIT):
            if still is not None:
                frame = replace(still, index=self.index, timestamp=self.index / self.table.fps)
            else:
                frame = self.table.frame(shot, min(k, shot.frames - 1), self.shot_index, self.index)
                if not shot.hands:
                    still = frame  # the same picture for the rest of the shot
            self.index += 1
            k += 1
            self.tally.frames += 1
            yield frame
            says = self.loop.said
            self.heard += [say.signal for say in says if say.signal]
            self.said += [say for say in says if say.signal]
            self.tally.decisions += [
                f"seed {self.seed} frame {frame.index}: {say.signal.name if say.signal else '-'}: {say.text}"
                for say in says
            ]
            questions = [say for say in says if say.text.startswith("please check the cube")]
            if questions:
                # the table keeps the cube where the record has it: any question about it is a false one
                self.tally.cube["questions"] += len(questions)
                self.trace(f"asked about the cube: {questions[0].text}")
            for say in says:
                if say.signal in until and answer is None:
                    answer = say
                    self.answer_t = frame.timestamp
        self.shot_index += 1
        return answer, first_t

    def after(self, frame: Frame, observation: Observation, says: Sequence[Say]) -> Sequence[Button]:
        """The players on hearing the referee (the loop's hook): asked which play it was (amber), they
        answer truthfully; asked what the dice show, they confirm only flat dice showing those faces (a
        leaning die they throw again, as the referee asked); asked whether they threw another roll than
        the one read, they confirm only the roll they threw."""
        if self.pending:
            return (self.pending.pop(0),)
        session = self.session
        asked_roll = session.roll_question
        if asked_roll is not None and self.thrown is not None and sorted(asked_roll) == sorted(self.thrown):
            self.tally.roll_confirmed += 1
            return (Button.ACCEPT,)
        if session.question is not None and session.question == self.shot.board:
            self.tally.confirmed += 1
            self.asked = True
            return (Button.ACCEPT,)
        played = session.played_roll_question
        if played is not None and self.thrown is not None and sorted(played) == sorted(self.thrown):
            self.tally.played_confirmed += 1
            return (Button.ACCEPT,)
        asked_dice = session.dice_question
        if asked_dice is not None:
            truth = sorted(d.value for d in self.shot.dice if not d.cocked)
            if len(truth) == len(self.shot.dice) and truth == sorted(asked_dice):
                self.tally.dice_confirmed += 1
                return (Button.ACCEPT,)
        return ()

    # ---- a game -----------------------------------------------------------------------------------

    def dice_at(self, half: Half, values: tuple[int, ...], bad: str | None = None) -> tuple[DieAt, ...]:
        # anywhere along the half between the point rows, the second die to the right of the first (dice
        # lie apart, never on each other): real throws spread as widely, and dice drawn in a narrower box
        # land where the last throw lay far more often than dice do. A cocked die leans on something: the
        # bar's wall, or ("cocked on the die") the other die; a die cannot lean on nothing, and the reader
        # asks about one that seems to
        x = (0.58 if half is Half.RIGHT else 0.06) + self.rng.uniform(0, 0.2)
        out = []
        for i, v in enumerate(values):
            x += (0.11 + self.rng.uniform(0, 0.05)) if i else 0.0
            y = 0.44 + self.rng.uniform(0, 0.12)
            leans = bad == "cocked" and i == 0
            out.append(DieAt(v, lean_on_the_bar(half) if leans else x, y, leans, self.rng.uniform(0, 80)))
        if len(out) == 2 and self.rng.random() < TOUCHING:
            out[1] = self.against(out[0], out[1], self.rng)
        # laid against the first die even where it was laid above: self.rng draws as it would without
        # the lean, so the seed's later throws stay the same
        if bad == "cocked on the die":
            out[1] = self.against(out[0], replace(out[1], cocked=True), self.lean_rng)
        if bad == "off-half":
            out = [DieAt(d.value, 1.0 - d.x, d.y, d.cocked, d.angle) for d in out]
        if bad == "outside":
            out[0] = DieAt(out[0].value, 1.06, out[0].y, False, out[0].angle)
        return tuple(out)

    def against(self, first: DieAt, second: DieAt, rng: random.Random) -> DieAt:
        """``second`` lying against ``first``, as thrown dice often do: side by side or corner to
        corner, on the side of it away from the bar or the other way (never on the bar)."""
        die, aspect = self.table.die_side(), self.table.aspect()
        corner = rng.random() < 0.35
        side = rng.randrange(4)
        a = math.radians(first.angle + 90 * side + (45 if corner else 0))
        reach = die * (math.sqrt(2) if corner else 1.0) * 1.01
        x, y = first.x + reach * math.cos(a), first.y + reach * math.sin(a) / aspect
        if abs(x - 0.5) < 0.06 or (x - 0.5) * (first.x - 0.5) < 0:
            x = first.x - reach * math.cos(a)  # the other way, into the half
        return DieAt(second.value, x, y, second.cocked, first.angle)

    def double(self, board: Board, mover: Side) -> Generator[Frame, None, None]:
        """``mover`` doubles before throwing and the other side takes; the taker puts the cube on its own
        side of the bar at the new value. Tallies whether the record follows."""
        assert self.session is not None and self.session.game is not None
        value = self.session.game.cube.value * 2
        self.pending = [Button.DOUBLE, Button.TAKE]
        yield from self.show(Shot(board, frames=3))
        taker = mover.other
        cube = self.session.game.cube if self.session.game is not None else None
        taken = cube is not None and cube.owner is taker and cube.value == value
        self.tally.cube["taken" if taken else "missed"] += 1
        if not taken:
            self.trace(f"{mover.value} doubled to {value}, {taker.value} took: the record has {cube}")
        row = self.orientation.seat(taker)
        self.table.cube = CubeSpec(value, "bottom" if row is Row.BOTTOM else "top")
        yield from self.show(Shot(board, hands=(HandAt(0.5, 0.95 if row is Row.BOTTOM else 0.05),), frames=1))

    def may_double(self, mover: Side) -> bool:
        """Whether ``mover`` doubles now: seldom, and only while the cube is its to turn (up to 16)."""
        game = self.session.game if self.session is not None else None
        if game is None or self.rng.random() >= DOUBLES:
            return False
        return game.cube.may_double(mover) and game.cube.value < 16

    def bad_throw(self) -> str | None:
        """What is wrong with the next throw: about one in twelve is cocked, off the half or off the field."""
        return self.rng.choice(("cocked", "off-half", "outside")) if self.rng.random() < 0.08 else None

    def roll(self) -> tuple[int, int]:
        return (self.rng.randint(1, 6), self.rng.randint(1, 6))

    def called_again(self, bad: str) -> bool:
        """Tallies a throw that must be thrown again, by what the referee said in the last shot; True when
        it called for a throw again."""
        assert self.session is not None
        # the referee asking what the dice show (not taking the roll) catches the bad throw too
        asked = Signal.REROLL not in self.heard and self.session.dice_question is not None
        caught = Signal.REROLL in self.heard or asked
        self.tally.rerolls["caught" if caught else "missed"] += 1
        self.tally.reroll_kinds[bad] += 1
        self.tally.rerolls_asked += asked
        if not caught:
            self.tally.rerolls_missed[bad] += 1
            taken = Signal.ROLL_OK in self.heard
            self.tally.rerolls_taken += taken
            what = "taken as a roll" if taken else "not called for a reroll"
            self.trace(f"{bad} throw {what} (heard {self.heard or 'nothing'})")
        return caught

    def asked_wrongly(self) -> bool:
        """The referee asked about a good throw's dice and named a face they do not show: the dice lie
        flat, so the players play the roll they threw, as the question asks (counted; a throw asked about
        rightly was confirmed)."""
        assert self.session is not None
        if self.session.dice_question is None:
            return False
        self.tally.rolls["asked wrongly"] += 1
        self.trace(f"asked whether the dice show {self.session.dice_question}: played on")
        return True

    def throw(self, board: Board, mover: Side, dice: tuple[int, int]) -> Generator[Frame, None, bool]:
        """The roller throws until the dice count, the last throw showing ``dice`` (a throw that must be
        thrown again shows numbers of its own, as real dice do); False when the referee took no roll, or
        took a throw that had to be thrown again, and the game cannot go on in step. Told it cannot read
        a die, or asked about faces the dice do not show, the players play on (``playing_on``; True): the
        play may name the roll."""
        half = self.orientation.throwing_half(mover)
        self.playing_on = False
        while True:
            yield from self.show(Shot(board, hands=(throwing_hand(half),), frames=1))
            bad = self.bad_throw()
            if bad == "cocked" and self.lean_rng.random() < ON_THE_DIE:
                bad = "cocked on the die"
            shot = Shot(board, dice=self.dice_at(half, self.roll() if bad else dice, bad), frames=4)
            answer, _ = yield from self.show(shot, until=(Signal.ROLL_OK, Signal.REROLL))
            if bad:
                self.called_again(bad)
                if answer and answer.signal == Signal.ROLL_OK:
                    return False  # a bad throw taken as a roll: the session is out of step
                continue
            self.thrown = dice
            if answer is None and self.asked_wrongly():
                self.tally.played_on += 1
                self.playing_on = True
                return True
            if answer is None or answer.signal != Signal.ROLL_OK:
                # a good throw called for a reroll annoys the table as much as a roll never read
                kind = "false reroll" if answer and answer.signal == Signal.REROLL else "stall"
                self.tally.rolls[kind] += 1
                self.trace(f"a good throw of {dice}: {kind} ({answer.text if answer else 'no signal'})")
                if kind == "stall" and Signal.CANNOT_SEE in self.heard:
                    # told the referee cannot read a die, the players play on: the play may name the roll
                    self.tally.played_on += 1
                    self.playing_on = True
                    return True
                return False
            assert self.session is not None and self.session.game is not None
            rolls = [
                e.dice for e in self.session.game.history if e.kind in (EventKind.ROLL, EventKind.OPENING)
            ]
            right = bool(rolls) and rolls[-1] in (dice, dice[::-1])
            self.tally.rolls["read" if right else "wrong"] += 1
            if not right:
                # the players play the dice as they lie: what the misreading costs shows in the verdict
                # on that play (a legal play called illegal counts against the referee like any other)
                self.trace(f"a throw of {dice} read as {rolls[-1] if rolls else None}")
            return True

    def move(
        self, board: Board, after: Board, mover: Side, dice_at: tuple[DieAt, ...], early: bool = False
    ) -> Generator[Frame, None, tuple[Say | None, float]]:
        """Checkers moved under a hand, the dice lifted, the board settling: the referee's verdict.

        ``early``: the opponent throws before the mover has lifted the dice (that throw does not count:
        the referee must say so with its verdict, and the opponent throws again)."""
        y = 0.7 if mover is Side.LIGHT else 0.3
        yield from self.show(Shot(after, dice=dice_at, hands=(HandAt(0.5, y),), frames=1))
        thrown: tuple[DieAt, ...] = ()
        verdicts = (Signal.READY, Signal.ILLEGAL, Signal.GAME_OVER, Signal.ROLL_OK)
        said_early: list[Say] = []
        if early:
            half = self.orientation.throwing_half(mover.other)
            thrown = self.dice_at(half, self.roll())
            yield from self.show(Shot(after, dice=dice_at, hands=(throwing_hand(half),), frames=1))
            said_early += self.said
            yield from self.show(Shot(after, dice=dice_at + thrown, frames=3))
            said_early += self.said
        yield from self.show(Shot(after, dice=thrown, hands=(HandAt(0.5, y),), frames=1))
        said_early += self.said
        self.asked = False
        answer, lifted = yield from self.show(Shot(after, dice=thrown, frames=4), until=verdicts)
        heard = self.heard
        given = next((say for say in said_early if say.signal in verdicts), None)
        before_lifting = answer is None and given is not None
        if before_lifting:
            # the verdict came before the dice were lifted: a play on a throw not read, named and
            # confirmed while the early dice settled (no latency from the lifting to count)
            answer, heard = given, [say.signal for say in said_early if say.signal] + heard
        if (
            early
            and answer is None
            and Signal.CANNOT_SEE in heard
            and self.session.played_roll_question is None
        ):
            # the early dice hide a point the referee needs, and it asked for a clear view: the
            # opponent takes them up (the verdict's time counts among those the table was asked for).
            # Asked which roll the play was (the mover's throw was not read), the players answer that
            # instead, below, and the early dice stay where they lie, to be called
            self.asked = True
            yield from self.show(Shot(after, hands=(HandAt(0.5, 1.0 - y),), frames=1))
            answer, _ = yield from self.show(Shot(after, frames=4), until=verdicts)
            heard += self.heard
        if answer is None and self.playing_on:
            answer = yield from self.round_the_rolls(Shot(after, dice=thrown, frames=1), verdicts)
            heard += self.heard
        if answer is not None and not before_lifting:
            (self.tally.latency_asked if self.asked else self.tally.latency).append(self.answer_t - lifted)
        if early and answer is not None:
            # the referee says the early throw does not count with its verdict: a play left without one
            # counts as that (a legal play with no verdict), not as a throw missed too
            self.heard = heard
            self.called_again("early")
        return answer, lifted

    def round_the_rolls(self, shot: Shot, verdicts: tuple[Signal, ...]) -> Generator[Frame, None, Say | None]:
        """Asked about the rolls a play fits one at a time, the players keep ``shot`` on the table until
        theirs comes round (each look lasts longer than a question), once round them all; the verdict, or
        None. ``heard`` holds what was said meanwhile."""
        answer, heard, turns = None, [], 0
        while (
            answer is None
            and self.session.played_roll_question is not None
            and turns < len(self.session.watch.fits)
        ):
            self.asked = True
            answer, _ = yield from self.show(shot, until=verdicts)
            heard += self.heard
            turns += 1
        self.heard = heard
        return answer

    def trace(self, what: str) -> None:
        """Notes a missed call with the dice the reader last reported, for the run's end."""
        last = self.reader.last
        dice = [d.to_json() for d in last.dice] if last is not None else []
        self.tally.misses.append(f"seed {self.seed} frame {self.index}: {what}; the reader saw dice {dice}")

    def resync(self, board: Board, on_roll: Side) -> None:
        """After a stall: a new session from the true position (counted, so the game can go on); the
        players put the cube back in the middle, as the new session's game has it."""
        self.new_session()
        self.table.cube = CENTRED
        assert self.session is not None
        self.session.start_from(board, on_roll)

    def opening_die(self, side: Side, bad: str | None) -> DieAt:
        """``side``'s opening die, thrown into its own half (or, ``bad``, cocked, into the other half, or
        off the field)."""
        half = self.orientation.throwing_half(side)
        (die,) = self.dice_at(half, (self.rng.randint(1, 6),), "cocked" if bad == "cocked" else None)
        if bad == "off-half":
            return replace(die, x=1.0 - die.x)
        if bad == "outside":
            return replace(die, x=1.06 if half is Half.RIGHT else -0.06)
        return die

    def opening(self) -> Generator[Frame, None, tuple[Side, tuple[int, int], bool]]:
        """Setup and the opening roll: (the side on roll, its dice, whether the referee read them).

        Each player throws one die; a tie is thrown again by both, a bad die (cocked, in the other
        half, off the field) by its owner alone, the good die staying where it lies."""
        start = Board.start()
        answer, _ = yield from self.show(Shot(start, frames=4), until=(Signal.READY,))
        if answer is None:
            self.tally.rolls["stall"] += 1
            self.resync(start, Side.LIGHT)
            return Side.LIGHT, self.roll(), False
        throwing: tuple[Side, ...] = tuple(Side)
        dice: dict[Side, DieAt] = {}
        while True:
            bad = self.bad_throw()
            spoilt = self.rng.choice(throwing) if bad else None
            for side in throwing:
                dice[side] = self.opening_die(side, bad if side is spoilt else None)
            yield from self.show(Shot(start, hands=(HandAt(0.5, 0.5),), frames=1))
            shot = Shot(start, dice=(dice[Side.LIGHT], dice[Side.DARK]), frames=4)
            answer, _ = yield from self.show(shot, until=(Signal.ROLL_OK, Signal.REROLL))
            a, b = dice[Side.LIGHT].value, dice[Side.DARK].value
            if bad is None and a != b:
                if answer is None and self.asked_wrongly():
                    throwing = tuple(Side)
                    continue
                break
            caught = self.called_again(bad or "tie")
            if not caught and answer is not None and answer.signal == Signal.ROLL_OK:
                self.resync(start, Side.LIGHT)  # out of step: a new game from the start
                return Side.LIGHT, self.roll(), False
            # a tie is thrown again by both; a bad die by its owner alone
            throwing = tuple(Side) if spoilt is None else (spoilt,)
        mover = Side.LIGHT if a > b else Side.DARK
        if answer is None or answer.signal != Signal.ROLL_OK:
            self.tally.rolls["stall" if answer is None else "false reroll"] += 1
            self.resync(start, mover)
            return mover, (max(a, b), min(a, b)), False
        assert self.session is not None and self.session.game is not None
        right = self.session.game.dice == (max(a, b), min(a, b)) and self.session.on_roll is mover
        self.tally.rolls["read" if right else "wrong"] += 1
        if not right:
            self.trace(f"the opening throw light {a}, dark {b} read as {self.session.game.dice}")
        return mover, (max(a, b), min(a, b)), True

    def game(self) -> Iterator[Frame]:
        self.new_session()
        self.table.cube = CENTRED
        board = Board.start()
        mover, dice, rolled = yield from self.opening()
        while True:
            self.tally.turns += 1
            self.playing_on = False
            if not rolled and self.may_double(mover):
                yield from self.double(board, mover)
            if not rolled and not (yield from self.throw(board, mover, dice)):
                self.resync(board, mover)
                if not (yield from self.throw(board, mover, dice)):
                    self.tally.results["stall"] += 1
                    return
            rolled = False
            dice_at = self.dice_at(self.orientation.throwing_half(mover), dice)
            play = self.rng.choice(legal_plays(board.position(mover), dice))
            after = Board.from_position(play.result, mover)
            wrong = miscount(board, mover, dice, self.rng) if self.rng.random() < 0.1 else None
            if wrong:
                answer = yield from self.illegal_turn(board, wrong, after, mover, dice_at)
            else:
                answer = yield from self.legal_turn(board, after, mover, dice_at)
            board = after
            if board.off(mover) == 15:
                # the signal shows a single, gammon or backgammon; the score is that times the cube the
                # players turned (64 up: not turned)
                outcome = classify(board, mover).value
                want = outcome * (1 if self.table.cube == CENTRED else self.table.cube.value)
                game = self.session.game if self.session is not None else None
                ok = (
                    answer is not None
                    and answer.signal == Signal.GAME_OVER
                    and answer.winner is mover
                    and answer.points == outcome
                    and game is not None
                    and game.result is not None
                    and game.result.points == want
                )
                self.tally.results["right" if ok else ("stall" if answer is None else "wrong")] += 1
                if not ok and answer is not None:
                    self.trace(
                        f"the game ended with {answer.signal} {answer.winner} {answer.points} "
                        f"({answer.text}) where {mover.value} won {want} points"
                    )
                return
            mover = mover.other
            dice = self.roll()

    def legal_turn(
        self, board: Board, after: Board, mover: Side, dice_at: tuple[DieAt, ...]
    ) -> Generator[Frame, None, Say | None]:
        # now and then the opponent throws too soon (not when the play ends the game: no roll follows)
        early = after.off(mover) < 15 and self.rng.random() < EARLY
        answer, _ = yield from self.move(board, after, mover, dice_at, early)
        got = answer.signal if answer else None
        if got is None and self.playing_on:
            self.unnamed(after, mover)
            return None
        self.tally.legal[
            {Signal.READY: "legal", Signal.GAME_OVER: "legal", Signal.ILLEGAL: "illegal"}.get(got, "stall")
        ] += 1
        if got not in (Signal.READY, Signal.GAME_OVER):
            shown = after.layout(self.orientation).to_json()
            self.trace(f"a legal play left {got or 'without a verdict'} (heard {self.heard}): played {shown}")
            self.resync(after, mover.other)
        return answer

    def unnamed(self, after: Board, mover: Side) -> None:
        """A play made on a throw the referee could not read, that it could not name the roll of either:
        counted apart (not a verdict it owed on a roll it read), and a new session from the true
        position."""
        self.tally.played_unnamed += 1
        self.trace(f"a throw not read, played on, no roll named (heard {self.heard})")
        self.resync(after, mover.other)

    def illegal_turn(
        self, board: Board, wrong: Board, after: Board, mover: Side, dice_at: tuple[DieAt, ...]
    ) -> Generator[Frame, None, Say | None]:
        """A miscounted play: caught, the position restored, the same numbers played again."""
        answer, _ = yield from self.move(board, wrong, mover, dice_at)
        got = answer.signal if answer else None
        if got is None and self.playing_on:
            self.unnamed(after, mover)
            return None
        self.tally.illegal[{Signal.ILLEGAL: "caught", None: "stall"}.get(got, "passed")] += 1
        if got is None:
            self.trace(f"an illegal play left without a verdict (heard {self.heard})")
        if got not in (Signal.ILLEGAL, None):
            wanted = after.layout(self.orientation).to_json()
            shown = wrong.layout(self.orientation).to_json()
            self.trace(f"illegal play passed as {got}: dice {dice_at}, played {shown}, legal one {wanted}")
        if got != Signal.ILLEGAL:
            self.resync(after, mover.other)
            return None
        yield from self.show(Shot(board, hands=(HandAt(0.5, 0.5),), frames=1))
        restored, _ = yield from self.show(Shot(board, frames=4), until=(Signal.ROLL_OK,))
        yield from self.show(Shot(after, hands=(HandAt(0.5, 0.5),), frames=1))
        replayed = (Signal.READY, Signal.GAME_OVER, Signal.ILLEGAL)
        answer, _ = yield from self.show(Shot(after, frames=4), until=replayed)
        if answer is None and self.playing_on:  # the throw was not read: the replay may name its roll
            answer = yield from self.round_the_rolls(Shot(after, frames=1), replayed)
        if restored is None or answer is None or answer.signal == Signal.ILLEGAL:
            self.tally.legal["stall" if answer is None else "illegal"] += 1
            what = "without a verdict" if answer is None else f"{answer.signal}"
            if restored is None:
                what += ", the position restored not seen"
            self.trace(f"the legal play made again after an illegal one left {what} (heard {self.heard})")
            self.resync(after, mover.other)
            return None
        self.tally.legal["legal"] += 1
        return answer


def _pct(c: Counter, key: str) -> str:
    total = sum(c.values())
    return f"{c[key]}/{total} ({100 * c[key] / total:.1f} %)" if total else "0/0"


def play_games(seed: int, games: int, noise: float, drift: float, worker: int = 0) -> Tally:
    """``games`` games with one bench (one process); returns the tally."""
    bench = Bench(seed, noise, drift)
    began = time.perf_counter()
    cpu = time.process_time()

    def frames() -> Iterator[Frame]:
        for g in range(games):
            yield from bench.game()
            t = bench.tally
            print(
                f"[{worker}] game {g + 1}/{games}: {t.turns} turns, {t.frames} frames ({t.reads} read), "
                f"{(time.perf_counter() - began) / (g + 1):.1f} s a game",
                flush=True,
            )

    bench.loop.run(frames())
    bench.tally.cpu = time.process_time() - cpu
    return bench.tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=GAMES, help=f"whole games to play (default {GAMES})")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2: the Pi's cores)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--noise", type=float, default=0.004)
    parser.add_argument("--drift", type=float, default=0.03, help="the room's light drifts by this much")
    parser.add_argument(
        "--log", type=Path, help="write every signal and its words, in order, to this file (to compare runs)"
    )
    parser.add_argument("--json", type=Path, help="write the tallies to this file as JSON")
    args = parser.parse_args(argv)
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    began = time.perf_counter()
    jobs = min(args.jobs, args.games)
    shares = [args.games // jobs + (1 if j < args.games % jobs else 0) for j in range(jobs)]
    if jobs == 1:
        tallies = [play_games(args.seed, args.games, args.noise, args.drift)]
    else:
        # each worker its own table and seed: the games differ, the figures add up
        with ProcessPoolExecutor(jobs) as pool:
            runs = [
                pool.submit(play_games, args.seed + 1000 * j, n, args.noise, args.drift, j)
                for j, n in enumerate(shares)
            ]
            tallies = [r.result() for r in runs]
    t = Tally()
    for one in tallies:
        t.add(one)
    seconds = time.perf_counter() - began
    table_time = t.frames / 10.0
    lines = [
        f"{args.games} games, {t.turns} turns, {t.frames} frames ({table_time:.0f} s at the table; "
        f"{t.reads} read, the rest repeated pictures), {seconds:.0f} s to run with {jobs} process(es): "
        f"{t.cpu / args.games:.1f} s of CPU per game",
        f"legal plays called legal:  {_pct(t.legal, 'legal')}",
        f"legal plays called ILLEGAL: {t.legal['illegal']} (target 0); no verdict: {t.legal['stall']}",
        f"illegal plays caught:      {_pct(t.illegal, 'caught')} (target >= 99 %)",
        f"illegal plays passed as legal: {t.illegal['passed']}; no verdict: {t.illegal['stall']}",
        f"rerolls caught:            {_pct(t.rerolls, 'caught')} (target all; {t.rerolls_asked} by asking); "
        f"missed {dict(t.rerolls_missed) or 'none'} of {dict(sorted(t.reroll_kinds.items()))}, "
        f"taken as a roll {t.rerolls_taken} (target 0)",
        f"rolls read right:          {_pct(t.rolls, 'read')}; wrong {t.rolls['wrong']}",
        f"good throws called for a reroll: {t.rolls['false reroll']}; rolls not read: {t.rolls['stall']}; "
        f"asked about with a wrong face (played on): {t.rolls['asked wrongly']}",
        f"results and scores right:  {_pct(t.results, 'right')}; wrong {t.results['wrong']}, "
        f"game left unfinished (the referee stalled): {t.results['stall']}",
        f"plays the table confirmed when asked (amber): {t.confirmed}; throws: {t.dice_confirmed}; "
        f"rolls read otherwise: {t.roll_confirmed}",
        f"throws not read or asked about wrongly, played on: {t.played_on}; "
        "the roll the play fits confirmed: "
        f"{t.played_confirmed}; no roll named: {t.played_unnamed}",
        f"takes the record followed:  {t.cube['taken']} of {t.cube['taken'] + t.cube['missed']}; "
        f"questions about a cube that lay where the record has it: {t.cube['questions']} (target 0)",
    ]
    every = t.latency + t.latency_asked
    for name, times in (("", t.latency), (" (asked first)", t.latency_asked), (" (every verdict)", every)):
        if times:
            median = statistics.median(times)
            lines.append(
                f"dice lifted -> verdict{name}: median {median:.2f} s of stream time (target <= 0.5 s), "
                f"n={len(times)}"
            )
    print("\n" + "\n".join(lines))
    if args.log is not None:
        args.log.write_text("".join(line + "\n" for line in t.decisions), encoding="utf-8")
    if args.json is not None:
        counted = ("legal", "illegal", "rerolls", "rolls", "results", "cube")
        summary = {name: dict(getattr(t, name)) for name in counted}
        summary.update(
            games=args.games, turns=t.turns, frames=t.frames, misses=t.misses, rerolls_taken=t.rerolls_taken
        )
        args.json.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    for miss in t.misses:
        print("missed:", miss)
    missed = (
        t.legal["illegal"] > 0
        or (sum(t.illegal.values()) and t.illegal["caught"] < 0.99 * sum(t.illegal.values()))
        or t.rerolls["missed"] > 0
        or t.results["right"] < args.games
        or t.cube["missed"] > 0
        or t.cube["questions"] > 0
    )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
