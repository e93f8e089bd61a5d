"""The live session: the turn cycle at the table as a state machine fed with observations.

The session joins what vision saw to the rules, but touches no camera and no pin: it is fed
:class:`~referee.turns.Observation` s (a :class:`~vision.reading.BoardReading` of a settled frame, or
``None`` while the board moves, with the stream time) and :class:`~hardware.signals.Button` presses, and
returns :class:`~referee.turns.Say` actions (a :class:`~hardware.signals.Signal` for the table and the
words for the console). Everything it decides is written to the :class:`~referee.journal.Journal`
*before* it returns, so the record precedes the signal. It can be unit tested with readings built
straight from boards (:func:`referee.observe.reading_of`).

Which settled dice are a new throw, and whether a throw counts, is :mod:`referee.throws`; what a restart
restores is :mod:`referee.resume`; the house variations' buttons and words are :mod:`referee.house`, the
tournament policies :mod:`referee.monitor`, and a lesson rides on the session (:mod:`referee.lesson`).
A player sits at the row of its own home board and throws into its right-hand half
(:meth:`~bgboard.layout.Orientation.throwing_half`).

    >>> from referee.observe import reading_of
    >>> from bgboard.layout import Board, Orientation
    >>> s = Session(SessionOptions(Orientation.BOTTOM_RIGHT))
    >>> [a.signal for a in s.observe(Observation(0.0, reading_of(Board.start(), Orientation.BOTTOM_RIGHT)))]
    [<Signal.READY: 'ready'>]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from bgboard.layout import Board, Half, ImageLayout, Side
from hardware.signals import Button, Signal
from referee import buttons, house, monitor, narration, resume, throws, unread
from referee.cube_watch import CubeWatch
from referee.events import Event, EventKind
from referee.game import Game, GameError, Phase
from referee.journal import Entry, Journal
from referee.lesson import Lesson
from referee.match import Match
from referee.moves import Play, legal_plays
from referee.observe import Difference, Explainer, Explanation, Verdict, differences, shows
from referee.recheck import Recheck
from referee.throws import CallKind, Dice, ThrowWatch
from referee.turns import Observation, Say, SessionOptions, Stage
from referee.watch import TakeDice, Watch
from vision.reading import BoardReading

__all__ = ["Observation", "Say", "Session", "SessionOptions", "Stage"]

MAX_QUESTION = 3  # the table is asked to confirm a play only when at most this many fit
# Seconds the table has to say it threw the roll a play fits (not the roll read) before it is illegal: a
# player who threw it presses ACCEPT at once, and a miscounted play is called while the hand is near.
ANSWER_WAIT = 2.5

# Plays the numbers of a throw: (first die, second die, the dice, stream time).
Roll = Callable[[int, int, Dice, float | None], list[Say]]


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
        self.throws = ThrowWatch(options.dice_frames, options.die_tolerance)
        self.watch = Watch()
        self.cube_watch = CubeWatch(options.dice_frames)
        self.call: throws.Call | None = None  # the session's last call on a throw
        # the faces each die of the roll being played may show (``throws.faces``); None when the roll
        # is sure (a set roll, dice the table confirmed, the opening)
        self.roll_faces: tuple[tuple[int, ...], ...] | None = None
        self._last_setup: tuple[Difference, ...] = ()
        self._explainer = Explainer(options.orientation)
        self.recheck: Recheck | None = None  # after a restart: the board must fit the record first
        self.log: list[tuple[str, str]] = []  # (kind, text) of everything recorded, for tests and the demo
        self.house = house.House()
        self.lesson: Lesson | None = None  # `referee teach`: what to set up, and what follows
        self.seen: BoardReading | None = None  # the last settled reading (a hint reads the play shown)

    @classmethod
    def resume(cls, options: SessionOptions, journal: Journal) -> Session:
        """A session that continues the record's game in progress (a fresh one for a new record)."""
        session = cls(options, journal)
        state = journal.load_state()
        if state:
            resume.restore(session, state)
            session.recheck = Recheck() if session.game is not None else None
        return session

    def reconfigure(self, options: SessionOptions) -> None:
        """New options (match length, rules) for a match that has not begun; ValueError once it has."""
        if self.game is not None or self.game_number:
            raise ValueError("the match has begun: settings change before its first game")
        self.options = options
        self.match = self._new_match()

    def _new_match(self) -> Match:
        return Match(self.options.match_length or 0, self.options.rules, self.options.table.names)

    # ---- what the table is waiting for -----------------------------------------------------------

    @property
    def score(self) -> list[int]:
        """[light's points, dark's points] in the match (or the money session)."""
        return list(self.match.score)

    @property
    def board(self) -> Board:
        """The confirmed board (the starting position before a game)."""
        return self.game.board if self.game else Board.start()

    @property
    def expected(self) -> ImageLayout:
        """The confirmed board as the camera shows it: what the readers expect to see."""
        return self.board.layout(self.options.orientation)

    @property
    def awaiting_throw(self) -> bool:
        """Whether the referee is waiting for dice to be thrown (the opening roll, or a roll)."""
        return self.stage in (Stage.OPENING, Stage.ROLL)

    @property
    def on_roll(self) -> Side | None:
        return self.game.on_roll if self.game else None

    @property
    def question(self) -> Board | None:
        """The board the table is asked to confirm with ACCEPT (after an unclear reading), if any."""
        question = self.watch.question
        if question is None or self.game is None or self.game.on_roll is None:
            return None
        if self.stage not in (Stage.PLAY, Stage.REPLAY):
            return None
        return Board.from_position(question.result, self.game.on_roll)

    @property
    def roll_question(self) -> tuple[int, int] | None:
        """The roll the table is asked whether it threw (the play fits it, not the roll read), if any."""
        asked = self.watch.roll_question
        return asked[0] if asked is not None and self.stage is Stage.PLAY else None

    @property
    def played_roll_question(self) -> tuple[int, int] | None:
        """The roll the table is asked whether it threw when the referee could not read the throw and the
        play made anyway fits that roll alone, if any."""
        asked = self.watch.roll_from_play
        return asked.roll if asked is not None and self.stage is Stage.ROLL else None

    @property
    def dice_question(self) -> tuple[int, ...] | None:
        """The faces the table is asked to confirm with ACCEPT (dice the reader was not sure of), if any."""
        asked = self.watch.dice_question
        if asked is None or self.stage not in (Stage.OPENING, Stage.ROLL):
            return None
        return tuple(throws.face(d) or 0 for d in asked[0])

    @property
    def setup_text(self) -> str:
        """What the table sets up before a game: the starting position, or a lesson's."""
        return self.lesson.setup_text if self.lesson else "set up the starting position"

    def status(self) -> str:
        if self.stage is Stage.SETUP:
            return self.lesson.setup_text if self.lesson else "waiting for the starting position"
        if self.lesson is not None and self.stage in (Stage.LESSON, Stage.MATCH_OVER) and self.game is None:
            return self.lesson.status()
        if self.stage is Stage.MATCH_OVER:
            return "the match is over"
        assert self.game is not None
        return self.game.status()

    # ---- input ----------------------------------------------------------------------------------

    def observe(self, obs: Observation) -> list[Say]:
        """One frame. Returns what to tell the table (already recorded)."""
        if obs.reading is None:
            self.throws.moving()
            # the board moved while the table was asked what the dice show: they may have been lifted and
            # thrown again, and ACCEPT must not confirm faces no longer there (the same dice, still
            # lying as they were once the board settles, are asked about again)
            self.watch.dice_question = None
            return []
        if self.house.paused:
            return []  # a rule look-up: nothing is read until play goes on
        if self.recheck is not None:
            held = self.recheck.check(self, obs)
            if held is not None:
                return held
            self.recheck = None
        self.seen = obs.reading
        handler: dict[Stage, Callable[[Observation], list[Say]]] = {
            Stage.SETUP: self._setup,
            Stage.OVER: self._setup,
            Stage.OPENING: self._opening,
            Stage.ROLL: self._roll,
            Stage.DOUBLED: self._buttons_only,
            Stage.PLAY: self._play,
            Stage.PASSED: self._passed,
            Stage.RESTORE: self._restore,
            Stage.REPLAY: self._replay,
            Stage.ACCEPT: self._accept_wait,
            Stage.LESSON: self._lesson,
            Stage.MATCH_OVER: self._next_match,
        }
        return handler[self.stage](obs) + self._check_cube(obs)

    def _check_cube(self, obs: Observation) -> list[Say]:
        """A question to the table when the cube lies where the record says it cannot (``cube_watch``)."""
        if self.game is None or obs.reading is None or self.stage in (Stage.SETUP, Stage.OVER):
            return []
        why = self.cube_watch.observe(obs.reading.cube, self.game.cube, self.options.orientation)
        if why is None:
            return []
        text = narration.cube_question(why)
        self._log(Entry("cube", obs.t, text=text), evidence=obs)
        return [Say(Signal.CANNOT_SEE, text)]

    def _next_match(self, obs: Observation) -> list[Say]:
        """After a match, the next starting position set up starts the next match (unless the table
        wants NEW_GAME pressed for that)."""
        if not self.options.next_match_on_start:
            return []
        reading = obs.reading
        assert reading is not None
        start = Board.start()
        if (
            reading.dice
            or reading.occluded
            or not shows(reading, self.options.orientation, start, exact=False)
        ):
            return []
        self._new_game_button()
        return self._start_game(obs.t)

    def _buttons_only(self, obs: Observation) -> list[Say]:
        """A stage only a button ends (take or drop; a new match)."""
        return []

    def _lesson(self, obs: Observation) -> list[Say]:
        assert self.lesson is not None
        says = self.lesson.observe(self, obs)
        for say in says:
            self._log(Entry("lesson", obs.t, text=say.text))
        return says

    def press(self, button: Button, t: float | None = None) -> list[Say]:
        """A button of the table (or its key on the console)."""
        if button is Button.NEW_GAME:
            return self._new_game_button()
        if button in house.BUTTONS or self.stage is Stage.LESSON:
            return house.press(self, button, t)
        if self.game is None:
            return [Say(None, f"{button.value}: no game in progress")]
        try:
            answered = self._answer(t) if button is Button.ACCEPT else None
            if answered is not None:
                return answered
            acted = buttons.act(button, self.stage, self.game, self.options.rules)
        except (GameError, ValueError) as e:
            return [Say(None, str(e))]
        if acted is None:
            return [Say(None, f"{buttons.NOT_NOW[button]}: {self.status()}")]
        events, self.stage = acted
        if button is Button.ACCEPT:
            self.throws.forget()  # the illegal play stands: whatever is thrown next is a new throw
        out = self._record_events(events, t)
        if self.game.over:
            return out + self._game_over(t)
        if self.stage is Stage.ACCEPT:
            self.stage = Stage.ROLL
        if self.stage is Stage.ROLL:
            out.append(Say(Signal.READY, f"{self.game.status()}"))
        return out

    def _answer(self, t: float | None) -> list[Say] | None:
        """ACCEPT as the answer to the referee's question about a play or the dice, if one is open."""
        w = self.watch
        if w.question is not None and self.stage in (Stage.PLAY, Stage.REPLAY):
            return self._confirmed(t)
        if w.roll_question is not None and self.stage is Stage.PLAY:
            return self._roll_corrected(t)
        if w.roll_from_play is not None and self.stage is Stage.ROLL:
            return self._roll_from_play(t)
        if w.dice_question is not None and self.stage in (Stage.OPENING, Stage.ROLL):
            dice, take = w.dice_question
            w.dice_question = None
            faces = " and ".join(str(throws.face(d)) for d in dice)
            taught = self._taught(lambda seen: [throws.face(d) for d in seen])
            self._log(Entry("confirmed", t, text=f"the table confirms the dice: {faces}"), taught=taught)
            return take(t)
        return None

    # ---- setting up -------------------------------------------------------------------------------

    def _setup(self, obs: Observation) -> list[Say]:
        reading = obs.reading
        assert reading is not None
        if reading.dice or reading.occluded:
            return []
        start = self.lesson.board if self.lesson else Board.start()
        if not shows(reading, self.options.orientation, start, exact=False):
            wrong = tuple(differences(start, reading, self.options.orientation))
            if wrong and wrong != self._last_setup:
                self._last_setup = wrong
                return [Say(None, f"{self.setup_text}: " + "; ".join(d.text for d in wrong))]
            return []
        self._last_setup = ()
        if self.lesson is not None:
            return self.lesson.begin(self, obs.t)
        return self._start_game(obs.t)

    def _start_game(self, t: float | None) -> list[Say]:
        if self.match_id is None and self.journal:
            rules, table = self.options.rules.to_mapping(), self.options.table
            self.match_id = self.journal.start_match(
                self.options.match_length, rules, names=table.names, variation=table.variation.value
            )
        self.game = self.match.new_game()
        self.game_number += 1
        if self.journal and self.match_id is not None:
            score = (self.score[0], self.score[1])
            self.game_id = self.journal.start_game(self.match_id, self.game_number, self.game.crawford, score)
        self.stage = Stage.OPENING
        self.throws = ThrowWatch(self.options.dice_frames, self.options.die_tolerance)
        text = house.game_starts(self, narration.game_starts(self.game_number, self.game.crawford))
        self._log(Entry("setup", t, text=text))
        return [Say(Signal.READY, text)]

    def start_from(
        self, board: Board, on_roll: Side, t: float | None = None, dice: tuple[int, int] | None = None
    ) -> list[Say]:
        """Starts a game from a set position with ``on_roll`` to roll, or to play ``dice`` when the roll
        is given (lessons, problems, tests)."""
        self._start_game(t)
        self.game = self.match.new_game(start=board, first=on_roll)
        self.stage = Stage.ROLL
        if dice is None:
            return [Say(Signal.READY, f"position set: {self.game.status()}")]
        said = self._rolled(self.game.roll(*dice), t)
        return [Say(None, "position set")] + said

    # ---- the dice ---------------------------------------------------------------------------------

    def _new_throw(self, reading: BoardReading) -> Dice | None:
        """The dice of a new throw once they have settled (see :class:`~referee.throws.ThrowWatch`)."""
        dice = self.throws.settle(reading.dice)
        asked = self.watch.dice_question
        if (
            dice is not None
            and asked is not None
            and not throws.same_dice(dice, asked[0], self.throws.tolerance)
        ):
            self.watch.dice_question = None  # thrown again: the question is void
        return dice

    def _opening(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None
        dice = self._new_throw(obs.reading)
        if dice is None:
            return []
        call = throws.call_opening(dice, self.options.orientation, self.options.rules.on_checker_valid)
        return self._act_on(obs, dice, call, self._opening_roll)

    def _roll(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        if self.watch.unread_illegal and shows(obs.reading, self.options.orientation, self.game.board):
            return self._unread_restored(obs)
        if self._unread_played(obs.reading):
            return self._played_unread(obs)
        dice = self._new_throw(obs.reading)
        if dice is None:
            return []
        mover = self.game.on_roll
        assert mover is not None
        ocv, occluded = self.options.rules.on_checker_valid, obs.reading.occluded
        call = throws.call_roll(dice, mover, self.options.orientation, ocv, occluded)
        return self._act_on(obs, dice, call, self._roll_of, mover)

    def _act_on(
        self, obs: Observation, dice: Dice, call: throws.Call, take: Roll, mover: Side | None = None
    ) -> list[Say]:
        """Does what the call on a throw says; ``take`` plays the numbers it names."""
        self.call = call
        # a throw waited on, or asked about (the table may find a face other than the one named), may be
        # played anyway: its play then names the roll (``_played_unread``)
        waited = call.kind in (CallKind.WAIT, CallKind.ASK) and mover is not None and len(dice) in (1, 2)
        self.watch.unread = dice if waited else None
        # the throw as it lies, for the faces the table may confirm of dice the reader was unsure of
        seen = (dice, obs.die_crops) if obs.die_crops is not None else None
        self.watch.throw_seen = seen if call.kind in (CallKind.WAIT, CallKind.ASK) else None
        if call.kind is CallKind.REROLL:
            self.throws.call_again(dice)
            self._log(Entry("reroll", obs.t, side=mover, text=call.reason), evidence=obs)
            return [Say(Signal.REROLL, call.reason)]
        if call.kind is CallKind.WAIT:
            return self._cannot_see_dice(obs, call.reason)
        a, b = call.dice
        if call.kind is CallKind.ASK:
            return self._ask_dice(obs, dice, call.reason, lambda t: take(a, b, dice, t))
        said = take(a, b, dice, obs.t)
        if None in throws.surely_read(dice):
            # a roll taken with a face read unsurely: a play that fits another face is asked about, and
            # the table's answer says which face it was (``_roll_corrected``)
            self.watch.throw_seen = seen
        return said

    def _unread_played(self, reading: BoardReading) -> bool:
        """Whether a throw the referee waits on, unable to read it, has been lifted from where it lay and
        the board no longer shows the position it was thrown on: it was played. (What else the reader
        takes for dice then does not count: checkers that moved since the turn's still change the frame
        as a die does.)"""
        waited = self.watch.unread
        if waited is None or self.game is None:
            return False
        if any(throws.lies_among(d, waited, self.throws.tolerance) for d in reading.dice):
            return False
        return not shows(reading, self.options.orientation, self.game.board)

    def _played_unread(self, obs: Observation) -> list[Say]:
        """A throw the referee could not read, or asked about, played anyway: the likeliest roll the board
        fits (a die not read surely may show any face) is asked about (``referee.unread``); where several
        fit, each left unanswered for ``ANSWER_WAIT`` seconds makes way for the next, round and round;
        asked afresh when the board changes to fit others."""
        w, reading = self.watch, obs.reading
        assert w.unread is not None and reading is not None and self.game is not None
        mover = self.game.on_roll
        assert mover is not None
        next_half = self.options.orientation.throwing_half(mover.other)
        if w.thrown_early is None:
            # dice already lying in the next roller's half were thrown before this throw was lifted: those
            # the reader made a face out of, if only unsurely (a find with no face at all may be a checker
            # that moved)
            w.thrown_early = tuple(
                d for d in reading.dice if d.half is next_half and throws.face(d) is not None
            )
        asked = w.roll_from_play
        if (
            asked is not None
            and asked.sure
            and len(w.fits) == 1
            and self._thrown_since(reading, next_half, w.thrown_early)
        ):
            # the table played on without answering: once the next roller throws, a play stands (one
            # read doubtfully waits for ACCEPT: which position stands is the table's to say; so does one
            # several rolls fit: which was thrown, only the table can say)
            return self._roll_from_play(obs.t, by_throw=True)
        seen = (reading, self.options.orientation, mover, self.game.board)
        faces = tuple(d.value for d in w.unread)
        likeliest = tuple(d.likeliest for d in w.unread if d.value is None)
        played = unread.roll_played(*seen, faces, likeliest)
        wide = throws.surely_read(w.unread)
        if not played.fits and faces != wide:
            # a face read less than surely may be another: the rolls it allows too, its own first
            played = unread.roll_played(*seen, wide, likeliest + tuple(f for f in faces if f is not None))
        fits = played.fits
        if fits and not fits[0].sure:
            # a doubtful count: asked about only once it has stayed so a while, as any unclear play
            w.unclear_since = obs.t if w.unclear_since is None else w.unclear_since
            if obs.t - w.unclear_since < self.options.unclear_after:
                return []
        else:
            w.unclear_since = None
        if not fits:
            # no question stands on a board no roll fits (ACCEPT must not take a play no longer shown)
            w.fits, w.roll_from_play = [], None
            return [] if self.options.rules.tournament_mode else self._unread_illegal(obs, played.illegal)
        w.illegal_run = []
        fresh = fits != w.fits
        if fresh:
            w.fits, ask = fits, fits[0]
        elif asked is not None and len(fits) > 1 and obs.t - w.fit_asked >= ANSWER_WAIT:
            ask = fits[(fits.index(asked) + 1) % len(fits)]  # left unanswered: the next roll it fits
        else:
            return []
        w.roll_from_play, w.fit_asked = ask, obs.t
        others = [f.roll for f in fits if f is not ask]
        text = narration.ask_roll_from_play(mover, ask.roll, ask.play.text, others)
        if fresh:  # the record keeps the question once, not every turn of it
            self._log(Entry("unclear", obs.t, verdict=Verdict.UNCLEAR, reason=text, text=text), evidence=obs)
        return [Say(Signal.CANNOT_SEE, text)]

    def _unread_illegal(self, obs: Observation, board: Board | None) -> list[Say]:
        """A play after a throw the referee could not read that no roll the dice may have shown allows
        (``board``, read surely; a die read less surely than ``throws.SURE_ROLL`` may show any face):
        illegal whatever was thrown, called once the board has held for ``illegal_frames`` settled
        frames, as any illegal play is. The position before the roll is restored and the throw played
        again, and the new play is followed as this one was. Under a tournament's policies the play is
        left to the players (nothing is called)."""
        w, reading, game = self.watch, obs.reading, self.game
        assert reading is not None and game is not None and game.on_roll is not None
        if w.unread_illegal:
            return []
        if board is None or not w.illegal_holds(board, obs.t, False, self.options):
            return []
        w.unread_illegal, w.illegal_run = True, []
        sure = differences(game.board, reading, self.options.orientation, sure_only=True)
        reason = "no roll the dice may have shown allows it (a die could not be read)"
        text = narration.illegal(game.on_roll, None, reason, False, [d.fix for d in sure])
        entry = Entry("illegal", obs.t, game.on_roll, None, None, Verdict.ILLEGAL, text, text)
        self._log(entry, evidence=obs, board=board)
        return [Say(Signal.ILLEGAL, text)]

    def _unread_restored(self, obs: Observation) -> list[Say]:
        """The position before a throw not read is back after its play was called illegal: the throw is
        played again, and followed as before."""
        assert self.game is not None and self.game.on_roll is not None
        self.watch.unread_illegal = False
        self.watch.fits, self.watch.roll_from_play = [], None
        text = narration.restored(self.game.on_roll, None)
        self._log(Entry("restored", obs.t, side=self.game.on_roll, text=text))
        return [Say(Signal.ROLL_OK, text)]

    def _thrown_since(self, reading: BoardReading, half: Half, early: Dice) -> bool:
        """Whether the next roller's own throw has settled in its ``half``: two dice read there that are
        not the ``early`` ones (what else the reader takes for a die, unread, is a checker that moved:
        see ``_unread_played``)."""
        tolerance = self.throws.tolerance
        new = tuple(
            d
            for d in reading.dice
            if d.half is half and d.value is not None and not throws.lies_among(d, early, tolerance)
        )
        settled = self.throws.settle(new)
        return settled is not None and len(settled) == 2

    def _roll_from_play(self, t: float | None, by_throw: bool = False) -> list[Say]:
        """The table says it threw the roll its play fits, or (``by_throw``) the next roller threw
        without answering, which by the rules makes the play stand: the roll and the play are recorded."""
        w = self.watch
        assert self.game is not None and w.roll_from_play is not None
        roll, play = w.roll_from_play.roll, w.roll_from_play.play
        mover = self.game.on_roll
        assert mover is not None
        events = self.game.roll(*roll)
        if by_throw:
            text = narration.roll_from_play_by_throw(mover, roll, play.text)
        else:
            text = narration.roll_from_play(mover, roll)
        taught = self._taught(lambda seen: throws.faces_played(throws.surely_read(seen), roll))
        self._log(Entry("confirmed", t, side=mover, dice=roll, text=text), taught=taught)
        out = [Say(None, text)] + self._record_events(events, t)
        self.roll_faces = None
        # the dice that lay in the next roller's half when this throw was first seen lifted were thrown
        # too early, if they still lie there; a throw since is the next roller's own, read afresh
        seen = self.seen.dice if self.seen is not None else ()
        early = tuple(d for d in seen if throws.lies_among(d, w.thrown_early or (), self.throws.tolerance))
        self.throws.lifted(early, self.options.orientation.throwing_half(mover))
        board = Board.from_position(play.result, mover)
        return out + self._legal(Explanation(Verdict.LEGAL, play, board, "confirmed by the table"), t)

    def _opening_roll(self, light: int, dark: int, dice: Dice, t: float | None) -> list[Say]:
        assert self.game is not None
        events = self.game.opening_roll(light, dark)
        if light == dark:
            self.throws.call_again(dice)
            out = self._record_events(events, t)
            return [Say(Signal.REROLL, out[0].text)] + out[1:]
        self.throws.counted(dice)
        return self._rolled(events, t)

    def _roll_of(self, d1: int, d2: int, dice: Dice, t: float | None) -> list[Say]:
        assert self.game is not None
        self.throws.counted(dice)
        said = self._rolled(self.game.roll(d1, d2), t)
        # a die with no face read was asked about, and the table confirmed every face: a sure roll
        confirmed = any(d.value is None for d in dice)
        self.roll_faces = None if confirmed else tuple(throws.faces(d) for d in dice)
        return said

    def _ask_dice(self, obs: Observation, dice: Dice, text: str, take: TakeDice) -> list[Say]:
        """Dice the reader is not sure of: a die that may lean, or a face too unclear to count. The referee
        never takes a roll it is not sure of: it asks the table once what the dice show (amber); ACCEPT
        takes the likeliest faces, and a die that leans is thrown again (a new throw, read afresh)."""
        asked = self.watch.dice_question
        if asked is not None and throws.same_dice(dice, asked[0], self.throws.tolerance):
            return []
        self.watch.dice_question = (dice, take)
        self._log(Entry("unclear", obs.t, text=text), evidence=obs)
        return [Say(Signal.CANNOT_SEE, text)]

    def _rolled(self, events: list[Event], t: float | None) -> list[Say]:
        """After a valid roll: record it, and wait for the play (or pass the turn)."""
        assert self.game is not None
        out = self._record_events(events, t)
        out = [Say(Signal.ROLL_OK, out[0].text)] + out[1:]
        self.watch = Watch()
        self.roll_faces = None  # until the roll's own dice say otherwise (``_roll_of``)
        if self.game.over:  # a pending illegal play that bore off the last checker stood
            return out + self._game_over(t)
        # no legal move: the turn has passed at once; the table is told when the dice are lifted
        self.stage = Stage.PLAY if self.game.phase is Phase.PLAY else Stage.PASSED
        return out

    def _cannot_see_dice(self, obs: Observation, text: str) -> list[Say]:
        if self.watch.said_cannot_see:
            return []
        self.watch.said_cannot_see = True
        self._log(Entry("unclear", obs.t, text=text), evidence=obs)
        return [Say(Signal.CANNOT_SEE, text)]

    # ---- the play ---------------------------------------------------------------------------------

    def _play(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        mover = self.game.on_roll
        assert mover is not None
        if not self.throws.lifted(obs.reading.dice, self.options.orientation.throwing_half(mover)):
            self.watch = Watch()
            return []
        return self._judge(obs, mover, replay=False)

    def _passed(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        nxt = self.game.on_roll
        assert nxt is not None
        if not self.throws.lifted(obs.reading.dice, self.options.orientation.throwing_half(nxt.other)):
            return []
        self.stage = Stage.ROLL
        self.throws.forget()
        out = [Say(Signal.READY, f"{self.game.status()}")]
        if self.throws.early:
            self.throws.early = False
            out.append(Say(Signal.REROLL, narration.too_early(nxt)))
        return out

    def _judge(self, obs: Observation, mover: Side, replay: bool) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        seen = self._explain(obs.reading, mover)
        w = self.watch
        if (
            replay
            and seen.legal
            and seen.play
            and shows(obs.reading, self.options.orientation, self.game.board)
        ):
            # the restored position fits what is seen as well as the legal result: the play may not have
            # been made again yet, and no rule tells the two apart (asked about once it lasts)
            reason = "the board may still be as it was restored"
            seen = Explanation(Verdict.UNCLEAR, reason=reason, candidates=(seen.play,))
        if seen.verdict is Verdict.LEGAL:
            self.watch = Watch()
            return self._legal(seen, obs.t)
        if seen.verdict is not Verdict.ILLEGAL:
            w.illegal_run = []
            return self._unclear(obs, seen.reason, seen.candidates)
        w.unclear_since = None
        board = seen.board
        if board is not None and self.lesson is not None and self.lesson.untouched(board, self.game.board):
            return []  # a roll given with a set position: the board as set up is no play yet
        if board is None:
            return self._unclear(obs, "the board shows an illegal play but not clearly enough to say which")
        if not w.illegal_holds(board, obs.t, replay, self.options):
            return []
        misread = None if replay else self._misread(board)
        if misread is not None:
            return self._ask_roll(board, misread, obs)
        return self._illegal(board, obs)

    def _misread(self, board: Board) -> tuple[tuple[int, int], Play] | None:
        """Another roll the dice may have shown (a die was read unsurely) for which ``board`` is a legal
        result, and that play; None when there is none. Rolls that change one die come first."""
        assert self.game is not None
        mover, read = self.game.on_roll, self.game.dice
        if self.roll_faces is None or mover is None or read is None or len(self.roll_faces) != 2:
            return None
        before, after = self.game.board.position(mover), board.position(mover)
        first, second = self.roll_faces
        # every other roll, those that change one die first (sorted: the order is the same every time)
        others = sorted(
            {(a, b) for a in first for b in second if sorted((a, b)) != sorted(read)},
            key=lambda roll: ((roll[0] != first[0]) + (roll[1] != second[0]), roll),
        )
        for roll in others:
            play = next((p for p in legal_plays(before, roll) if p.result == after), None)
            if play is not None:
                return roll, play
        return None

    def _ask_roll(self, board: Board, misread: tuple[tuple[int, int], Play], obs: Observation) -> list[Say]:
        """A play illegal for the roll as read, legal for a roll the dice may have shown: never called
        illegal on that reading. The table is asked whether that was the roll (ACCEPT corrects the roll
        and the play stands); left unanswered for ``ANSWER_WAIT`` seconds, it is an illegal play."""
        assert self.game is not None and self.game.on_roll is not None and self.game.dice is not None
        w = self.watch
        if w.roll_question is None:
            w.roll_question = (*misread, obs.t)
            text = narration.ask_roll(self.game.on_roll, self.game.dice, misread[0])
            self._log(Entry("unclear", obs.t, verdict=Verdict.UNCLEAR, reason=text, text=text), evidence=obs)
            return [Say(Signal.CANNOT_SEE, text)]
        if obs.t - w.roll_question[2] < ANSWER_WAIT:
            return []
        w.roll_question = None
        return self._illegal(board, obs)

    def _roll_corrected(self, t: float | None) -> list[Say]:
        """The table says it threw the roll it was asked about: the roll read is taken back, that roll
        recorded in its place (both stay in the record), and the play stands as legal."""
        assert self.game is not None and self.watch.roll_question is not None
        roll, play, _ = self.watch.roll_question
        mover, read = self.game.on_roll, self.game.dice
        assert mover is not None and read is not None
        self.game.pop()
        events = self.game.roll(*roll)
        text = narration.roll_corrected(mover, read, roll)
        taught = self._taught(lambda seen: throws.faces_played(throws.surely_read(seen), roll))
        self._log(Entry("confirmed", t, side=mover, dice=roll, text=text), taught=taught)
        out = [Say(None, text)] + self._record_events(events, t)
        self.roll_faces = None
        if self.game.dice is None:
            # that roll has no move: the turn passed with it, and the dice are already lifted
            self.watch = Watch()
            self.stage = Stage.ROLL
            self.throws.forget()
            return out + [Say(Signal.READY, self.game.status())]
        board = Board.from_position(play.result, mover)
        return out + self._legal(Explanation(Verdict.LEGAL, play, board, "confirmed by the table"), t)

    def _explain(self, reading: BoardReading, mover: Side) -> Explanation:
        assert self.game is not None
        return self._explainer(reading, mover, self.game.board, self.game.dice, self.game.legal_plays)

    def _unclear(self, obs: Observation, reason: str, candidates: Sequence[Play] = ()) -> list[Say]:
        """Keeps looking; once it has lasted ``unclear_after`` seconds, asks the table (amber).

        When a few legal plays fit what can be seen, the question names the likeliest: the table
        confirms it with ACCEPT, or straightens the checkers so the referee can see.
        """
        w = self.watch
        if not w.ask_now(obs.t, self.options.unclear_after):
            return []
        named = None
        if 0 < len(candidates) <= MAX_QUESTION and self.stage in (Stage.PLAY, Stage.REPLAY):
            w.question = named = candidates[0]
        text = narration.cannot_judge(reason, named)
        self._log(Entry("unclear", obs.t, verdict=Verdict.UNCLEAR, reason=reason, text=text), evidence=obs)
        return [Say(Signal.CANNOT_SEE, text)]

    def _confirmed(self, t: float | None) -> list[Say]:
        """The table confirmed the play the referee asked about."""
        assert self.game is not None and self.watch.question is not None
        play = self.watch.question
        mover = self.game.on_roll
        assert mover is not None
        board = Board.from_position(play.result, mover)
        self._log(Entry("confirmed", t, side=mover, play=play.text, text=f"the table confirms {play.text}"))
        return self._legal(Explanation(Verdict.LEGAL, play, board, "confirmed by the table"), t)

    def _legal(self, seen: Explanation, t: float | None) -> list[Say]:
        assert self.game is not None and seen.play is not None
        self.watch = Watch()
        mover, dice = self.game.on_roll, self.game.dice
        assert mover is not None and dice is not None
        before = self.game.board.position(mover)
        judgement = self.game.play(seen.play.result)
        assert judgement.legal
        play_event = next(e for e in self.game.history[-3:] if e.kind is EventKind.PLAY)
        lines = narration.describe_play(mover, dice, before, seen.play)
        text = "\n".join(lines)
        self._log(Entry("play", t, mover, dice, play_event.play, Verdict.LEGAL, text=text))
        if self.game.over:
            return [Say(None, line) for line in lines] + self._game_over(t)
        self.stage = Stage.ROLL
        nxt = self.game.on_roll
        assert nxt is not None
        out = monitor.after_play(self.options.rules, lines, self.game.status())
        if self.throws.early:
            self.throws.early = False
            text = narration.thrown_before_lifted(nxt, mover)
            self._log(Entry("reroll", t, side=nxt, text=text))
            out.append(Say(Signal.REROLL, text))
        return out

    def _illegal(self, board: Board, obs: Observation) -> list[Say]:
        assert self.game is not None and obs.reading is not None
        mover, dice = self.game.on_roll, self.game.dice
        assert mover is not None and dice is not None
        before = self.game.board
        judgement = self.game.play(board)
        assert not judgement.legal
        self.watch.illegal_run = []
        self.watch.replay_board = (None, 0.0)
        waits = self.game.phase is Phase.ILLEGAL  # the tournament's policies leave it to the players
        self.stage = Stage.ACCEPT if waits else Stage.RESTORE
        # what to put back, from the cells the reader is sure of (a doubtful cell could mislead)
        sure = differences(before, obs.reading, self.options.orientation, sure_only=True)
        text = monitor.illegal_text(self.options.rules, mover, dice, judgement.reason, [d.fix for d in sure])
        entry = Entry("illegal", obs.t, mover, dice, None, Verdict.ILLEGAL, judgement.reason, text)
        self._log(entry, evidence=obs, board=board)
        if monitor.silent(self.options.rules):
            return monitor.kept(self, obs.t)
        return [Say(Signal.ILLEGAL, text)]

    def _restore(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        mover, dice = self.game.on_roll, self.game.dice
        assert mover is not None and dice is not None
        if not shows(obs.reading, self.options.orientation, self.game.board):
            return []
        self.stage = Stage.REPLAY
        self.watch = Watch()
        text = narration.restored(mover, dice)
        self._log(Entry("restored", obs.t, side=mover, dice=dice, text=text))
        return [Say(Signal.ROLL_OK, text)]

    def _replay(self, obs: Observation) -> list[Say]:
        assert obs.reading is not None and self.game is not None
        mover = self.game.on_roll
        assert mover is not None
        half = self.options.orientation.throwing_half(mover.other)
        if any(d.half == half for d in obs.reading.dice):
            # the opponent is throwing: the replayed play is finished, judge it now
            self.watch.replay_board = (self.watch.replay_board[0], -math.inf)
        return self._judge(obs, mover, replay=True)

    def _accept_wait(self, obs: Observation) -> list[Say]:
        """Tournament mode: the opponent's roll makes the illegal play stand; the pre-roll position
        back on the board means a correction."""
        assert obs.reading is not None and self.game is not None
        mover = self.game.on_roll
        assert mover is not None
        if not obs.reading.dice:
            if shows(obs.reading, self.options.orientation, self.game.board):
                out = self._record_events(self.game.demand_correction(), obs.t)
                self.stage = Stage.REPLAY
                self.watch = Watch()
                return out
            return []
        dice = self._new_throw(obs.reading)
        if dice is None:
            return []
        opponent = mover.other
        call = throws.call_answer(
            dice, opponent, self.options.orientation, self.options.rules.on_checker_valid
        )
        if call.kind is CallKind.REROLL:
            self.throws.call_again(dice)
            return [Say(Signal.REROLL, call.reason)]
        self.throws.counted(dice)
        d1, d2 = call.dice
        return self._rolled(self.game.roll(d1, d2, side=opponent), obs.t)

    # ---- the end of a game ------------------------------------------------------------------------

    def _game_over(self, t: float | None) -> list[Say]:
        assert self.game is not None and self.game.result is not None
        result = self.game.result
        self.match.finish(self.game)
        match_over = self.match.over
        self.stage = Stage.MATCH_OVER if match_over else Stage.OVER
        table = self.options.table
        score, length = self.match.score, self.options.match_length
        text = narration.game_over(result, score, length, match_over, table.names, table.practice)
        text = house.game_over(self, text)
        if self.journal and self.game_id is not None:
            history = [e.to_dict() for e in self.game.history]
            score = (self.score[0], self.score[1])
            self.journal.finish_game(self.game_id, result, score, resume.snapshot(self), history)
            if match_over and self.match_id is not None:
                self.journal.finish_match(self.match_id)
        self._log(Entry("result", t, side=result.winner, text=text))
        # the lights and the buzzer show a single, gammon or backgammon; the score (cube and all) is in words
        return [Say(Signal.GAME_OVER, text, result.winner, result.outcome.value)]

    def void_game(self) -> None:
        """The game in progress ends void (both players agreed: :mod:`referee.house`): recorded with no
        points, and the table sets up the starting position again."""
        assert self.game is not None
        history, game_id = [e.to_dict() for e in self.game.history], self.game_id
        self.game, self.match.current, self.stage = None, None, Stage.SETUP
        self._last_setup = ()
        if self.journal and game_id is not None:
            self.journal.void_game(game_id, history, resume.snapshot(self))

    def _new_game_button(self) -> list[Say]:
        if self.stage is Stage.MATCH_OVER:
            self.match = self._new_match()
            self.game_number = 0
            self.match_id = None
        self.stage = Stage.SETUP
        self.game = None
        self._last_setup = ()
        return [Say(None, f"new game: {self.setup_text}")]

    # ---- recording ------------------------------------------------------------------------------

    def explain(self, reading: BoardReading, mover: Side) -> Explanation:
        """Which legal play of the roll ``reading`` shows (the hint's view of the board)."""
        return self._explain(reading, mover)

    def record(self, entry: Entry, evidence: Observation | None = None) -> None:
        """Records one event of the session's seams (house, monitor, lesson), as it records its own."""
        self._log(entry, evidence)

    def record_events(self, events: list[Event], t: float | None) -> list[Say]:
        """Records game events of the session's seams; returns their words."""
        return self._record_events(events, t)

    def _record_events(self, events: list[Event], t: float | None) -> list[Say]:
        for e in events:
            self._log(Entry(e.kind.value, t, side=e.side, dice=e.dice, play=e.play, text=e.text))
        return [Say(None, e.text) for e in events]

    def _log(
        self,
        entry: Entry,
        evidence: Observation | None = None,
        board: Board | None = None,
        taught: Sequence[tuple[int, bytes]] = (),
    ) -> None:
        """Records one event with the board it leaves (the confirmed board unless ``board`` is given), the
        frame's evidence, the dice it ``taught`` the reader (``_taught``) and the session's state."""
        self.log.append((entry.kind, entry.text))
        if self.journal is None or self.game_id is None:
            return
        image = evidence.evidence() if evidence is not None and evidence.evidence is not None else None
        board = board or self.board
        on_roll = self.on_roll or Side.LIGHT
        self.journal.record(self.game_id, entry, board, on_roll, image, resume.snapshot(self), taught)

    def _taught(self, faces: Callable[[Dice], Sequence[int | None]]) -> list[tuple[int, bytes]]:
        """The dice of the throw the table has just confirmed that the reader was not sure of (below
        ``throws.SURE_ROLL``), each cut out of the frame it was waited on or asked about in, with the face
        ``faces`` gives it from that throw's dice (None: the answer does not say which face it shows)."""
        seen = self.watch.throw_seen
        if seen is None:
            return []
        dice, crops = seen
        wanted = throws.lessons(dice, faces(dice))
        images = crops([die for die, _ in wanted]) if wanted else []
        return [(face, png) for (_, face), png in zip(wanted, images, strict=True) if png is not None]
