"""``referee taught``: the dice a table taught the reader, written out as labelled photographs.

A die the reader was not sure of, whose face the table then confirmed (ACCEPT on the question about the
dice, or on the roll a play names, or a play left to stand), is kept in the record, cut out of the frame
it lay in (``journal.TaughtDie``). This command writes them in the form of the labelled dice photographs
the reader learned from, ``labels.csv`` and ``images/``, for ``tools/train_dice.py --taught FOLDER``:
the kind of dice the reader reads worst, labelled by the table that throws them. The record is only
read; the folder must be new or hold no ``labels.csv``.
"""

from __future__ import annotations

import argparse
import csv
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.cli import CommandError

WORDS = ("one", "two", "three", "four", "five", "six")  # the labels' names of the faces 1 to 6


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "taught", help="write out the dice the table confirmed that the reader was not sure of"
    )
    p.add_argument("record", type=Path, help="the SQLite record (`referee run` or `referee demo` wrote it)")
    p.add_argument("folder", type=Path, help="where labels.csv and images/ are written (new or empty)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from referee.journal import Journal, JournalError

    try:
        with Journal.reader(args.record) as journal:
            dice = journal.taught_dice()
    except JournalError as e:
        raise CommandError(str(e)) from None
    if not dice:
        print(f"{args.record}: no dice taught yet (the table has confirmed no die the reader was unsure of)")
        return 0
    labels = args.folder / "labels.csv"
    if labels.exists():
        raise CommandError(f"{labels} already exists: name a new folder, so that no labels are overwritten")
    try:
        write_folder(args.folder, [(f"taught-{die.id}.png", die.face, die.image) for die in dice])
    except OSError as e:
        raise CommandError(f"cannot write into {args.folder}: {e.strerror or e}") from None
    faces = Counter(die.face for die in dice)
    counts = ", ".join(f"{faces[f]} showing {f}" for f in sorted(faces))
    print(f"wrote {len(dice)} dice to {args.folder} ({counts}): tools/train_dice.py --taught {args.folder}")
    return 0


def write_folder(folder: Path, dice: Sequence[tuple[str, int, bytes]]) -> None:
    """Write ``dice`` (file name, face, PNG of ``vision.dice_model.taught_crop``) into ``folder`` as
    ``labels.csv`` and ``images/``, each die's box the middle of its crop. Raises OSError."""
    from vision.dice_model import TAUGHT_PX, TAUGHT_WINDOW

    half = TAUGHT_PX / TAUGHT_WINDOW / 2  # the die's half side in its crop, which it is the middle of
    lo, hi = f"{TAUGHT_PX / 2 - half:.2f}", f"{TAUGHT_PX / 2 + half:.2f}"
    (folder / "images").mkdir(parents=True, exist_ok=True)
    for name, _, png in dice:
        (folder / "images" / name).write_bytes(png)
    with (folder / "labels.csv").open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["filename", "width", "height", "class", "xmin", "ymin", "xmax", "ymax"])
        out.writerows([name, TAUGHT_PX, TAUGHT_PX, WORDS[face - 1], lo, lo, hi, hi] for name, face, _ in dice)
