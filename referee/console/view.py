"""What the console shows of a session, copied out of it in the frame loop's thread.

The session is a state machine the frame loop changes between frames; the console's web thread never
touches it. After each frame the loop's thread takes a :class:`TableView`: immutable values only (the
game's state is itself an immutable snapshot), so copying costs a few microseconds and the web thread
may read it at leisure.

    >>> from bgboard.layout import Orientation
    >>> from referee.session import Session, SessionOptions
    >>> builder = ViewBuilder()
    >>> view = builder.view(Session(SessionOptions(Orientation.BOTTOM_RIGHT, match_length=3)))
    >>> view.stage_words, view.match_length, view.can_configure
    ('waiting for the starting position', 3, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from bgboard.layout import Board, Orientation, Side
from referee.events import Event
from referee.game import GameState
from referee.moves import Play
from referee.notation.match_id import MatchState
from referee.rules_options import RuleOptions
from referee.session import Session
from referee.turns import Stage

# The stage in words: what the table is waiting for. A stage missing here (a new one) is shown by the
# session's own status line.
STAGE_WORDS = {
    Stage.SETUP: "waiting for the starting position",
    Stage.OPENING: "waiting for the opening roll: one die each",
    Stage.ROLL: "waiting for {side} to roll",
    Stage.DOUBLED: "waiting for {other} to take or drop",
    Stage.PLAY: "waiting for the dice to be lifted",
    Stage.RESTORE: "waiting for the position before the roll to be restored",
    Stage.REPLAY: "waiting for {side} to play the same numbers again",
    Stage.ACCEPT: "waiting for {other} to accept the illegal play, or to demand a correction",
    Stage.PASSED: "no legal move: waiting for the dice to be lifted",
    Stage.OVER: "game over: waiting for the starting position of the next game",
    Stage.MATCH_OVER: "the match is over: new game starts another",
}

# the record's kinds that are a verdict on a play
VERDICTS = {"play": "legal", "confirmed": "legal", "illegal": "illegal", "unclear": "unclear"}


@dataclass(frozen=True)
class LastVerdict:
    """The last call on a play: ``verdict`` is legal, illegal or unclear; ``text`` says why."""

    verdict: str
    text: str


@dataclass(frozen=True)
class TableView:
    """The session at one moment, in immutable values (see the module doc)."""

    stage: Stage
    stage_words: str
    status: str
    orientation: Orientation
    board: Board  # the confirmed board
    on_roll: Side | None
    game: GameState | None
    crawford: bool
    game_number: int
    score: tuple[int, int]
    match_length: int | None
    rules: RuleOptions
    match_state: MatchState | None  # the gnubg Match ID fields of the game in progress
    question: Play | None  # the play the table is asked to confirm with ACCEPT
    dice_question: tuple[int, ...] | None
    history: tuple[Event, ...]  # the game's events so far
    last_verdict: LastVerdict | None
    record_match: int | None  # the record's match and game numbers
    record_game: int | None
    can_configure: bool  # no game of the match has started: its settings may change


def stage_words(stage: Stage, on_roll: Side | None, status: str) -> str:
    """What the table waits for, in words.

    >>> stage_words(Stage.PLAY, Side.DARK, "dark to play 6-4")
    'waiting for the dice to be lifted'
    """
    words = STAGE_WORDS.get(stage)
    if words is None:
        return status
    if on_roll is None:
        return words.format(side="the player on roll", other="the opponent")
    return words.format(side=on_roll.value, other=on_roll.other.value)


class ViewBuilder:
    """Takes :class:`TableView` s of one session, remembering how far it has read the session's log."""

    def __init__(self) -> None:
        self._read = 0
        self._verdict: LastVerdict | None = None

    def view(self, session: Session) -> TableView:
        log = session.log
        if len(log) < self._read:  # a new session: read its log afresh
            self._read, self._verdict = 0, None
        for kind, text in log[self._read :]:
            if kind in VERDICTS:
                self._verdict = LastVerdict(VERDICTS[kind], text)
        self._read = len(log)
        game = session.game
        status = session.status()
        question = session.watch.question if session.question is not None else None
        match_state = session.match.match_state(game) if game is not None else None
        return TableView(
            stage=session.stage,
            stage_words=stage_words(session.stage, session.on_roll, status),
            status=status,
            orientation=session.options.orientation,
            board=session.board,
            on_roll=session.on_roll,
            game=game.state if game is not None else None,
            crawford=bool(game and game.crawford),
            game_number=session.game_number,
            score=(session.match.score[0], session.match.score[1]),
            match_length=session.options.match_length,
            rules=session.options.rules,
            match_state=match_state,
            question=question,
            dice_question=session.dice_question,
            history=tuple(game.history) if game is not None else (),
            last_verdict=self._verdict,
            record_match=session.match_id,
            record_game=session.game_id,
            can_configure=game is None and session.game_number == 0,
        )
