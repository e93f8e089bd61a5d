"""The live session: the turn cycle at the table as a state machine fed with observations.

The session joins what vision saw to the rules, but touches no camera and no pin: it is fed
:class:`Observation` s (a :class:`~vision.reading.BoardReading` of a settled frame, or ``None`` while the
board moves, with the stream time) and :class:`~hardware.signals.Button` presses, and returns
:class:`Say` actions (a :class:`~hardware.signals.Signal` for the table and the words for the console).
Everything it decides is written to the :class:`~referee.journal.Journal` *before* it returns, so the
record precedes the signal. It can be unit tested with readings built straight from boards
(:func:`referee.observe.reading_of`).

Seats and halves. A player sits at the row of its own home board (points 1..12 run along the near
row), so with :class:`~bgboard.layout.Orientation` ``BOTTOM_*`` light sits at the bottom of the image and
dark at the top, and the reverse for ``TOP_*``. Dice are thrown into the roller's right-hand half: for
the player at the bottom that is the image's right half, for the player at the top the image's left
half (:meth:`~bgboard.layout.Orientation.throwing_half`).

    >>> from referee.observe import reading_of
    >>> from bgboard.layout import Board, Orientation
    >>> s = Session(SessionOptions(Orientation.BOTTOM_RIGHT))
    >>> [a.signal for a in s.observe(Observation(0.0, reading_of(Board.start(), Orientation.BOTTOM_RIGHT)))]
    [<Signal.READY: 'ready'>]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from bgboard.layout import Board, Orientation, Side
from hardware.signals import Button, Signal
from referee.events import Event, EventKind
from referee.game import Game, GameError, Phase
from referee.journal import Journal
from referee.match import FinishedGame, Match
from referee.moves import Play
from referee.narration import describe_play, describe_score, dice_text
from referee.notation.position_id import encode_position_id
from referee.observe import Difference, Explanation, Verdict, differences, explain, shows
from referee.rules_options import RuleOptions
from referee.scoring import GameResult, Outcome
from vision.reading import BoardReading, DieReading

# Signal names, as hardware.signals.Signal spells them (the session does not import hardware).


@dataclass(frozen=True)
class Observation:
    """One frame as the session needs it.

    ``reading`` is None while the settle gate says the board is moving (hands, dice rolling).
    ``evidence`` returns the rectified frame as PNG bytes; it is called only for illegal or unclear calls.
    """

    t: float
    reading: BoardReading | None
    evidence: Callable[[], bytes | None] | None = None
    index: int = 0


MAX_QUESTION = 3  # the table is asked to confirm a play only when at most this many fit


@dataclass(frozen=True)
class Say:
    """What the table is told: a signal (None for words only) and the words; ``winner`` and ``points``
    go with ``Signal.GAME_OVER``."""

    signal: Signal | None
    text: str
    winner: Side | None = None
    points: int = 1


@dataclass(frozen=True)
class SessionOptions:
    """How the session watches the table.

    ``dice_frames``: consecutive settled readings that must agree on the dice before they count.
    ``illegal_frames``: consecutive settled readings that must show the same illegal board.
    ``unclear_after``: seconds of unclear readings before the table is asked (amber).
    ``replay_wait``: after a correction, seconds an illegal-looking board must stay before it is called.
    ``match_length``: None for money play; the house match is ``match_length=3`` with ``cubeless`` rules.
    """

    orientation: Orientation
    rules: RuleOptions = field(default_factory=RuleOptions)
    match_length: int | None = None
    dice_frames: int = 2
    illegal_frames: int = 2
    unclear_after: float = 2.0
    replay_wait: float = 3.0
    die_tolerance: float = 12.0  # pixels: a die that moved less than this has not been thrown again


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


def _die_ok(die: DieReading, on_checker_valid: bool) -> str | None:
    """Why a die must be thrown again, or None."""
    if die.outside_field or die.half is None:
        return "landed outside the playing field"
    if die.cocked:
        return "is cocked"
    if die.on_checker and not on_checker_valid:
        return "rests on a checker"
    return None


def _face(die: DieReading) -> int | None:
    """The die's face as read, or its likeliest face where the reader was not sure (None if cocked)."""
    return die.value if die.value is not None else die.likeliest


def _dice_key(dice: Sequence[DieReading]) -> tuple:
    return tuple(sorted((d.half.value if d.half else "", d.value or 0, tuple(d.flags)) for d in dice))


