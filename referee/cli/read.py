"""``referee read``: read the board in camera frames with a calibration profile.

$ referee read frame.jpg --profile board.profile --json
{"top": [-4, -1, ...], "bottom": [...], "bar": {"light": 0, "dark": 0}, ..., "image": "frame.jpg"}

One JSON object per image (one line each with ``--json``): ``top``/``bottom`` in the image layout,
``bar``, inferred ``off``, per-cell ``confidence``, ``occluded`` and ``unreadable_points``, ``dice``,
``cube`` and ``elapsed_ms`` of the read itself.

With ``--before IMAGE`` (the settled frame the turn began with, no dice on it) only what arrived since
can be a die; without it, what the calibration frame showed is the board's own (a clock, the cube, a
logo). With ``--position POS --on-roll SIDE`` (POS a gnubg Position ID, whose side on roll is SIDE, or a JSON
file in the image-layout form of labels.json: ``top``, ``bottom``, ``bar``) each object also gets the
referee's ``call`` on the throw in the image, as the session would make it with that position confirmed
and SIDE about to throw: ``{"kind": "roll" | "reroll" | "ask" | "wait", "dice": [d1, d2], "reason": ...}``
(``ask`` names the faces it would ask the table about; ``wait`` while it cannot see the throw well
enough). The dice are read knowing the position: a die on a point that holds checkers rests on one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bgboard.layout import Board, Orientation, Side
from referee.cli import CommandError
from referee.throws import Call, CallKind

if TYPE_CHECKING:
    from bgboard.layout import ImageLayout
    from referee.session import SessionOptions
    from vision.arrivals import Still
    from vision.board_reader import BoardReader
    from vision.reading import BoardReading


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
    p.add_argument(
        "--position",
        metavar="POS",
        help="the confirmed position: a gnubg Position ID (with --on-roll) or a layout JSON file",
    )
    p.add_argument("--on-roll", choices=("light", "dark"), help="the side about to throw (with --position)")
    p.add_argument(
        "--before",
        metavar="IMAGE",
        help="the settled frame the turn began with (no dice): only what arrived since is a die "
        "(default: the calibration frame)",
    )
    p.add_argument(
        "--on-checker-valid",
        action="store_true",
        help="the table lets a die lying flat on a checker count (default: it is thrown again)",
    )
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
    if "call" in data:
        call = data["call"]
        numbers = "-".join(str(d) for d in call["dice"])
        lines.append(f"  call   {call['kind']} {numbers} {call['reason']}".rstrip())
    return "\n".join(lines)


def confirmed(text: str, on_roll: Side, orientation: Orientation) -> Board:
    """The board of ``--position``: a gnubg Position ID (``on_roll`` is the side on roll in it) or a file
    in the image layout of labels.json."""
    from referee.cli.calibrate import load_layout
    from referee.notation.position_id import decode_position_id

    if Path(text).is_file():
        layout = load_layout(text)
        try:
            return Board.from_layout(layout, orientation)
        except ValueError as e:
            raise CommandError(f"{text}: {e}") from None
    try:
        return Board.from_position(decode_position_id(text), on_roll)
    except ValueError as e:
        raise CommandError(f"--position {text}: not a layout file, nor a Position ID ({e})") from None


def throw_call(reading: BoardReading, board: Board, on_roll: Side, options: SessionOptions) -> Call:
    """What the session would tell the table about the throw in ``reading`` with ``board`` confirmed and
    ``on_roll`` about to throw: a session is set to that position and shown the reading as a settled
    frame until it calls the throw (or has watched long enough to say it would wait)."""
    return still_throw_call([reading], board, on_roll, options)


def still_throw_call(
    readings: Sequence[BoardReading], board: Board, on_roll: Side, options: SessionOptions
) -> Call:
    """The call the table acts on when the session is shown ``readings``, settled frames of one still
    throw, one after another (the last again until it has seen ``dice_frames`` of them): its first roll
    or throw again (the game goes on, or the dice are picked up), else its last question, else a wait."""
    from referee.session import Observation, Session

    session = Session(options)
    session.start_from(board, on_roll)
    shown = list(readings) + [readings[-1]] * max(0, options.dice_frames - len(readings))
    for k, reading in enumerate(shown):
        session.observe(Observation(0.1 * k, reading))
        if session.call is not None and session.call.kind in (CallKind.ROLL, CallKind.REROLL):
            return session.call
    if session.call is not None:
        return session.call  # the session's last call: a question, or a wait
    if not shown[-1].dice:
        return Call(CallKind.WAIT, reason="no dice on the board yet")
    return Call(CallKind.WAIT, reason=session.status())


def settled_before(reader: BoardReader, path: str, expected: ImageLayout | None) -> Still:
    """The still of the frame ``--before`` names (the board without dice), that a frame's dice are found
    against; a CommandError where it cannot be read or is not the profile's size."""
    from referee.cli.calibrate import load_image

    try:
        still = load_image(path)
        # read first, as the frame loop reads every settled frame: the turn's still keeps what the
        # reader saw on it (the detector's peaks, the slots its stacks leave empty). The read refuses a
        # frame of another size than the profile's.
        reader.read(still, expected=expected)
    except CommandError as e:  # the file: its message names it
        raise CommandError(f"--before {e}") from None
    except ValueError as e:
        raise CommandError(f"--before {path}: {e}") from None
    return reader.turn_still(still)


def run(args: argparse.Namespace) -> int:
    from referee.cli.calibrate import load_image
    from referee.rules_options import RuleOptions
    from referee.session import SessionOptions
    from vision.board_reader import BoardReader
    from vision.profile import Profile, ProfileError

    if (args.position is None) != (args.on_roll is None):
        raise CommandError("--position and --on-roll go together: the position, and who is to throw")
    try:
        profile = Profile.load(args.profile)
        reader = BoardReader(profile, use_dice=not args.no_dice)
    except ProfileError as e:
        raise CommandError(str(e)) from None
    board, on_roll = None, None
    if args.position is not None:
        on_roll = Side(args.on_roll)
        board = confirmed(args.position, on_roll, profile.orientation)
    options = SessionOptions(profile.orientation, RuleOptions(on_checker_valid=args.on_checker_valid))
    expected = board.layout(profile.orientation) if board is not None else None
    before = None if args.before is None else settled_before(reader, args.before, expected)
    status = 0
    for path in args.images:
        try:
            frame = load_image(path)
            reading = reader.read(frame, expected=expected, before=before)
        except (CommandError, ValueError) as e:
            # one bad frame must not lose the others' readings
            print(f"referee read: {path}: {e}", file=sys.stderr)
            status = 2
            continue
        data = reading.to_json()
        data["image"] = path
        if board is not None and on_roll is not None:
            call = throw_call(reading, board, on_roll, options)
            data["call"] = {"kind": call.kind.value, "dice": list(call.dice), "reason": call.reason}
        print(json.dumps(data) if args.json else _text(path, data), flush=True)
    return status
