"""Board-reading benchmark: a rendered suite, the real photographs, and speed.

    python -m bench.boards                 # the full suite (>= 500 rendered frames, 5 styles)
    python -m bench.boards --frames 40     # a quick sample

Rendered: for each "club" (a board style under one camera) a profile is calibrated on the rendered start
position; then frames of positions from random games (tall stacks, checkers on the bar), with dice, light
changes, noise, blur, JPEG and, in a quarter of them, hands, arms or cups, are read. Reported: whole-board
exact on unoccluded frames (nothing on the field but checkers and dice), confident wrong cells (must be
0), occluded frames (the hand, arm or cup hides a quarter of some checker slot or more) flagged with every
covered cell named, and apart the *grazed* frames: an occluder on the field that hides less of every
slot than that. A grazed frame may be read exactly or flagged (a cup standing on a point's far end may
hide a checker there, for all the reader can know), but never with a confident wrong count. Speed:
median read of a 1280x720 frame, the settle gate, and a plain ``cv2.warpPerspective`` of the same frame
in the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from bgboard.layout import Board, Cell, ImageLayout, Orientation, Side
from bgboard.position import START
from calibration.learn import calibrate
from referee.moves import legal_plays
from synthetic.render import STYLES, Camera, DieSpec, HandSpec, Rendered, render, scene_from_layout
from vision.board_reader import BoardReader
from vision.profile import Profile
from vision.reading import BoardReading, DieReading
from vision.settle import SettleGate

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "real-boards"


def random_boards(n: int, rng: np.random.Generator, tall: float = 0.15) -> Iterator[Board]:
    """Positions met in random games; now and then (a share ``tall`` of plays) a play that builds the
    tallest stack, so that stacks of six and more (which random play alone makes rarely) are well
    represented."""
    while True:
        position, on_roll = START, Side.LIGHT
        for _ in range(int(rng.integers(4, 60))):
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            plays = legal_plays(position, dice)
            if plays:
                if rng.random() < tall:
                    play = max(plays, key=lambda p: max(p.result.player[:24]))
                else:
                    play = plays[int(rng.integers(len(plays)))]
                position = play.result
            if not any(position.player[:25]):
                break
            position, on_roll = position.swap(), on_roll.other
        yield Board.from_position(position, on_roll)
        n -= 1
        if n <= 0:
            return


@dataclass
class Club:
    """One board style under one fixed camera, with its profile."""

    style: str
    camera: Camera
    orientation: Orientation
    profile: Profile


def make_club(style: str, rng: np.random.Generator) -> Club:
    orientation = Orientation.BOTTOM_RIGHT if rng.random() < 0.5 else Orientation.TOP_LEFT
    start = Board.start().layout(orientation)
    scale = float(rng.uniform(0.9, 1.3))
    while True:  # a club mounts its camera to see the whole field (with room for the near checkers' sides)
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
            break
        scale *= 0.92
    profile = calibrate(frame.image, [tuple(c) for c in frame.field_quad], start=True)
    return Club(style, camera, orientation, profile)


def frame_for(club: Club, board: Board, rng: np.random.Generator, occlude: bool) -> Rendered:
    layout = board.layout(club.orientation)
    dice = ()
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
    hands = ()
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


def dice_readings(frame: Rendered) -> tuple[DieReading, ...]:
    return tuple(DieReading(d.value, d.center, d.box, 1.0) for d in frame.dice)


def truth_cells(layout: ImageLayout) -> dict[Cell, int]:
    return layout.cells()


@dataclass
class Score:
    frames: int = 0
    clear: int = 0
    clear_exact: int = 0
    occluded: int = 0
    occluded_flagged: int = 0
    occluded_named: int = 0
    grazed: int = 0  # an occluder on the field, hiding less than a quarter of any checker slot
    grazed_exact: int = 0
    grazed_flagged: int = 0  # not exact, but the reader said what it could not read
    confident_wrong: int = 0
    cells: int = 0
    cells_right: int = 0
    cells_sure: int = 0  # cells of unoccluded frames read with certainty (the referee can judge on them)
    clubs: int = 0
    clubs_counting: int = 0  # clubs whose calibration frame the point-count network read right

    def add(
        self, reading: BoardReading, frame: Rendered, problems: list[str], tag: str, occluder: bool = False
    ) -> None:
        """Scores one frame; ``occluder``: a hand, arm or cup was put on the field (it may miss every
        slot)."""
        assert frame.layout is not None
        truth = truth_cells(frame.layout)
        got = reading.cells()
        self.frames += 1
        for name, cell in got.items():
            if cell.certain and cell.count != truth[name] and name not in frame.occluded:
                self.confident_wrong += 1
                problems.append(f"{tag}: confident wrong {name}: read {cell.count}, is {truth[name]}")
            if cell.certain and cell.count != truth[name] and name in frame.occluded:
                self.confident_wrong += 1
                problems.append(
                    f"{tag}: confident wrong on covered {name}: read {cell.count}, is {truth[name]}"
                )
        if frame.occluded:
            self.occluded += 1
            self.occluded_flagged += reading.occluded
            named = set(reading.unreadable_points)
            if frame.occluded <= named | {n for n, c in got.items() if not c.certain}:
                self.occluded_named += 1
            else:
                problems.append(f"{tag}: covered {sorted(frame.occluded - named)} not named")
            return
        if occluder:
            self.grazed += 1
            if all(got[n].count == truth[n] for n in truth):
                self.grazed_exact += 1
            elif all(got[n].count == truth[n] or not got[n].readable for n in truth):
                self.grazed_flagged += 1
            else:
                problems.append(f"{tag}: grazed, neither exact nor flagged")
            return
        self.clear += 1
        right = sum(got[n].count == truth[n] for n in truth)
        self.cells += len(truth)
        self.cells_right += right
        self.cells_sure += sum(got[n].certain for n in truth)
        if right == len(truth):
            self.clear_exact += 1
        else:
            wrong = [
                f"{n} {got[n].count}/{truth[n]}{'' if got[n].readable else ' unreadable'}"
                for n in truth
                if got[n].count != truth[n]
            ]
            problems.append(f"{tag}: not exact: {', '.join(wrong)}")


def rendered_suite(
    frames: int, seed: int = 7, verbose: bool = False
) -> tuple[Score, dict[str, Score], list[float]]:
    rng = np.random.default_rng(seed)
    styles = list(STYLES)
    clubs_per_style = max(1, frames // (len(styles) * 25))
    per_club = max(1, frames // (len(styles) * clubs_per_style))
    total, by_style, times, problems = Score(), {}, [], []
    boards = random_boards(10**9, rng)
    for style in styles:
        by_style[style] = Score()
        for c in range(clubs_per_style):
            club = make_club(style, rng)
            reader = BoardReader(club.profile, use_dice=False)
            for score in (total, by_style[style]):
                score.clubs += 1
                score.clubs_counting += club.profile.counts_trusted
            for f in range(per_club):
                occlude = f % 4 == 3
                frame = frame_for(club, next(boards), rng, occlude=occlude)
                t0 = time.perf_counter()
                # the dice reader's boxes stand in for vision.dice, so the suite measures the board reader
                reading = reader.read(frame.image, dice=dice_readings(frame))
                times.append((time.perf_counter() - t0) * 1000)
                tag = f"{style}/{c}/{f}"
                for score in (total, by_style[style]):
                    score.add(reading, frame, problems if score is total else [], tag, occlude)
    if verbose:
        for p in problems:
            print("  " + p)
    return total, by_style, times


def real_photos() -> list[str]:
    """The labelled photographs, calibrated and read as shared/checks/boards.py does."""
    if not (REAL / "labels.json").is_file():
        return ["real photographs not present: skipped"]
    labels = json.loads((REAL / "labels.json").read_text())
    out = []
    cal: dict[str, dict] = {}
    for d in labels:
        if not d["hand_over_board"]:
            cal.setdefault(d["camera"], d)
    for camera, c in cal.items():
        frame = cv2.imread(str(REAL / c["image"]))
        profile = calibrate(frame, [tuple(p) for p in c["board_quad"]], known=ImageLayout.from_json(c))
        reader = BoardReader(profile, use_dice=False)
        for d in (x for x in labels if x["camera"] == camera):
            reading = reader.read(cv2.imread(str(REAL / d["image"])), dice=())
            j = reading.to_json()
            truth = truth_cells(ImageLayout.from_json(d))
            wrong = [n for n, cell in reading.cells().items() if cell.certain and cell.count != truth[n]]
            exact = j["top"] == d["top"] and j["bottom"] == d["bottom"] and j["bar"] == d["bar"]
            verdict = ("occluded" if j["occluded"] else "NOT FLAGGED") if d["hand_over_board"] else (
                "exact" if exact else "WRONG")  # fmt: skip
            out.append(
                f"{d['image']:<11} ({camera}): {verdict}; confident cells that disagree with the label: "
                f"{len(wrong)} {wrong if wrong else ''}; unreadable {len(j['unreadable_points'])}"
            )
    return out


def speed(repeats: int = 30) -> dict[str, float]:
    rng = np.random.default_rng(3)
    club = make_club("tournament", rng)
    frame = frame_for(club, next(random_boards(1, rng)), rng, occlude=False)
    reader = BoardReader(club.profile, use_dice=False)
    gate = SettleGate()
    matrix = reader.rectifier.matrix
    h, w = frame.image.shape[:2]
    reads, warps, gates = [], [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        reader.read(frame.image, dice=())
        t1 = time.perf_counter()
        cv2.warpPerspective(frame.image, matrix, (w, h))
        t2 = time.perf_counter()
        gate.update(frame.image)
        t3 = time.perf_counter()
        reads.append(t1 - t0)
        warps.append(t2 - t1)
        gates.append(t3 - t2)
    ms = {k: 1000 * statistics.median(v) for k, v in (("read", reads), ("warp", warps), ("settle", gates))}
    ms["ratio"] = ms["read"] / ms["warp"]
    return ms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=500, help="rendered frames (default 500)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("-v", "--verbose", action="store_true", help="list every miss")
    args = parser.parse_args(argv)
    print("real photographs (profile from each camera's label):")
    for line in real_photos():
        print("  " + line)
    t0 = time.perf_counter()
    total, by_style, times = rendered_suite(args.frames, args.seed, args.verbose)
    print(f"rendered suite: {total.frames} frames, {len(by_style)} styles, {time.perf_counter() - t0:.0f} s")
    for name, s in [*by_style.items(), ("ALL", total)]:
        print(
            f"  {name:<10} exact {s.clear_exact}/{s.clear} unoccluded "
            f"({100 * s.clear_exact / max(s.clear, 1):.1f} %), cells {s.cells_right}/{s.cells} "
            f"(sure {s.cells_sure}), "
            f"confident wrong {s.confident_wrong}, occluded flagged {s.occluded_flagged}/{s.occluded}, "
            f"covered cells named {s.occluded_named}/{s.occluded}, grazed exact {s.grazed_exact} + "
            f"flagged {s.grazed_flagged} of {s.grazed}; "
            f"point-count network on {s.clubs_counting}/{s.clubs} clubs"
        )
    print(f"  read time median {statistics.median(times):.1f} ms over {len(times)} frames")
    ms = speed()
    print(
        f"speed (1280x720, median of 30): read {ms['read']:.1f} ms, settle gate {ms['settle']:.2f} ms, "
        f"plain cv2.warpPerspective {ms['warp']:.1f} ms; read / warp = {ms['ratio']:.1f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
