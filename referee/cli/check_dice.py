"""``referee check-dice``: how this table's own dice read at this camera, before an evening.

$ referee check-dice dice1.png dice2.png dice3.png --profile board.profile --faces 1,2 --faces 3,4 --faces 5,6
dice1.png: 1 sure (0.99), 2 sure (0.97)
...
6 of 6 dice read surely: the referee will call these dice's throws at this camera

Lay the table's dice flat on empty points inside the field, showing two faces, take a frame
(``referee capture``), and turn them to other faces for the next; three frames show the six faces. Each
die is read as the referee reads a throw, and graded:

- sure: read at the confidence the referee calls a roll on (``referee.throws.SURE_ROLL``);
- unsure: below it, or no face made out: the referee will ask the table or wait on such throws;
- wrong: ``--faces`` names another face (given one image each, the dice left to right as the frame
  shows them);
- not counted: a die the referee would have thrown again wherever it lies (cocked, on a checker, on the
  bar or off the field, ``referee.throws.problem``): lay it flat on an empty point and take the frame
  again.

The frame the profile was calibrated on is what the dice are found against (what changed since it): the
checkers must lie as they did then, or ``--before`` names a frame of the board as it is, without dice.
``--start`` (the checkers stand at the start) or ``--known LAYOUT.json`` says where they stand, so that a
die over a checker is told by where it lies, as in a game; without either the flags network tells it.
``--teach FOLDER`` (with ``--faces``) keeps every die with its face, cut out as the referee keeps the dice
a table confirms, as labelled photographs for ``tools/train_dice.py --taught FOLDER``. Exit status 0 when
every die read surely and rightly, 1 when one did not, 2 on an error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bgboard.layout import Board
from referee.cli import CommandError
from referee.throws import SURE_ROLL, face, problem

if TYPE_CHECKING:
    import numpy as np

    from bgboard.layout import ImageLayout
    from vision.arrivals import Still
    from vision.board_reader import BoardReader
    from vision.reading import DieReading


class Grade(Enum):
    """How one die read."""

    SURE = "sure"  # its face read surely enough for the referee to call a roll on it
    UNSURE = "unsure"  # the referee would ask about it or wait
    WRONG = "wrong"  # read as another face than the table says it shows
    NOT_COUNTED = "not counted"  # thrown again wherever it lies (cocked, on a checker, off the field)


@dataclass(frozen=True)
class Checked:
    """One die of a frame: as read, the face the table says it shows (None: not said), and its grade."""

    die: DieReading
    said: int | None
    grade: Grade

    def to_json(self) -> dict[str, Any]:
        return {**self.die.to_json(), "said": self.said, "grade": self.grade.value}

    def text(self) -> str:
        read = face(self.die)
        shown = "?" if read is None else str(read)
        if self.grade is Grade.NOT_COUNTED:
            why = problem(self.die, on_checker_valid=False)
            return f"{shown} not counted ({why}): lay it flat on an empty point inside the field"
        wrong = f" (the table says {self.said})" if self.grade is Grade.WRONG else ""
        return f"{shown} {self.grade.value} ({self.die.confidence:.2f}){wrong}"


def grade(die: DieReading, said: int | None) -> Grade:
    """How ``die`` read, the table saying it shows ``said`` (None: not said).

    >>> from vision.reading import DieReading
    >>> from bgboard.layout import Half
    >>> grade(DieReading(5, (0.0, 0.0), (0.0, 0.0, 1.0, 1.0), 0.97, half=Half.RIGHT), 5).value
    'sure'
    >>> grade(DieReading(5, (0.0, 0.0), (0.0, 0.0, 1.0, 1.0), 0.97, half=Half.RIGHT), 6).value
    'wrong'
    """
    if problem(die, on_checker_valid=False) is not None:
        return Grade.NOT_COUNTED
    read = face(die)
    if said is not None and read is not None and read != said:
        return Grade.WRONG
    if die.value is None or die.confidence < SURE_ROLL:
        return Grade.UNSURE
    return Grade.SURE


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "check-dice",
        help="see how the table's own dice read at this camera (before an evening)",
        description=__doc__.split("\n\n", 2)[2] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="frames of the dice lying flat on the board")
    p.add_argument("--profile", required=True, help="the profile written by `referee calibrate`")
    p.add_argument(
        "--faces",
        action="append",
        metavar="F,F",
        help="the faces the dice of one IMAGE show, left to right (once for each IMAGE, in order)",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--start", action="store_true", help="the checkers stand in the starting position")
    where.add_argument(
        "--known",
        metavar="LAYOUT.json",
        help='the checkers\' position: {"top": [...], "bottom": [...], "bar": {...}}',
    )
    p.add_argument(
        "--before",
        metavar="IMAGE",
        help="a frame of the board as it lies, without dice (default: the calibration frame)",
    )
    p.add_argument(
        "--teach",
        type=Path,
        metavar="FOLDER",
        help="with --faces: write the dice with their faces here for tools/train_dice.py --taught",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per image, then a summary")
    p.set_defaults(run=run)


def said_faces(groups: list[str] | None, images: int) -> list[tuple[int, ...] | None]:
    """``--faces`` as one tuple of faces per image (None for each without ``--faces``).

    >>> said_faces(["1,2", "6"], 2)
    [(1, 2), (6,)]
    """
    if not groups:
        return [None] * images
    if len(groups) != images:
        raise CommandError(f"--faces is given {len(groups)} times for {images} images: give it once for each")
    out: list[tuple[int, ...] | None] = []
    for group in groups:
        try:
            faces = tuple(int(f) for f in group.split(","))
        except ValueError:
            faces = ()
        if not faces or any(not 1 <= f <= 6 for f in faces):
            raise CommandError(f"--faces {group}: expected faces 1 to 6 separated by commas, such as 5,3")
        out.append(faces)
    return out


def check(
    reader: BoardReader,
    frame: np.ndarray,
    expected: ImageLayout | None,
    before: Still | None,
    said: tuple[int, ...] | None,
) -> list[Checked]:
    """The dice of ``frame``, left to right, each graded against the face ``said`` for it, if said. Raises
    CommandError where ``said`` names another number of dice than the frame shows."""
    dice = sorted(reader.read(frame, expected=expected, before=before).dice, key=lambda d: d.center[0])
    if said is not None and len(said) != len(dice):
        found = ", ".join(str(face(d) or "?") for d in dice) or "none"
        raise CommandError(
            f"--faces names {len(said)} dice, the frame shows {len(dice)} (read left to right: {found}): lay "
            "each die flat inside the field, apart from the others, and name the faces left to right"
        )
    faces = said if said is not None else (None,) * len(dice)
    return [Checked(d, f, grade(d, f)) for d, f in zip(dice, faces, strict=True)]


def verdict(grades: Counter[Grade], frames_read: int = 1) -> str:
    """The summary line: whether the referee will call this table's throws, and what to do if not."""
    total = sum(grades.values())
    if frames_read == 0:
        return "no frame was read: see the lines above, then run the check again"
    if total == 0:
        return "no dice found: lay the dice flat inside the field and take the frames again"
    sure = grades[Grade.SURE]
    line = f"{sure} of {total} dice read surely"
    if sure == total:
        return line + ": the referee will call these dice's throws at this camera"
    parts = [f"{grades[g]} {g.value}" for g in (Grade.WRONG, Grade.UNSURE, Grade.NOT_COUNTED) if grades[g]]
    return (
        f"{line} ({', '.join(parts)}): the referee will ask about or wait on throws of the dice not read "
        "surely; dice whose pips stand out from their body, or a camera nearer the board, serve it better"
    )


