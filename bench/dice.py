"""Dice reader benchmark: real photographs, real boards, rendered boards, speed.

    python -m bench.dice                 # everything (a few minutes on 2 cores)
    python -m bench.dice --rendered 40   # fewer rendered frames
    python -m bench.dice --skip-real     # rendered and speed only
    python -m bench.dice --detect-model /tmp/dd/dice_detect.onnx   # try another detector
    python -m bench.dice --flags-model /tmp/df/dice_flags.onnx     # try another flags network
    python -m bench.dice --value-model /tmp/d/dice_value.onnx      # try another value reader

Real dice (``../shared/data/real-dice``): a detection counts when its centre lies in a labelled box
(each box once), as in ``../shared/checks/dice.py``. Rendered frames: the flags against the renderer's
truth, one figure a line. Speed: median ms of ``find_dice`` on a 1280x720 rendered frame (wall and CPU
time), and its ratio to ``cvtColor + GaussianBlur(5x5)`` of the same frame measured in the same run;
also the detector alone and the candidates it sends to the value reader.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import time
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from bench.models import use_value_model
from synthetic.random_scenes import BENCH_DICE, dice_scene
from synthetic.render import render
from vision import dice_detect, dice_flags
from vision.dice import find_dice
from vision.dice_field import FIELD_IN_DICE, checked_quad, detect_scale, expected_die_side, search_window
from vision.dice_proposals import candidates
from vision.reading import DieReading

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
# A die whose flags-network P(cocked) lies in here is one the table might be asked about (reported only:
# find_dice decides by vision.dice_flags.lean).
ASK_BAND = (0.2, 0.9)
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


def inside(box: Sequence[float], x: float, y: float) -> bool:
    """Whether the box (x0, y0, x1, y1) contains the point (x, y), as the check counts."""
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _holds(box: tuple, x: float, y: float) -> bool:
    """Whether a labelled box (value, x0, y0, x1, y1) contains the point (x, y), as the check counts."""
    return inside(box[1:], x, y)


def greedy_matches(dice: list[DieReading], boxes: list) -> list[tuple[DieReading, int]]:
    """Each detection with the labelled box (value, x0, y0, x1, y1; its index) it counts for, matched as
    ``../shared/checks/dice.py`` matches: in output order, to the first box not yet taken that contains
    its centre; a detection no box takes is left out."""
    used: set[int] = set()
    out = []
    for d in dice:
        hit = next((i for i, b in enumerate(boxes) if i not in used and _holds(b, *d.center)), None)
        if hit is not None:
            used.add(hit)
            out.append((d, hit))
    return out


def best_matching(centres: list[tuple[float, float]], values: list, boxes: list) -> tuple[int, int]:
    """(matched, right values) of the matching of detections to labelled boxes that contain their centres
    which matches the most detections and, of those, reads the most right: the check matches greedily in
    output order, and the boxes of touching dice overlap, so a die read right can meet its neighbour's box.

        >>> best_matching([(5.0, 5.0), (9.0, 5.0)], [2, 3], [(3, 0, 0, 10, 10), (2, 0, 0, 6, 10)])
        (2, 2)
    """
    options = [[i for i, b in enumerate(boxes) if _holds(b, x, y)] for x, y in centres]
    best = (0, 0)

    def search(k: int, used: frozenset[int], matched: int, right: int) -> None:
        nonlocal best
        if k == len(options):
            best = max(best, (matched, right))
            return
        if matched + len(options) - k < best[0]:  # even matching every one left cannot catch up
            return
        for i in options[k]:
            if i not in used:
                search(k + 1, used | {i}, matched + 1, right + (values[k] == boxes[i][0]))
        search(k + 1, used, matched, right)

    search(0, frozenset(), 0, 0)
    return best


def score_real(names: list[str], labels: dict, folder: Path) -> tuple[int, int, int, int, int, int, int]:
    """(labelled, found, detections, true detections, right values, right and sure, right values under the
    best matching) over ``names``.

    A value is the one ``referee dice`` reports: for a die too unclear to count, its likeliest face.
    """
    total = found = detections = true = right = sure = best_right = 0
    for name in names:
        dice = find_dice(cv2.imread(str(folder / name)))
        boxes = labels[name]
        total += len(boxes)
        detections += len(dice)
        matches = greedy_matches(dice, boxes)
        for d, hit in matches:
            right += d.to_json()["value"] == boxes[hit][0]
            sure += d.value == boxes[hit][0]
        true += len(matches)
        found += len(matches)
        best_right += best_matching([d.center for d in dice], [d.to_json()["value"] for d in dice], boxes)[1]
    return total, found, detections, true, right, sure, best_right


def load_real_labels(path: Path) -> dict[str, list[tuple[int, float, float, float, float]]]:
    labels: dict[str, list] = {}
    with open(path) as f:
        for r in csv.DictReader(f):
            box = tuple(float(r[k]) for k in ("xmin", "ymin", "xmax", "ymax"))
            labels.setdefault(r["filename"], []).append((WORDS[r["class"]], *box))
    return labels


def bench_real() -> None:
    labels = load_real_labels(DATA / "real-dice" / "labels.csv")
    names = sorted(labels)
    total, found, det, true, right, sure, best = score_real(names, labels, DATA / "real-dice" / "images")
    print(
        f"real dice ({len(labels)} photos): recall {found / total:.4f} ({found}/{total}), "
        f"precision {true / max(det, 1):.4f} ({true}/{det}), value accuracy {right / max(found, 1):.4f} "
        f"({right}/{found}; read surely and right {sure}, the rest flagged unreadable or cocked; "
        f"with the best matching of centres to boxes instead of the check's greedy one {best} right)"
    )
    # the photographs tools/train_dice.py --holdout 10 kept out of the shipped reader's training
    total, found, det, true, right, _, _ = score_real(names[::10], labels, DATA / "real-dice" / "images")
    print(
        f"  held out of training ({len(names[::10])} photos): recall {found / total:.4f}, "
        f"precision {true / max(det, 1):.4f}, value accuracy {right / max(found, 1):.4f} ({right}/{found})"
    )


def match_board_dice(found: list[DieReading], truth: list[tuple[int, tuple[float, float]]], tol: float):
    """Pairs (truth index, reading) matched by nearest centre within ``tol`` px."""
    pairs, used = [], set()
    for i, (_, (tx, ty)) in enumerate(truth):
        best = min(
            (j for j in range(len(found)) if j not in used),
            key=lambda j: np.hypot(found[j].center[0] - tx, found[j].center[1] - ty),
            default=None,
        )
        if best is not None and np.hypot(found[best].center[0] - tx, found[best].center[1] - ty) < tol:
            used.add(best)
            pairs.append((i, found[best]))
    return pairs


def bench_boards() -> None:
    """The dice of the real board photographs: ``find_dice`` alone, and as ``referee read`` gives them
    (the board reader with a profile calibrated on the photograph's own label, which drops "dice" that are
    the board's own look)."""
    from bgboard.layout import ImageLayout
    from calibration.learn import calibrate
    from vision.board_reader import BoardReader

    for e in json.loads((DATA / "real-boards" / "labels.json").read_text()):
        if not e.get("dice"):
            continue
        img = cv2.imread(str(DATA / "real-boards" / e["image"]))
        truth = [(d["value"], tuple(d["center"])) for d in e["dice"]]
        profile = calibrate(img, [tuple(c) for c in e["board_quad"]], known=ImageLayout.from_json(e))
        for how, dice in (
            ("find_dice", find_dice(img, np.array(e["board_quad"], np.float32))),
            ("referee read", list(BoardReader(profile).read(img).dice)),
        ):
            pairs = match_board_dice(dice, truth, 25)
            right = sum(truth[i][0] == d.value for i, d in pairs)
            print(
                f"board {e['image']} ({how}): {right}/{len(truth)} dice right, {len(dice) - len(pairs)} "
                f"extra; read {[d.value for d in dice]} want {[v for v, _ in truth]}"
            )


def pct(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a percentage with one decimal ("-" of nothing)."""
    return f"{100 * part / whole:.1f}%" if whole else "-"


def against_another(i: int, dice: Sequence) -> bool:
    """Whether the rendered die ``i`` lies against another die (its whole-die box, grown by a quarter of
    its width on every side, meets another's): a cocked die there leans on the other die."""
    x0, y0, x1, y1 = dice[i].box
    m = (x1 - x0) / 4
    return any(
        x0 - m <= o.box[2] and o.box[0] <= x1 + m and y0 - m <= o.box[3] and o.box[1] <= y1 + m
        for k, o in enumerate(dice)
        if k != i
    )


def taken_as_a_roll(found: list[DieReading], thrown: int) -> bool:
    """Whether a frame's dice would be taken as a roll: as many found as thrown, each read with a face,
    none flagged cocked, on a checker or beyond the field (any of those makes the throw a throw again), nor
    at the field's edge (the table is asked)."""
    flagged = any(d.cocked or d.unreadable or d.on_checker or d.outside_field or d.at_edge for d in found)
    return len(found) == thrown and not flagged and all(d.value is not None for d in found)


def bench_rendered(count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Flag and value figures on ``count`` rendered frames; returns the (image, field quad) pairs."""
    rng = np.random.default_rng(seed)
    n = {k: 0 for k in ("flat", "cocked", "cocked_flagged", "flat_cocked", "flat_right", "missed", "extra")}
    n.update(on_total=0, on_right=0, out_total=0, out_right=0, out_edge=0, half_total=0, half_right=0)
    n.update(flat_ask=0, cocked_ask=0, cocked_unreadable=0, cocked_face=0)
    n.update(leaning=0, leaning_flagged=0, leaning_unreadable=0, cocked_frames=0, cocked_taken=0)
    frames = []
    for i in range(count):
        frame = render(dice_scene(rng, BENCH_DICE), seed=seed * 1000 + i)
        frames.append((frame.image, frame.field_quad))
        dice = find_dice(frame.image, frame.field_quad)
        truth = [(t.value, t.center) for t in frame.dice]
        pairs = match_board_dice(dice, truth, 20)
        # the flags network's P(cocked) of each found die, for the ask band (judged again: bench only)
        p_cocked = dice_flags.judge(
            frame.image, frame.field_quad, [d.center for _, d in pairs], FIELD_IN_DICE
        )
        for (j, _), p in zip(pairs, p_cocked, strict=True):
            if ASK_BAND[0] <= p[0] < ASK_BAND[1]:
                n["cocked_ask" if frame.dice[j].cocked else "flat_ask"] += 1
        if any(t.cocked for t in frame.dice):
            n["cocked_frames"] += 1
            n["cocked_taken"] += taken_as_a_roll(dice, len(truth))
        n["missed"] += len(truth) - len(pairs)
        n["extra"] += len(dice) - len(pairs)
        for j, d in pairs:
            t = frame.dice[j]
            if t.cocked:
                face = not d.cocked and not d.unreadable  # alone, a bad throw taken as a roll
                n["cocked"] += 1
                n["cocked_flagged"] += d.cocked
                n["cocked_unreadable"] += d.unreadable  # not taken as a roll either: the table is asked
                n["cocked_face"] += face
                if against_another(j, frame.dice):
                    n["leaning"] += 1
                    n["leaning_flagged"] += d.cocked
                    n["leaning_unreadable"] += d.unreadable
            else:
                n["flat"] += 1
                n["flat_cocked"] += d.cocked
                n["flat_right"] += d.value == t.value
            n["on_total"] += 1
            n["on_right"] += d.on_checker == t.on_checker
            n["out_total"] += 1
            n["out_right"] += d.outside_field == t.outside_field
            # the scenes lay dice flat straddling the field's edge too: the reader asks about those
            n["out_edge"] += t.outside_field and d.at_edge
            if not t.outside_field and t.half:
                n["half_total"] += 1
                n["half_right"] += d.half == t.half
    rows = [
        ("cocked flagged", n["cocked_flagged"], n["cocked"], "target >= 99%"),
        ("cocked, asked about", n["cocked_unreadable"], n["cocked"], "flagged unreadable, not cocked"),
        ("cocked, read a face", n["cocked_face"], n["cocked"], "the frame's other die may be flagged"),
        ("cocked on a die", n["leaning_flagged"], n["leaning"], "flagged: cocked dice against another"),
        ("  asked about", n["leaning_unreadable"], n["leaning"], ""),
        ("cocked, taken", n["cocked_taken"], n["cocked_frames"], "target 0: frames, every die read flat"),
        ("flat called cocked", n["flat_cocked"], n["flat"], "target <= 0.5%"),
        ("flat value right", n["flat_right"], n["flat"], ""),
        ("ask band: flat", n["flat_ask"], n["flat"], f"P(cocked) in [{ASK_BAND[0]}, {ASK_BAND[1]})"),
        ("ask band: cocked", n["cocked_ask"], n["cocked"], ""),
        ("on_checker right", n["on_right"], n["on_total"], "target >= 99%"),
        ("outside_field right", n["out_right"], n["out_total"], "target >= 99%"),
        ("  outside, at_edge", n["out_edge"], n["out_total"], "asked about: a die lying over the edge"),
        ("half right", n["half_right"], n["half_total"], ""),
    ]
    print(f"rendered ({count} frames, seed {seed}): {n['missed']} dice missed, {n['extra']} extra detections")
    for name, part, whole, target in rows:
        print(f"  {name:20} {part:4}/{whole:<4} {pct(part, whole):>6}  {target}".rstrip())
    return frames


def bench_speed(frames: list[tuple[np.ndarray, np.ndarray]], repeat: int = 3) -> None:
    """Medians over ``repeat`` passes, interleaved so that load on the machine hits all alike.

    Wall time and this process's CPU time are both given: on a machine shared with other work the
    wall time of a multi-millisecond call grows with the load far more than that of the reference.
    """
    wall: dict[str, list[float]] = {"ref": [], "find": [], "net": []}
    cpu: dict[str, list[float]] = {"ref": [], "find": []}
    cands = []
    for img, quad in frames:  # warm-up: model loading and first-call allocations
        find_dice(img, quad)

    def timed(key: str, fn, *a) -> None:
        c, t = time.process_time(), time.perf_counter()
        fn(*a)
        wall[key].append(time.perf_counter() - t)
        if key in cpu:
            cpu[key].append(time.process_time() - c)

    for _ in range(repeat):
        for img, quad in frames:
            timed("ref", lambda i: cv2.GaussianBlur(cv2.cvtColor(i, cv2.COLOR_BGR2GRAY), (5, 5), 0), img)
            timed("find", find_dice, img, quad)
            q = checked_quad(quad)
            x0, y0, x1, y1 = search_window(q, img.shape)
            timed("net", dice_detect.heat_map, img[y0:y1, x0:x1], detect_scale(img, expected_die_side(q)))
            cands.append(len(candidates(img, q)))
    w = {k: statistics.median(v) * 1000 for k, v in wall.items()}
    c = {k: statistics.median(v) * 1000 for k, v in cpu.items()}
    print(
        f"speed ({len(frames)} frames {img.shape[1]}x{img.shape[0]}, {repeat} passes): find_dice median "
        f"{w['find']:.2f} ms wall, {c['find']:.2f} ms CPU; reference cvtColor+GaussianBlur {w['ref']:.3f} ms "
        f"wall, {c['ref']:.3f} ms CPU; ratio {w['find'] / w['ref']:.1f}x wall, "
        f"{c['find'] / c['ref']:.1f}x CPU; "
        f"detector (resize + network) {w['net']:.2f} ms wall; candidates read per frame median "
        f"{statistics.median(cands):.0f}, max {max(cands)}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rendered", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--skip-real", action="store_true")
    ap.add_argument("--detect-model", type=Path, help="a detector .onnx to use instead of the shipped one")
    ap.add_argument("--flags-model", type=Path, help="a flags .onnx to use instead of the shipped one")
    ap.add_argument(
        "--value-model",
        type=Path,
        help="a dice_value.onnx to use instead of the shipped readers (with a dice_value_board.onnx "
        "beside it, that one reads the boards)",
    )
    args = ap.parse_args()
    use_value_model(ap, args.value_model)
    if args.detect_model:
        dice_detect.MODEL = args.detect_model.resolve()
    if args.flags_model:
        dice_flags.MODEL = args.flags_model.resolve()
    if not args.skip_real and DATA.is_dir():
        bench_real()
        bench_boards()
    frames = bench_rendered(args.rendered, args.seed) if args.rendered else []
    if frames:
        bench_speed(frames[:30])


if __name__ == "__main__":
    main()
