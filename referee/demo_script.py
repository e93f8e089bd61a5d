"""The virtual table of ``referee demo``: a scripted game as shots of a camera running at 10 fps.

A :class:`Shot` is what the table shows for a few frames: the checkers, the dice lying on it, hands
over it. :func:`demo_game` writes a whole short game from the starting position with chosen dice that
shows every situation the referee handles: a wrong setup, an opening roll with a cocked die, a hit and
an entry from the bar, an illegal play caught and corrected, hands over the board while moving, bearing
off and a gammon. Plays are chosen by a simple greedy player; every play is checked against the rules,
except the one deliberate illegal play.

    >>> shots = demo_game()
    >>> shots[0].caption
    'a careless setup: one checker short on light 13-point'
    >>> sum(s.frames for s in shots) < 600
    True

The script knows nothing of vision: :mod:`referee.cli.demo` renders each shot with the renderer.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from bgboard.layout import Board, Half, Orientation, Side
from bgboard.position import BAR, Position
from hardware.signals import Signal
from referee.moves import Play, legal_plays

ORIENTATION = Orientation.BOTTOM_RIGHT
ILLEGAL_TURN = 3  # the index in the dice plan of light's turn that goes wrong first


@dataclass(frozen=True)
class DieAt:
    """A die on the virtual table, in field coordinates (0..1 across the playing field)."""

    value: int
    x: float
    y: float
    cocked: bool = False
    angle: float = 0.0


@dataclass(frozen=True)
class HandAt:
    x: float
    y: float
    angle: float = 0.0
    kind: str = "hand"


@dataclass(frozen=True)
class Shot:
    """What the camera sees for ``frames`` frames; ``expect`` names the signal the shot should cause."""

    board: Board
    dice: tuple[DieAt, ...] = ()
    hands: tuple[HandAt, ...] = ()
    frames: int = 4
    caption: str = ""
    expect: Signal | None = None


@dataclass
class Script:
    shots: list[Shot] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def add(self, board: Board, **kw: object) -> None:
        self.shots.append(Shot(board, **kw))  # type: ignore[arg-type]

    def dice_in(
        self, half: Half, values: tuple[int, ...], cocked: tuple[bool, ...] = ()
    ) -> tuple[DieAt, ...]:
        """Dice lying in the image ``half``, on the open space between the two rows of points."""
        base = 0.62 if half is Half.RIGHT else 0.1
        out = []
        for i, v in enumerate(values):
            x = base + 0.11 * i + self.rng.uniform(0.0, 0.05)  # dice lie apart, never on each other
            y = 0.44 + self.rng.uniform(0.0, 0.12)
            out.append(DieAt(v, x, y, cocked[i] if i < len(cocked) else False, self.rng.uniform(0, 80)))
        return tuple(out)


def half_of(side: Side) -> Half:
    """The roller's right-hand half in the image for the demo's orientation."""
    return ORIENTATION.throwing_half(side)


def _score(play: Play, before_pips: int, racer: bool) -> float:
    """A greedy player's taste: progress, made points, few blots."""
    pos = play.result
    me, them = pos.player, pos.opponent
    blots = sum(1 for i in range(24) if me[i] == 1)
    made = sum(1 for i in range(24) if me[i] >= 2)
    progress = before_pips - pos.pip_counts()[0]
    # light races and leaves dark alone (a dark checker on the dark bar is the hardest thing to see);
    # dark gets its back checkers out of light's home board
    taste = -15 * them[BAR] if racer else -8 * sum(me[18:])
    return progress + taste + 2 * made - 3 * blots


def choose(board: Board, mover: Side, dice: tuple[int, int], text: str | None = None) -> Play:
    """The play the demo's greedy player makes, or the legal play written ``text``."""
    position = board.position(mover)
    plays = legal_plays(position, dice)
    if text is not None:
        found = [p for p in plays if p.text == text]
        if not found:
            raise ValueError(f"{text} is not a legal {dice} for {mover.value}: {[p.text for p in plays]}")
        return found[0]
    pips = position.pip_counts()[0]
    return max(plays, key=lambda p: (_score(p, pips, mover is Side.LIGHT), p.text))


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


