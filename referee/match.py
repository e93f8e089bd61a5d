"""A match to N points with the Crawford game, a money session (N = 0), or the seeds' house match.

    >>> match = Match(length=5)
    >>> game = match.new_game()
    >>> game.crawford
    False
    >>> match.record(GameResult(Side.LIGHT, Outcome.GAMMON, 2, 4))
    >>> match.score, match.new_game().crawford
    ((4, 0), True)

The Crawford game is the first game after either side reaches N-1 points: nobody may double in it; the
games after it (post-Crawford) are normal. ``Match.house()`` is the cubeless three-point match of the
seeds. The score is never capped: a match to 5 may end 6-2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bgboard.layout import Board, Side
from bgboard.position import PositionError
from referee.events import Event, EventKind
from referee.game import Game, GameError, Phase
from referee.moves import PlayParseError, apply_moves, parse_moves
from referee.notation.match_id import GAME_DROPPED, GAME_OVER, GAME_PLAYING, GAME_RESIGNED, MatchState
from referee.notation.matfile import UNKNOWN_PLAY, Action, GameRecord, MatchRecord, normalise_play
from referee.rules_options import RuleOptions
from referee.scoring import GameResult, Outcome

__all__ = ["FinishedGame", "Match", "MatchError", "Outcome", "GameResult"]


class MatchError(ValueError):
    """A match action out of order (a new game after the match is won, a negative length...)."""


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """One game of the match: the score before it, whether it was the Crawford game, how it ended."""

    number: int  # 1, 2, ...
    score: tuple[int, int]  # (light, dark) before the game
    crawford: bool
    result: GameResult
    history: tuple[Event, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "score": list(self.score),
            "crawford": self.crawford,
            "result": self.result.to_dict(),
            "history": [e.to_dict() for e in self.history],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FinishedGame:
        try:
            light, dark = (int(v) for v in data["score"])
            return cls(
                int(data["number"]),
                (light, dark),
                bool(data["crawford"]),
                GameResult.from_dict(data["result"]),
                tuple(Event.from_dict(e) for e in data.get("history", ())),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise MatchError(
                f"not a finished game ({e}): expected number, score, crawford and result"
            ) from None


def _index(side: Side) -> int:
    return 0 if side is Side.LIGHT else 1


@dataclass(eq=False)
class Match:
    """The score and the games of a match or a money session; ``players`` = (light's name, dark's)."""

    length: int = 0
    options: RuleOptions = field(default_factory=RuleOptions)
    players: tuple[str, str] = ("light", "dark")
    games: list[FinishedGame] = field(default_factory=list)
    current: Game | None = field(default=None, init=False)
    crawford_played: bool = False
    crawford_rule: bool = True  # False: no Crawford game (some online sites let a match switch it off)

    def __post_init__(self) -> None:
        if type(self.length) is not int or self.length < 0:
            raise MatchError(
                f"a match length is a whole number of points, 0 for a money session, got {self.length!r}"
            )

    @property
    def money(self) -> bool:
        return self.length == 0

    @property
    def score(self) -> tuple[int, int]:
        """(light's points, dark's points)."""
        light = sum(g.result.points for g in self.games if g.result.winner is Side.LIGHT)
        dark = sum(g.result.points for g in self.games if g.result.winner is Side.DARK)
        return light, dark

    def points(self, side: Side) -> int:
        return self.score[_index(side)]

    def away(self, side: Side) -> int:
        """Points ``side`` still needs (0 once it has won); a money session has no target."""
        if self.money:
            raise MatchError("a money session has no target score")
        return max(0, self.length - self.points(side))

    @property
    def winner(self) -> Side | None:
        if self.money:
            return None
        for side in Side:
            if self.points(side) >= self.length:
                return side
        return None

    @property
    def over(self) -> bool:
        return self.winner is not None

    @property
    def next_is_crawford(self) -> bool:
        """Whether the next game is the Crawford game: the first after a side reaches N-1."""
        if self.money or self.options.cubeless or not self.crawford_rule or self.crawford_played or self.over:
            return False
        return self.length > 1 and self.length - 1 in self.score  # a 1-point match has no Crawford game

    def new_game(self, start: Board | None = None, first: Side | None = None) -> Game:
        """The next game, with the match's options and the Crawford flag; it becomes :attr:`current`."""
        if self.over:
            assert self.winner is not None
            raise MatchError(f"the match is over: {self.winner.value} won {self.score_text()}")
        kw: dict[str, Any] = {"first": first}
        if start is not None:
            kw["start"] = start
        self.current = Game(self.options, money=self.money, crawford=self.next_is_crawford, **kw)
        return self.current

    def record(self, result: GameResult, game: Game | None = None) -> None:
        """Adds a finished game's result to the score (``game`` defaults to :attr:`current` when that is
        the game that ended so)."""
        if self.over:
            raise MatchError(f"the match is over: no more games can be recorded ({self.score_text()})")
        if game is None and self.current is not None and self.current.result == result:
            game = self.current
        crawford = game.crawford if game is not None else self.next_is_crawford
        history = tuple(game.history) if game is not None else ()
        self.games.append(FinishedGame(len(self.games) + 1, self.score, crawford, result, history))
        if crawford:
            self.crawford_played = True
        self.current = None

    def finish(self, game: Game) -> GameResult:
        """Records a game that is over; returns its result."""
        if game.result is None:
            raise MatchError(f"the game is not over yet: {game.status()}")
        self.record(game.result, game)
        return game.result

    def score_text(self) -> str:
        light, dark = self.score
        target = f" (match to {self.length})" if self.length else " (money)"
        return f"{self.players[0]} {light}, {self.players[1]} {dark}{target}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: enough to resume the match (the game in progress is journaled on its own)."""
        return {
            "length": self.length,
            "options": self.options.to_mapping(),
            "players": list(self.players),
            "crawford_played": self.crawford_played,
            "crawford_rule": self.crawford_rule,
            "games": [g.to_dict() for g in self.games],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Match:
        try:
            a, b = (str(p) for p in data.get("players", ("light", "dark")))
            return cls(
                int(data["length"]),
                RuleOptions.from_mapping(data.get("options", {})),
                (a, b),
                [FinishedGame.from_dict(g) for g in data.get("games", ())],
                crawford_played=bool(data.get("crawford_played", False)),
                crawford_rule=bool(data.get("crawford_rule", True)),
            )
        except (KeyError, TypeError) as e:
            raise MatchError(f"not a match ({e!r}): expected length, options, players and games") from None

    def match_state(self, game: Game | None = None) -> MatchState:
        """The gnubg Match ID fields of ``game`` (default :attr:`current`) in this match; player 0 = light.

        Pair it with the Position ID of ``game.position`` (the side on roll's view). The score is shown
        capped at the match length, as gnubg does.
        """
        game = game or self.current
        if game is None:
            raise MatchError("no game in progress: start one with new_game()")
        s = game.state
        on_roll = _index(s.on_roll) if s.on_roll is not None else 0
        waits_for_other = s.phase in (Phase.DOUBLED, Phase.ILLEGAL)
        if s.result is None:
            state = GAME_PLAYING
        else:
            state = GAME_DROPPED if s.result.by_drop else GAME_RESIGNED if s.result.resigned else GAME_OVER
        light, dark = self.score
        if self.length:
            light, dark = min(light, self.length), min(dark, self.length)
        return MatchState(
            cube=s.cube.value,
            cube_owner=None if s.cube.owner is None else _index(s.cube.owner),
            on_roll=on_roll,
            crawford=game.crawford and not self.money,
            game_state=state,
            turn=1 - on_roll if waits_for_other else on_roll,
            double_offered=s.phase is Phase.DOUBLED,
            dice=s.dice if s.phase in (Phase.PLAY, Phase.ILLEGAL) else None,
            match_length=self.length,
            score=(light, dark),
            jacoby=self.options.jacoby,  # gnubg writes its setting in match play too, where it has no effect
        )

    def to_record(self) -> MatchRecord:
        """The match as a ``.mat`` record (:mod:`referee.notation.matfile`): player 0 = light, 1 = dark."""
        games = tuple(_game_record(g) for g in self.games)
        headers = () if self.crawford_rule else (("Crawford", "Off"),)
        return MatchRecord(self.length, self.players, games, headers)

    @classmethod
    def from_record(cls, record: MatchRecord, options: RuleOptions | None = None) -> Match:
        """Replays a ``.mat`` record through the rules: every play is judged, every cube action checked,
        every result and score compared. Player 0 (left) plays light. A last game without a win is left
        in progress as :attr:`current`.

        Raises :class:`MatchError` naming the game and the action that does not fit.
        """
        crawford_rule = dict(record.headers).get("Crawford", "On").lower() != "off"
        match = cls(record.length, options or RuleOptions(), record.players, crawford_rule=crawford_rule)
        for number, g in enumerate(record.games, start=1):
            if g.score != match.score:
                raise MatchError(
                    f"game {number}: the record says the score is {g.score}, "
                    f"the games before make it {match.score}"
                )
            game = match.new_game()
            for i, action in enumerate(g.actions, start=1):
                try:
                    before_win = i < len(g.actions) and g.actions[i].kind == "win"
                    _replay_action(game, action, match, before_win)
                except (GameError, PlayParseError, PositionError) as e:
                    side = "light" if action.player == 0 else "dark"
                    raise MatchError(f"game {number}, action {i} ({side} {action.kind}): {e}") from None
            if game.over:
                match.finish(game)
        return match


def _replay_action(game: Game, a: Action, match: Match, before_win: bool = False) -> None:
    side = Side.LIGHT if a.player == 0 else Side.DARK
    if a.kind == "roll":
        assert a.dice is not None
        if game.phase is Phase.OPENING:
            high, low = max(a.dice), min(a.dice)
            if high == low:
                raise GameError(f"an opening roll cannot be a double ({high}-{low})")
            game.opening_roll(*((high, low) if side is Side.LIGHT else (low, high)))
        else:
            game.roll(*a.dice, side=side)
        if game.phase is not Phase.PLAY:
            if a.play:
                raise GameError(f"the record plays {a.play} but {a.dice[0]}-{a.dice[1]} has no legal move")
            return
        if a.play == UNKNOWN_PLAY:
            if before_win:
                return  # the last play of a game that was then resigned: nothing more to judge
            raise GameError("the play was not recorded (????), so the game cannot go on")
        after = apply_moves(game.position, parse_moves(a.play))
        verdict = game.play(after)
        if not verdict.legal:
            raise GameError(f"{a.play} is not a legal play of {a.dice[0]}-{a.dice[1]}: {verdict.reason}")
    elif a.kind == "double":
        game.offer_double(side)
        if game.cube.value * 2 != a.cube:
            raise GameError(f"the record doubles to {a.cube} but the cube is at {game.cube.value}")
    elif a.kind == "take":
        game.take(side)
    elif a.kind == "drop":
        game.drop(side)
    elif a.kind == "win":
        # Some sites write only the points the match needed: a win that ends the match may be capped.
        capped = not match.money and a.points >= match.away(side)
        if not game.over:  # a resignation: the record gives only the points
            outcome = next((o for o in Outcome if o.value * game.cube.value >= a.points), None)
            if outcome is None or (not capped and outcome.value * game.cube.value != a.points):
                raise GameError(
                    f"{a.points} points is no single, gammon or backgammon on a {game.cube.value}-cube"
                )
            game.resign(side.other, outcome)
        r = game.result
        assert r is not None
        if r.winner is not side or not (r.points == a.points or (capped and r.points > a.points)):
            raise GameError(f"the record says {side.value} wins {a.points}, the rules say {r.text}")


def _game_record(game: FinishedGame) -> GameRecord:
    """Turns a game's events into the .mat actions: a roll carries the play that followed it.

    An illegal play that stood (tournament mode) is written as ``????``, the mark for a play not
    recorded: it has no move text that a legal-move reader would accept.
    """
    actions: list[Action] = []
    roll_at: int | None = None  # index of the roll action that waits for its play
    for e in game.history:
        p = _index(e.side) if e.side is not None else 0
        k = e.kind
        if k in (EventKind.OPENING, EventKind.ROLL):
            roll_at = len(actions)
            actions.append(Action(p, "roll", e.dice))
        elif roll_at is not None and k in (
            EventKind.PLAY,
            EventKind.PASS,
            EventKind.ACCEPT_ILLEGAL,
            EventKind.ILLEGAL_STANDS,
        ):
            text = normalise_play(e.play or "") if k in (EventKind.PLAY, EventKind.PASS) else UNKNOWN_PLAY
            a = actions[roll_at]
            actions[roll_at] = Action(a.player, "roll", a.dice, text)
            roll_at = None
        elif k is EventKind.DOUBLE:
            actions.append(Action(p, "double", cube=e.cube * 2))
        elif k is EventKind.TAKE:
            actions.append(Action(p, "take"))
        elif k is EventKind.BEAVER:
            # .mat has no beaver: it is a take and a redouble that the doubler must take
            actions.append(Action(p, "take"))
            actions.append(Action(p, "double", cube=e.cube))
            actions.append(Action(1 - p, "take"))
        elif k is EventKind.DROP:
            actions.append(Action(p, "drop"))
        elif k is EventKind.WIN:
            actions.append(Action(p, "win", points=e.points))
    r = game.result
    return GameRecord(game.score, tuple(actions), _index(r.winner), r.points, game.crawford)