def _lessons(frame: np.ndarray, checked: list[Checked], stem: str) -> list[tuple[str, int, bytes]]:
    """The dice of ``checked`` that a table's named faces teach (each counted die with its face named), cut
    out of ``frame`` as the referee keeps a die the table confirmed: (file name, face, PNG)."""
    from referee.loop import die_crops

    named = [(c.die, c.said) for c in checked if c.said is not None and c.grade is not Grade.NOT_COUNTED]
    crops = die_crops(frame, [die for die, _ in named])
    return [
        (f"{stem}-{k + 1}.png", said, png)
        for k, ((_, said), png) in enumerate(zip(named, crops, strict=True))
        if png is not None
    ]


def run(args: argparse.Namespace) -> int:
    from referee.cli.calibrate import load_image, load_layout
    from referee.cli.read import settled_before
    from referee.cli.taught import write_folder
    from vision.board_reader import BoardReader
    from vision.dice import small_dice_warning
    from vision.profile import Profile, ProfileError

    said = said_faces(args.faces, len(args.images))
    if args.teach is not None:
        if not args.faces:
            raise CommandError("--teach needs --faces: the reader learns a die only with the face it shows")
        if (args.teach / "labels.csv").exists():
            raise CommandError(f"{args.teach / 'labels.csv'} already exists: name a new folder")
    try:
        profile = Profile.load(args.profile)
    except ProfileError as e:
        raise CommandError(str(e)) from None
    reader = BoardReader(profile)
    # where the checkers stand says which dice rest on one (geometry first), as a confirmed position does
    expected = load_layout(args.known) if args.known else None
    if args.start:
        expected = Board.start().layout(profile.orientation)
    before = None if args.before is None else settled_before(reader, args.before, expected)
    grades: Counter[Grade] = Counter()
    taught: list[tuple[str, int, bytes]] = []
    status = 0
    frames_read = 0
    for n, (path, faces) in enumerate(zip(args.images, said, strict=True)):
        try:
            frame = load_image(path)
            checked = check(reader, frame, expected, before, faces)
        except (CommandError, ValueError) as e:
            # one bad frame must not lose the others' dice
            print(f"referee check-dice: {path}: {e}", file=sys.stderr)
            status = 2
            continue
        frames_read += 1
        grades.update(c.grade for c in checked)
        if args.json:
            print(json.dumps({"image": path, "dice": [c.to_json() for c in checked]}), flush=True)
        else:
            print(f"{path}: " + (", ".join(c.text() for c in checked) or "no dice found"), flush=True)
        if args.teach is not None:
            taught += _lessons(frame, checked, f"check-{n + 1}")
    if args.teach is not None and taught:
        try:
            write_folder(args.teach, taught)
        except OSError as e:
            raise CommandError(f"cannot write into {args.teach}: {e.strerror or e}") from None
    total = sum(grades.values())
    warning = small_dice_warning(profile.corners)
    summary = verdict(grades, frames_read)
    if args.json:
        counts = {g.value: grades[g] for g in Grade}
        print(
            json.dumps({"summary": summary, "grades": counts, "small_dice": warning, "taught": len(taught)})
        )
    else:
        print(summary)
        if warning is not None and grades[Grade.SURE] < total:
            print(warning)
        if taught:
            print(f"wrote {len(taught)} dice to {args.teach}: tools/train_dice.py --taught {args.teach}")
        elif args.teach is not None:
            print(f"nothing written to {args.teach}: no die lay flat inside the field with its face named")
    if status:
        return status
    return 0 if total and grades[Grade.SURE] == total else 1
