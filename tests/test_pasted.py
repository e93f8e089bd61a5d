"""Real dice cut out of photographs and pasted into frames (``synthetic.pasted``): the bench's and the
training composites' dice carry nothing of the photograph's table, and shrink as a camera shrinks them."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

from synthetic.pasted import Cutout, cutouts, labelled, light_for_dark, paste, turned_light_for_dark

TABLE = (175, 180, 182)  # the grey table of the dice photographs (BGR)


def _photograph(folder: Path, turn: float) -> tuple[float, float, float, float]:
    """A photograph of one red die turned by ``turn`` degrees on a grey table, and a neighbour touching
    its box; labels.csv as the real dice's. Returns the die's labelled box."""
    image = np.zeros((200, 200, 3), np.uint8)
    image[:] = TABLE
    centre, side = (90.0, 100.0), 50.0
    square = cv2.boxPoints((centre, (side, side), turn)).astype(np.int32)
    cv2.fillConvexPoly(image, square, (40, 40, 200))
    for dx, dy in ((-12, -12), (0, 0), (12, 12)):
        cv2.circle(image, (int(centre[0] + dx), int(centre[1] + dy)), 5, (250, 250, 250), -1)
    cv2.rectangle(image, (112, 50), (140, 78), (200, 60, 30), -1)  # a blue die in its box's corner
    (folder / "images").mkdir()
    cv2.imwrite(str(folder / "images" / "one.png"), image)
    x0, y0 = square.min(0)
    x1, y1 = square.max(0)
    rows = [
        "filename,width,height,class,xmin,ymin,xmax,ymax",
        f"one.png,200,200,three,{x0},{y0},{x1},{y1}",
        "one.png,200,200,five,112,50,140,78",
    ]
    (folder / "labels.csv").write_text("\n".join(rows) + "\n")
    return float(x0), float(y0), float(x1), float(y1)


def test_a_turned_die_is_cut_along_its_outline_without_the_table_or_its_neighbour(tmp_path: Path) -> None:
    """The labelled box of a turned die holds table in its corners: the cut-out keeps none of it (a die
    pasted with a grey square around it reads as a big die showing one pip), nor the neighbouring die."""
    x0, y0, x1, y1 = _photograph(tmp_path, 30.0)
    die = next(c for c in cutouts(tmp_path / "labels.csv", tmp_path / "images") if c.value == 3)
    colours = die.image.astype(float)
    table = np.linalg.norm(colours - TABLE, axis=2) < 20
    blue = np.linalg.norm(colours - (200, 60, 30), axis=2) < 40
    # beyond the mask's soft rim (two pixels), nothing of the table or of the neighbour is kept
    rim = np.ones((5, 5), np.uint8)
    for other in (table, blue):
        assert die.alpha[cv2.erode(other.astype(np.uint8), rim) > 0].max() < 0.05
    inner = cv2.erode((~table & ~blue).astype(np.uint8), rim) > 0
    assert die.alpha[inner].min() > 0.9  # the die itself, pips and all
    assert math.isclose(die.side, 50.0, rel_tol=0.12)  # its side, not its box's


def test_a_die_shrunk_as_a_camera_shrinks_it_keeps_its_pips() -> None:
    """Pasted at a third of its size, a die's one-pixel marks still darken the frame by their share of
    the face, evenly: each frame pixel is the mean of what it covers. (Sampling one point in three
    would see every mark, or none.)"""
    n = 60
    face = np.full((n, n, 3), 240, np.uint8)
    face[1::3] = 0  # a dark row in every three: marks finer than the frame's pixels
    die = Cutout(face, np.ones((n, n), np.float32), 6, float(n), "test")
    frame = np.full((80, 80, 3), 240, np.uint8)
    paste(frame, die, (40.0, 40.0), 20.0, 0.0, np.random.default_rng(0), shadow=0.0, blur=0.0)
    inside = frame[34:46, 34:46].astype(float)
    assert abs(inside.mean() - 160) < 10  # two thirds of the face's white
    assert inside.std() < 10


def test_a_dark_see_through_die_is_cut_whole_not_as_its_pips(shared_data: Path) -> None:
    """GrabCut takes the dark, see-through body of this real die for the table's shade and keeps its
    pips alone: pasted, that is five white dots and no die. The cut-out covers the die's box instead."""
    dice = shared_data / "real-dice"
    name = "IMG_20191208_112902.jpg"  # one dark translucent five, lying square to the camera
    (die,) = cutouts(dice / "labels.csv", dice / "images", {name})
    _, x0, y0, x1, y1 = labelled(dice / "labels.csv")[name][0]
    assert (die.alpha > 0.5).sum() > 0.6 * (x1 - x0) * (y1 - y0)


