"""A recorded game as the steps a teacher replays on the board, and positions to set up for a lesson.

:func:`steps` replays one game of a ``.mat`` record through the rules and gives every step in order: each
play with the board before and after it and its announcement, the rolls that could not be played, the
cube's actions and the result. Plays are numbered from 1 through the game; ``FILE.mat:GAME:MOVE``
(:func:`position_at`) names the position before play MOVE, which ``referee teach --replay FILE --print``
lists.

    >>> from referee.notation.matfile import Action, GameRecord, MatchRecord
    >>> record = MatchRecord(1, ("Ann", "Bo"), (GameRecord((0, 0), (
    ...     Action(0, "roll", (3, 1), "8/5 6/5"), Action(1, "roll", (6, 4), "24/18 13/9"))),))
    >>> [s.text for s in steps(record, 1)]
    ['light plays 3-1: 8/5 6/5', 'dark plays 6-4: 24/18 13/9', 'the record ends here']

Light is the record's first (left) player, as everywhere in the referee.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from bgboard.layout import Board, Side
from bgboard.position import PositionError
from referee import narration
from referee.cube import CubeError
from referee.game import Game, GameError, Phase
from referee.moves import PlayParseError, apply_moves, parse_moves
from referee.notation.matfile import UNKNOWN_PLAY, Action, MatchRecord
from referee.rules_options import RuleOptions
from referee.scoring import GameResult, Outcome

__all__ = ["Step", "StepKind", "StepsError", "excerpt", "position_at", "steps"]


class StepsError(ValueError):
    """A game or a play that the record does not hold."""


class StepKind(Enum):
    PLAY = "play"  # checkers move: the teacher makes it on the board
    SAID = "said"  # a roll that cannot be played, a cube action: announced, nothing moves
    END = "end"  # the result, or where the record stops


@dataclass(frozen=True)
class Step:
    """One step of a recorded game. ``number`` counts the plays (0 for other steps); ``before`` and
    ``after`` are the board around it (the same for steps where nothing moves); ``result`` goes with
    the last step of a game that was won."""

    kind: StepKind
    text: str
    before: Board
    after: Board
    number: int = 0
    mover: Side | None = None
    dice: tuple[int, int] | None = None
    result: GameResult | None = None


def _side(action: Action) -> Side:
    return Side.LIGHT if action.player == 0 else Side.DARK


def steps(record: MatchRecord, number: int) -> list[Step]:
    """The steps of game ``number`` (1, 2, ...) of ``record``; the last is a :attr:`StepKind.END`."""
    if not 1 <= number <= len(record.games):
        raise StepsError(f"the record has {len(record.games)} game(s): there is no game {number}")
    g = record.games[number - 1]
    game = Game(RuleOptions(), money=record.length == 0, crawford=g.crawford)
    out: list[Step] = []
    plays = 0
    for i, action in enumerate(g.actions, start=1):
        before = game.board
        side = _side(action)
        try:
            if action.kind == "roll":
                step = _roll(game, action, plays + 1)
                if step.kind is StepKind.PLAY:
                    plays += 1
                out.append(step)
                if step.kind is StepKind.END:
                    return out
            elif action.kind == "double":
                game.offer_double(side)
                out.append(Step(StepKind.SAID, f"{side.value} doubles to {action.cube}", before, before))
            elif action.kind == "take":
                game.take(side)
                out.append(Step(StepKind.SAID, f"{side.value} takes", before, before))
            elif action.kind == "drop":
                game.drop(side)
                out.append(Step(StepKind.SAID, f"{side.value} drops", before, before))
            elif action.kind == "win":
                if not game.over:  # the record gives a resignation as its points only
                    outcome = next((o for o in Outcome if o.value * game.cube.value >= action.points), None)
                    game.resign(side.other, outcome or Outcome.SINGLE)
                result = game.result
                assert result is not None
                text = f"{side.value} wins {action.points} point{'s' if action.points > 1 else ''}"
                out.append(Step(StepKind.END, text, before, before, result=result))
                return out
        except (GameError, CubeError, PlayParseError, PositionError) as e:
            text = (
                f"action {i} ({side.value} {action.kind}) does not fit the rules ({e}): the lesson ends here"
            )
            out.append(Step(StepKind.END, text, before, before))
            return out
    out.append(Step(StepKind.END, "the record ends here", game.board, game.board))
    return out


def _roll(game: Game, action: Action, number: int) -> Step:
    side, before = _side(action), game.board
    assert action.dice is not None
    high, low = max(action.dice), min(action.dice)
    if game.phase is Phase.OPENING:
        if high == low:
            raise GameError(f"an opening roll cannot be a double ({high}-{low})")
        game.opening_roll(*((high, low) if side is Side.LIGHT else (low, high)))
    else:
        game.roll(*action.dice, side=side)
    dice = (high, low)
    if game.phase is not Phase.PLAY:  # no legal move: the turn passed at once
        return Step(StepKind.SAID, f"{side.value} rolls {high}-{low} and cannot move", before, before)
    if action.play == UNKNOWN_PLAY:
        text = f"the record does not say how {side.value} played {high}-{low}: the lesson ends here"
        return Step(StepKind.END, text, before, before)
    position = game.position
    target = apply_moves(position, parse_moves(action.play))
    play = next((p for p in game.legal_plays() if p.result == target), None)
    if play is None:
        raise GameError(f"{action.play} is not a legal play of {high}-{low}")
    text = narration.announce_play(side, dice, position, play)
    game.play(play)
    return Step(StepKind.PLAY, text, before, game.board, number, side, dice)


def position_at(record: MatchRecord, game: int, move: int) -> Step:
    """The step of play ``move`` (1, 2, ...) of game ``game``: its board before, mover and dice."""
    found = [s for s in steps(record, game) if s.kind is StepKind.PLAY]
    if not 1 <= move <= len(found):
        raise StepsError(
            f"game {game} has {len(found)} play(s) the record spells out: there is no play {move} "
            "(`referee teach --replay FILE --print` numbers them)"
        )
    return found[move - 1]


def excerpt(found: list[Step], first: int = 1, last: int | None = None) -> list[Step]:
    """The steps from play ``first`` to play ``last`` (to the game's end when None), what is said
    between them included; cut short, they end with an END step that says so.

    >>> from referee.notation.matfile import Action, GameRecord, MatchRecord
    >>> game = GameRecord((0, 0), (Action(0, "roll", (3, 1), "8/5 6/5"), Action(1, "roll", (6, 4), "24/14")))
    >>> [s.text for s in excerpt(steps(MatchRecord(1, ("a", "b"), (game,)), 1), 2)]
    ['dark plays 6-4: 24/14', 'the record ends here']
    """
    plays = [i for i, s in enumerate(found) if s.kind is StepKind.PLAY]
    if not plays:
        raise StepsError("the game has no play the record spells out")
    count = len(plays)
    last = count if last is None else last
    if not 1 <= first <= last <= count:
        raise StepsError(f"the game has plays 1 to {count}: cannot replay plays {first} to {last}")
    start = plays[first - 1] if first > 1 else 0
    if last == count:
        return found[start:]
    end = plays[last]
    board = found[end - 1].after
    stop = Step(StepKind.END, f"the lesson stops after play {last}", board, board)
    return [*found[start:end], stop]
