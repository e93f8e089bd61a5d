"""The scripted games of ``referee demo --variant``: the demo's game with what each variation adds.

Each script is the shots of the virtual table and the buttons the players press on the first frame of
some of them (:class:`Scripted`). The game is the demo's own (:mod:`synthetic.demo_game`: its dice, its
plays, its deliberate miscount); the variations change what the players do and what the referee is
expected to signal:

- ``coaching``: before moving, the mover presses HINT; then makes a play with the dice still down and
  presses HINT again to hear what it leaves;
- ``monitor`` (no monitor agreed): the miscount draws no signal at all; the opponent presses CHECK
  before throwing, the referee then calls it, and the position is restored and played again;
- ``teach``: the same game replayed as a lesson, one step first made wrongly and then put right
  (:func:`lesson_shots`), then a position of it set up and played with its roll given
  (:func:`position_shots`).

    >>> scripted = coaching_game(turns=2)
    >>> [b.name for b in scripted.cues.values()][:2]
    ['HINT', 'HINT']
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from bgboard.layout import Board, Half, Side
from hardware.signals import Button, Signal
from referee.match import Match
from referee.notation.matfile import MatchRecord
from referee.steps import Step, StepKind
from synthetic.demo_game import ILLEGAL_TURN, PLAN, Script, half_of
from synthetic.players import choose, miscount
from synthetic.table import DieAt, HandAt, Shot

__all__ = ["Scripted", "coaching_game", "demo_record", "lesson_shots", "monitor_game", "position_shots"]


@dataclass
class Scripted:
    """Shots of the virtual table, and the buttons pressed on the first frame of a shot (by its index)."""

    shots: list[Shot] = field(default_factory=list)
    cues: dict[int, Button] = field(default_factory=dict)

    def press(self, button: Button, shot: Shot) -> None:
        """``shot`` is shown, and ``button`` pressed on its first frame."""
        self.cues[len(self.shots)] = button
        self.shots.append(shot)


def _hand(half: Half) -> HandAt:
    return HandAt(0.75 if half is Half.RIGHT else 0.25, 0.5, 0 if half is Half.RIGHT else 180)


def _game(seed: int, turns: int | None, hints: bool, kept: bool) -> Scripted:
    """The demo's game; ``hints``: the coaching game's presses; ``kept``: the miscount is kept from the
    table until the opponent asks (no monitor agreed)."""
    s = Script(rng=random.Random(seed))
    out = Scripted(s.shots)
    start = Board.start()
    s.add(start, frames=4, caption="the starting position", expect=Signal.READY)
    light_die = s.dice_in(half_of(Side.LIGHT), (6,))
    dark_die = s.dice_in(half_of(Side.DARK), (4,))
    s.add(start, hands=(HandAt(0.5, 0.5),), frames=1, caption="opening roll: one die each")
    board, mover = start, Side.LIGHT
    for i, (dice, text) in enumerate(PLAN):
        if turns is not None and i >= turns:
            break
        play = choose(board, mover, dice, text)
        after = Board.from_position(play.result, mover)
        half = half_of(mover)
        dice_at = light_die + dark_die if i == 0 else s.dice_in(half, dice)
        if i:
            s.add(board, hands=(_hand(half),), frames=1, caption=f"{mover.value} throws")
        roll = f"{mover.value} rolls {max(dice)}-{min(dice)}"
        s.add(board, dice=dice_at, frames=4, caption=roll, expect=Signal.ROLL_OK)
        if hints and i < 2:
            asks = f"{mover.value} asks what the roll allows (HINT)"
            out.press(Button.HINT, Shot(board, dice=dice_at, frames=3, caption=asks))
            s.add(after, dice=dice_at, hands=(HandAt(0.5, 0.7 if mover is Side.LIGHT else 0.3),), frames=1)
            s.add(after, dice=dice_at, frames=3, caption=f"{mover.value} makes a play, the dice still down")
            points = f"{mover.value} asks what the play leaves (HINT)"
            out.press(Button.HINT, Shot(after, dice=dice_at, frames=3, caption=points))
        wrong = miscount(board, mover, dice, random.Random(seed + i), further_only=True)
        if i == ILLEGAL_TURN and wrong is not None:
            _miscount(s, out, board, after, wrong, mover, dice_at, kept)
        else:
            y = 0.7 if mover is Side.LIGHT else 0.3
            s.add(after, dice=dice_at, hands=(HandAt(0.5, y),), frames=2, caption=f"{mover.value} moves")
            s.add(after, hands=(_hand(half),), frames=1, caption="dice lifted")
            last = after.off(mover) == 15
            s.add(
                after,
                frames=4,
                caption="the board settles",
                expect=Signal.GAME_OVER if last else Signal.READY,
            )
        board, mover = after, mover.other
        if board.off(Side.LIGHT) == 15:
            break
    s.add(board, frames=3, caption="the end")
    return out


def _miscount(
    s: Script,
    out: Scripted,
    board: Board,
    right: Board,
    wrong: Board,
    mover: Side,
    dice_at: tuple[DieAt, ...],
    kept: bool,
) -> None:
    """A checker a pip too far: called at once, or (``kept``) only when the opponent asks."""
    s.add(wrong, dice=dice_at, hands=(HandAt(0.5, 0.7, 0),), frames=2, caption=f"{mover.value} miscounts")
    s.add(wrong, hands=(_hand(half_of(mover)),), frames=1, caption="dice lifted")
    if kept:
        quiet = "an illegal play: no monitor was agreed, nothing is said"
        s.add(wrong, frames=5, caption=quiet, expect=Signal.READY)
        asks = f"{mover.other.value} asks before throwing (CHECK)"
        out.press(Button.CHECK, Shot(wrong, frames=3, caption=asks, expect=Signal.ILLEGAL))
    else:
        s.add(wrong, frames=5, caption="an illegal play", expect=Signal.ILLEGAL)
    s.add(board, hands=(HandAt(0.5, 0.7, 0),), frames=1, caption="the position before the roll is restored")
    s.add(board, dice=dice_at, frames=4, caption="restored, the dice as they were", expect=Signal.ROLL_OK)
    s.add(
        right, dice=dice_at, hands=(HandAt(0.5, 0.7, 0),), frames=1, caption="the same numbers played again"
    )
    s.add(right, hands=(_hand(half_of(mover)),), frames=1, caption="dice lifted")
    s.add(right, frames=4, caption="a legal play this time", expect=Signal.READY)


def coaching_game(seed: int = 11, turns: int | None = None) -> Scripted:
    return _game(seed, turns, hints=True, kept=False)


def monitor_game(seed: int = 11, turns: int | None = None) -> Scripted:
    return _game(seed, turns, hints=False, kept=True)


# ---- teaching -------------------------------------------------------------------------------------------


def demo_record() -> MatchRecord:
    """The demo's game as a match record (as `referee export` writes it): the lesson's game."""
    match = Match(3)
    game = match.new_game()
    game.opening_roll(*PLAN[0][0])
    for dice, text in PLAN:
        mover = game.on_roll
        assert mover is not None
        if game.dice is None:
            game.roll(*dice)
        game.play(choose(game.board, mover, dice, text))
        if game.over:
            break
    if game.over:
        match.finish(game)
    return match.to_record()


def lesson_shots(steps: list[Step], wrong_at: int = 2) -> list[Shot]:
    """The teacher makes each play of ``steps`` on the table; the play numbered ``wrong_at`` first with
    its hit checker left beside the board, named as not made, then put right."""
    s = Script(rng=random.Random(3))
    start = steps[0].before
    light = list(start.light)
    light[12] -= 1
    s.add(Board(tuple(light), start.dark), frames=3, caption="a checker short: the setup check names it")
    s.add(start, frames=4, caption="the position to begin from", expect=Signal.READY)
    plays = [step for step in steps if step.kind is StepKind.PLAY]
    for n, step in enumerate(plays):
        y = 0.7 if step.mover is Side.LIGHT else 0.3
        last = n == len(plays) - 1
        expect = Signal.GAME_OVER if last and steps[-1].result is not None else Signal.READY
        if step.number == wrong_at:
            wrong = _forgot_the_hit(step)
            s.add(wrong, hands=(HandAt(0.5, y),), frames=1, caption=f"step {step.number}, made wrongly")
            s.add(wrong, frames=40, caption="not made: the referee names what to fix", expect=Signal.ILLEGAL)
        s.add(step.after, hands=(HandAt(0.5, y),), frames=1, caption=f"the teacher makes step {step.number}")
        s.add(step.after, frames=4, caption="made", expect=expect)
    return s.shots


def _forgot_the_hit(step: Step) -> Board:
    """The step's board with the hit checker left off the bar (beside the board), or, with no hit, one
    checker of the mover a point short."""
    after = step.after
    assert step.mover is not None
    other = step.mover.other
    hit = list(after.counts(other))
    if hit[24] > step.before.counts(other)[24]:
        hit[24] -= 1
        return Board(tuple(hit), after.dark) if other is Side.LIGHT else Board(after.light, tuple(hit))
    raise ValueError(f"step {step.number} hits nothing: choose a step with a hit")


def position_shots(before: Board, after: Board, mover: Side) -> list[Shot]:
    """A position set up (one checker first on the wrong point: the setup check names it), then its
    given roll played."""
    s = Script(rng=random.Random(5))
    light = list(before.light)
    top = max(i for i in range(24) if light[i])  # light's rearmost checker, one point short
    light[top] -= 1
    light[top - 1] += 1
    almost = Board(tuple(light), before.dark)
    s.add(almost, frames=3, caption="a new lesson: the referee names what is still wrong")
    s.add(before, hands=(HandAt(0.5, 0.5),), frames=1, caption="the teacher sets up the position")
    s.add(before, frames=4, caption="the position is set: its roll is given", expect=Signal.ROLL_OK)
    s.add(before, frames=6, caption="the board as set up is no play yet")
    y = 0.7 if mover is Side.LIGHT else 0.3
    s.add(after, hands=(HandAt(0.5, y),), frames=1, caption=f"{mover.value} plays the roll")
    s.add(after, frames=4, caption="judged", expect=Signal.READY)
    return s.shots