def _same_dice(a: Sequence[DieReading], b: Sequence[DieReading], tolerance: float) -> bool:
    """The same dice lying in the same places (so not thrown again)."""
    if len(a) != len(b) or _dice_key(a) != _dice_key(b):
        return False
    unused = list(b)
    for d in a:
        match = next((e for e in unused if math.dist(d.center, e.center) <= tolerance), None)
        if match is None:
            return False
        unused.remove(match)
    return True


class Session:
    """The referee of one table. Feed it with :meth:`observe` and :meth:`press`; show what they return."""

    def __init__(self, options: SessionOptions, journal: Journal | None = None) -> None:
        self.options = options
        self.journal = journal
        self.stage = Stage.SETUP
        self.game: Game | None = None
        # the score, the Crawford game and the games played are the match's business
        self.match = self._new_match()
        self.game_number = 0
        self.match_id: int | None = None
        self.game_id: int | None = None
        self.results: list[GameResult] = []
        # watching state (not part of the record)
        self._dice_run: list[Sequence[DieReading]] = []
        self._blocked_dice: Sequence[DieReading] | None = None  # dice already dealt with, not a new throw
        self._rethrow = False  # the blocked dice were called for a throw again: once the board moves, they
        # are gone or thrown anew (the same numbers may land in the same place again)
        self._early: bool = False  # the next roller threw before the dice were lifted
        self._unclear_since: float | None = None
        self._unclear_told = False
        self._illegal_run: list[Board] = []
        self._replay_board: tuple[Board | None, float] = (None, 0.0)
        self._last_setup: tuple[Difference, ...] = ()
        self._said_cannot_see = False
        self._question: Play | None = None  # the play the table was asked to confirm
        # the dice the table was asked to confirm (a die that may lean, or an unclear face): the dice
        # asked about, and what ACCEPT does with their likeliest faces
        self._dice_question: tuple[Sequence[DieReading], Callable[[float | None], list[Say]]] | None = None
        self._explained: tuple[BoardReading, tuple, Explanation] | None = None  # the last reading judged
        self.log: list[tuple[str, str]] = []  # (kind, text) of everything recorded, for tests and the demo

    # ---- properties -----------------------------------------------------------------------------

    def _new_match(self) -> Match:
        return Match(self.options.match_length or 0, self.options.rules)

    @property
    def score(self) -> list[int]:
        """[light's points, dark's points] in the match (or the money session)."""
        return list(self.match.score)

    @property
    def board(self) -> Board:
        """The confirmed board (the starting position before a game)."""
        return self.game.board if self.game else Board.start()

    @property
    def on_roll(self) -> Side | None:
        return self.game.on_roll if self.game else None

    @property
    def question(self) -> Board | None:
        """The board the table is asked to confirm with ACCEPT (after an unclear reading), if any."""
        if self._question is None or self.game is None or self.game.on_roll is None:
            return None
        if self.stage not in (Stage.PLAY, Stage.REPLAY):
            return None
        return Board.from_position(self._question.result, self.game.on_roll)

    @property
    def dice_question(self) -> tuple[int, ...] | None:
        """The faces the table is asked to confirm with ACCEPT (dice the reader was not sure of), if any."""
        if self._dice_question is None or self.stage not in (Stage.OPENING, Stage.ROLL):
            return None
        return tuple(_face(d) or 0 for d in self._dice_question[0])

    def status(self) -> str:
        if self.stage is Stage.SETUP:
            return "waiting for the starting position"
        if self.stage is Stage.MATCH_OVER:
            return "the match is over"
        assert self.game is not None
        return self.game.status()

    # ---- input ----------------------------------------------------------------------------------

    def observe(self, obs: Observation) -> list[Say]:
        """One frame. Returns what to tell the table (already recorded)."""
        if obs.reading is None:
            self._dice_run.clear()
            if self._rethrow:
                # a hand came for the dice the referee called for a throw again: whatever settles next is
                # a new throw (those dice, if never picked up, are called again: no harm). Not after a
                # roll that counted, where a hand moving checkers must not make the roll's dice new.
                self._blocked_dice, self._rethrow = None, False
            return []
        handler = {
            Stage.SETUP: self._setup,
            Stage.OVER: self._setup,
            Stage.OPENING: self._opening,
            Stage.ROLL: self._roll,
            Stage.DOUBLED: lambda o: [],
            Stage.PLAY: self._play,
            Stage.PASSED: self._passed,
            Stage.RESTORE: self._restore,
            Stage.REPLAY: self._replay,
            Stage.ACCEPT: self._accept_wait,
            Stage.MATCH_OVER: lambda o: [],
        }[self.stage]
        return handler(obs)

    def press(self, button: Button, t: float | None = None) -> list[Say]:
        """A button of the table (or its key on the console)."""
        if button is Button.NEW_GAME:
            return self._new_game_button(t)
        if self.game is None:
            return [Say(None, f"{button.value}: no game in progress")]
        try:
            if button is Button.DOUBLE:
                if self.stage is Stage.DOUBLED and self.options.rules.beavers:
                    events = self.game.beaver()
                    self.stage = Stage.ROLL
                elif self.stage is Stage.ROLL:
                    events = self.game.offer_double()
                    self.stage = Stage.DOUBLED
                elif self.stage is Stage.ACCEPT and self.game.on_roll is not None:
                    events = self.game.offer_double(by=self.game.on_roll.other)
                    self.stage = Stage.DOUBLED if self.game.phase is Phase.DOUBLED else Stage.OVER
                else:
                    return [Say(None, f"no double now: {self.status()}")]
            elif button is Button.TAKE:
                if self.stage is not Stage.DOUBLED:
                    return [Say(None, f"nothing to take: {self.status()}")]
                events = self.game.take()
                self.stage = Stage.ROLL
            elif button is Button.DROP:
                if self.stage is not Stage.DOUBLED:
                    return [Say(None, f"nothing to drop: {self.status()}")]
                events = self.game.drop()
            else:  # ACCEPT
                if self._question is not None and self.stage in (Stage.PLAY, Stage.REPLAY):
                    return self._confirmed(t)
                if self._dice_question is not None and self.stage in (Stage.OPENING, Stage.ROLL):
                    dice, take = self._dice_question
                    self._dice_question = None
                    faces = " and ".join(str(_face(d)) for d in dice)
                    self._log("confirmed", t, text=f"the table confirms the dice: {faces}")
                    return take(t)
                if self.stage is not Stage.ACCEPT:
                    return [Say(None, f"nothing to accept: {self.status()}")]
                events = self.game.accept_illegal()
                self._blocked_dice = None
        except (GameError, ValueError) as e:
            return [Say(None, str(e))]
        out = self._record_events(events, t)
        if self.game.over:
            return out + self._game_over(t)
        if self.stage is Stage.ACCEPT:
            self.stage = Stage.ROLL
        if self.stage is Stage.ROLL:
            out.append(Say(Signal.READY, f"{self.game.status()}"))
        return out

    # ---- stages ---------------------------------------------------------------------------------

    def _setup(self, obs: Observation) -> list[Say]:
        reading = obs.reading
        assert reading is not None
        if reading.dice or reading.occluded:
            return []
        start = Board.start()
        if not shows(reading, self.options.orientation, start, exact=False):
            wrong = tuple(differences(start, reading, self.options.orientation))
            if wrong and wrong != self._last_setup:
                self._last_setup = wrong
                return [Say(None, "set up the starting position: " + "; ".join(d.text for d in wrong))]
            return []
        self._last_setup = ()
        return self._start_game(obs.t)

    def _start_game(self, t: float | None) -> list[Say]:
        length = self.options.match_length
        rules = self.options.rules
        if self.match_id is None and self.journal:
            self.match_id = self.journal.start_match(length, rules.to_mapping())
        self.game = self.match.new_game()
        crawford = self.game.crawford
        self.game_number += 1
        if self.journal and self.match_id is not None:
            self.game_id = self.journal.start_game(
                self.match_id, self.game_number, crawford, (self.score[0], self.score[1])
            )
        self.stage = Stage.OPENING
        self._blocked_dice, self._rethrow = None, False
        text = f"game {self.game_number}: the board is set up; throw one die each for the opening roll"
        if crawford:
            text += " (the Crawford game: no doubling)"
        self._log("setup", t, text=text)
        return [Say(Signal.READY, text)]

    def start_from(self, board: Board, on_roll: Side, t: float | None = None) -> list[Say]:
        """Starts a game from a set position with ``on_roll`` to roll (lessons, problems, tests)."""
        says = self._start_game(t)
        self.game = self.match.new_game(start=board, first=on_roll)
        self.stage = Stage.ROLL
        return says[:0] + [Say(Signal.READY, f"position set: {self.game.status()}")]

    def _stable_dice(self, reading: BoardReading) -> Sequence[DieReading] | None:
        """The dice once ``dice_frames`` settled readings agree, and only if they are a new throw."""
        dice = reading.dice
        if self._blocked_dice is not None:
            if _same_dice(dice, self._blocked_dice, self.options.die_tolerance):
                self._dice_run.clear()
                return None
            if not dice or len(dice) < len(self._blocked_dice):
                self._blocked_dice = None  # lifted: whatever comes next is a new throw
        if not dice:
            self._dice_run.clear()
            return None
        if self._dice_run and not _same_dice(dice, self._dice_run[-1], self.options.die_tolerance):
            self._dice_run.clear()
        self._dice_run.append(dice)
        if len(self._dice_run) < self.options.dice_frames:
            return None
        self._dice_run.clear()
        self._blocked_dice, self._rethrow = None, False
        if self._dice_question is not None and not _same_dice(
            dice, self._dice_question[0], self.options.die_tolerance
        ):
            self._dice_question = None  # thrown again: the question is void
        return dice

    def _opening(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        dice = self._stable_dice(obs.reading)
        if dice is None:
            return []
        o = self.options.orientation
        if len(dice) != 2:
            return self._cannot_see_dice(
                obs, f"{len(dice)} dice on the board: the opening roll is one die each"
            )
        by_side: dict[Side, DieReading] = {}
        bad: dict[Side, str] = {}
        homeless = []
        for d in dice:
            owner = next((s for s in Side if o.throwing_half(s) == d.half), None)
            if owner is None or owner in by_side:
                homeless.append(d)
            else:
                by_side[owner] = d
        for d in homeless:
            # off the field, or both dice in one half: the die belongs to the side still without one
            owner = Side.LIGHT if Side.LIGHT not in by_side else Side.DARK
            by_side[owner] = d
            bad[owner] = _die_ok(d, self.options.rules.on_checker_valid) or "is not in its owner's half"
        for owner, d in by_side.items():
            problem = _die_ok(d, self.options.rules.on_checker_valid)
            if problem and owner not in bad:
                bad[owner] = problem
        if bad:
            self._throw_again(dice)
            text = "; ".join(f"{s.value}'s die {why}: {s.value} throws again" for s, why in bad.items())
            self._log("reroll", obs.t, text=text, evidence=obs)
            return [Say(Signal.REROLL, text)]
        light, dark = by_side[Side.LIGHT], by_side[Side.DARK]
        if light.value is None or dark.value is None:
            return self._unsure_dice(
                obs, dice, lambda t: self._opening_roll(_face(light), _face(dark), dice, t)
            )
        return self._opening_roll(light.value, dark.value, dice, obs.t)

    def _opening_roll(
        self, light: int | None, dark: int | None, dice: Sequence[DieReading], t: float | None
    ) -> list[Say]:
        assert self.game is not None and light is not None and dark is not None
        events = self.game.opening_roll(light, dark)
        if light == dark:
            self._throw_again(dice)
            out = self._record_events(events, t)
            return [Say(Signal.REROLL, out[0].text)] + out[1:]
        self._blocked_dice = dice
        return self._rolled(events, t)

    def _throw_again(self, dice: Sequence[DieReading]) -> None:
        """Notes ``dice`` as called for a throw again: not a new throw while they lie there, but once
        the board moves (a hand comes for them) whatever settles next is (see :meth:`observe`)."""
        self._blocked_dice, self._rethrow = dice, True

    def _roll(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        dice = self._stable_dice(obs.reading)
        if dice is None:
            return []
        mover = self.game.on_roll
        assert mover is not None
        if len(dice) == 1 and not obs.reading.occluded and not self.options.rules.on_checker_valid:
            # both dice leave the cup together: one settled on a clear board, the other is off it or on a
            # checker where it was not seen (a reroll too, unless the table lets a die on a checker count:
            # then the referee waits, as a die there may simply be unseen)
            self._throw_again(dice)
            text = (
                f"only one die is on the board: the other landed outside it; {mover.value} throws both again"
            )
            self._log("reroll", obs.t, side=mover.value, text=text, evidence=obs)
            return [Say(Signal.REROLL, text)]
        if len(dice) != 2:
            return self._cannot_see_dice(obs, f"{len(dice)} dice on the board, expected 2")
        half = self.options.orientation.throwing_half(mover)
        problems = []
        for d in dice:
            why = _die_ok(d, self.options.rules.on_checker_valid)
            if why is None and d.half != half:
                why = f"is not in {mover.value}'s right-hand half"
            if why:
                problems.append(f"a die {why}")
        if problems:
            self._throw_again(dice)
            text = "; ".join(problems) + f": {mover.value} throws both dice again"
            self._log("reroll", obs.t, side=mover.value, text=text, evidence=obs)
            return [Say(Signal.REROLL, text)]
        first, second = dice
        if first.value is None or second.value is None:
            return self._unsure_dice(obs, dice, lambda t: self._roll_of(_face(first), _face(second), dice, t))
        return self._roll_of(first.value, second.value, dice, obs.t)

    def _roll_of(
        self, d1: int | None, d2: int | None, dice: Sequence[DieReading], t: float | None
    ) -> list[Say]:
        assert self.game is not None and d1 is not None and d2 is not None
        self._blocked_dice = dice
        events = self.game.roll(d1, d2)
        return self._rolled(events, t)

    def _unsure_dice(
        self, obs: Observation, dice: Sequence[DieReading], take: Callable[[float | None], list[Say]]
    ) -> list[Say]:
        """Dice the reader is not sure of: a die that may lean, or a face too unclear to count. The referee
        never takes a roll it is not sure of: it asks the table once what the dice show (amber); ACCEPT
        takes the likeliest faces, and a die that leans is thrown again (a new throw, read afresh).
        """
        if any(_face(d) is None for d in dice):
            return self._cannot_see_dice(obs, "cannot read a die")
        asked = self._dice_question
        if asked is not None and _same_dice(dice, asked[0], self.options.die_tolerance):
            return []
        self._dice_question = (dice, take)
        faces = " and ".join(str(_face(d)) for d in dice)
        # house rule: both dice again; at the opening only the die that leans
        leans = "; if a die leans, its owner alone" if self.stage is Stage.OPENING else ""
        text = (
            f"not sure of the dice: a die may lean, or a face is unclear. Is it {faces}, every die flat? "
            f"Press ACCEPT if so; if not, throw both dice again{leans}"
        )
        self._log("unclear", obs.t, text=text, evidence=obs)
        return [Say(Signal.CANNOT_SEE, text)]

    def _rolled(self, events: list[Event], t: float | None) -> list[Say]:
        """After a valid roll: record it, and wait for the play (or pass the turn)."""
        assert self.game is not None
        out = self._record_events(events, t)
        out = [Say(Signal.ROLL_OK, out[0].text)] + out[1:]
        self._reset_watch()
        if self.game.over:  # a pending illegal play that bore off the last checker stood
            return out + self._game_over(t)
        # no legal move: the turn has passed at once; the table is told when the dice are lifted
        self.stage = Stage.PLAY if self.game.phase is Phase.PLAY else Stage.PASSED
        return out

    def _cannot_see_dice(self, obs: Observation, text: str) -> list[Say]:
        if self._said_cannot_see:
            return []
        self._said_cannot_see = True
        self._log("unclear", obs.t, text=text, evidence=obs)
        return [Say(Signal.CANNOT_SEE, text)]

    def _lifted(self, reading: BoardReading, mover: Side) -> bool | None:
        """True when the mover's dice are gone; also notes an early throw by the opponent."""
        half = self.options.orientation.throwing_half(mover)
        mine = [d for d in reading.dice if d.half == half or d.half is None]
        others = [d for d in reading.dice if d.half is not None and d.half != half]
        if mine:
            return False
        if others:
            self._early = True
            self._blocked_dice = others
        else:
            # the board showed no dice: whatever is thrown next is a new throw, even one that lands
            # where these dice lay showing the same numbers
            self._blocked_dice = None
        return True

    def _play(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        mover = self.game.on_roll
        assert mover is not None
        if not self._lifted(obs.reading, mover):
            self._reset_watch()
            return []
        return self._judge(obs, mover, replay=False)

    def _passed(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        nxt = self.game.on_roll
        assert nxt is not None
        if not self._lifted(obs.reading, nxt.other):
            return []
        self.stage = Stage.ROLL
        self._blocked_dice = None
        out = [Say(Signal.READY, f"{self.game.status()}")]
        if self._early:
            self._early = False
            text = f"{nxt.value} threw too early: that roll does not count, throw again"
            out.append(Say(Signal.REROLL, text))
        return out

    def _judge(self, obs: Observation, mover: Side, replay: bool) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        seen = self._explain(obs.reading, mover)
        if seen.verdict is Verdict.LEGAL:
            self._reset_watch()
            return self._legal(seen, obs.t)
        if seen.verdict is Verdict.ILLEGAL:
            self._unclear_since = None
            board = seen.board
            if board is None:
                return self._unclear(
                    obs, "the board shows an illegal play but not clearly enough to say which"
                )
            if replay:
                held, since = self._replay_board
                if held != board:
                    self._replay_board = (board, obs.t)
                    return []
                if obs.t - since < self.options.replay_wait:
                    return []
            self._illegal_run = [*self._illegal_run, board][-self.options.illegal_frames :]
            if len(self._illegal_run) < self.options.illegal_frames or len(set(self._illegal_run)) > 1:
                return []
            return self._illegal(board, obs)
        self._illegal_run = []
        return self._unclear(obs, seen.reason, seen.candidates)

    def _explain(self, reading: BoardReading, mover: Side) -> Explanation:
        """:func:`~referee.observe.explain` for this reading of the current play, reusing the last answer
        when a source hands over the very same reading again (a replay of a still picture): weighing
        every board a doubtful reading allows is the costly part of a frame."""
        assert self.game is not None
        key = (self.game.board, self.game.dice, mover)
        last = self._explained
        if last is not None and last[0] is reading and last[1] == key:
            return last[2]
        seen = explain(reading, self.options.orientation, mover, self.game.board, self.game.legal_plays())
        self._explained = (reading, key, seen)
        return seen

    def _unclear(self, obs: Observation, reason: str, candidates: Sequence[Play] = ()) -> list[Say]:
        """Keeps looking; once it has lasted ``unclear_after`` seconds, asks the table (amber).

        When a few legal plays fit what can be seen, the question names the likeliest: the table
        confirms it with ACCEPT, or straightens the checkers so the referee can see.
        """
        if self._unclear_since is None:
            self._unclear_since = obs.t
        if self._unclear_told or obs.t - self._unclear_since < self.options.unclear_after:
            return []
        self._unclear_told = True
        text = f"I cannot judge the play yet: {reason}"
        if 0 < len(candidates) <= MAX_QUESTION and self.stage in (Stage.PLAY, Stage.REPLAY):
            self._question = candidates[0]
            text += (
                f". Was it {candidates[0].text or 'no move'}? Press ACCEPT if so, or straighten the checkers"
            )
        else:
            text += "; please straighten the checkers or clear the view"
        self._log("unclear", obs.t, verdict="unclear", reason=reason, text=text, evidence=obs)
        return [Say(Signal.CANNOT_SEE, text)]

    def _confirmed(self, t: float | None) -> list[Say]:
        """The table confirmed the play the referee asked about."""
        assert self.game is not None and self._question is not None
        play = self._question
        mover = self.game.on_roll
        assert mover is not None
        board = Board.from_position(play.result, mover)
        self._log("confirmed", t, side=mover.value, play=play.text, text=f"the table confirms {play.text}")
        return self._legal(Explanation(Verdict.LEGAL, play, board, "confirmed by the table"), t)

    def _legal(self, seen: Explanation, t: float | None) -> list[Say]:
        assert self.game is not None and seen.play is not None
        self._reset_watch()
        mover = self.game.on_roll
        dice = self.game.dice
        assert mover is not None and dice is not None
        before = self.game.board.position(mover)
        judgement = self.game.play(seen.play.result)
        assert judgement.legal
        events = [e for e in self.game.history[-3:] if e.kind in (EventKind.PLAY, EventKind.WIN)]
        lines = describe_play(mover, dice, before, seen.play)
        play_event = next(e for e in events if e.kind is EventKind.PLAY)
        self._log(
            "play",
            t,
            side=mover.value,
            dice=dice,
            play=play_event.play,
            verdict="legal",
            text="\n".join(lines),
        )
        out = [Say(None, line) for line in lines]
        if self.game.over:
            return out + self._game_over(t)
        self.stage = Stage.ROLL
        nxt = self.game.on_roll
        assert nxt is not None
        out.append(Say(Signal.READY, f"legal. {self.game.status()}"))
        if self._early:
            self._early = False
            text = (
                f"{nxt.value} threw before {mover.value} lifted the dice: "
                "that roll does not count, throw again"
            )
            self._log("reroll", t, side=nxt.value, text=text)
            out.append(Say(Signal.REROLL, text))
        return out

    def _illegal(self, board: Board, obs: Observation) -> list[Say]:
        assert self.game is not None
        mover = self.game.on_roll
        dice = self.game.dice
        assert mover is not None and dice is not None
        before = self.game.board
        judgement = self.game.play(board)
        assert not judgement.legal
        self._illegal_run = []
        self._replay_board = (None, 0.0)
        if self.options.rules.tournament_mode:
            self.stage = Stage.ACCEPT
            remedy = (
                f"{mover.other.value} may accept the play (ACCEPT), or ask for the position before the roll "
                f"to be restored; the play stands once {mover.other.value} rolls"
            )
        else:
            self.stage = Stage.RESTORE
            remedy = f"restore the position before the roll and play {dice_text(dice)} again"
        # what to put back, from the cells the reader is sure of (a doubtful cell could mislead)
        assert obs.reading is not None
        fixes = differences(before, obs.reading, self.options.orientation, sure_only=True)
        restore = "; ".join(f.fix for f in fixes)
        text = f"illegal play by {mover.value} ({dice_text(dice)}): {judgement.reason}. {remedy}"
        if restore and not self.options.rules.tournament_mode:
            text += f" ({restore})"
        self._log(
            "illegal",
            obs.t,
            side=mover.value,
            dice=dice,
            verdict="illegal",
            reason=judgement.reason,
            text=text,
            evidence=obs,
            board=board,
        )
        return [Say(Signal.ILLEGAL, text)]

    def _restore(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        mover = self.game.on_roll
        assert mover is not None
        if not shows(obs.reading, self.options.orientation, self.game.board):
            return []
        self.stage = Stage.REPLAY
        self._reset_watch()
        dice = self.game.dice
        assert dice is not None
        text = f"the position is restored: {mover.value} plays {dice_text(dice)} again"
        self._log("restored", obs.t, side=mover.value, dice=dice, text=text)
        return [Say(Signal.ROLL_OK, text)]

    def _replay(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        mover = self.game.on_roll
        assert mover is not None
        reading = obs.reading
        half = self.options.orientation.throwing_half(mover.other)
        if any(d.half == half for d in reading.dice):
            # the opponent is throwing: the replayed play is finished, judge it now
            self._replay_board = (self._replay_board[0], -math.inf)
        return self._judge(obs, mover, replay=True)

    def _accept_wait(self, obs: Observation) -> list[Say]:
        """Tournament mode: the opponent's roll makes the illegal play stand; the pre-roll position
        back on the board means a correction."""
        assert obs.reading is not None and self.game is not None
        mover = self.game.on_roll
        assert mover is not None
        if not obs.reading.dice:
            if shows(obs.reading, self.options.orientation, self.game.board):
                events = self.game.demand_correction()
                out = self._record_events(events, obs.t)
                self.stage = Stage.REPLAY
                self._reset_watch()
                return out
            return []
        dice = self._stable_dice(obs.reading)
        if dice is None:
            return []
        opponent = mover.other
        values = [d.value for d in dice]
        ok = (
            len(dice) == 2
            and all(v is not None for v in values)
            and all(
                _die_ok(d, self.options.rules.on_checker_valid) is None
                and d.half == self.options.orientation.throwing_half(opponent)
                for d in dice
            )
        )
        if not ok:
            self._throw_again(dice)
            return [Say(Signal.REROLL, f"{opponent.value} throws both dice again into the right-hand half")]
        v1, v2 = values
        assert v1 is not None and v2 is not None
        self._blocked_dice = dice
        events = self.game.roll(v1, v2, side=opponent)
        return self._rolled(events, obs.t)

    # ---- game end, buttons ----------------------------------------------------------------------

    def _game_over(self, t: float | None) -> list[Say]:
        assert self.game is not None and self.game.result is not None
        result = self.game.result
        self.results.append(result)
        self.match.finish(self.game)
        length = self.options.match_length
        score_text = describe_score(*self.match.score, length)
        match_over = self.match.over
        self.stage = Stage.MATCH_OVER if match_over else Stage.OVER
        text = f"{result.text}. {score_text}"
        if match_over:
            text += f". {result.winner.value} wins the match"
        else:
            text += ". Set up the board for the next game"
        if self.journal and self.game_id is not None:
            self.journal.finish_game(
                self.game_id,
                result.winner.value,
                result.outcome.value,
                result.cube,
                result.points,
                result.by_drop,
                (self.score[0], self.score[1]),
                state=self.snapshot(),
                history=[e.to_dict() for e in self.game.history],
            )
            if match_over and self.match_id is not None:
                self.journal.finish_match(self.match_id)
        self._log("result", t, side=result.winner.value, text=text)
        return [Say(Signal.GAME_OVER, text, result.winner, result.points)]

    def _new_game_button(self, t: float | None) -> list[Say]:
        if self.stage is Stage.MATCH_OVER:
            self.match = self._new_match()
            self.game_number = 0
            self.match_id = None
        self.stage = Stage.SETUP
        self.game = None
        self._last_setup = ()
        return [Say(None, "new game: set up the starting position")]

    # ---- recording ------------------------------------------------------------------------------

    def _reset_watch(self) -> None:
        self._question = None
        self._dice_question = None
        self._unclear_since = None
        self._unclear_told = False
        self._illegal_run = []
        self._replay_board = (None, 0.0)
        self._said_cannot_see = False

    def _record_events(self, events: list[Event], t: float | None) -> list[Say]:
        out = []
        for e in events:
            side = e.side.value if e.side else None
            self._log(e.kind.value, t, side=side, dice=e.dice, play=e.play, text=e.text)
            out.append(Say(None, e.text))
        return out

    def _log(
        self,
        kind: str,
        t: float | None,
        *,
        side: str | None = None,
        dice: tuple[int, int] | None = None,
        play: str | None = None,
        verdict: str | None = None,
        reason: str | None = None,
        text: str = "",
        evidence: Observation | None = None,
        board: Board | None = None,
    ) -> None:
        self.log.append((kind, text))
        if self.journal is None or self.game_id is None:
            return
        shown = board or self.board
        on_roll = self.on_roll or Side.LIGHT
        png = evidence.evidence() if evidence is not None and evidence.evidence is not None else None
        self.journal.record(
            self.game_id,
            kind,
            t=t,
            side=side,
            dice=dice,
            play=play,
            position_id=encode_position_id(shown.position(on_roll)),
            board={"light": list(shown.light), "dark": list(shown.dark), "on_roll": on_roll.value},
            verdict=verdict,
            reason=reason,
            text=text,
            evidence=png,
            state=self.snapshot(),
        )

    # ---- resume ---------------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """Everything needed to resume after a restart (JSON-ready)."""
        return {
            "stage": self._settled_stage().value,
            "score": list(self.score),
            "match": _match_state(self.match),
            "game_number": self.game_number,
            "match_id": self.match_id,
            "game_id": self.game_id,
            "crawford": bool(self.game and self.game.crawford),
            "history": [e.to_dict() for e in self.game.history] if self.game else None,
            "rules": self.options.rules.to_mapping(),
            "match_length": self.options.match_length,
        }

    def _settled_stage(self) -> Stage:
        """The stage the game's own phase implies (snapshots are taken in the middle of a change)."""
        if self.game is None or self.stage is Stage.MATCH_OVER:
            return self.stage
        phase = self.game.phase
        if phase is Phase.PLAY and self.game.pending_correction is not None:
            return Stage.REPLAY if self.stage is Stage.REPLAY else Stage.RESTORE
        if phase is Phase.OVER:
            return Stage.MATCH_OVER if self.match.over else Stage.OVER
        return {
            Phase.OPENING: Stage.OPENING,
            Phase.ROLL: Stage.ROLL,
            Phase.DOUBLED: Stage.DOUBLED,
            Phase.PLAY: Stage.PLAY,
            Phase.ILLEGAL: Stage.ACCEPT,
        }[phase]

    @classmethod
    def resume(cls, options: SessionOptions, journal: Journal) -> Session:
        """A session that continues the record's game in progress (a fresh one for a new record)."""
        session = cls(options, journal)
        state = journal.load_state()
        if not state:
            return session
        session.match = _resume_match(state, options)
        session.game_number = int(state["game_number"])
        session.match_id = state["match_id"]
        session.game_id = state["game_id"]
        session.stage = Stage(state["stage"])
        if state.get("history") is not None:
            game = Game(options=options.rules, money=options.match_length is None, crawford=state["crawford"])
            game.replay(state["history"])
            session.game = game
            session.match.current = None if game.over else game
        return session


def _match_state(match: Match) -> dict[str, Any]:
    """The match for a snapshot: the finished games without their moves (the record keeps those)."""
    data = match.to_dict()
    for game in data["games"]:
        game["history"] = []
    return data


def _resume_match(state: dict[str, Any], options: SessionOptions) -> Match:
    """The match of a snapshot; a record written before snapshots held the match gives its score."""
    if "match" in state:
        return Match.from_dict(state["match"])
    match = Match(options.match_length or 0, options.rules, crawford_played=bool(state.get("crawford_done")))
    for side, points in zip(Side, state["score"], strict=True):
        if points:
            won = GameResult(side, Outcome.SINGLE, points, points)
            match.games.append(FinishedGame(len(match.games) + 1, match.score, False, won))
    return match
