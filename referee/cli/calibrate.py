"""``referee calibrate``: learn a board from one frame whose position is known.

$ referee calibrate start.jpg --corners "211,26 890,26 870,648 238,660" --start -o board.profile
calibrated board.profile: orientation bottom-right (found from the start position), 24 points, bar 17 px

The corners are the playing field's (the 24 points and the bar, not the trays), ordered top-left,
top-right, bottom-right, bottom-left as the image shows them. Without ``--corners`` the field is found
from four ArUco markers (``referee markers``) or the board's outline. ``--start`` says the frame shows
the starting position and finds the orientation from it; ``--known LAYOUT.json`` gives any position in
the image-layout form of labels.json (``top``, ``bottom``, ``bar``) and takes the orientation from
``--orientation``, by default the start position's own when the layout is the start, else bottom-right.

A calibration is right or refused: one whose profile reads its own frame back wrong, whose known
position fits the frame poorly, or whose --orientation contradicts what --start found is an error that
names the cause, and the profile is not written (an old one stays as it was). --force writes it anyway.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bgboard.layout import ImageLayout, Side
from referee.cli import CommandError

if TYPE_CHECKING:
    import numpy as np

ORIENTATIONS = ("bottom-right", "bottom-left", "top-right", "top-left")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "calibrate",
        help="learn a board and camera from one frame whose position is known",
        description=__doc__.split("\n\n", 2)[2] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("image", help="a frame from the camera, showing the whole field")
    p.add_argument(
        "--corners", help='field corners "x,y x,y x,y x,y": top-left, top-right, bottom-right, bottom-left'
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--start", action="store_true", help="the frame shows the starting position")
    what.add_argument(
        "--known",
        metavar="LAYOUT.json",
        help='the position shown: {"top": [...], "bottom": [...], "bar": {...}}',
    )
    p.add_argument(
        "--orientation", choices=ORIENTATIONS, help="image corner of light's home board (see above)"
    )
    p.add_argument("-o", "--output", required=True, help="where to write the profile")
    p.add_argument(
        "--force", action="store_true", help="write the profile even when the checks above refuse it"
    )
    p.set_defaults(run=run)


def load_image(path: str) -> np.ndarray:
    """A whole colour frame from a file, or CommandError saying why not (a cut-off JPEG is refused)."""
    from hardware.image_file import ImageFileError, read_image

    try:
        return read_image(path)
    except ImageFileError as e:
        raise CommandError(str(e)) from None


def load_layout(path: str) -> ImageLayout:
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise CommandError(f"cannot read {path}: {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise CommandError(
            f'{path} is not JSON: expected {{"top": [12 ints], "bottom": [12 ints], "bar": {{...}}}}'
        ) from None
    if not isinstance(data, dict):
        raise CommandError(f"{path}: expected a JSON object with top, bottom and bar")
    try:
        layout = ImageLayout.from_json(data)
        light, dark = layout.checkers(Side.LIGHT), layout.checkers(Side.DARK)
    except ValueError as e:
        raise CommandError(f"{path}: {e}") from None
    if light > 15 or dark > 15:
        raise CommandError(f"{path}: {light} light and {dark} dark checkers; a side has 15")
    return layout


def run(args: argparse.Namespace) -> int:
    from bgboard.layout import Orientation
    from calibration.field import FieldNotFound, find_field, parse_corners
    from calibration.learn import CalibrationError, calibrate
    from vision.dice import small_dice_warning

    frame = load_image(args.image)
    layout = load_layout(args.known) if args.known else None
    if args.corners:
        try:
            corners = parse_corners(args.corners)
        except ValueError as e:
            raise CommandError(str(e)) from None
        how = "given"
    else:
        try:
            corners, how = find_field(frame)
        except FieldNotFound as e:
            raise CommandError(str(e)) from None
    h, w = frame.shape[:2]
    if any(not (-0.05 * w <= x <= 1.05 * w and -0.05 * h <= y <= 1.05 * h) for x, y in corners):
        raise CommandError(f"corners {corners} lie outside the {w}x{h} image")
    orientation = Orientation(args.orientation) if args.orientation else None
    try:
        # with --start the frame says the orientation; a given one is checked against it, not obeyed
        profile = calibrate(
            frame,
            corners,
            known=layout,
            start=args.start,
            orientation=None if args.start else orientation,
            source=args.image,
        )
    except CalibrationError as e:
        raise CommandError(str(e)) from None
    problems = list(profile.notes)
    if args.start and orientation is not None and orientation is not profile.orientation:
        problems.append(
            f"--orientation {orientation.value} contradicts the starting position in the frame, whose "
            f"checkers put light's home at {profile.orientation.value}"
        )
        if args.force:
            profile.orientation = orientation
    if problems and not args.force:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise CommandError(
            f"calibration refused, {args.output} not written: {shown}. Check the corners and the position "
            "(or give --force to write it anyway)"
        )
    profile.notes = problems
    try:
        profile.save(args.output)
    except OSError as e:
        raise CommandError(f"cannot write {args.output}: {e.strerror}") from None
    g = profile.geometry
    found = "found from the start position" if args.start else "given or default"
    where = " ".join(f"{x:.0f},{y:.0f}" for x, y in corners)
    print(
        f"calibrated {args.output}: field corners {how} ({where}), orientation {profile.orientation.value} "
        f"({found}), {g.slots} checkers to a column, bar {g.bar_x1 - g.bar_x0:.0f} of {g.width} px"
    )
    for note in profile.notes:
        print(f"warning (--force): {note}")
    small = small_dice_warning(corners)
    if small:
        print(f"warning: {small}")
        print(f"how the table's own dice read here: referee check-dice FRAME... --profile {args.output}")
    return 0
