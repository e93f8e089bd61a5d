"""What a synthetic frame shows: a position, dice, the cube, hands, the camera and the light.

A :class:`Scene` is plain data, checked when it is made; :func:`synthetic.render.render` draws it.

    >>> from bgboard.layout import Board, Orientation
    >>> start = Board.start().layout(Orientation.BOTTOM_RIGHT)
    >>> scene = scene_from_layout(start, dice=(DieSpec(3, 0.7, 0.5),))
    >>> scene.bottom[0], scene.dice[0].value
    (-5, 3)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bgboard.layout import ImageLayout
from synthetic.clock import ClockSpec
from synthetic.props import DIE_COLOURS
from synthetic.styles import STYLES


class RenderError(ValueError):
    """A scene the renderer cannot draw (bad counts, an unknown style, a die value out of range)."""


@dataclass(frozen=True)
class DieSpec:
    """A die at field coordinates (x, y); outside 0..1 it lies on the frame or in a tray."""

    value: int
    x: float
    y: float
    angle: float = 0.0  # degrees about the vertical
    cocked: bool = False  # tipped on an edge, leaning; shows a side face and a foreshortened top
    colour: str = "white"  # "white", "black", or translucent "red", "green", "blue"
    size: float = 1.0  # relative to a standard 15 mm die
    motion: float = 0.0  # still rolling: motion blur as long as this many die widths


@dataclass(frozen=True)
class CubeSpec:
    value: int = 64
    location: str = "centre"  # "centre" (bar middle), "top"/"bottom" (bar near that edge), "tray"


@dataclass(frozen=True)
class HandSpec:
    """A hand reaching in, an arm lying across, or a dice cup standing on the board."""

    kind: str = "hand"  # "hand", "arm" or "cup"
    x: float = 0.5  # field coordinates of the hand's palm (or the cup's centre)
    y: float = 0.5
    angle: float = 0.0  # where the arm comes from, degrees: 0 bottom edge, 90 right, 180 top, 270 left
    scale: float = 1.0
    blur: float = 0.0  # motion blur, in field widths (0.05 = a fast hand)
    holding: str | None = None  # "light" or "dark": a checker pinched under the fingers (not counted)


@dataclass(frozen=True)
class Camera:
    tilt_deg: float = 0.0  # off vertical, towards the near (bottom) player; up to 20
    rotation_deg: float = 0.0  # roll of the image about the optical axis
    # Barrel amount k: a point an ideal lens puts at radius r_u (over the half-diagonal) is seen at r_d
    # with r_u = r_d * (1 + k * r_d**2); 0.1 = the frame's corners show 10 % more than an ideal lens.
    # Negative = pincushion.
    distortion: float = 0.0
    scale: float = 1.0  # 1 = the field spans 55 % of the image width
    offset: tuple[float, float] = (0.0, 0.0)  # pan: the field centre moves by these image widths, heights


@dataclass(frozen=True)
class Scene:
    top: tuple[int, ...]
    bottom: tuple[int, ...]
    bar_light: int = 0
    bar_dark: int = 0
    style: str = "tournament"
    dice: tuple[DieSpec, ...] = ()
    cube: CubeSpec | None = None
    hands: tuple[HandSpec, ...] = ()
    camera: Camera = Camera()
    light: float = 1.0  # overall brightness
    glare: float = 0.0  # 0..1, strength of a specular hot spot
    noise: float = 0.0  # sensor noise, standard deviation as a fraction of full scale (0.02 ~ 5 levels)
    blur: float = 0.0  # focus blur, Gaussian sigma in pixels
    jpeg_quality: int | None = None
    shading: float = 0.0  # 0..1, uneven light across the frame (vignetting and a broad gradient)
    jitter: float = 1.0  # how far checkers sit off the ideal slots (1 = a careful player, 0 = none)
    row_limit: int = 5  # checkers in a point's first row before the second layer starts (5 or 6)
    tint: float = 0.0  # 0..1, a white-balance error: random per-channel gains up to 15 %
    clutter: int = 0  # things on the table around the board (clocks, score cards, cans, phones)
    clock: ClockSpec | None = None  # a chess clock standing beside the board
    off_light: int = 0  # borne-off checkers standing on edge in the right tray, light in its lower half
    off_dark: int = 0  # ... and dark in its upper half

    def __post_init__(self) -> None:
        if len(self.top) != 12 or len(self.bottom) != 12:
            raise RenderError("a scene needs 12 counts in each of top and bottom (the image layout)")
        if self.style not in STYLES:
            raise RenderError(f"unknown style {self.style!r}: choose one of {', '.join(STYLES)}")
        if any(abs(v) > 15 for v in self.top + self.bottom) or not (
            0 <= self.bar_light <= 15
            and 0 <= self.bar_dark <= 15
            and 0 <= self.off_light <= 15
            and 0 <= self.off_dark <= 15
        ):
            raise RenderError("a cell holds at most 15 checkers")
        for d in self.dice:
            if d.value not in range(1, 7):
                raise RenderError(f"a die shows 1..6, not {d.value}")
            if d.colour not in DIE_COLOURS:
                raise RenderError(f"unknown die colour {d.colour!r}: choose one of {', '.join(DIE_COLOURS)}")
        if self.cube and (
            self.cube.value not in (1, 2, 4, 8, 16, 32, 64)
            or self.cube.location not in ("centre", "top", "bottom", "tray")
        ):
            raise RenderError("a cube shows 1..64 (powers of 2) at centre, top, bottom or tray")
        for hand in self.hands:
            if hand.kind not in ("hand", "arm", "cup"):
                raise RenderError(f"unknown hand kind {hand.kind!r}: use hand, arm or cup")
            if hand.holding not in (None, "light", "dark"):
                raise RenderError(f"a hand holds a 'light' or 'dark' checker (or None), not {hand.holding!r}")
        if not 0 <= self.camera.tilt_deg <= 45 or not -0.2 <= self.camera.distortion <= 0.5:
            raise RenderError("camera tilt must be 0..45 degrees and distortion -0.2..0.5")
        if max(abs(self.camera.offset[0]), abs(self.camera.offset[1])) > 0.4:
            raise RenderError("camera offset must be within -0.4..0.4 of the image size")
        if not 0.2 <= self.camera.scale <= 2.0:
            raise RenderError("camera scale must be 0.2..2 (1 = the field spans 55 % of the width)")
        if self.row_limit not in range(3, 7):
            raise RenderError("row_limit must be 3..6")
        if any(d.size <= 0 or d.motion < 0 for d in self.dice) or any(
            h.scale <= 0 or h.blur < 0 for h in self.hands
        ):
            raise RenderError("die sizes and hand scales must be positive, hand blur not negative")
        if min(self.glare, self.noise, self.blur, self.shading, self.tint, self.jitter, self.clutter) < 0:
            raise RenderError("glare, noise, blur, shading, tint, jitter and clutter cannot be negative")
        if self.light <= 0 or (self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100):
            raise RenderError("light must be positive and jpeg_quality 1..100 (or None)")


def scene_from_layout(layout: ImageLayout, **kw: Any) -> Scene:
    """A scene showing ``layout``; keyword arguments set the other :class:`Scene` fields."""
    return Scene(layout.top, layout.bottom, layout.bar_light, layout.bar_dark, **kw)
