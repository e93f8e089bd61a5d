"""``referee legal``: every legal play of a roll, by gnubg Position ID.

$ referee legal 4HPwATDgc/ABMA 31
8/5 6/5          4HPwATDg8+ABMA
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any, TextIO

from referee.cli import CommandError
from referee.moves import legal_plays
from referee.notation.position_id import decode_position_id, encode_position_id

_DICE = re.compile(r"^\s*([1-6])\s*[-, ]?\s*([1-6])\s*$")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "legal",
        help="list every legal play of a roll",
        description="Lists every legal play of DICE from the position POSITION_ID (gnubg Position ID, "
        "player on roll encoded second) with the Position ID it leaves (opponent on roll).",
    )
    p.add_argument("position_id", nargs="?", help="gnubg Position ID, e.g. 4HPwATDgc/ABMA")
    p.add_argument("dice", nargs="?", help="the roll, e.g. 31 or 3-1")
    p.add_argument(
        "--batch",
        action="store_true",
        help='read JSON lines {"position_id": ..., "dice": [d1, d2]} on stdin, write one JSON line each',
    )
    p.set_defaults(run=run)


def parse_dice(text: str) -> tuple[int, int]:
    """Reads a roll written ``31``, ``3-1``, ``3,1`` or ``3 1``."""
    m = _DICE.match(text)
    if not m:
        raise CommandError(f"cannot read the roll {text!r}: write two dice 1..6, e.g. 31 or 3-1")
    return int(m.group(1)), int(m.group(2))


def plays_json(position_id: str, dice: tuple[int, int]) -> dict[str, Any]:
    """The answer for one query: each legal play's text and the Position ID it leaves."""
    position = decode_position_id(position_id)
    return {
        "plays": [
            {"move": play.text, "result": encode_position_id(play.result.swap())}
            for play in legal_plays(position, dice)
        ]
    }


EXPECTED = 'expected one JSON object a line: {"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]}'


def _query(line: str) -> dict[str, Any]:
    """The answer to one line of a batch: the plays, or ``{"error": ...}`` saying what is wrong."""
    try:
        return plays_json(*_parse_query(line))
    except ValueError as e:
        return {"error": f"{e}; {EXPECTED}"}


def _parse_query(line: str) -> tuple[str, tuple[int, int]]:
    """The Position ID and the dice of one batch line, or ValueError in words a caller can act on."""
    if not line.strip():
        raise ValueError("the line is empty")
    try:
        data = json.loads(line)
    except json.JSONDecodeError:
        raise ValueError("the line is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the line is JSON but not an object")
    missing = [key for key in ("position_id", "dice") if key not in data]
    if missing:
        raise ValueError(f"the object has no {' and no '.join(missing)}")
    position_id, dice = data["position_id"], data["dice"]
    if not isinstance(position_id, str):
        raise ValueError(f"position_id must be a string, not {json.dumps(position_id)}")
    # bool is an int to Python; true is no die
    if not isinstance(dice, list) or len(dice) != 2 or not all(type(d) is int and 1 <= d <= 6 for d in dice):
        raise ValueError(f"dice must be two whole numbers 1..6, not {json.dumps(dice)}")
    return position_id, (dice[0], dice[1])


def run_batch(lines: TextIO, out: TextIO) -> int:
    """One JSON line out for every line in, blank or bad lines included, so answers pair with queries."""
    for line in lines:
        out.write(json.dumps(_query(line)) + "\n")
        out.flush()  # a caller waiting on each answer must get it now
    return 0


def run(args: argparse.Namespace) -> int:
    if args.batch:
        if args.position_id or args.dice:
            raise CommandError("--batch reads its queries from standard input; give no position or dice")
        return run_batch(sys.stdin, sys.stdout)
    if not args.position_id or not args.dice:
        raise CommandError("give a Position ID and a roll, e.g. `referee legal 4HPwATDgc/ABMA 31`")
    try:
        answer = plays_json(args.position_id, parse_dice(args.dice))
    except ValueError as e:
        raise CommandError(str(e)) from None
    width = max(len(p["move"]) for p in answer["plays"]) + 2
    for p in answer["plays"]:
        print(f"{(p['move'] or '(no move)'):<{width}}{p['result']}")
    return 0
