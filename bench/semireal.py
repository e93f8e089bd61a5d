"""Semi-real throws: real dice pasted onto the real board photographs, scored by the referee's call.

    python -m bench.semireal                  # 600 throws (a few minutes)
    python -m bench.semireal --throws 60 -v   # a quick look, every miss listed

The tables are the labelled board photographs of ``../shared/data/real-boards`` (the first of each camera
that no hand covers, calibrated as ``../shared/checks/boards.py`` does: ``calibration.labelled``), their
own dice painted out. Each throw (``synthetic.real_throws``) lays two real dice, cut out of the
photographs of ``../shared/data/real-dice`` that the dice networks never trained on (every 10th; each die
cut along its own outline by GrabCut, with none of the photograph's table or of a neighbouring die, and
shrunk as a camera shrinks it: ``synthetic.pasted``), onto one of them as a table throws them: flat on
empty points or between the rows, lying against each other, against the field's rim; or, to be thrown
again, one of them on a checker, in a tray, or both in the other half. A die's top face is pasted where a
camera sees it: a die's side above the board (a checker's thickness more on a checker), so shifted away
from the camera's nadir (the pose the reader solves from the field; on the most oblique board,
``test4.jpg``, by up to one and a half die sides at the near rim). The tournament camera's chess clock
ticks between the frame the turn began with and the throw; on a third of the throws the cube was turned
to 2 and moved into a tray or to the bar's end first (the photograph's own cube, cut out with its rim and
the side the camera sees, its numeral painted over and a 2 drawn: ``synthetic.real_throws.CUBES``).

Every throw is read twice, as the referee reads it (``referee read --position --on-roll``, the position
confirmed and the thrower on roll): *in a game*, knowing the settled frame the turn began with (only what
arrived since can be a die), and as *a first throw*, knowing only the calibration frame. Scored by the
call as a player sees it:

- right: the roll read, or a throw again for the reason it was due (``reroll, other reason`` apart);
- asked: the table asked whether the dice show the right faces (slower, never wrong);
- wrong: a throw again of a good throw, a wrong roll, a bad throw taken as a roll, a phantom die, or a
  question naming the wrong faces;
- stalled: the referee waits (it cannot see the throw).

Targets: wrong 0, asked at most 5 %, stalled 0.

What a table teaches (``--teach FOLDER``): the dice of the good throws read in a game that the reader
read below ``SURE_ROLL``, cut out as the live referee keeps them (``referee.loop.die_crops``), with the
face the table's play of the true roll gives each (``throws.faces_played``), written as ``referee taught``
writes a record's. ``--dice A`` or ``B`` throws only every other held-out die of each photograph, so
that what one half teaches (``tools/train_dice.py --taught``) can be scored on the other
(``--value-model``)::

    python -m bench.semireal --dice A --seed 101 --teach /tmp/taught
    python -m bench.semireal --dice B --value-model /tmp/run/dice_value.onnx

Frames as a Pi camera hands them over (``--raw``): each frame is otherwise JPEG-compressed (quality
80 to 95) and decoded, as a webcam's MJPEG stream reaches OpenCV; picamera2 hands over uncompressed
arrays. A throw is the same throw either way.

Another set of dice (``--light-dice``): each held-out die turned light for dark inside its outline
(``synthetic.pasted.lightness_turned``: CIE L* to 100 - L*, hue and saturation kept), so the dark dice
with white pips become ivory ones with dark pips, the commonest set at a real table, and the photographs'
few white dice dark ones. The throws are the same throws, the dice turned. A guess at another set, not
another set: a turned see-through die is a pale one with faint pips.

A throw as a camera keeps showing it (``--frames K``): the dice lie still while the camera gives frame
after frame, each with its own sensor noise (``--noise``, Gaussian, 2 grey levels), and the session
weighs them all (``referee.throws.agreed``). The session is shown K such frames of each throw, and the
call is the one the table acts on: its first roll or throw again, else its last question, else a wait.
K frames cost K reads a throw.

A camera with more pixels on a die (``--zoom Z``): each board photograph, its labels and its calibration
are enlarged Z times first, so the dice are pasted Z times larger (from photographs whose dice are about
40 px, so sharper than at the photographs' own scale, where a die is 20 to 29 px). The board itself is
only enlarged, not sharpened. The throws are not those of the same seed at another zoom (the enlarged
photograph's calibration places the checkers' slots a little differently, and where a die may land is
drawn against them), so the figures compare over a seed, not throw by throw.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from bench.models import use_value_model
from bgboard.layout import Board
from calibration.labelled import labelled_cameras
from referee.cli.read import still_throw_call
from referee.cli.taught import write_folder
from referee.loop import die_crops
from referee.rules_options import RuleOptions
from referee.session import SessionOptions
from referee.throws import CallKind, faces_played, lessons, surely_read
from synthetic import pasted
from synthetic.pasted import Cutout
from synthetic.real_throws import RealTable, Throw, make_throw, render_throw, seen_dice, still_frames
from vision.board_reader import BoardReader
from vision.cube import cube_side
from vision.dice import find_dice
from vision.reading import CubeReading, DieReading

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
BOARDS, DICE = DATA / "real-boards", DATA / "real-dice"
MODES = ("in a game", "first throw")


def held_out_dice(half: str = "all", turned: bool = False) -> dict[int, list[Cutout]]:
    """The dice of the photographs the networks never trained on, by face: all of them, or ``half``
    "A" or "B", every other die of each photograph (two halves with the same kinds of dice). ``turned``:
    each die turned light for dark (``pasted.turned_light_for_dark``), another set of dice."""
    labels = DICE / "labels.csv"
    dice = pasted.cutouts(labels, DICE / "images", pasted.held_out(labels))
    if turned:
        dice = pasted.turned_light_for_dark(dice)
    if half == "all":
        return pasted.by_face(dice)
    nth: Counter[str] = Counter()
    kept = []
    for die in dice:
        if nth[die.source] % 2 == "AB".index(half):
            kept.append(die)
        nth[die.source] += 1
    return pasted.by_face(kept)


def taught(
    frame: np.ndarray, throw: Throw, seen: list[DieReading], t: RealTable
) -> tuple[list[tuple[int, bytes]], int]:
    """What the table teaches the reader with this throw, as the live session keeps it (``Session._taught``
    when the play of the roll thrown confirms it): each die of a good throw of two read below
    ``SURE_ROLL``, cut out of the frame, with the face the roll gives it; and how many of those faces are
    not the face of the pasted die nearest it (the lesson itself wrong)."""
    if throw.due is not None or len(seen) != 2:
        return [], 0
    wanted = lessons(seen, faces_played(surely_read(seen), throw.values))
    crops = die_crops(frame, [d for d, _ in wanted])
    out = [(f, png) for (_, f), png in zip(wanted, crops, strict=True) if png is not None]
    truth = list(zip(seen_dice(t, throw), throw.values, strict=True))
    wrong = sum(f != min(truth, key=lambda tv: math.dist(d.center, tv[0][:2]))[1] for d, f in wanted)
    return out, wrong


def score(throw: Throw, kind: CallKind, faces: list[int], reason: str, seen: int, sure: bool = False) -> str:
    """The call as a player sees it: "right", "asked", "stalled", or "wrong: ..." with what went wrong.
    ``sure``: every die was read at ``SURE_ROLL`` or more. The live referee holds the play to such a
    roll, so with other numbers it may call the legal play of the numbers thrown illegal; below it, a
    play that another face allows is asked about instead."""
    if seen > 2:
        return "wrong: a phantom die"
    if kind is CallKind.WAIT:
        return "stalled"
    if throw.due is not None:
        if kind is CallKind.REROLL:
            return "right" if throw.due in reason else "right: reroll, other reason"
        return "wrong: a bad throw taken" if kind is CallKind.ROLL else "asked"
    if kind is CallKind.REROLL:
        return "wrong: a good throw thrown again"
    if sorted(faces) != sorted(throw.values):
        if kind is CallKind.ASK:
            return "wrong: asked with other numbers"
        return "wrong: other numbers, read surely" if sure else "wrong: other numbers"
    return "right" if kind is CallKind.ROLL else "asked"


class Tally:
    """The calls of one way of reading, by outcome and by kind of throw, and the read times."""

    def __init__(self) -> None:
        self.outcomes: Counter[str] = Counter()
        self.by_kind: dict[str, Counter[str]] = {}
        self.ms: list[float] = []  # the whole read of a frame
        self.dice_ms: list[float] = []  # the dice alone (``find_dice`` as the reader calls it)
        # cvtColor + GaussianBlur(5x5) of the same frame, timed beside them: the machine's pace in that run
        self.ref_ms: list[float] = []

    def add(self, throw: Throw, verdict: str, ms: float, dice_ms: float, ref_ms: float) -> None:
        self.outcomes[verdict.split(":")[0]] += 1
        self.by_kind.setdefault(throw.kind + (", cube moved" if throw.cube else ""), Counter())[verdict] += 1
        self.ms.append(ms)
        self.dice_ms.append(dice_ms)
        self.ref_ms.append(ref_ms)

    @property
    def passed(self) -> bool:
        o = self.outcomes
        return o["wrong"] == 0 and o["stalled"] == 0 and o["asked"] <= 0.05 * sum(o.values())

    def lines(self, mode: str) -> list[str]:
        o, total = self.outcomes, sum(self.outcomes.values())
        dice, whole, ref = (statistics.median(v) for v in (self.dice_ms, self.ms, self.ref_ms))
        out = [
            f"{mode}: right {o['right']}/{total}, asked {o['asked']} "
            f"({100 * o['asked'] / max(total, 1):.1f} %; target <= 5 %), wrong {o['wrong']} (target 0), "
            f"stalled {o['stalled']} (target 0); median ms per frame: dice {dice:.1f} (target <= 10), "
            f"whole read {whole:.1f} (target <= 30); {dice / ref:.0f}x and {whole / ref:.0f}x the "
            f"{ref:.2f} ms of a cvtColor + GaussianBlur(5x5) of the frame"
        ]
        wrong: Counter[str] = Counter()
        for c in self.by_kind.values():
            wrong.update({k.split(": ", 1)[1]: v for k, v in c.items() if k.startswith("wrong: ")})
        if wrong:
            out.append("  wrong, by what: " + ", ".join(f"{k} {v}" for k, v in wrong.most_common()))
        for kind, c in sorted(self.by_kind.items()):
            out.append(f"  {kind:<26} " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
        return out


class DieTally:
    """Which held-out dice the throws not called right (wrong or stalled, in a game) were thrown with: a
    few dice of the held-out photographs may account for most of them."""

    SHOWN = 5  # the dice listed
    FEW = 10  # the share of the throws not called right that this many dice are in

    def __init__(self) -> None:
        self.dice: dict[int, Cutout] = {}
        self.thrown: Counter[int] = Counter()
        self.missed: Counter[int] = Counter()
        self.throws_missed: list[set[int]] = []

    def add(self, pasted_dice: list[Cutout], verdict: str) -> None:
        keys = {id(d) for d in pasted_dice}
        self.dice.update({id(d): d for d in pasted_dice})
        self.thrown.update(keys)
        if verdict.startswith(("wrong", "stalled")):
            self.missed.update(keys)
            self.throws_missed.append(keys)

    def lines(self) -> list[str]:
        if not self.throws_missed:
            return []
        worst = [k for k, _ in self.missed.most_common()]
        few = set(worst[: self.FEW])
        within = sum(bool(keys & few) for keys in self.throws_missed)
        out = [
            f"held-out dice in the throws not called right in a game (wrong or stalled): "
            f"{len(self.missed)} of the {len(self.thrown)} thrown; the {len(few)} in most of them are in "
            f"{within} of those {len(self.throws_missed)} throws"
        ]
        for k in worst[: self.SHOWN]:
            d = self.dice[k]
            out.append(
                f"  a {d.value} of {d.source} ({d.side:.0f} px there): in {self.missed[k]} of the "
                f"{self.thrown[k]} throws it was in"
            )
        return out


def cube_found(t: RealTable, throw: Throw, seen: CubeReading | None) -> str:
    """Whether the reader found the moved cube where it was put (within half a cube), and its face."""
    if seen is None or throw.cube is None:
        return "not found"
    x, y = t.image_at(*throw.cube)
    if math.dist(seen.center, (x, y)) > 0.5 * cube_side(t.corners):
        return "found elsewhere"
    return (
        "found, 2 read"
        if seen.value == 2
        else "found, face not read"
        if seen.value is None
        else "found, misread"
    )


def tables(zoom: float = 1.0) -> tuple[list[RealTable], dict[str, BoardReader]]:
    """The real tables and a reader for each, calibrated on its photograph (enlarged ``zoom`` times). A
    die is pasted where the reader's own camera model sees a die standing there (its top face shifted
    away from the nadir)."""
    cams = labelled_cameras(BOARDS, zoom)
    tables = [RealTable.of_labelled(c) for c in cams]
    return tables, {c.name: BoardReader(c.profile) for c in cams}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--throws", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-v", "--verbose", action="store_true", help="list every throw not called right")
    parser.add_argument("--save", type=Path, help="save the frames of the throws not called right here")
    parser.add_argument(
        "--dice", choices=("all", "A", "B"), default="all", help="throw every held-out die, or half of them"
    )
    parser.add_argument(
        "--light-dice",
        action="store_true",
        help="each die turned light for dark (CIE L* to 100 - L*, hue kept): ivory dice with dark pips "
        "where the photographs' are dark, as bench.dice_unlike's look of that name",
    )
    parser.add_argument(
        "--teach",
        type=Path,
        help="write the dice these throws teach here (a new folder), as `referee taught` does",
    )
    parser.add_argument(
        "--value-model",
        type=Path,
        help="a dice_value.onnx to read with instead of the shipped readers (with a dice_value_board.onnx "
        "beside it, that one reads the boards)",
    )
    parser.add_argument(
        "--raw",
        action="store_true",
        help="frames as a Pi camera hands them over, uncompressed (default: JPEG-decoded at quality 80 to "
        "95, as a webcam's MJPEG stream gives them)",
    )
    parser.add_argument(
        "--zoom",
        type=float,
        default=1.0,
        help="enlarge the board photographs this many times first, as a camera with more pixels across "
        "the board sees it (the dice are pasted larger too; 1.5 puts a die at 30 to 44 px)",
    )
    parser.add_argument(
        "--frames",
        type=int,
        default=1,
        help="show the session this many frames of each still throw, each with its own sensor noise "
        "(--noise), as a camera keeps giving them while the dice lie: the call is the first roll or "
        "throw again, else the last question, else a wait (default 1: one frame, as `referee read`)",
    )
    parser.add_argument(
        "--noise",
        type=float,
        default=2.0,
        help="with --frames above 1, each frame's sensor noise in grey levels (Gaussian; default 2)",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.frames <= 100:
        parser.error("--frames must lie between 1 and 100")
    if not 0.0 <= args.noise <= 20.0:
        parser.error("--noise must lie between 0 and 20")
    if not 0.5 <= args.zoom <= 3.0:
        parser.error("--zoom must lie between 0.5 and 3")
    use_value_model(parser, args.value_model)
    if args.teach and (args.teach / "labels.csv").exists():
        parser.error(f"{args.teach / 'labels.csv'} already exists: name a new folder")
    if not BOARDS.is_dir() or not DICE.is_dir():
        print(f"real data not present ({DATA}): skipped")
        return 0
    began = time.perf_counter()
    dice = held_out_dice(args.dice, args.light_dice)
    boards, readers = tables(args.zoom)
    lessons: list[tuple[str, int, bytes]] = []
    wrong_lessons = 0
    tallies = {mode: Tally() for mode in MODES}
    by_die = DieTally()
    cubes: dict[str, Counter[str]] = {}  # by board and where the cube was put
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
    for n in range(args.throws):
        t = boards[n % len(boards)]
        # each throw its own stream: a change to how one throw is made leaves every other as it was
        rng = np.random.default_rng([args.seed, n])
        throw = make_throw(t, rng)
        pasted_dice: list[Cutout] = []
        frame, before = render_throw(t, throw, dice, rng, pasted_dice, jpeg=not args.raw and args.frames == 1)
        frames = [frame]
        if args.frames > 1:
            # the same throw, seen in frames that differ by the sensor's noise alone (their own stream)
            seen_rng = np.random.default_rng([args.seed, n, 1])
            before = still_frames(before, seen_rng, 1, args.noise, not args.raw)[0]
            frames = still_frames(frame, seen_rng, args.frames, args.noise, not args.raw)
            frame = frames[0]
        quad = t.corners
        # as the frame loop does: the settled frame the turn began with is read (the cube looked for),
        # then made the turn's still
        readers[t.name].read(before, expected=t.layout)
        stills = {"in a game": readers[t.name].turn_still(before), "first throw": None}
        board = Board.from_layout(t.layout, t.orientation)
        options = SessionOptions(t.orientation, RuleOptions())
        for mode, still in stills.items():
            reader = readers[t.name]
            # a frame of its own each way: the reader keeps the last frame's still and detector peaks, and a
            # first throw's frame is one it has not read
            shown = frames if mode == MODES[0] else [f.copy() for f in frames]
            image = shown[0]
            t0 = time.perf_counter()
            cv2.GaussianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (5, 5), 0)
            ref_ms = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            reading = reader.read(image, expected=t.layout, before=still)
            ms = (time.perf_counter() - t0) * 1000
            now = reader.still(image)  # the read's own, shrunk once a frame for the cube and the dice
            t0 = time.perf_counter()
            find_dice(
                image,
                quad,
                checkers=t.checkers,
                still=still or reader.calibration_still,
                same_board=still is not None,
                now=now,
                calibration=still is None,
            )
            dice_ms = (time.perf_counter() - t0) * 1000
            readings = [reading] + [reader.read(f, expected=t.layout, before=still) for f in shown[1:]]
            if mode == MODES[0] and throw.cube is not None:
                put = "in a tray" if not 0.0 <= throw.cube[0] <= 1.0 else "at the bar's end"
                cubes.setdefault(f"{t.name} {put}", Counter())[cube_found(t, throw, reading.cube)] += 1
            call = still_throw_call(readings, board, throw.roller, options)
            reading = readings[-1]
            sure = None not in surely_read(reading.dice)
            # a phantom die: one more than the throw's in every frame (a frame's, the session waits out)
            seen = min(len(r.dice) for r in readings)
            verdict = score(throw, call.kind, list(call.dice), call.reason, seen, sure)
            tallies[mode].add(throw, verdict, ms, dice_ms, ref_ms)
            if mode == MODES[0]:
                by_die.add(pasted_dice, verdict)
            if args.teach and mode == MODES[0]:
                kept, wrong = taught(frame, throw, reading.dice, t)
                lessons += [(f"throw{n:04d}-{k}.png", face, png) for k, (face, png) in enumerate(kept)]
                wrong_lessons += wrong
            if verdict == "right":
                continue
            if args.verbose:
                print(
                    f"throw {n} on {t.name} ({mode}): {throw.kind}{', cube moved' if throw.cube else ''}, "
                    f"{throw.roller.value} threw {throw.values}: {verdict} ({call.kind.value} "
                    f"{list(call.dice)} {call.reason[:80]}; read {[d.to_json() for d in reading.dice]})"
                )
            if args.save:
                cv2.imwrite(str(args.save / f"throw{n:04d}.png"), frame)
                cv2.imwrite(str(args.save / f"throw{n:04d}-before.png"), before)
    noisy = f"{args.frames} frames a throw, each with its own noise ({args.noise:g} grey levels), "
    print(
        f"{args.throws} throws on {len(boards)} real boards "
        f"({', '.join(f'{b.name} {b.die_side():.0f} px a die' for b in boards)}), "
        f"{sum(len(v) for v in dice.values())} real dice never trained on ({args.dice}"
        f"{', turned light for dark' if args.light_dice else ''}), "
        f"{'uncompressed frames' if args.raw else 'JPEG frames'}, "
        f"{noisy if args.frames > 1 else ''}"
        f"{time.perf_counter() - began:.0f} s"
    )
    for mode, tally in tallies.items():
        print("\n".join(tally.lines(mode)))
    print("\n".join(by_die.lines()))
    if cubes:
        print("the cube, turned to 2 and moved:")
        for where, c in sorted(cubes.items()):
            print(f"  {where:<30} " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
    if args.teach:
        try:
            write_folder(args.teach, lessons)
        except OSError as e:
            print(f"cannot write the taught dice into {args.teach}: {e.strerror or e}")
            return 2
        print(f"taught {len(lessons)} dice ({wrong_lessons} with a face not the die's): {args.teach}")
    return 0 if all(t.passed for t in tallies.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
