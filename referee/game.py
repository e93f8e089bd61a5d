"""One game of backgammon at the table: opening roll, turns, the cube, corrections and the result.

A :class:`Game` is driven by the actions the table takes, each a method; every action appends plain-data
:class:`Event` s to ``game.history`` (for the journal and the narration) and can be taken back with
:meth:`Game.pop`. State lives in an immutable snapshot, so taking back is exact.

    >>> game = Game()
    >>> [e.text for e in game.opening_roll(3, 1)]
    ['light 3, dark 1: light plays 3-1 first']
    >>> after = Position.from_points({24: 2, 13: 5, 8: 2, 6: 4, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 5})
    >>> game.play(after).play.text
    '8/5 6/5'
    >>> game.on_roll, game.phase
    (<Side.DARK: 'dark'>, <Phase.ROLL: 'roll'>)

Errors in the order of play (rolling out of turn, doubling after the roll) raise :class:`GameError`;
cube errors raise :class:`referee.cube.CubeError`. Both are ``ValueError`` s with the reason in words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from bgboard.layout import Board, Side
from bgboard.position import BAR, CHECKERS, Position
from referee.cube import Cube, CubeError
from referee.events import CONSEQUENCES, Event, EventKind
from referee.judge import Judgement, judge
from referee.moves import Play, legal_plays
from referee.rules_options import MovesRule, RuleOptions
from referee.scoring import GameResult, Outcome, classify


class GameError(ValueError):
    """An action out of the order of play, with what is expected instead."""


class Phase(Enum):
    OPENING = "opening"  # waiting for the opening roll, one die each
    ROLL = "roll"  # the side on roll may double, or roll
    DOUBLED = "doubled"  # a double is offered: the other side takes, beavers or drops
    PLAY = "play"  # the dice are thrown: the side on roll plays them
    ILLEGAL = "illegal"  # tournament policies: an illegal play waits for the opponent's word or a question
    OVER = "over"


@dataclass(frozen=True, slots=True)
class PendingIllegal:
    """An illegal play on the table (tournament policies), waiting for the opponent's word, a player's
    question, or the opponent's roll that makes it stand."""

    board: Board  # the board as the illegal play left it
    judgement: Judgement


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything a game is at one moment; actions replace it, :meth:`Game.pop` restores it."""

    board: Board
    cube: Cube
    on_roll: Side | None = None
    phase: Phase = Phase.OPENING
    dice: tuple[int, int] | None = None
    automatic_doubles: int = 0
    correction: Judgement | None = None  # house remedy: the refused play; the same dice are replayed
    pending: PendingIllegal | None = None
    result: GameResult | None = None
    turns: int = 0  # rolls thrown, the opening roll included


def _dice_text(dice: tuple[int, int]) -> str:
    return f"{max(dice)}-{min(dice)}"


def _check_die(d: object, what: str) -> int:
    if type(d) is not int or not 1 <= d <= 6:
        raise GameError(f"{what} must be a whole number from 1 to 6, got {d!r}")
    return d


@dataclass(eq=False)
class Game:
    """A game at the table. ``money`` = a money game (Jacoby, beavers and automatic doubles apply);
    ``crawford`` = the Crawford game of a match (no doubling).

    A game may start from any board with ``on_roll`` set (it then skips the opening roll).
    """

    options: RuleOptions = field(default_factory=RuleOptions)
    money: bool = True
    crawford: bool = False
    start: Board = field(default_factory=Board.start)
    first: Side | None = None  # the side on roll when starting from a set position
    history: list[Event] = field(default_factory=list, init=False)
    _state: GameState = field(init=False, repr=False)
    _undo: list[tuple[GameState, int]] = field(default_factory=list, init=False, repr=False)
    _plays: tuple[tuple[Board, Side, tuple[int, int]], list[Play]] | None = field(
        default=None, init=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.options.cubeless:
            disabled: str | None = (
                "cubeless match: no doubling" if not self.money else "cubeless game: no doubling"
            )
        elif self.crawford:
            disabled = "no doubling in the Crawford game"
        else:
            disabled = None
        cube = Cube(max_value=self.options.max_cube, disabled=disabled)
        phase = Phase.OPENING if self.first is None else Phase.ROLL
        self._state = GameState(self.start, cube, self.first, phase)

    # ---- what the game is now -------------------------------------------------------------------

    @property
    def state(self) -> GameState:
        return self._state

    @property
    def board(self) -> Board:
        """The confirmed board: before the roll while a correction or an illegal play is pending."""
        return self._state.board

    @property
    def on_roll(self) -> Side | None:
        return self._state.on_roll

    @property
    def phase(self) -> Phase:
        return self._state.phase

    @property
    def cube(self) -> Cube:
        return self._state.cube

    @property
    def dice(self) -> tuple[int, int] | None:
        return self._state.dice

    @property
    def result(self) -> GameResult | None:
        return self._state.result

    @property
    def over(self) -> bool:
        return self._state.phase is Phase.OVER

    @property
    def pending_correction(self) -> Judgement | None:
        """House remedy: the judgement of the refused play while the same dice wait to be replayed."""
        return self._state.correction

    @property
    def pending_illegal(self) -> PendingIllegal | None:
        return self._state.pending

    @property
    def position(self) -> Position:
        """The board from the side on roll (from light before the opening roll)."""
        return self.board.position(self.on_roll or Side.LIGHT)

    def status(self) -> str:
        """What the table waits for, in words."""
        s = self._state
        if s.phase is Phase.OPENING:
            return "opening roll: one die each"
        assert s.on_roll is not None
        who = s.on_roll.value
        if s.phase is Phase.ROLL:
            may = " (or double)" if self._why_no_double(s.on_roll) is None else ""
            return f"{who} to roll{may}"
        if s.phase is Phase.DOUBLED:
            return f"{who} doubles to {s.cube.value * 2}: {s.on_roll.other.value} to take or drop"
        if s.phase is Phase.PLAY:
            assert s.dice is not None
            again = " again from the position before the roll" if s.correction else ""
            return f"{who} to play {_dice_text(s.dice)}{again}"
        if s.phase is Phase.ILLEGAL:
            return f"{who}'s play is illegal: {s.on_roll.other.value} may accept it or demand a correction"
        assert s.result is not None
        return s.result.text

    def legal_plays(self) -> list[Play]:
        """Every legal play of the current roll (one per resulting position); computed once per roll."""
        s = self._state
        if s.phase not in (Phase.PLAY, Phase.ILLEGAL) or s.dice is None or s.on_roll is None:
            raise GameError(f"no roll to play: {self.status()}")
        key = (s.board, s.on_roll, s.dice)
        if self._plays is None or self._plays[0] != key:
            self._plays = (key, legal_plays(s.board.position(s.on_roll), s.dice))
        return list(self._plays[1])  # a copy: the cache must not change under the game

    # ---- actions --------------------------------------------------------------------------------

    def opening_roll(self, light_die: int, dark_die: int) -> list[Event]:
        """One die each: a tie is thrown again (with automatic doubles, the cube doubles, centred);
        otherwise the higher die's owner plays both numbers."""
        s = self._require(Phase.OPENING, "opening roll")
        _check_die(light_die, "light's die")
        _check_die(dark_die, "dark's die")
        cube = s.cube
        if light_die == dark_die:
            events = [
                self._event(
                    EventKind.OPENING_TIE,
                    None,
                    f"light {light_die}, dark {dark_die}: a tie, throw again",
                    cube,
                    dice=(light_die, dark_die),
                )
            ]
            automatic = s.automatic_doubles
            if (
                self.money
                and self.options.automatic_doubles
                and cube.disabled is None
                and automatic < self.options.automatic_double_cap
                and cube.value * 2 <= cube.max_value
            ):
                cube = cube.automatic_double()
                automatic += 1
                events.append(
                    self._event(
                        EventKind.AUTOMATIC_DOUBLE,
                        None,
                        f"automatic double: the cube goes to {cube.value}",
                        cube,
                    )
                )
            return self._commit(replace(s, cube=cube, automatic_doubles=automatic), events)
        winner = Side.LIGHT if light_die > dark_die else Side.DARK
        dice = (max(light_die, dark_die), min(light_die, dark_die))
        text = f"light {light_die}, dark {dark_die}: {winner.value} plays {_dice_text(dice)} first"
        events = [self._event(EventKind.OPENING, winner, text, cube, dice=dice)]
        state = replace(s, on_roll=winner, dice=dice, phase=Phase.PLAY, turns=s.turns + 1)
        return self._commit(*self._after_roll(state, events))

    def roll(self, d1: int, d2: int, side: Side | None = None) -> list[Event]:
        """The side on roll throws ``d1``-``d2``; with no legal move the turn passes at once.

        In tournament mode, the opponent's roll makes a pending illegal play stand.
        """
        s, events = self._start_turn("roll", side)
        if s.phase is Phase.OVER:
            return self._commit(s, events)
        assert s.on_roll is not None
        if side is not None and side is not s.on_roll:
            raise GameError(f"{side.value} cannot roll: it is {s.on_roll.value}'s turn")
        dice = (_check_die(d1, "a die"), _check_die(d2, "a die"))
        events.append(
            self._event(
                EventKind.ROLL, s.on_roll, f"{s.on_roll.value} rolls {_dice_text(dice)}", s.cube, dice=dice
            )
        )
        state = replace(s, dice=dice, phase=Phase.PLAY, turns=s.turns + 1)
        return self._commit(*self._after_roll(state, events))

    def play(self, after: Board | Position | Play) -> Judgement:
        """Judges the play that left ``after`` (a board by colour, a position from the mover, or a
        :class:`Play`) and applies it when legal; the turn passes. An illegal play is refused and the
        same dice wait to be played again (house remedy, Legal Moves called at once), or, where the
        tournament's policies say so (:attr:`RuleOptions.pends_illegal`), waits on the table for the
        opponent's word (:meth:`accept_illegal`, :meth:`demand_correction`, or the opponent's roll)."""
        s = self._state
        if s.phase is Phase.ILLEGAL:
            raise GameError(self._illegal_waits())
        if s.phase is not Phase.PLAY:
            raise GameError(f"no roll to play: {self.status()}")
        target, board = self._target(after)
        plays = self.legal_plays()
        for p in plays:
            if p.result == target:
                return self._apply_legal(p, board, tuple(plays))
        assert s.on_roll is not None and s.dice is not None
        verdict = judge(s.board.position(s.on_roll), s.dice, target)
        if verdict.legal and verdict.play is not None:  # the judge knows better than the cache
            return self._apply_legal(verdict.play, board, verdict.alternatives)
        if self.options.pends_illegal:
            return self._pend(verdict, board)
        who = s.on_roll.value
        text = (
            f"illegal play by {who}: {verdict.reason}; restore the position before the roll "
            f"and play {_dice_text(s.dice)} again"
        )
        event = self._event(
            EventKind.ILLEGAL, s.on_roll, text, s.cube, dice=s.dice, reason=verdict.reason, board=board
        )
        self._commit(replace(s, correction=verdict), [event])
        return verdict

    def accept_illegal(self, by: Side | None = None) -> list[Event]:
        """Responsible Moves: the opponent accepts the illegal play; it stands and the turn passes."""
        s = self._state
        if s.phase is not Phase.ILLEGAL:
            raise GameError(f"no illegal play to accept: {self.status()}")
        self._check_opponent(s, by, "accept")
        assert s.on_roll is not None
        if self.options.moves is MovesRule.LEGAL:
            raise GameError(
                f"under Legal Moves an illegal play cannot be accepted: restore the position before the "
                f"roll and {s.on_roll.value} plays again, or it stands once {s.on_roll.other.value} rolls"
            )
        return self._commit(*self._stand(s, EventKind.ACCEPT_ILLEGAL, f"{s.on_roll.other.value} accepts it"))

    def demand_correction(self, by: Side | None = None) -> list[Event]:
        """A pending illegal play is to be corrected (the opponent demands it, or a player asked under
        Legal Moves): the pre-roll position comes back and
        the same dice are played again."""
        s = self._state
        if s.phase is not Phase.ILLEGAL or s.pending is None:
            raise GameError(f"no illegal play to correct: {self.status()}")
        self._check_opponent(s, by, "demand a correction of")
        assert s.on_roll is not None and s.dice is not None
        text = (
            f"{s.on_roll.other.value} demands a correction: restore the position before the roll "
            f"and {s.on_roll.value} plays {_dice_text(s.dice)} again"
        )
        event = self._event(EventKind.CORRECTION, s.on_roll.other, text, s.cube, dice=s.dice)
        return self._commit(
            replace(s, phase=Phase.PLAY, pending=None, correction=s.pending.judgement), [event]
        )

    def offer_double(self, by: Side | None = None) -> list[Event]:
        """The side on roll offers to double, before rolling. In tournament mode the opponent of a
        pending illegal play may double instead of rolling; the play then stands."""
        s, events = self._start_turn("double", by)
        if s.phase is Phase.OVER:
            return self._commit(s, events)
        assert s.on_roll is not None
        by = by or s.on_roll
        if by is not s.on_roll:
            raise GameError(f"{by.value} may not double now: only the side on roll doubles, before rolling")
        reason = self._why_no_double(by)
        if reason:
            raise CubeError(reason)
        cube = s.cube.double(by)
        text = f"{by.value} doubles to {cube.value * 2}"
        events.append(self._event(EventKind.DOUBLE, by, text, cube))
        return self._commit(replace(s, cube=cube, phase=Phase.DOUBLED), events)

    def take(self, by: Side | None = None) -> list[Event]:
        s = self._doubled(by, "take")
        cube = s.cube.take(by)
        assert cube.owner is not None
        text = f"{cube.owner.value} takes: the cube is at {cube.value}, {cube.owner.value} owns it"
        event = self._event(EventKind.TAKE, cube.owner, text, cube)
        return self._commit(replace(s, cube=cube, phase=Phase.ROLL), [event])

    def beaver(self, by: Side | None = None) -> list[Event]:
        """The doubled side takes and at once redoubles, keeping the cube (money games with beavers)."""
        s = self._doubled(by, "beaver")
        if not self.money:
            raise CubeError("beavers are for money games only")
        if not self.options.beavers:
            raise CubeError("beavers are not allowed: the table has not switched them on")
        cube = s.cube.beaver(by)
        assert cube.owner is not None
        text = f"{cube.owner.value} beavers: the cube is at {cube.value}, {cube.owner.value} owns it"
        event = self._event(EventKind.BEAVER, cube.owner, text, cube)
        return self._commit(replace(s, cube=cube, phase=Phase.ROLL), [event])

    def drop(self, by: Side | None = None) -> list[Event]:
        """The doubled side drops: the doubler wins the cube's value before the double."""
        s = self._doubled(by, "drop")
        assert s.cube.offered_by is not None
        value = s.cube.drop(by)
        doubler = s.cube.offered_by
        cube = replace(s.cube, offered_by=None)
        event = self._event(EventKind.DROP, doubler.other, f"{doubler.other.value} drops", cube)
        result = GameResult(doubler, Outcome.SINGLE, value, value, by_drop=True)
        return self._commit(*self._finish(replace(s, cube=cube), result, [event]))

    def resign(self, by: Side, outcome: Outcome = Outcome.SINGLE) -> list[Event]:
        """``by`` gives up the game at ``outcome``; the other side wins it times the cube."""
        s = self._state
        if s.phase is Phase.OVER:
            raise GameError(f"the game is over: {self.status()}")
        cube = replace(s.cube, offered_by=None)
        event = self._event(
            EventKind.RESIGN, by, f"{by.value} resigns a {outcome.word}", cube, outcome=outcome
        )
        result = self._score(by.other, outcome, cube, resigned=True)
        return self._commit(*self._finish(replace(s, cube=cube), result, [event]))

    # ---- taking back and replaying ---------------------------------------------------------------

    def pop(self) -> list[Event]:
        """Takes back the last action (with what followed from it, such as a pass); returns its events."""
        if not self._undo:
            raise GameError("nothing to take back: no action has been taken in this game")
        state, n = self._undo.pop()
        removed = self.history[n:]
        del self.history[n:]
        self._state = state
        return removed

    def replay(self, events: Iterable[Event | Mapping[str, Any]]) -> None:
        """Applies journaled events (from :attr:`history` or :meth:`Event.to_dict`) to this game, as
        after a restart; events that follow from others (passes, wins) are checked, not applied."""
        journal = [e if isinstance(e, Event) else Event.from_dict(e) for e in events]
        i = 0
        while i < len(journal):
            e = journal[i]
            if i >= len(self.history):
                if e.kind is EventKind.ILLEGAL_STANDS and i + 1 < len(journal):
                    self._replay_one(journal[i + 1])  # the roll or double that made the play stand
                elif e.kind in CONSEQUENCES:
                    raise GameError(
                        f"the journal does not replay: event {i + 1} ({e.kind.value}) has no cause"
                    )
                else:
                    self._replay_one(e)
            got = self.history[i].kind.value if i < len(self.history) else "nothing"
            if got != e.kind.value:
                raise GameError(
                    f"the journal does not replay: event {i + 1} is {e.kind.value}, the game gave {got}"
                )
            i += 1

    def _replay_one(self, e: Event) -> None:
        k = e.kind
        if k in (EventKind.OPENING_TIE, EventKind.OPENING):
            if e.dice is None:
                raise GameError(f"the journal's {k.value} event has no dice")
            a, b = e.dice
            if k is EventKind.OPENING and e.side is Side.DARK:
                a, b = b, a
            self.opening_roll(a, b)
        elif k is EventKind.ROLL:
            if e.dice is None:
                raise GameError("the journal's roll event has no dice")
            self.roll(*e.dice, side=e.side)
        elif k in (EventKind.PLAY, EventKind.ILLEGAL):
            if e.board is None:
                raise GameError(f"the journal's {k.value} event has no board")
            self.play(e.board)
        elif k is EventKind.ACCEPT_ILLEGAL:
            self.accept_illegal(e.side)
        elif k is EventKind.CORRECTION:
            self.demand_correction(e.side)
        elif k is EventKind.DOUBLE:
            self.offer_double(e.side)
        elif k is EventKind.TAKE:
            self.take(e.side)
        elif k is EventKind.BEAVER:
            self.beaver(e.side)
        elif k is EventKind.DROP:
            self.drop(e.side)
        elif k is EventKind.RESIGN:
            if e.side is None:
                raise GameError("the journal's resign event names no side")
            self.resign(e.side, e.outcome or Outcome.SINGLE)

    # ---- internals ------------------------------------------------------------------------------

    def _event(self, kind: EventKind, side: Side | None, text: str, cube: Cube, **kw: Any) -> Event:
        return Event(kind, side, text, cube=cube.value, owner=cube.owner, **kw)

    def _commit(self, state: GameState, events: list[Event]) -> list[Event]:
        self._undo.append((self._state, len(self.history)))
        self.history.extend(events)
        self._state = state
        return events

    def _require(self, phase: Phase, what: str) -> GameState:
        if self._state.phase is not phase:
            raise GameError(f"not the time for the {what}: {self.status()}")
        return self._state

    def _not_now(self, action: str, side: Side | None) -> str:
        s = self._state
        who = side.value if side else "nobody"
        if s.phase is Phase.OPENING:
            return f"{who} may {action} only after the opening roll (one die each) has been played"
        if s.phase is Phase.OVER:
            return f"the game is over: {self.status()}"
        if s.phase is Phase.DOUBLED:
            assert s.on_roll is not None
            return f"{s.on_roll.value} has doubled: {s.on_roll.other.value} must take or drop first"
        if s.phase is Phase.PLAY:
            assert s.on_roll is not None and s.dice is not None
            if action == "double":
                return f"{s.on_roll.value} has already rolled {_dice_text(s.dice)}: double before rolling"
            return f"{s.on_roll.value} has {_dice_text(s.dice)} to play first"
        return f"cannot {action} now: {self.status()}"

    def _illegal_waits(self) -> str:
        s = self._state
        assert s.on_roll is not None
        return (
            f"{s.on_roll.value}'s illegal play waits for {s.on_roll.other.value}: "
            "accept it, demand a correction, or roll"
        )

    def _why_no_double(self, by: Side) -> str | None:
        return self._state.cube.why_not_double(by)

    def _check_opponent(self, s: GameState, by: Side | None, action: str) -> None:
        assert s.on_roll is not None
        if by is not None and by is s.on_roll:
            raise GameError(f"only {s.on_roll.other.value} may {action} {s.on_roll.value}'s illegal play")

    def _doubled(self, by: Side | None, action: str) -> GameState:
        s = self._state
        if s.phase is not Phase.DOUBLED:
            raise CubeError(f"no double to {action}: nobody has offered the cube")
        assert s.on_roll is not None
        if by is not None and by is s.on_roll:
            raise GameError(f"{by.value} doubled and cannot {action} its own double")
        return s

    def _target(self, after: Board | Position | Play) -> tuple[Position, Board]:
        mover = self._state.on_roll
        assert mover is not None
        if isinstance(after, Play):
            after = after.result
        if isinstance(after, Position):
            return after, Board.from_position(after, mover)
        if isinstance(after, Board):
            return after.position(mover), after
        raise GameError(f"a play is given as a Board, a Position or a Play, not {type(after).__name__}")

    def _after_roll(self, s: GameState, events: list[Event]) -> tuple[GameState, list[Event]]:
        """Passes the turn at once when the roll has no legal move."""
        assert s.on_roll is not None and s.dice is not None
        key = (s.board, s.on_roll, s.dice)
        self._plays = (key, legal_plays(s.board.position(s.on_roll), s.dice))
        plays = self._plays[1]
        if len(plays) == 1 and not plays[0].moves:
            who = s.on_roll.value
            what = "enter from the bar" if s.board.counts(s.on_roll)[BAR] else "move"
            text = f"{who} cannot {what}: {_dice_text(s.dice)} is blocked"
            events.append(self._event(EventKind.PASS, s.on_roll, text, s.cube, dice=s.dice, play=""))
            s = replace(s, on_roll=s.on_roll.other, dice=None, phase=Phase.ROLL, correction=None)
        return s, events

    def _apply_legal(self, p: Play, board: Board, alternatives: tuple[Play, ...]) -> Judgement:
        s = self._state
        assert s.on_roll is not None and s.dice is not None
        mover = s.on_roll
        again = " (corrected)" if s.correction else ""
        moves = p.text  # formatted on every call: once is enough
        text = f"{mover.value} plays {_dice_text(s.dice)}: {moves}{again}"
        events = [self._event(EventKind.PLAY, mover, text, s.cube, dice=s.dice, play=moves, board=board)]
        state = replace(s, board=board, correction=None)
        self._commit(*self._end_of_turn(state, events))
        return Judgement(True, p, "legal", alternatives)

    def _pend(self, verdict: Judgement, board: Board) -> Judgement:
        s = self._state
        assert s.on_roll is not None and s.dice is not None
        other = s.on_roll.other.value
        if self.options.moves is MovesRule.RESPONSIBLE:
            remedy = f"{other} may accept it or demand a correction (it stands once {other} rolls)"
        else:
            remedy = f"it is corrected if a player asks before {other} rolls (it stands once {other} rolls)"
        text = f"illegal play by {s.on_roll.value}: {verdict.reason}; {remedy}"
        event = self._event(
            EventKind.ILLEGAL, s.on_roll, text, s.cube, dice=s.dice, reason=verdict.reason, board=board
        )
        self._commit(
            replace(s, phase=Phase.ILLEGAL, pending=PendingIllegal(board, verdict), correction=None), [event]
        )
        return verdict

    def _start_turn(self, action: str, side: Side | None) -> tuple[GameState, list[Event]]:
        """Checks that ``action`` (roll or double) may start a turn now. In tournament mode a pending
        illegal play stands once its opponent rolls or doubles instead of answering it."""
        s = self._state
        if s.phase is Phase.ILLEGAL:
            assert s.on_roll is not None
            if side is s.on_roll:
                raise GameError(self._illegal_waits())
            return self._stand(s, EventKind.ILLEGAL_STANDS, f"{s.on_roll.other.value} {action}s")
        if s.phase is not Phase.ROLL:
            raise GameError(self._not_now(action, side))
        return s, []

    def _stand(self, s: GameState, kind: EventKind, why: str) -> tuple[GameState, list[Event]]:
        """The pending illegal play stands: its board becomes the game's and the turn passes."""
        assert s.pending is not None and s.on_roll is not None
        text = f"{why}: {s.on_roll.value}'s illegal play stands"
        events = [self._event(kind, s.on_roll.other, text, s.cube, dice=s.dice, board=s.pending.board)]
        return self._end_of_turn(replace(s, board=s.pending.board, pending=None), events)

    def _end_of_turn(self, s: GameState, events: list[Event]) -> tuple[GameState, list[Event]]:
        assert s.on_roll is not None
        mover = s.on_roll
        if s.board.off(mover) == CHECKERS:
            result = self._score(mover, classify(s.board, mover), s.cube)
            return self._finish(s, result, events)
        return replace(s, on_roll=mover.other, dice=None, phase=Phase.ROLL), events

    def _score(self, winner: Side, outcome: Outcome, cube: Cube, resigned: bool = False) -> GameResult:
        jacoby = (
            self.money
            and self.options.jacoby
            and not self.options.cubeless
            and cube.owner is None
            and outcome is not Outcome.SINGLE
        )
        counted = Outcome.SINGLE if jacoby else outcome
        return GameResult(
            winner, outcome, cube.value, counted.value * cube.value, resigned=resigned, jacoby=jacoby
        )

    def _finish(self, s: GameState, result: GameResult, events: list[Event]) -> tuple[GameState, list[Event]]:
        events.append(
            self._event(
                EventKind.WIN,
                result.winner,
                result.text,
                s.cube,
                points=result.points,
                outcome=result.outcome,
            )
        )
        return replace(s, phase=Phase.OVER, result=result, dice=None, pending=None, correction=None), events
