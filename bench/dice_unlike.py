"""Dice unlike the photographs': the held-out real photographs seen in other light, colours and cameras.

    python -m bench.dice_unlike                        # every look (about a minute)
    python -m bench.dice_unlike --looks tilted "light dice"   # some looks only
    python -m bench.dice_unlike --value-model /tmp/d/dice_value.onnx   # another photograph reader

The dice the networks will meet at a new table are not the ones they learned: other colours and pip
styles, another table under them, another lamp, a camera at an angle or farther away. No photographs of
such dice are here, so the photographs of ``../shared/data/real-dice`` the networks never trained on (every
10th) are changed as such a table would change them, and read as ``referee dice`` reads a photograph
(``find_dice`` with no field), scored as ``../shared/checks/dice.py`` scores: a detection counts when its
centre lies in a labelled box, each box once.

The looks (each a guess at the real thing, not the real thing: a figure here says where to look, and a
real photograph of such dice outranks it):

- as taken: the photographs as they are (the reference);
- light dice: each die's lightness turned over (CIE L* to 100 - L*, inside the outline ``synthetic.pasted``
  cuts it along), hue and saturation kept, the table as it was: dark dice with light pips become light
  dice with dark pips (a set of ivory dice with black pips on the same table), and light dice dark ones
  (a die it cannot cut out cleanly stays as it was);
- dark table: the same turn for the whole photograph, so the table is dark and its shadows light;
- warm lamp: an incandescent lamp's white balance (blue down, red up);
- dim: a dim room's exposure (gamma 1.8) with the sensor's noise;
- tilted: a camera looking down at an angle (the far edge a quarter narrower, a tenth of the height lost);
- farther: the camera farther away (the photograph shrunk to 0.6 of its size in the middle of a frame of
  the same size, the table's colour around it: dice about 24 px, 19 to 30);
- soft focus: a lens out of focus (a Gaussian blur of 1.5 px).

No photograph here shows a camera at a real angle, the sides of every die in view: for that the renderer
draws white dice with black pips (``synthetic.random_scenes.ANGLED_DICE``, none cocked) under cameras
0, 20 and 30 degrees off vertical (``--rendered N`` frames each; 0 for none), and they are read as a
photograph is; and, as many frames again, dice of every colour, half of them leaning, to show how often
a leaning die is flagged cocked and a flat one is (the sides a camera at an angle shows are what a
leaning die shows too). A rendered figure is a hypothesis about real cameras, and the reader's training
draws on the same renderer.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from bench.dice import greedy_matches, inside
from bench.models import use_value_model
from synthetic import pasted
from synthetic.pasted import Cutout
from synthetic.random_scenes import ANGLED_DICE, dice_scene
from synthetic.render import render
from vision import dice_detect
from vision.dice import find_dice

DICE = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "real-dice"
TILTS = (0.0, 20.0, 30.0)  # the rendered cameras' angles off vertical, degrees

Boxes = list[tuple[int, float, float, float, float]]


@dataclass(frozen=True)
class Photograph:
    """A held-out photograph, its labelled dice, and those dice cut out along their outlines."""

    image: np.ndarray
    boxes: Boxes
    dice: list[Cutout]


Look = Callable[[Photograph, np.random.Generator], tuple[np.ndarray, Boxes]]


def as_taken(p: Photograph, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    return p.image, p.boxes


def dark_table(p: Photograph, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    return pasted.lightness_turned(p.image), p.boxes


def light_dice(p: Photograph, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    return pasted.light_for_dark(p.image, p.dice), p.boxes


def warm_lamp(p: Photograph, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    return np.clip(p.image * np.array([0.75, 0.95, 1.15]), 0, 255).astype(np.uint8), p.boxes


def dim(p: Photograph, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    dark = 255.0 * (p.image / 255.0) ** 1.8
    return np.clip(dark + rng.normal(0.0, 4.0, p.image.shape), 0, 255).astype(np.uint8), p.boxes


def tilted(p: Photograph, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    h, w = p.image.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array([[w / 8, h / 10], [w * 7 / 8, h / 10], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(p.image, m, (w, h), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    moved = []
    for value, x0, y0, x1, y1 in p.boxes:
        corners = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float32)
        xs, ys = cv2.perspectiveTransform(corners, m)[0].T
        moved.append((value, float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())))
    return out, moved


def farther(p: Photograph, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    f = 0.6
    small = cv2.resize(p.image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    # the same frame size, the photograph in its middle and more of the table (its median colour) around
    out = np.empty_like(p.image)
    out[:] = np.median(p.image.reshape(-1, 3), axis=0)
    h, w = small.shape[:2]
    dx, dy = (p.image.shape[1] - w) // 2, (p.image.shape[0] - h) // 2
    out[dy : dy + h, dx : dx + w] = small
    return out, [(v, x0 * f + dx, y0 * f + dy, x1 * f + dx, y1 * f + dy) for v, x0, y0, x1, y1 in p.boxes]


def soft_focus(p: Photograph, rng: np.random.Generator) -> tuple[np.ndarray, Boxes]:
    return cv2.GaussianBlur(p.image, (0, 0), 1.5), p.boxes


LOOKS: dict[str, Look] = {
    "as taken": as_taken,
    "light dice": light_dice,
    "dark table": dark_table,
    "warm lamp": warm_lamp,
    "dim": dim,
    "tilted": tilted,
    "farther": farther,
    "soft focus": soft_focus,
}


def _whole(box: tuple[float, float, float, float], shape: tuple[int, ...]) -> bool:
    """Whether a die's box lies wholly in a frame of ``shape`` (a camera this near leaves some of the
    field out of the frame)."""
    return box[0] >= 0 and box[1] >= 0 and box[2] <= shape[1] and box[3] <= shape[0]


def score(photographs: list[Photograph], look: Look, seed: int = 0) -> tuple[int, int, int, int]:
    """(labelled dice, found, detections, found and read right) over ``photographs`` seen through ``look``.
    A value is the one ``referee dice`` reports: for a die too unclear to count, its likeliest face."""
    rng = np.random.default_rng(seed)
    total = found = detections = right = 0
    for photograph in photographs:
        seen, boxes = look(photograph, rng)
        dice = find_dice(seen)
        total += len(boxes)
        detections += len(dice)
        matches = greedy_matches(dice, boxes)
        found += len(matches)
        right += sum(d.to_json()["value"] == boxes[hit][0] for d, hit in matches)
    return total, found, detections, right


def held_out_photographs() -> list[Photograph] | None:
    """The photographs the dice networks never trained on; None without the shared data, and empty
    (with a line saying which) where one cannot be read."""
    labels = DICE / "labels.csv"
    if not labels.is_file():
        return None
    kept = pasted.held_out(labels)
    cut = pasted.by_photograph(pasted.cutouts(labels, DICE / "images", kept))
    photographs = []
    for name, boxes in sorted(pasted.labelled(labels).items()):
        if name not in kept:
            continue
        image = cv2.imread(str(DICE / "images" / name))
        if image is None:
            print(f"cannot read {DICE / 'images' / name}: restore it from the shared data")
            return []
        photographs.append(Photograph(image, boxes, cut.get(name, [])))
    return photographs


def rendered_at(tilt: float, frames: int, seed: int) -> tuple[int, int, int, int]:
    """(dice, found, detections, found and read right) in ``frames`` rendered frames of white dice lying
    flat, seen by a camera ``tilt`` degrees off vertical."""
    recipe = replace(ANGLED_DICE, tilt=(tilt, tilt), cocked=0.0, colours=("white",), touching=0.0)
    rng = np.random.default_rng(seed)
    total = found = detections = right = 0
    for i in range(frames):
        frame = render(dice_scene(rng, recipe), seed=seed * 1000 + i)
        dice = find_dice(frame.image)
        seen = [t for t in frame.dice if _whole(t.box, frame.image.shape)]
        total += len(seen)
        # a find on a die the frame cuts is neither counted nor a phantom
        cut = [t for t in frame.dice if t not in seen]
        detections += sum(not any(inside(t.box, *d.center) for t in cut) for d in dice)
        for truth in seen:
            hit = next((d for d in dice if inside(truth.box, *d.center)), None)
            if hit is not None:
                found += 1
                right += hit.to_json()["value"] == truth.value
    return total, found, detections, right


def leaning_at(tilt: float, frames: int, seed: int) -> tuple[int, int, int, int]:
    """(leaning dice found, of them flagged cocked, flat dice found, of them flagged cocked) in ``frames``
    rendered frames of dice of every colour, half of them leaning, seen by a camera ``tilt`` degrees off
    vertical. Without a field a photograph's die is cocked when the reader finds that likelier than any
    face, and a camera at an angle shows a flat die's sides as a leaning die shows them."""
    recipe = replace(ANGLED_DICE, tilt=(tilt, tilt), cocked=0.5, touching=0.0)
    rng = np.random.default_rng(seed + 1)
    counts = [0, 0, 0, 0]
    for i in range(frames):
        frame = render(dice_scene(rng, recipe), seed=(seed + 1) * 1000 + i)
        dice = find_dice(frame.image)
        for truth in frame.dice:
            hit = next((d for d in dice if inside(truth.box, *d.center)), None)
            if hit is None or not _whole(truth.box, frame.image.shape):
                continue
            k = 0 if truth.cocked else 2
            counts[k] += 1
            counts[k + 1] += hit.cocked
    return counts[0], counts[1], counts[2], counts[3]


