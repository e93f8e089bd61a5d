"""Random but plausible scenes for the renderer, every recipe in one place, each from a seeded generator.

- :func:`random_scene`: a position dressed the way a club table looks (camera, light, dice, cube, hands,
  clutter, borne-off checkers);
- :func:`dice_scene`: random checkers with dice anywhere, as the dice benchmark (:data:`BENCH_DICE`) and
  the dice reader's training (:data:`TRAINING_DICE`, and :data:`ANGLED_DICE` for a camera at an angle)
  draw them;
- :func:`club` and :func:`club_frame`: one board style under one fixed camera, and frames of positions
  under it with dice, light, noise, blur, JPEG and sometimes a hand (the board-reading suite).

    >>> import numpy as np
    >>> from bgboard.layout import ImageLayout, Side
    >>> start = ImageLayout((-5, 0, 0, 0, 3, 0, 5, 0, 0, 0, 0, -2), (5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2))
    >>> scene = random_scene(start, np.random.default_rng(1), occlusion=0.0)
    >>> scene.top == start.top and scene.hands == ()
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from bgboard.layout import Board, ImageLayout, Orientation, Side
from synthetic.render import (
    DIE_EDGE,
    STYLES,
    Camera,
    CubeSpec,
    DieSpec,
    HandSpec,
    Rendered,
    Scene,
    checker_slots,
    render,
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
    dice: list[DieSpec] = []
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


# --- dice anywhere ----------------------------------------------------------------------------------

# A standard field (24 points and the bar) is about this many dice wide, and this high over its width.
FIELD_IN_DICE = 31.0
FIELD_ASPECT = 0.9
# Dice kept apart lie at least this many die sides apart, centre to centre (a die's diagonal is 1.41).
APART = 1.5


@dataclass(frozen=True)
class DiceScenes:
    """The ranges a dice scene is drawn from (uniform between the two values of each pair)."""

    count: int | tuple[int, int]  # dice, or the range of counts (the upper end excluded)
    x: tuple[float, float]  # field coordinates; beyond 0..1 a die lies off the field
    y: tuple[float, float]
    cocked: float  # the chance that a die leans
    size: tuple[float, float]
    tilt: tuple[float, float]  # camera tilt, degrees
    roll: tuple[float, float]  # camera roll, degrees
    scale: tuple[float, float]
    light: tuple[float, float]
    glare: tuple[float, float]
    noise: tuple[float, float]
    blur: tuple[float, float]
    jpeg: tuple[int, int]  # JPEG quality, in half the frames
    apart: bool = False  # move the second die off the first (see :func:`apart`)
    touching: float = 0.0  # the share of scenes whose first two dice lie against each other (:func:`against`)
    colours: tuple[str, ...] = ("white", "black", "red", "green", "blue")


# the dice benchmark: two dice, a quarter of them cocked, some on checkers or off the field, a third of
# the pairs lying against each other as real throws often leave them
BENCH_DICE = DiceScenes(
    2, (-0.06, 1.06), (0.1, 0.9), 0.25, (0.85, 1.2), (0, 12), (-5, 5), (0.85, 1.2),
    (0.75, 1.15), (0, 0.4), (0, 0.015), (0, 1.0), (60, 95), apart=True, touching=0.35,
)  # fmt: skip
# the dice reader's training: one to four dice of every size, more light, blur and noise, the first two
# lying against each other in a third of the frames
TRAINING_DICE = DiceScenes(
    (1, 5), (-0.08, 1.08), (0.05, 0.95), 0.3, (0.8, 1.3), (0, 15), (-6, 6), (0.8, 1.25),
    (0.7, 1.2), (0, 0.5), (0, 0.02), (0, 1.2), (50, 95), touching=0.35,
)  # fmt: skip
# a camera that looks down at an angle from near by, as a webcam beside a table does: two to five dice
# seen large (40 to 70 px) with the sides facing it in view, a third of them cocked (a leaning die shows
# its sides too, so the reader must tell the two apart)
ANGLED_DICE = DiceScenes(
    (2, 6), (0.05, 0.95), (0.1, 0.9), 0.35, (0.8, 1.3), (15, 35), (-10, 10), (1.4, 2.0),
    (0.7, 1.2), (0, 0.5), (0, 0.02), (0, 1.2), (50, 95), apart=True, touching=0.2,
)  # fmt: skip


def apart(first: DieSpec, second: DieSpec) -> DieSpec:
    """``second`` moved straight away from ``first`` until the two cannot overlap (their centres
    :data:`APART` die sides apart, whatever their turn). Draws nothing from the generator.

        >>> apart(DieSpec(1, 0.5, 0.5), DieSpec(2, 0.8, 0.5)).x
        0.8
    """
    side = max(first.size, second.size) / FIELD_IN_DICE  # in field widths
    dx, dy = second.x - first.x, (second.y - first.y) * FIELD_ASPECT
    gap = math.hypot(dx, dy)
    if gap >= APART * side:
        return second
    ux, uy = (dx / gap, dy / gap) if gap > 1e-9 else (1.0, 0.0)
    return replace(second, x=first.x + ux * APART * side, y=first.y + uy * APART * side / FIELD_ASPECT)


def against(first: DieSpec, second: DieSpec, corner: bool, side: int, die: float) -> DieSpec:
    """``second`` laid against ``first`` on its ``side`` (0..3), turned as ``first`` is: side by side, or
    with ``corner`` corner to corner; ``die`` is a standard die's side in field widths. Draws nothing.

        >>> d = against(DieSpec(1, 0.5, 0.5), DieSpec(2, 0.9, 0.9), False, 0, 0.03)
        >>> round(d.x, 4), d.y
        (0.5303, 0.5)
    """
    a = math.radians(first.angle + 90 * side + (45 if corner else 0))
    reach = die * (first.size + second.size) / 2 * (math.sqrt(2) if corner else 1.0) * 1.01
    x, y = first.x + reach * math.cos(a), first.y + reach * math.sin(a) / FIELD_ASPECT
    return replace(second, x=x, y=y, angle=first.angle)


def dice_scene(rng: np.random.Generator, recipe: DiceScenes) -> Scene:
    """Random checkers (:func:`random_layout`) with dice drawn from ``recipe``, any colour, on any board."""
    top, bottom = random_layout(rng)
    count = recipe.count if isinstance(recipe.count, int) else int(rng.integers(*recipe.count))
    dice = [
        DieSpec(
            int(rng.integers(1, 7)),
            float(rng.uniform(*recipe.x)),
            float(rng.uniform(*recipe.y)),
            float(rng.uniform(0, 90)),
            bool(rng.random() < recipe.cocked),
            str(rng.choice(recipe.colours)),
            float(rng.uniform(*recipe.size)),
        )
        for _ in range(count)
    ]
    if recipe.apart and len(dice) == 2:
        dice[1] = apart(dice[0], dice[1])
    scene = Scene(
        top,
        bottom,
        style=str(rng.choice(list(STYLES))),
        dice=tuple(dice),
        camera=Camera(
            float(rng.uniform(*recipe.tilt)),
            float(rng.uniform(*recipe.roll)),
            0.0,
            float(rng.uniform(*recipe.scale)),
        ),
        light=float(rng.uniform(*recipe.light)),
        glare=float(rng.uniform(*recipe.glare)),
        noise=float(rng.uniform(*recipe.noise)),
        blur=float(rng.uniform(*recipe.blur)),
        jpeg_quality=int(rng.integers(*recipe.jpeg)) if rng.random() < 0.5 else None,
    )
    if len(dice) >= 2 and rng.random() < recipe.touching:
        die = DIE_EDGE * STYLES[scene.style].geometry.diameter
        laid = against(dice[0], dice[1], bool(rng.random() < 0.35), int(rng.integers(4)), die)
        scene = replace(scene, dice=(dice[0], laid, *dice[2:]))
    return scene


# --- one board under one camera ---------------------------------------------------------------------


@dataclass(frozen=True)
class Club:
    """One board style under one fixed camera, and the frame of the starting position it calibrates on."""

    style: str
    camera: Camera
    orientation: Orientation
    start: Rendered

    @property
    def corners(self) -> list[tuple[float, float]]:
        """The field's corners in the starting frame (tl, tr, br, bl), as calibration takes them."""
        return [(float(x), float(y)) for x, y in self.start.field_quad]


