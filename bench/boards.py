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
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from bgboard.layout import ImageLayout
from calibration.learn import calibrate
from synthetic.random_play import random_boards
from synthetic.random_scenes import Club, club, club_frame
from synthetic.render import STYLES, Rendered
from vision.board_reader import BoardReader
from vision.profile import Profile
from vision.reading import BoardReading, DieReading
from vision.settle import SettleGate

REAL = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "real-boards"


@dataclass
class CalibratedClub:
    """A club (one board style under one fixed camera) with the profile calibrated on its start frame."""

    club: Club
    profile: Profile


def make_club(style: str, rng: np.random.Generator) -> CalibratedClub:
    c = club(style, rng)
    return CalibratedClub(c, calibrate(c.start.image, c.corners, start=True))


def dice_readings(frame: Rendered) -> tuple[DieReading, ...]:
    return tuple(DieReading(d.value, d.center, d.box, 1.0) for d in frame.dice)


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
        slot). A cup on a point's far end hides no slot a quarter, but may hide a checker for all the
        reader knows: such a frame is *grazed*, and exact or flagged are both fine there, never a clear miss.

            >>> from bgboard.layout import Board, Cell, Orientation
            >>> from referee.observe import reading_of
            >>> from vision.reading import CellReading
            >>> board, o = Board.start(), Orientation.BOTTOM_RIGHT
            >>> nothing, layout = np.zeros((4, 4, 3), np.uint8), board.layout(o)
            >>> frame = Rendered(nothing, np.zeros((4, 2)), (), frozenset(), "tournament", layout=layout)
            >>> sure = reading_of(board, o)
            >>> hidden = {Cell.parse("top-0"): CellReading(0, 0.0, ())}
            >>> flagged = BoardReading.of_cells({**sure.cells(), **hidden})
            >>> score, problems = Score(), []
            >>> score.add(flagged, frame, problems, "grazed", occluder=True)
            >>> score.add(sure, frame, problems, "grazed exact", occluder=True)
            >>> (score.grazed, score.grazed_exact, score.grazed_flagged, score.clear), problems
            ((2, 1, 1, 0), [])
            >>> score.add(flagged, frame, problems, "clear")  # with nothing on the field: a miss
            >>> problems
            ['clear: not exact: top-0 0/5 unreadable']
        """
        assert frame.layout is not None
        truth = frame.layout.cells()
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
                frame = club_frame(club.club, next(boards), rng, occlude=occlude)
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
            truth = ImageLayout.from_json(d).cells()
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
    frame = club_frame(club.club, next(random_boards(1, rng)), rng, occlude=False)
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
