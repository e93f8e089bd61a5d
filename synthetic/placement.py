"""Where the renderer puts checkers: slots on points and the bar, drift, and what an occluder hides.

The conventions are those of :mod:`synthetic.render` (field coordinates 0..1, world units with the field
1 wide); this module holds the arithmetic of where things stand.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from bgboard.layout import Cell, Row, Side
from synthetic.camera import CameraModel
from synthetic.props import Checker
from synthetic.scene import Scene
from synthetic.styles import Geometry, Style

# a checker placed on the board: its cell, the checker, its layer (0 on the board) and whether it is light
Placed = tuple[Cell, Checker, int, bool]

BAR_GAP = 0.45  # free space either side of the bar's centre (for the cube), in checker diameters


def checker_slots(n: int, row_limit: int = 5) -> list[tuple[float, int]]:
    """Where ``n`` checkers sit on a point: (distance of the centre from the edge in diameters, layer).

    >>> checker_slots(7)
    [(0.5, 0), (1.5, 0), (2.5, 0), (3.5, 0), (4.5, 0), (1.0, 1), (2.0, 1)]
    """
    out: list[tuple[float, int]] = []
    layer = 0
    while len(out) < n:
        room = max(1, row_limit - layer)
        for j in range(room):
            if len(out) == n:
                break
            out.append((0.5 + 0.5 * layer + j, layer))
        layer += 1
    return out


def slot_xy(geo: Geometry, cell: Cell, k: int, row_limit: int = 5) -> tuple[float, float]:
    """Field coordinates of the ideal centre of the ``k``-th checker (0-based) of ``cell``.

    >>> geo = Geometry(aspect=0.92, bar=0.062)
    >>> [round(v, 3) for v in slot_xy(geo, Cell.parse("top-0"), 0)]
    [0.039, 0.041]
    """
    along, _ = checker_slots(k + 1, row_limit)[k]
    dy = along * geo.diameter / geo.aspect
    if cell.bar is not None:
        room = min(row_limit, int((geo.aspect / 2 - BAR_GAP * geo.diameter) / geo.diameter))
        along, _ = checker_slots(k + 1, room)[k]
        off = (BAR_GAP + along) * geo.diameter / geo.aspect
        return 0.5, 0.5 - off if cell.bar is Side.LIGHT else 0.5 + off
    return geo.point_x(cell.index), dy if cell.row is Row.TOP else 1 - dy


def cell_columns(scene: Scene, geo: Geometry) -> list[tuple[Cell, int, float, float, float, int]]:
    """(cell, count, x of the column in world units, y of its start, direction, row limit) for all cells."""
    half_h = geo.aspect / 2
    cols = []
    for row, values, y0, sign in (
        (Row.TOP, scene.top, -half_h, 1.0),
        (Row.BOTTOM, scene.bottom, half_h, -1.0),
    ):
        for i, v in enumerate(values):
            cols.append((Cell.point(row, i), v, geo.point_x(i) - 0.5, y0, sign, scene.row_limit))
    gap = BAR_GAP * geo.diameter
    bar_room = min(scene.row_limit, int((half_h - gap) / geo.diameter))
    cols.append((Cell.bar_of(Side.LIGHT), scene.bar_light, 0.0, -gap, -1.0, bar_room))
    cols.append((Cell.bar_of(Side.DARK), -scene.bar_dark, 0.0, gap, 1.0, bar_room))
    return cols


def place_checkers(scene: Scene, style: Style, rng: np.random.Generator) -> list[Placed]:
    geo = style.geometry
    d = geo.diameter
    t = d * geo.thickness
    placed: list[Placed] = []
    for cell, v, x, y0, sign, limit in cell_columns(scene, geo):
        look = style.light if v > 0 else style.dark
        slide = 0.0
        prev_layer = 0
        for along, layer in checker_slots(abs(v), limit):
            if layer != prev_layer:
                slide, prev_layer = 0.0, layer
            # Checkers are pushed together from the edge, a little apart, and sideways off the line.
            slide += abs(rng.normal(0.0, 0.012)) * scene.jitter
            dx = float(np.clip(rng.normal(0, 0.12), -0.33, 0.33)) * scene.jitter * d
            if layer:
                dx += (0.06 if layer % 2 else -0.06) * d * scene.jitter
            y = y0 + sign * (along + slide) * d
            checker = Checker(x + dx, y, layer * t, look, int(rng.integers(1 << 30)))
            placed.append((cell, checker, layer, v > 0))
    return separate(placed, d)


def separate(placed: list[Placed], d: float) -> list[Placed]:
    """Push apart checkers of one layer that the sideways drift made overlap: solid discs only touch."""
    out = list(placed)
    for layer in {k for _, _, k, _ in out}:
        idx = [i for i, (_, _, k, _) in enumerate(out) if k == layer]
        xy = np.array([[out[i][1].x, out[i][1].y] for i in idx])
        for _ in range(10):
            diff = xy[:, None, :] - xy[None, :, :]
            dist = np.hypot(diff[..., 0], diff[..., 1]) + np.eye(len(xy))
            push = np.clip(d * 1.002 - dist, 0, None) / 2
            np.fill_diagonal(push, 0)
            if not push.any():
                break
            xy += (diff / dist[..., None] * push[..., None]).sum(1)
        for i, (x, y) in zip(idx, xy, strict=True):
            cell, c, k, light = out[i]
            out[i] = (cell, dataclasses.replace(c, x=float(x), y=float(y)), k, light)
    return out


def cells_hidden(
    scene: Scene, geo: Geometry, model: CameraModel, hidden: np.ndarray
) -> tuple[frozenset[Cell], frozenset[Cell]]:
    """Cells whose checker slots the occluders cover: (a quarter of a slot or more, any at all)."""
    d = geo.diameter
    g = np.linspace(-0.42, 0.42, 9) * d
    gx, gy = np.meshgrid(g, g)
    inside = gx**2 + gy**2 <= (0.45 * d) ** 2
    offs = np.stack([gx[inside], gy[inside]], 1)
    full, part = set(), set()
    h, w = hidden.shape
    for cell, _, x, y0, sign, limit in cell_columns(scene, geo):
        slots = [y0 + sign * (k + 0.5) * d for k in range(limit)]
        pts = np.concatenate([offs + [x, y] for y in slots])
        p3 = np.concatenate([pts, np.full((len(pts), 1), d * geo.thickness)], 1)
        uv = np.round(model.to_canvas(p3)).astype(int)
        ok = (uv[:, 0] >= 0) & (uv[:, 0] < w) & (uv[:, 1] >= 0) & (uv[:, 1] < h)
        covered = np.zeros(len(uv), bool)
        covered[ok] = hidden[uv[ok, 1], uv[ok, 0]] > 0
        frac = covered.reshape(limit, -1).mean(1).max()
        if frac >= 0.25:
            full.add(cell)
        elif frac > 0:
            part.add(cell)
    return frozenset(full), frozenset(part)


def top_checker_at(x: float, y: float, checkers: list[Placed], geo: Geometry) -> float:
    """Height of the highest checker top under world point (x, y); -1 when none is under it."""
    r = geo.diameter / 2
    tops = [c.z + geo.diameter * geo.thickness for _, c, _, _ in checkers if math.hypot(c.x - x, c.y - y) < r]
    return max(tops) if tops else -1.0
