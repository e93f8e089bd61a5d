"""The game of ``referee demo``: a scripted game as shots of the virtual table.

:func:`demo_game` writes a whole short game from the starting position with chosen dice that
shows every situation the referee handles: a wrong setup, an opening roll with a cocked die, a hit and
an entry from the bar, an illegal play caught and corrected, hands over the board while moving, bearing
off and a gammon. Plays are chosen by a simple greedy player; every play is checked against the rules,
except the one deliberate illegal play.

    >>> shots = demo_game()
    >>> shots[0].caption
    'a careless setup: one checker short on light 13-point'
    >>> sum(s.frames for s in shots) < 600
    True

The script knows nothing of vision: :class:`synthetic.table.VirtualTable` renders each shot.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from bgboard.layout import Board, Half, Orientation, Side
from bgboard.position import Position
from hardware.signals import Signal
from referee.moves import legal_plays
from synthetic.players import choose
from synthetic.table import DieAt, HandAt, Shot, lean_on_the_bar

ORIENTATION = Orientation.BOTTOM_RIGHT
ILLEGAL_TURN = 3  # the index in the dice plan of light's turn that goes wrong first


@dataclass
class Script:
    shots: list[Shot] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def add(self, board: Board, **kw: Any) -> None:
        """A shot of ``board``; keyword arguments set the other :class:`Shot` fields."""
        self.shots.append(Shot(board, **kw))

    def dice_in(
        self, half: Half, values: tuple[int, ...], cocked: tuple[bool, ...] = ()
    ) -> tuple[DieAt, ...]:
        """Dice lying in the image ``half``, on the open space between the two rows of points; a cocked die
        leans on the bar's wall (a die cannot lean on nothing)."""
        base = 0.62 if half is Half.RIGHT else 0.1
        out = []
        for i, v in enumerate(values):
            x = base + 0.11 * i + self.rng.uniform(0.0, 0.05)  # dice lie apart, never on each other
            y = 0.44 + self.rng.uniform(0.0, 0.12)
            leans = cocked[i] if i < len(cocked) else False
            if leans:
                x = lean_on_the_bar(half)
            out.append(DieAt(v, x, y, leans, self.rng.uniform(0, 80)))
        return tuple(out)


def half_of(side: Side) -> Half:
    """The roller's right-hand half in the image for the demo's orientation."""
    return ORIENTATION.throwing_half(side)


def _turn(
    s: Script,
    board: Board,
    mover: Side,
    dice: tuple[int, int],
    after: Board,
    caption: str,
    lift_hand: bool = True,
    expect: Signal = Signal.READY,
) -> None:
    """The shots of one turn: the throw, the dice at rest, a hand moving checkers, the dice lifted."""
    half = half_of(mover)
    hx = 0.75 if half is Half.RIGHT else 0.25
    s.add(
        board,
        hands=(HandAt(hx, 0.5, 0 if half is Half.RIGHT else 180),),
        frames=1,
        caption=f"{mover.value} throws",
    )
    dice_at = s.dice_in(half, dice)
    s.add(board, dice=dice_at, frames=4, caption=caption, expect=Signal.ROLL_OK)
    # moving: a hand over the board, the checkers half way (the position the hand leaves is still wrong)
    s.add(
        after,
        dice=dice_at,
        hands=(HandAt(0.5, 0.7 if mover is Side.LIGHT else 0.3, 0),),
        frames=2,
        caption=f"{mover.value} moves (hands over the board)",
    )
    s.add(after, dice=dice_at, frames=2, caption="checkers moved, dice still down")
    if lift_hand:
        s.add(
            after, hands=(HandAt(hx, 0.5, 0 if half is Half.RIGHT else 180),), frames=1, caption="dice lifted"
        )
    s.add(after, frames=4, caption="the board settles", expect=expect)


