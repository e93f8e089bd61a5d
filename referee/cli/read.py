"""``referee read``: read the board in camera frames with a calibration profile.

$ referee read frame.jpg --profile board.profile --json
{"top": [-4, -1, ...], "bottom": [...], "bar": {"light": 0, "dark": 0}, ..., "image": "frame.jpg"}

One JSON object per image (one line each with ``--json``): ``top``/``bottom`` in the image layout,
``bar``, inferred ``off``, per-cell ``confidence``, ``occluded`` and ``unreadable_points``, ``dice`` and
``elapsed_ms`` of the read itself.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from referee.cli import CommandError


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "read",
        help="read checkers (and dice) in camera frames",
        description=__doc__.split("\n\n", 2)[2] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="frames from the calibrated camera")
    p.add_argument("--profile", required=True, help="the profile written by `referee calibrate`")
    p.add_argument("--json", action="store_true", help="one JSON object per line instead of text")
    p.add_argument("--no-dice", action="store_true", help="do not look for dice")
    p.set_defaults(run=run)


def _text(path: str, data: dict[str, Any]) -> str:
    def row(values: list[int]) -> str:
        return " ".join(f"{v:+d}" if v else " 0" for v in values)

    lines = [
        f"{path}  ({data['elapsed_ms']:.1f} ms)",
        f"  top    {row(data['top'])}",
        f"  bottom {row(data['bottom'])}",
        f"  bar    light {data['bar']['light']}  dark {data['bar']['dark']}",
        f"  off    light {data['off']['light']}  dark {data['off']['dark']} (inferred)",
    ]
    if data["occluded"]:
        lines.append(f"  unreadable: {', '.join(data['unreadable_points'])}")
    if data["dice"]:
        lines.append("  dice: " + ", ".join(str(d["value"]) for d in data["dice"]))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from referee.cli.calibrate import load_image
    from vision.board_reader import BoardReader
    from vision.profile import Profile, ProfileError

    try:
        reader = BoardReader(Profile.load(args.profile), use_dice=not args.no_dice)
    except ProfileError as e:
        raise CommandError(str(e)) from None
    status = 0
    for path in args.images:
        try:
            frame = load_image(path)
            data = reader.read(frame).to_json()
        except (CommandError, ValueError) as e:
            # one bad frame must not lose the others' readings
            print(f"referee read: {path}: {e}", file=__import__("sys").stderr)
            status = 2
            continue
        data["image"] = path
        print(json.dumps(data) if args.json else _text(path, data), flush=True)
    return status