def club(style: str, rng: np.random.Generator) -> Club:
    """A club's board and camera: the camera is mounted to see the whole field, with room for the near
    checkers' sides (a camera that crops the field is moved back until it does not)."""
    orientation = Orientation.BOTTOM_RIGHT if rng.random() < 0.5 else Orientation.TOP_LEFT
    start = Board.start().layout(orientation)
    scale = float(rng.uniform(0.9, 1.3))
    while True:
        camera = Camera(
            tilt_deg=float(rng.uniform(0, 20)),
            rotation_deg=float(rng.uniform(-4, 4)),
            distortion=float(rng.uniform(0, 0.03)),
            scale=scale,
        )
        scene = scene_from_layout(start, style=style, camera=camera, noise=0.01)
        frame = render(scene, seed=int(rng.integers(1 << 30)))
        q = frame.field_quad
        if q[:, 0].min() > 20 and q[:, 1].min() > 20 and q[:, 0].max() < 1260 and q[:, 1].max() < 680:
            return Club(style, camera, orientation, frame)
        scale *= 0.92


def club_frame(club: Club, board: Board, rng: np.random.Generator, occlude: bool) -> Rendered:
    """``board`` under the club's camera: two dice in one half (in six frames of ten), the room's light,
    noise, blur and JPEG, and with ``occlude`` a hand, an arm or a cup over the field."""
    layout = board.layout(club.orientation)
    dice: tuple[DieSpec, ...] = ()
    if rng.random() < 0.6:
        x = 0.75 if rng.random() < 0.5 else 0.25
        dice = tuple(
            DieSpec(
                int(rng.integers(1, 7)),
                x + float(rng.uniform(-0.15, 0.15)),
                float(rng.uniform(0.38, 0.62)),
                angle=float(rng.uniform(0, 90)),
            )
            for _ in range(2)
        )
    hands: tuple[HandSpec, ...] = ()
    if occlude:
        kind = str(rng.choice(["hand", "arm", "cup"]))
        hands = (
            HandSpec(kind, float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9)),
                     angle=float(rng.choice([0, 90, 180, 270]) + rng.uniform(-30, 30)),
                     blur=float(rng.choice([0, 0, 0.03]))),
        )  # fmt: skip
    scene = scene_from_layout(
        layout,
        style=club.style,
        camera=club.camera,
        dice=dice,
        hands=hands,
        light=float(rng.uniform(0.85, 1.15)),
        shading=float(rng.uniform(0, 0.4)),
        glare=float(rng.choice([0, 0, 0.15])),
        noise=float(rng.uniform(0.003, 0.015)),
        blur=float(rng.uniform(0, 0.8)),
        jpeg_quality=int(rng.integers(70, 95)),
        # players fill a point's first row with five or with six before starting a second layer
        row_limit=int(rng.choice([5, 6])),
    )
    return render(scene, seed=int(rng.integers(1 << 30)))
