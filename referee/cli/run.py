"""``referee run --config FILE``: referee a table live (or a recording) as the config says.

The session resumes the game in progress in the record, so a restart after a crash or a power cut
carries on where it stopped. Replaying a recorded folder of frames gives the decisions the live run gave.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from referee.cli import CommandError
from referee.cli.with_console import add_console_argument, start_console


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "run",
        help="referee a table live from the camera (or a recording) named in a config file",
        description="Watches the frame source of the config, judges every play, signals the table and "
        "keeps the record. Keys on the console: d=double t=take p=drop a=accept n=new game h=hint v=void "
        "w=wait (a rule look-up) c=check the last play (then Enter).",
    )
    p.add_argument("--config", type=Path, required=True, help="TOML config (see examples/referee.toml)")
    p.add_argument("--no-keys", action="store_true", help="do not read button keys from the console")
    add_console_argument(p, more=' (overrides console = "..." in the config)')
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from hardware import notify
    from hardware.console_signals import ConsoleSignals
    from hardware.frames import FrameSourceError, SourceSpecError
    from hardware.picamera import CameraSettings, CameraSettingsError
    from hardware.sources import open_signals, open_source
    from referee.config import RefereeConfigError, load_config
    from referee.journal import Journal, JournalError
    from referee.loop import FrameLoop, LatestFrames, Pipeline, read_buttons
    from referee.session import Session, SessionOptions
    from vision.board_reader import BoardReader
    from vision.profile import Profile, ProfileError

    # `systemctl stop` must run the finally blocks below (camera closed, lights off, record closed)
    notify.exit_on_sigterm()
    try:
        config = load_config(args.config)
        profile = Profile.load(config.profile)
        journal = Journal(config.record)
    except (RefereeConfigError, ProfileError, JournalError) as e:
        raise CommandError(str(e)) from None
    options = SessionOptions(
        profile.orientation,
        config.rules,
        match_length=config.match_length,
        dice_frames=config.dice_frames,
        unclear_after=config.unclear_after,
        table=config.table,
    )
    session = Session.resume(options, journal)
    if session.game is not None:
        print(f"resuming game {session.game_number}: {session.status()}", flush=True)
    hardware = config.hardware
    try:
        # the gains saved at calibration keep the colours the reader learned, night after night
        settings = CameraSettings.from_dict(profile.camera) if profile.camera else None
    except CameraSettingsError as e:
        journal.close()
        raise CommandError(f"{config.profile}: {e}") from None
    try:
        source = open_source(hardware.camera, settings=settings)
    except (SourceSpecError, FrameSourceError) as e:
        journal.close()
        raise CommandError(str(e)) from None
    spec = hardware.camera.source
    recorded = Path(spec.removeprefix("replay:"))
    try:
        presses = read_buttons(recorded) if recorded.is_dir() else []
    except ValueError as e:
        raise CommandError(str(e)) from None
    signals = open_signals(hardware.signals)
    pipeline = Pipeline(BoardReader(profile), still_frames=config.settle_frames)
    loop = FrameLoop(pipeline, session, signals, presses=presses)
    keys = not args.no_keys and sys.stdin is not None and sys.stdin.isatty()
    if isinstance(signals, ConsoleSignals) and keys:
        signals.read_keys()
    live = not spec.startswith("replay:") and not recorded.exists()
    console_at = args.console or config.console
    console = None
    if console_at is not None:
        try:
            warp = pipeline.reader.rectifier.warp
            console = start_console(console_at, loop, pin=config.console_pin, record=config.record, warp=warp)
        except CommandError:
            source.close()
            signals.close()
            journal.close()
            raise
    frames = LatestFrames(source) if live else iter(source)
    notify.ready(session.status())
    try:
        n = loop.run(frames)
    except FrameSourceError as e:
        raise CommandError(f"the camera stopped: {e}") from None
    finally:
        if console is not None:
            console.stop()
        if isinstance(frames, LatestFrames):
            frames.close()
        source.close()
        signals.close()
        journal.close()
    print(f"{n} frames; {session.status()}; record: {config.record}")
    return 0
