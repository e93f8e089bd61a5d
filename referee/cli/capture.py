"""``referee capture``: save one frame from the configured camera, taken as the service takes them.

$ referee capture --config /etc/bg-referee/referee.toml -o board.png --settings camera.json
board.png: 1640x1232 frame 0; camera settings in camera.json

The camera settles and locks its exposure and white balance as ``referee run`` does; ``--settings``
writes the locked values as JSON, ``--use-settings`` applies stored ones instead of settling, and
``--profile`` stores the values this frame was taken with in a calibration profile's ``camera`` entry,
so that the service starts with the colours the board was calibrated under. ``--skip N`` drops N frames
first (a webcam's first frames are often dark). See docs/raspberry-pi.md, "Calibrating a new board".
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from referee.cli import CommandError


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "capture",
        help="save one frame from the camera, exposure locked as the service locks it (for calibration)",
        description=__doc__.split("\n\n", 2)[2] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--config", type=Path, help="referee config file (its [camera] table)")
    p.add_argument("--source", help="camera source, overriding the config (e.g. picamera, opencv:0)")
    p.add_argument("-o", "--output", type=Path, required=True, help="image file to write (.png, .jpg)")
    p.add_argument("--settings", type=Path, help="write the locked camera settings here as JSON")
    p.add_argument("--use-settings", type=Path, help="apply camera settings from this JSON file")
    p.add_argument("--profile", type=Path, help="store the camera settings in this calibration profile")
    p.add_argument("--skip", type=int, default=0, help="frames to drop before the one saved")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import cv2

    from hardware.config import CameraConfig, load_hardware_config
    from hardware.frames import EndOfStream, FrameSourceError
    from hardware.picamera import CameraSettings
    from hardware.sources import open_source
    from vision.profile import Profile

    try:
        camera = load_hardware_config(args.config).camera if args.config else CameraConfig()
        if args.source:
            camera = dataclasses.replace(camera, source=args.source)
        stored = None
        if args.use_settings:
            try:
                stored = CameraSettings.from_dict(json.loads(args.use_settings.read_text()))
            except (OSError, json.JSONDecodeError) as e:
                raise CommandError(f"cannot read camera settings from {args.use_settings}: {e}") from None
        with open_source(camera, settings=stored) as source:
            for _ in range(max(0, args.skip)):
                source.read()
            frame = source.read()
            settings = getattr(source, "settings", None)
    except (ValueError, FrameSourceError, EndOfStream) as e:
        raise CommandError(str(e)) from None
    try:
        written = cv2.imwrite(str(args.output), frame.image)
    except cv2.error:
        written = False
    if not written:
        raise CommandError(f"cannot write {args.output}: use a .png or .jpg name in a writable folder")
    note = ""
    if args.settings:
        if settings is None:
            note = "; this source has no locked settings to save"
        else:
            args.settings.write_text(json.dumps(settings.to_dict(), indent=2) + "\n")
            note = f"; camera settings in {args.settings}"
    if args.profile:
        if settings is None:
            raise CommandError("this source has no locked camera settings to store in a profile")
        try:
            profile = Profile.load(args.profile)
        except ValueError as e:
            raise CommandError(str(e)) from None
        profile.camera = settings.to_dict()
        profile.save(args.profile)
        note += f"; stored in {args.profile}"
    width, height = frame.size
    print(f"{args.output}: {width}x{height} frame {frame.index}{note}")
    return 0
