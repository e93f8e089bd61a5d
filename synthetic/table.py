"""The virtual table: what a camera over it sees, as shots of a few frames each at 10 fps.

A :class:`Shot` is what the table shows for a few frames: the checkers, the dice lying on it, hands
over it. :class:`VirtualTable` renders shots into the frames a camera would give (``hardware.frames``),
so the referee's own frame loop reads them as it reads a camera.

    >>> shot = Shot(Board.start(), dice=(DieAt(5, 0.7, 0.5),), frames=2)
    >>> frame = VirtualTable().frame(shot, 0, 0, 3)
    >>> frame.image.shape, frame.timestamp
    ((720, 1280, 3), 0.3)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from bgboard.layout import Board, Half, Orientation
from hardware.frames import Frame
from hardware.signals import Signal
from synthetic.clock import ClockSpec
from synthetic.render import DIE_EDGE, STYLES, Rendered, render
from synthetic.scene import CubeSpec, DieSpec, HandSpec, Scene, scene_from_layout


@dataclass(frozen=True)
class DieAt:
    """A die on the virtual table, in field coordinates (0..1 across the playing field)."""

    value: int
    x: float
    y: float
    cocked: bool = False
    angle: float = 0.0


def lean_on_the_bar(half: Half) -> float:
    """Across the field, where a cocked die leaning on the bar's wall in the image ``half`` lies: a die
    cannot lean on nothing, and the reader asks about one that seems to (``dice_footing.SUPPORT_REACH``)."""
    return 0.548 if half is Half.RIGHT else 0.452


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


class VirtualTable:
    """Renders shots as camera frames at ``fps`` with the renderer. Shots with hands render every frame
    with the hand moving, as hands do; a still shot renders the same picture every frame.
    """

    def __init__(
        self,
        orientation: Orientation = Orientation.BOTTOM_RIGHT,
        size: tuple[int, int] = (1280, 720),
        fps: float = 10.0,
        style: str = "tournament",
        noise: float = 0.004,
        seed: int = 0,
        light_drift: float = 0.0,
        jitter: float = 0.0,
        clock: bool = False,
    ) -> None:
        self.orientation = orientation
        self.size = size
        self.fps = fps
        self.style = style
        self.noise = noise
        self.seed = seed
        self.light_drift = light_drift
        self.jitter = jitter  # how far checkers sit off their ideal places (1 = the renderer's default)
        self.clock = clock  # a chess clock stands beside the board, two seconds on for every shot
        # the doubling cube where the players keep it (None: no cube in view); set as the game goes
        self.cube: CubeSpec | None = None

    def scene(self, shot: Shot, k: int = 0, shot_index: int = 0) -> Scene:
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
            cube=self.cube,
            clock=ClockSpec(seconds=2 * max(0, shot_index)) if self.clock else None,
        )

    def die_side(self) -> float:
        """A die's side in field widths on this table's board."""
        return DIE_EDGE * STYLES[self.style].geometry.diameter

    def aspect(self) -> float:
        """The field's height over its width on this table's board."""
        return STYLES[self.style].geometry.aspect

    def render(self, shot: Shot, k: int = 0, shot_index: int = 0) -> Rendered:
        seed = self.seed * 100_003 + (shot_index + 2) * 101 + (k if shot.hands else 0)
        return render(self.scene(shot, k, shot_index), self.size, seed)

    def calibration_frame(self) -> Rendered:
        """The starting position, still, with no dice: what the installer calibrates on."""
        return self.render(Shot(Board.start()), 0, -1)

    def frame(self, shot: Shot, k: int, shot_index: int, index: int) -> Frame:
        """Frame ``k`` of a shot as a camera gives it; ``index`` counts frames from the start of the
        stream (the timestamp is ``index / fps``)."""
        return Frame(self.render(shot, k, shot_index).image, index / self.fps, index)

    def frames(self, shots: list[Shot]) -> Iterator[Frame]:
        """Every frame of ``shots`` in order, with no waiting for the referee."""
        index = 0
        for i, shot in enumerate(shots):
            for k in range(shot.frames):
                yield self.frame(shot, k, i, index)
                index += 1
