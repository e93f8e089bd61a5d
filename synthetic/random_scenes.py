"""Random but plausible scenes for the renderer: camera, light, dice, cube, hands and clutter around a layout.

Benchmarks and tests draw many frames of real positions; this module dresses a position the way a club
table looks, from a seeded generator, so suites are varied and reproducible.

    >>> import numpy as np
    >>> from bgboard.layout import ImageLayout, Side
    >>> start = ImageLayout((-5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2), (5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))
    >>> scene = random_scene(start, np.random.default_rng(1), occlusion=0.0)
    >>> scene.top == start.top and scene.hands == ()
    True
"""

from __future__ import annotations

import numpy as np

from bgboard.layout import ImageLayout, Side
from synthetic.render import (
    STYLES,
    Camera,
    CubeSpec,
    DieSpec,
    HandSpec,
    Scene,
    checker_slots,
    scene_from_layout,
)

DIE_COLOURS = ("white", "white", "white", "black", "red", "green", "blue")


def random_layout(rng: np.random.Generator) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """15 light and 15 dark checkers on random points, 1..4 at a time (never two colours on a point):
    the (top, bottom) rows of an image layout."""
    cells = [0] * 24
    for sign in (1, -1):
        left = 15
        while left:
            i = int(rng.integers(24))
            if cells[i] * sign < 0:
                continue
            n = min(left, int(rng.integers(1, 5)))
            cells[i] += sign * n
            left -= n
    return tuple(cells[:12]), tuple(cells[12:])


def random_camera(rng: np.random.Generator, max_tilt: float = 20.0) -> Camera:
    """A camera over the table: up to ``max_tilt`` off vertical, a little roll, mild barrel distortion."""
    return Camera(
        tilt_deg=float(rng.uniform(0, max_tilt)),
        rotation_deg=float(rng.normal(0, 2.5)),
        distortion=float(rng.uniform(0, 0.12)),
        scale=float(rng.uniform(0.85, 1.15)),
        offset=(
            float(np.clip(rng.normal(0, 0.04), -0.1, 0.1)),
            float(np.clip(rng.normal(0, 0.02), -0.04, 0.04)),
        ),
    )


def _checker_spot(layout: ImageLayout, style: str, rng: np.random.Generator) -> tuple[float, float] | None:
    """Field coordinates of the outermost checker of a random occupied point (a die may land on it)."""
    geo = STYLES[style].geometry
    cells = [
        (row, i, abs(v))
        for row, vals in (("top", layout.top), ("bottom", layout.bottom))
        for i, v in enumerate(vals)
        if v
    ]
    if not cells:
        return None
    row, i, n = cells[int(rng.integers(len(cells)))]
    along, _ = checker_slots(n)[min(n, 5) - 1]
    dy = along * geo.diameter / geo.aspect
    return geo.point_x(i), dy if row == "top" else 1 - dy


def random_dice(
    layout: ImageLayout, style: str, rng: np.random.Generator, count: int = 2, bad: float = 0.15
) -> tuple[DieSpec, ...]:
    """``count`` dice thrown into the right half; with probability ``bad`` each is cocked, on a checker,
    in the other half or off the field (the cases the referee must call for a reroll)."""
    colour = str(rng.choice(DIE_COLOURS))
    dice = []
    for k in range(count):
        x, y = float(rng.uniform(0.58, 0.94)), float(rng.uniform(0.3, 0.7))
        cocked = False
        if rng.random() < bad:
            trouble = rng.choice(["cocked", "checker", "left", "outside"])
            if trouble == "cocked":
                cocked = True
            elif trouble == "checker" and (spot := _checker_spot(layout, style, rng)) is not None:
                x, y = spot
            elif trouble == "left":
                x = float(rng.uniform(0.06, 0.42))
            elif trouble == "outside":
                x = float(rng.choice([-1, 1]) * rng.uniform(0.04, 0.09) + (0 if rng.random() < 0.5 else 1))
                x = x if x < 0 or x > 1 else 1.06
        # Keep a second die from landing on the first.
        if k and abs(x - dice[0].x) < 0.06 and abs(y - dice[0].y) < 0.08:
            y = y + 0.12 if y < 0.5 else y - 0.12
        dice.append(
            DieSpec(
                int(rng.integers(1, 7)),
                x,
                y,
                float(rng.uniform(0, 90)),
                cocked,
                colour,
                float(rng.uniform(0.9, 1.15)),
            )
        )
    return tuple(dice)


def random_hands(rng: np.random.Generator, count: int = 1) -> tuple[HandSpec, ...]:
    """Hands reaching in (a fifth of them holding a checker), arms lying across, dice cups on the field."""
    hands = []
    for _ in range(count):
        kind = str(rng.choice(["hand", "hand", "arm", "cup"]))
        angle = float(rng.choice([0.0, 180.0]) + rng.normal(0, 25))
        holding = str(rng.choice(["light", "dark"])) if kind == "hand" and rng.random() < 0.2 else None
        hands.append(
            HandSpec(
                kind,
                float(rng.uniform(0.05, 0.95)),
                float(rng.uniform(0.1, 0.9)),
                angle,
                float(rng.uniform(0.85, 1.2)),
                float(rng.choice([0.0, 0.0, rng.uniform(0.01, 0.06)])),
                holding,
            )
        )
    return tuple(hands)


def random_scene(
    layout: ImageLayout,
    rng: np.random.Generator,
    *,
    style: str | None = None,
    camera: Camera | None = None,
    dice: int | None = None,
    occlusion: float = 0.3,
    effects: bool = True,
) -> Scene:
    """``layout`` on a random (or the given) board and camera, with dice, maybe a cube and hands.

    ``occlusion`` is the chance of one or two hands/arms/cups; ``dice`` the number of dice (random 0..2
    when None); ``effects`` adds uneven light, glare, noise, blur, JPEG and a colour cast.
    """
    style = style or str(rng.choice(sorted(STYLES)))
    camera = camera or random_camera(rng)
    n_dice = int(rng.choice([0, 2, 2, 2])) if dice is None else dice
    cube = None
    if rng.random() < 0.6:
        cube = CubeSpec(int(rng.choice([64, 2, 4, 8])), str(rng.choice(["centre", "tray", "top", "bottom"])))
    hands = random_hands(rng, 1 + int(rng.random() < 0.3)) if rng.random() < occlusion else ()
    kw: dict[str, object] = {}
    if effects:
        kw = {
            "light": float(rng.uniform(0.75, 1.15)),
            "shading": float(rng.uniform(0, 0.6)),
            "glare": float(rng.choice([0.0, 0.0, rng.uniform(0.1, 0.4)])),
            "noise": float(rng.uniform(0, 0.02)),
            "blur": float(rng.choice([0.0, rng.uniform(0.3, 1.3)])),
            "jpeg_quality": int(rng.integers(60, 96)),
            "tint": float(rng.uniform(0, 0.6)),
            "clutter": int(rng.integers(0, 4)),
        }
    # Borne-off checkers stand in the tray (most players keep them there, in view of the camera).
    if rng.random() < 0.7:
        kw["off_light"] = max(0, 15 - layout.checkers(Side.LIGHT))
        kw["off_dark"] = max(0, 15 - layout.checkers(Side.DARK))
    return scene_from_layout(
        layout,
        style=style,
        camera=camera,
        dice=random_dice(layout, style, rng, n_dice),
        cube=cube,
        hands=hands,
        row_limit=int(rng.choice([5, 5, 6])),
        jitter=float(rng.uniform(0.3, 1.3)),
        **kw,
    )