def _line(name: str, total: int, found: int, det: int, right: int) -> str:
    return (
        f"  {name:<11} recall {found / max(total, 1):.3f} ({found}/{total}), precision "
        f"{found / max(det, 1):.3f} ({found}/{det}), value {right / max(found, 1):.3f} ({right}/{found})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--looks",
        nargs="+",
        choices=sorted(LOOKS),
        default=list(LOOKS),
        metavar="LOOK",
        help=", ".join(LOOKS),
    )
    parser.add_argument(
        "--value-model", type=Path, help="a dice_value.onnx to read with instead of the shipped one"
    )
    parser.add_argument(
        "--detect-model", type=Path, help="a dice_detect.onnx to use instead of the shipped one"
    )
    parser.add_argument("--rendered", type=int, default=30, help="rendered frames at each camera angle")
    parser.add_argument("--seed", type=int, default=5, help="the rendered frames' seed")
    args = parser.parse_args(argv)
    if not 0 <= args.rendered <= 1000:
        parser.error("--rendered must lie between 0 and 1000")
    use_value_model(parser, args.value_model)
    if args.detect_model:
        if not args.detect_model.is_file():
            parser.error(f"--detect-model: no such file {args.detect_model}")
        dice_detect.MODEL = args.detect_model.resolve()
    began = time.perf_counter()
    photographs = held_out_photographs()
    if photographs is None:
        print(f"real data not present ({DICE}): the photographs skipped")
    elif not photographs:
        return 2
    else:
        print(f"{len(photographs)} held-out photographs, {sum(len(p.boxes) for p in photographs)} dice")
        for name in args.looks:
            print(_line(name, *score(photographs, LOOKS[name])))
    if args.rendered:
        print(f"rendered white dice, {args.rendered} frames at each camera angle (a hypothesis):")
        for tilt in TILTS:
            print(_line(f"{tilt:.0f} degrees", *rendered_at(tilt, args.rendered, args.seed)))
        print(f"rendered dice of every colour, half of them leaning, {args.rendered} frames at each angle:")
        for tilt in TILTS:
            leaning, flagged, flat, called = leaning_at(tilt, args.rendered, args.seed)
            print(
                f"  {f'{tilt:.0f} degrees':<11} leaning dice flagged {flagged}/{leaning}, flat dice called "
                f"leaning {called}/{flat}"
            )
    print(f"{time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
