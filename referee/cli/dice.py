"""``referee dice``: find and read the dice in photographs of dice, or in board frames with a profile.

$ referee dice roll.jpg --json
{"image": "roll.jpg", "dice": [{"value": 5, "center": [412.0, 300.5], "box": [...], "confidence": 0.998,
 "flags": [], "half": null}], "elapsed_ms": 9.1}

Without a profile it reads photographs of dice: dice on a plain table, seen from above, any size. It
does not know a board: in a frame of one it takes checkers, the cube, the trays' contents and the
board's own marks for dice. On a board give ``--profile`` (from ``referee calibrate``): dice are then
looked for on the calibrated field and around it, at the size the field implies, and each die also
gets its board terms: ``half`` of the field, and the flags ``outside_field``, ``at_edge`` and
``on_checker``. Flags: ``cocked`` (value null: no face is up), ``on_checker``, ``outside_field``,
``at_edge`` (its footprint lies just beyond the field's edge, nearer than the reader can tell in from
out: counted in its half, and the referee asks the table whether it lies inside),
``unreadable`` (too unclear to count: value is the likeliest face, weighed by its low confidence, which
the referee asks the table about instead of using it; value null where no face is likely enough, and
the referee waits).
An image that cannot be read gives ``{"image": ..., "error": ...}``; the others are still read and the
exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from referee.cli import CommandError

if TYPE_CHECKING:
    import numpy as np

    from vision.profile import Profile


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "dice",
        help="find and read dice in photographs of dice (on a board: with --profile)",
        description=__doc__.split("\n\n", 2)[2] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photographs or camera frames")
    p.add_argument("--json", action="store_true", help="one JSON object per line instead of text")
    p.add_argument(
        "--profile", help="a calibration profile: needed for board frames; reports dice in board terms"
    )
    p.add_argument(
        "--on-checker-valid",
        action="store_true",
        help="a die lying flat on a checker counts (default: it is flagged on_checker, a reroll)",
    )
    p.set_defaults(run=run)


def _load_quad(path: str) -> tuple[np.ndarray, Profile]:
    import numpy as np

    from vision.profile import Profile

    try:
        profile = Profile.load(path)
    except (OSError, ValueError) as e:
        raise CommandError(f"cannot use profile {path}: {e}") from None
    return np.array(profile.corners, dtype=np.float32), profile


def _load(path: str) -> np.ndarray:
    """The image at ``path``; ValueError saying what is wrong when there is none (or only part of one)."""
    from hardware.image_file import read_image

    return read_image(path)


def _named(path: str, error: str) -> str:
    """``error`` with the image it is about named once (an unreadable file's message names it already)."""
    return error if error.startswith(f"{path}:") else f"{path}: {error}"


def _text(path: str, data: dict[str, Any]) -> str:
    if "error" in data:
        return f"error: {_named(path, data['error'])}"
    parts = []
    for d in data["dice"]:
        what = "?" if d["value"] is None else str(d["value"]) + ("?" if "unreadable" in d["flags"] else "")
        flags = f" ({', '.join(d['flags'])})" if d["flags"] else ""
        where = f" {d['half']}" if d.get("half") else ""
        parts.append(f"{what} at {d['center'][0]:.0f},{d['center'][1]:.0f}{where}{flags}")
    return f"{path}: " + ("; ".join(parts) if parts else "no dice")


def run(args: argparse.Namespace) -> int:
    from vision.dice import find_dice

    quad, profile = _load_quad(args.profile) if args.profile else (None, None)
    status = 0
    for path in args.images:
        data: dict[str, Any] = {"image": path}
        try:
            image = _load(path)
        except ValueError as e:
            data["error"] = str(e)
        else:
            try:
                if profile is not None:
                    profile.check_frame(image.shape[1], image.shape[0])
                t0 = time.perf_counter()
                dice = find_dice(image, quad, on_checker_valid=args.on_checker_valid)
                data["dice"] = [d.to_json() for d in dice]
                data["elapsed_ms"] = round((time.perf_counter() - t0) * 1000, 2)
            except ValueError as e:
                data["error"] = str(e)
        if "error" in data:
            print(f"referee dice: {_named(path, data['error'])}", file=sys.stderr)
            status = 1
        print(json.dumps(data) if args.json else _text(path, data), flush=True)
    return status