def test_dice_lying_against_each_other_are_cut_apart(shared_data: Path) -> None:
    """Real red dice with pale pips, two of them lying against each other so that the 4's bottom corner
    and pip reach into the 2's labelled box. Each cut-out shows its own pips and no pip of its
    neighbour: pasted, a 2 carrying a third pip reads as a 3 (before the cut split the boxes' overlap
    halfway between the dice's middles, this 2 carried two of the 4's pips)."""
    dice = shared_data / "real-dice"
    for die in cutouts(dice / "labels.csv", dice / "images", {"IMG_20191209_095613.jpg"}):
        grey = cv2.cvtColor(die.image, cv2.COLOR_BGR2GRAY)
        pale = ((grey > 170) & (die.alpha > 0.5)).astype(np.uint8)
        _, _, stats, _ = cv2.connectedComponentsWithStats(pale)
        pips = sum(area >= 4 for area in stats[1:, cv2.CC_STAT_AREA])  # a pip is 6 px or more here
        assert pips == die.value, (die.value, pips)


def test_a_die_turned_light_for_dark_in_its_photograph_leaves_the_table_as_it_was(tmp_path: Path) -> None:
    """A dark red die with white pips becomes a light red one with dark pips where it was cut out
    (``Cutout.at``); nothing beyond its cut-out changes (another set of dice on the same table)."""
    _photograph(tmp_path, turn=20.0)
    image = cv2.imread(str(tmp_path / "images" / "one.png"))
    red = next(c for c in cutouts(tmp_path / "labels.csv", tmp_path / "images") if c.value == 3)
    x, y = red.at
    h, w = red.alpha.shape
    assert np.array_equal(image[y : y + h, x : x + w], red.image)  # ``at`` is where it was cut from
    light = light_for_dark(image, [red])
    body, pip = (75, 120), (90, 100)  # a point of the red die's body, and its middle pip
    assert int(image[body[1], body[0]].mean()) < 100 < int(light[body[1], body[0]].mean())
    assert int(image[pip[1], pip[0]].mean()) > 200 > 100 > int(light[pip[1], pip[0]].mean())
    assert light[body[1], body[0], 2] > light[body[1], body[0], 0]  # still red
    table = np.ones(image.shape[:2], bool)
    table[y : y + h, x : x + w] = False
    assert np.array_equal(light[table], image[table])


def test_a_cut_out_die_turned_light_for_dark_keeps_its_face_and_outline(tmp_path: Path) -> None:
    """``turned_light_for_dark`` (``bench.semireal --light-dice``) gives each cut-out die pale for dark,
    its face, outline and place in its photograph as they were."""
    _photograph(tmp_path, turn=20.0)
    red = next(c for c in cutouts(tmp_path / "labels.csv", tmp_path / "images") if c.value == 3)
    (pale,) = turned_light_for_dark([red])
    x, y = 75 - red.at[0], 120 - red.at[1]  # a point of the red die's body, in the cut-out
    assert int(red.image[y, x].mean()) < 100 < int(pale.image[y, x].mean())
    assert (pale.value, pale.side, pale.at) == (red.value, red.side, red.at)
    assert np.array_equal(pale.alpha, red.alpha)
