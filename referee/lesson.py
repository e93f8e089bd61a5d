"""Teaching at the table: a position set up on the board, or a recorded game replayed on it.

A lesson rides on the session (``session.lesson``), so it runs through the frame loop ``referee run``
uses. Before it starts the session's setup check compares the board with :attr:`Lesson.board` and names
what is still wrong, as it does for the starting position; once the board matches, :meth:`Lesson.begin`
takes over.

- :class:`SetPosition` (``referee teach --position``): the session then referees the game from that
  position, with the roll given (the board as set up is no play yet) or thrown.
- :class:`Replay` (``referee teach --replay``): the session steps through a recorded game
  (:func:`referee.steps.steps`). It announces each play; waits for the teacher to make it; checks the
  board from the camera (the position after the play, on settled frames in a row); names what is wrong,
  with what to fix, once a board that surely differs has stood for ``replay_wait`` seconds (a play being
  made is left alone); and asks the table (amber) when it cannot see well enough for ``unclear_after``
  seconds, which ACCEPT answers ("it is made"). A doubtful reading is never called wrong.

    >>> from referee.notation.matfile import Action, GameRecord, MatchRecord
    >>> from referee.steps import steps
    >>> game = GameRecord((0, 0), (Action(0, "roll", (3, 1), "8/5 6/5"),))
    >>> Replay(steps(MatchRecord(1, ("Ann", "Bo"), (game,)), 1)).status()
    'step 1: light plays 3-1: 8/5 6/5'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from bgboard.layout import Board, Side
from hardware.signals import Button, Signal
from referee import narration
from referee.observe import Difference, differences, shows
from referee.steps import Step, StepKind
from referee.turns import Observation, Say, Stage

if TYPE_CHECKING:
    from referee.session import Session

__all__ = ["Lesson", "Replay", "SetPosition"]


class Lesson:
    """What every lesson tells the session; see the module doc."""

    board: Board  # what the teacher sets up first
    done: bool = False

    def instructions(self) -> str:
        """Which checkers go where, in plain words by point and colour."""
        return f"set up the position: {narration.layout_words(self.board)}"

    @property
    def setup_text(self) -> str:
        """How the setup check begins the list of what is still wrong."""
        return "set up the position"

    def begin(self, session: Session, t: float | None) -> list[Say]:
        raise NotImplementedError

    def observe(self, session: Session, obs: Observation) -> list[Say]:
        """A settled frame while the session is in :attr:`Stage.LESSON`."""
        return []

    def press(self, session: Session, button: Button, t: float | None) -> list[Say]:
        """A button while the session is in :attr:`Stage.LESSON`."""
        return [Say(None, f"{button.value}: not during the lesson; {self.status()}")]

    def untouched(self, board: Board, game_board: Board) -> bool:
        """The board seen after a given roll is still the one set up: no play yet."""
        return False

    def shift(self, seconds: float) -> None:
        """The referee was paused for ``seconds``: its waits start that much later."""

    def status(self) -> str:
        return "setting up the lesson's position"


class SetPosition(Lesson):
    """Set up ``board``; then ``on_roll`` plays ``dice`` (the roll given) or throws (``dice`` None)."""

    def __init__(self, board: Board, on_roll: Side, dice: tuple[int, int] | None = None) -> None:
        self.board = board
        self.on_roll = on_roll
        self.dice = dice

    def instructions(self) -> str:
        who = self.on_roll.value
        roll = f"{who} to play {narration.dice_text(self.dice)}" if self.dice else f"{who} to roll"
        return f"{super().instructions()}; then {roll}"

    def begin(self, session: Session, t: float | None) -> list[Say]:
        return session.start_from(self.board, self.on_roll, t, dice=self.dice)

    def untouched(self, board: Board, game_board: Board) -> bool:
        return self.dice is not None and board == self.board == game_board


class Replay(Lesson):
    """The steps of a recorded game (the last one is its end), made on the board one by one."""

    def __init__(self, steps: Sequence[Step], title: str = "") -> None:
        if not steps or steps[-1].kind is not StepKind.END:
            raise ValueError("a replayed game needs its steps, ending with the END step")
        self.steps = list(steps)
        self.title = title
        self.board = steps[0].before
        self.at = 0  # the step waited for
        self._reset()

    @property
    def setup_text(self) -> str:
        return "set up the starting position" if self.board == Board.start() else "set up the position"

    def instructions(self) -> str:
        if self.board == Board.start():
            return "set up the starting position"
        return super().instructions()

    def _reset(self) -> None:
        self.made_run = 0  # settled frames in a row that show the step made
        self.wrong_since: float | None = None  # since when the board surely differs from the step
        self.told: tuple[Difference, ...] = ()  # what the table was last told is wrong
        self.unclear_since: float | None = None
        self.asked = False

    @property
    def step(self) -> Step:
        return self.steps[self.at]

    def begin(self, session: Session, t: float | None) -> list[Say]:
        self.at, self.done = 0, False
        self._reset()
        session.stage = Stage.LESSON
        head = f"the lesson: {self.title}. " if self.title else ""
        return self._next(session, head)

    def status(self) -> str:
        if self.done:
            return f"the lesson is over: {self.step.text}"
        return f"step {self.step.number}: {self.step.text}"

    # ---- the board --------------------------------------------------------------------------------

    def observe(self, session: Session, obs: Observation) -> list[Say]:
        reading = obs.reading
        assert reading is not None
        if self.done:
            return []
        options, step = session.options, self.step
        o = options.orientation
        if shows(reading, o, step.after):
            self.made_run += 1
            return self._made(session) if self.made_run >= options.illegal_frames else []
        self.made_run = 0
        if shows(reading, o, step.before):  # the play not begun: nothing to say yet
            self.wrong_since = self.unclear_since = None
            return []
        wrong = tuple(differences(step.after, reading, o, sure_only=True))
        if wrong:
            self.unclear_since = None
            if self.wrong_since is None:
                self.wrong_since = obs.t
            if obs.t - self.wrong_since < options.replay_wait or wrong == self.told:
                return []  # a play being made; or the table has been told this already
            self.told = wrong
            return [Say(Signal.ILLEGAL, _not_made(step, wrong))]
        self.wrong_since = None
        if self.unclear_since is None:
            self.unclear_since = obs.t
        if self.asked or obs.t - self.unclear_since < options.unclear_after:
            return []
        self.asked = True
        return [
            Say(
                Signal.CANNOT_SEE,
                f"I cannot see the board well enough to check step {step.number}: straighten the checkers, "
                "or press ACCEPT if it is made",
            )
        ]

    def press(self, session: Session, button: Button, t: float | None) -> list[Say]:
        if self.done:
            return [Say(None, f"{button.value}: {self.status()}")]
        if button is Button.ACCEPT and self.asked:
            return [Say(None, f"the table confirms step {self.step.number}")] + self._made(session)
        if button is Button.HINT:
            still = f" (still wrong: {'; '.join(d.text for d in self.told)})" if self.told else ""
            return [Say(None, f"step {self.step.number}: {self.step.text}{still}")]
        return super().press(session, button, t)

    def shift(self, seconds: float) -> None:
        if self.wrong_since is not None:
            self.wrong_since += seconds
        if self.unclear_since is not None:
            self.unclear_since += seconds

    # ---- the steps --------------------------------------------------------------------------------

    def _made(self, session: Session) -> list[Say]:
        made = f"step {self.step.number} is made"
        self.at += 1
        self._reset()
        return [Say(None, made)] + self._next(session, "")

    def _next(self, session: Session, head: str) -> list[Say]:
        """Announces the steps up to the next play to be made (or the end)."""
        said = []
        while self.step.kind is StepKind.SAID:
            said.append(self.step.text)
            self.at += 1
        step = self.step
        text = head + "; ".join([*said, ""]) if said else head
        if step.kind is StepKind.PLAY:
            return [Say(Signal.READY, f"{text}step {step.number}: {step.text}")]
        self.done = True
        session.stage = Stage.MATCH_OVER
        result = step.result
        if result is None:
            return [Say(Signal.READY, f"{text}{step.text}. The lesson is over")]
        ending = f"{text}{step.text} ({result.text}). The lesson is over"
        return [Say(Signal.GAME_OVER, ending, result.winner, result.outcome.value)]


def _not_made(step: Step, wrong: Sequence[Difference]) -> str:
    seen = "; ".join(d.text for d in wrong)
    fixes = "; ".join(d.set_to for d in wrong)
    return f"step {step.number} is not made: {seen}; to make it: {fixes}"