def demo_game(seed: int = 11, turns: int | None = None) -> list[Shot]:
    """The demo's shots (see the module doc); deterministic. ``turns`` cuts the game short."""
    s = Script(rng=random.Random(seed))
    start = Board.start()
    light = list(start.light)
    light[12] -= 1
    s.add(
        Board(tuple(light), start.dark),
        frames=3,
        caption="a careless setup: one checker short on light 13-point",
    )
    s.add(start, frames=4, caption="the starting position", expect=Signal.READY)
    # opening roll: dark's die lands cocked and is thrown again, then light's 6 beats dark's 4
    light_die = s.dice_in(half_of(Side.LIGHT), (6,))
    dark_cocked = s.dice_in(half_of(Side.DARK), (4,), (True,))
    s.add(start, hands=(HandAt(0.5, 0.5),), frames=1, caption="opening roll: one die each")
    s.add(start, dice=light_die + dark_cocked, frames=4, caption="dark's die is cocked", expect=Signal.REROLL)
    s.add(start, dice=light_die, hands=(HandAt(0.25, 0.3, 180),), frames=1, caption="dark throws again")
    dark_die = s.dice_in(half_of(Side.DARK), (4,))
    board = start
    rolls = PLAN[1:]
    mover = Side.LIGHT
    dice, text = PLAN[0]
    after = Board.from_position(choose(board, mover, dice, text).result, mover)
    s.add(
        board,
        dice=light_die + dark_die,
        frames=4,
        caption="light 6, dark 4: light plays first",
        expect=Signal.ROLL_OK,
    )
    s.add(after, dice=light_die + dark_die, hands=(HandAt(0.5, 0.7),), frames=2, caption="light moves")
    s.add(after, frames=4, caption="the board settles", expect=Signal.READY)
    board, mover = after, Side.DARK
    for i, (dice, text) in enumerate(rolls):
        if turns is not None and i + 1 >= turns:
            break
        play = choose(board, mover, dice, text)
        after = Board.from_position(play.result, mover)
        if i == ILLEGAL_TURN:
            _illegal_turn(s, board, mover, dice, after)
        else:
            last = after.off(mover) == 15
            caption = f"{mover.value} rolls {max(dice)}-{min(dice)}"
            _turn(s, board, mover, dice, after, caption, expect=Signal.GAME_OVER if last else Signal.READY)
        board, mover = after, mover.other
        if board.off(Side.LIGHT) == 15:
            break
    s.add(board, frames=3, caption="game over")
    return s.shots


def _illegal_turn(s: Script, board: Board, mover: Side, dice: tuple[int, int], legal_after: Board) -> None:
    """A play that moves one pip too far; the referee calls it, the position is restored, replayed."""
    wrong = _one_pip_too_far(board, mover, dice)
    half = half_of(mover)
    dice_at = s.dice_in(half, dice)
    s.add(
        board,
        dice=dice_at,
        frames=4,
        caption=f"{mover.value} rolls {max(dice)}-{min(dice)}",
        expect=Signal.ROLL_OK,
    )
    s.add(wrong, dice=dice_at, hands=(HandAt(0.5, 0.7, 0),), frames=2, caption=f"{mover.value} miscounts")
    s.add(wrong, frames=5, caption="an illegal play", expect=Signal.ILLEGAL)
    s.add(board, hands=(HandAt(0.5, 0.7, 0),), frames=1, caption="the position before the roll is restored")
    s.add(board, frames=4, caption="restored", expect=Signal.ROLL_OK)
    s.add(legal_after, hands=(HandAt(0.5, 0.7, 0),), frames=1, caption="the same numbers played again")
    s.add(legal_after, frames=4, caption="a legal play this time", expect=Signal.READY)


def _one_pip_too_far(board: Board, mover: Side, dice: tuple[int, int]) -> Board:
    """The board after a plausible miscount: a legal play with one checker moved a pip further.

    Of all such boards the demo shows the plainest: a lone checker moved to an empty point, so the
    mistake is in plain view rather than in the middle of a stack.
    """
    position = board.position(mover)
    results = {p.result for p in legal_plays(position, dice)}
    best: tuple[int, Board] | None = None
    for play in sorted(legal_plays(position, dice), key=lambda p: p.text):
        for move in play.moves:
            d, e = move.dst, move.dst - 1
            me = list(play.result.player)
            if d <= 1 or move.hit or me[d - 1] == 0 or play.result.opponent[24 - e] or e == 0:
                continue
            me[d - 1] -= 1
            me[e - 1] += 1
            wrong = Position(tuple(me), play.result.opponent)
            if wrong in results:
                continue
            plainness = me[d - 1] + me[e - 1]  # checkers left beside the mistake: fewer is plainer
            if best is None or plainness < best[0]:
                best = (plainness, Board.from_position(wrong, mover))
    if best is None:
        raise ValueError(f"no miscount of {dice} for {mover.value}")
    return best[1]


# The dice of the demo game, light first (the opening roll), and the few plays written out: light runs
# a back checker, dark hits it, light enters from the bar; then light races home and bears off while
# dark rolls small: a gammon. Plays not written out are the greedy player's.
PLAN: list[tuple[tuple[int, int], str | None]] = [
    ((6, 4), "24/14"),
    ((2, 1), "24/23 13/11*"),  # dark hits the blot on light's 14-point
    ((4, 4), None),  # light enters from the bar
    ((5, 3), None),
    ((6, 6), None),  # light: the illegal play, then corrected (ILLEGAL_TURN)
    ((6, 5), None),
    ((6, 6), None),
    ((6, 4), None),
    ((5, 5), None),
    ((5, 4), None),
    ((5, 5), None),
    ((4, 3), None),
    ((6, 6), None),
    ((3, 2), None),
    ((6, 6), None),
    ((3, 2), None),
    ((6, 6), None),
    ((2, 1), None),
    ((6, 6), None),
    ((3, 1), None),
    ((6, 6), None),  # light bears off the last checkers: a gammon
]