def miscount(
    board: Board, mover: Side, dice: tuple[int, int], rng: random.Random, further_only: bool = False
) -> Board | None:
    """A board a careless player leaves: a legal play with one checker a pip too far (or short).

    None when the roll gives no such board (no move, or every variant is blocked or legal).
    """
    position = board.position(mover)
    plays = legal_plays(position, dice)
    results = {p.result for p in plays}
    order = sorted(plays, key=lambda p: p.text)
    rng.shuffle(order)
    for play in order:
        moves = list(play.moves)
        rng.shuffle(moves)
        for move in moves:
            d = move.dst
            if d == 0 or move.hit or play.result.player[d - 1] == 0:
                continue  # borne off, a hit to keep, or a checker that moved on from there
            for step in (-1,) if further_only else rng.sample((-1, 1), 2):
                e = d + step
                if not 1 <= e <= 24 or e == move.src or play.result.opponent[24 - e]:
                    continue  # the other point must be open and on the board
                me = list(play.result.player)
                me[d - 1] -= 1
                me[e - 1] += 1
                wrong = Position(tuple(me), play.result.opponent)
                if wrong not in results:
                    return Board.from_position(wrong, mover)
    return None


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


@dataclass(frozen=True)
class TableFrame:
    """One rendered frame of the virtual table and the truth behind it."""

    index: int
    t: float  # stream seconds
    shot: Shot
    shot_index: int
    image: Any  # numpy BGR image
    truth_dice: tuple[Any, ...]  # vision.reading.DieReading built from the renderer's truth


class VirtualTable:
    """Renders shots as camera frames at ``fps`` with the real renderer (imported lazily: it needs
    OpenCV). Still shots render once and repeat, as a still table gives the same picture; shots with
    hands render every frame with the hand moving, as hands do.
    """

    def __init__(
        self,
        orientation: Orientation = ORIENTATION,
        size: tuple[int, int] = (1280, 720),
        fps: float = 10.0,
        style: str = "tournament",
        noise: float = 0.004,
        seed: int = 0,
        light_drift: float = 0.0,
        jitter: float = 0.0,
    ) -> None:
        self.orientation = orientation
        self.size = size
        self.fps = fps
        self.style = style
        self.noise = noise
        self.seed = seed
        self.light_drift = light_drift
        self.jitter = jitter  # how far checkers sit off their ideal places (1 = the renderer's default)

    def scene(self, shot: Shot, k: int = 0, shot_index: int = 0) -> Any:
        from synthetic.render import DieSpec, HandSpec, scene_from_layout

        dice = tuple(DieSpec(d.value, d.x, d.y, d.angle, d.cocked) for d in shot.dice)
        hands = tuple(
            HandSpec(h.kind, h.x + 0.04 * k, h.y - 0.02 * k, h.angle, blur=0.02) for h in shot.hands
        )
        # the room's light drifts slowly over the game
        light = 1.0 + self.light_drift * math.sin(shot_index / 7.0)
        return scene_from_layout(
            shot.board.layout(self.orientation),
            style=self.style,
            dice=dice,
            hands=hands,
            noise=self.noise,
            light=round(light, 3),
            jitter=self.jitter,
        )

    def render(self, shot: Shot, k: int = 0, shot_index: int = 0) -> Any:
        from synthetic.render import render

        seed = self.seed * 100_003 + (shot_index + 2) * 101 + (k if shot.hands else 0)
        return render(self.scene(shot, k, shot_index), self.size, seed)

    def calibration_frame(self) -> Any:
        """The starting position, still, with no dice: what the installer calibrates on."""
        return self.render(Shot(Board.start()), 0, -1)

    def frame(self, shot: Shot, k: int, shot_index: int, index: int) -> TableFrame:
        """Frame ``k`` of a shot; ``index`` counts frames from the start of the stream."""
        from vision.reading import DieReading

        rendered = self.render(shot, k, shot_index)
        truth = tuple(
            DieReading(
                None if d.cocked else d.value,
                d.center,
                d.box,
                0.99,
                cocked=d.cocked,
                on_checker=d.on_checker,
                outside_field=d.outside_field,
                half=d.half,
            )
            for d in rendered.dice
        )
        return TableFrame(index, index / self.fps, shot, shot_index, rendered.image, truth)

    def frames(self, shots: list[Shot]) -> Iterator[TableFrame]:
        """Every frame of ``shots`` in order, with no waiting for the referee."""
        index = 0
        for i, shot in enumerate(shots):
            for k in range(shot.frames):
                yield self.frame(shot, k, i, index)
                index += 1
