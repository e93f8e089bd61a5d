"""``referee run --config FILE``: referee a table live (or a recording) as the config says.

The session resumes the game in progress in the record, so a restart after a crash or a power cut
carries on where it stopped. Replaying a recorded folder of frames gives the decisions the live run gave.
Under systemd it speaks the notify protocol (:mod:`referee.service`); SIGTERM stops it cleanly. Every
ordinary fault (a config, profile, record, camera or pin that is wrong) is one line saying what to do.
"""

from __future__ import annotations

import argparse
import sys
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.cli import CommandError
from referee.cli.with_console import add_console_argument, start_console

if TYPE_CHECKING:
    from hardware.config import SignalsConfig
    from hardware.picamera import CameraSettings
    from hardware.signals import Button, Signals
    from referee.config import RefereeConfig
    from referee.journal import Journal
    from vision.profile import Profile


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


def open_table_signals(config: SignalsConfig) -> Signals:
    """The configured signals, or one line saying why the pins cannot be used."""
    from hardware.gpio_signals import SignalsUnavailable
    from hardware.sources import open_signals

    with warnings.catch_warnings(record=True) as fallbacks:
        warnings.simplefilter("always")  # gpiozero's "falling back from lgpio" notes: said once, below
        try:
            return open_signals(config)
        except SignalsUnavailable as e:
            if "pin factory" in str(e):
                tried = "; ".join(str(w.message) for w in fallbacks)
                raise CommandError(
                    'signals.output = "gpio" but no GPIO library works on this machine'
                    f"{f' ({tried})' if tried else ''}: on a Raspberry Pi install python3-lgpio and run as a "
                    'user in the gpio group; on another machine set output = "console"'
                ) from None
            raise CommandError(str(e)) from None


def run(args: argparse.Namespace) -> int:
    from hardware import notify
    from hardware.picamera import CameraSettings, CameraSettingsError
    from referee.config import RefereeConfigError, load_config
    from referee.journal import Journal, JournalError
    from referee.loop import read_buttons
    from referee.record_lock import RecordLock
    from vision.profile import Profile, ProfileError

    stop = threading.Event()
    # `systemctl stop` ends the loop after the frame in hand; the finally blocks below then run
    notify.stop_on_sigterm(stop)
    try:
        config = load_config(args.config)
        profile = Profile.load(config.profile)
        settings = CameraSettings.from_dict(profile.camera) if profile.camera else None
    except (RefereeConfigError, ProfileError) as e:
        raise CommandError(str(e)) from None
    except CameraSettingsError as e:
        raise CommandError(f"{config.profile}: {e}") from None
    hardware = config.hardware
    spec = hardware.camera.source
    recorded = Path(spec.removeprefix("replay:"))
    try:
        presses = read_buttons(recorded) if recorded.is_dir() else []
    except ValueError as e:
        raise CommandError(str(e)) from None
    limit = int(config.record_limit_mb * 1_000_000) if config.record_limit_mb else None
    try:
        lock = RecordLock(config.record)
    except JournalError as e:
        raise CommandError(str(e)) from None
    try:
        try:
            journal = Journal(config.record, limit_bytes=limit)
        except JournalError as e:
            raise CommandError(str(e)) from None
        try:
            return _referee(args, config, profile, settings, journal, presses, stop)
        finally:
            journal.close()
    finally:
        lock.release()


def _referee(
    args: argparse.Namespace,
    config: RefereeConfig,
    profile: Profile,
    settings: CameraSettings | None,
    journal: Journal,
    presses: list[tuple[float, Button]],
    stop: threading.Event,
) -> int:
    """The table refereed until the source ends or ``stop`` is set; the record is open and locked."""
    from hardware.console_signals import ConsoleSignals
    from hardware.frames import FrameSourceError, SourceSpecError
    from hardware.notify import Notifier
    from hardware.retry import RetryingSource
    from hardware.sources import open_source
    from referee.feed import Feed
    from referee.journal import JournalError
    from referee.loop import FrameLoop, Pipeline
    from referee.quiet import Quiet
    from referee.service import FrameSizeError, Service
    from referee.session import Session, SessionOptions
    from vision.alignment import FieldEdges
    from vision.board_reader import BoardReader
    from vision.dice import small_dice_warning
    from vision.profile import ProfileError

    hardware = config.hardware
    options = SessionOptions(
        profile.orientation,
        config.rules,
        match_length=config.match_length,
        dice_frames=config.dice_frames,
        unclear_after=config.unclear_after,
        next_match_on_start=config.next_match_on_start,
        table=config.table,
    )
    try:
        session = Session.resume(options, journal)
    except JournalError as e:
        raise CommandError(str(e)) from None
    if session.game is not None:
        print(f"resuming game {session.game_number}: {session.status()}", flush=True)
    small = small_dice_warning(profile.corners)
    if small:
        print(f"warning: {config.profile}: {small}", flush=True)
    spec = hardware.camera.source
    live = not spec.startswith("replay:") and not Path(spec).exists()
    feed = Feed(live=live, stop=stop)
    try:
        source = RetryingSource(
            lambda: open_source(hardware.camera, settings=settings),
            on_lost=feed.lost,
            on_restored=feed.back,
            stop=stop,
        )
    except (SourceSpecError, FrameSourceError) as e:
        raise CommandError(str(e)) from None
    try:
        signals = open_table_signals(hardware.signals)
    except CommandError:
        source.close()
        raise
    console = None
    try:
        reader = BoardReader(profile)
        pipeline = Pipeline(reader, still_frames=config.settle_frames, sight=FieldEdges(profile))
        loop = FrameLoop(pipeline, session, signals, presses=presses)
        keys = not args.no_keys and sys.stdin is not None and sys.stdin.isatty()
        if isinstance(signals, ConsoleSignals) and keys:
            signals.read_keys()
        quiet = Quiet(lambda: loop.session.stage)
        service = Service(loop, journal, options, Notifier(), frame_size=profile.image_size, quiet=quiet)
        console_at = args.console or config.console
        if console_at is not None:
            warp = reader.rectifier.warp
            console = start_console(console_at, loop, pin=config.console_pin, record=config.record, warp=warp)
        feed.start(source)
        try:
            n = service.run(feed)
            stopped = " (stopped)" if stop.is_set() else ""
        except (FrameSizeError, ProfileError, SourceSpecError) as e:
            raise CommandError(str(e)) from None
        except FrameSourceError as e:
            raise CommandError(f"the camera stopped and could not be reopened: {e}") from None
        except JournalError as e:
            raise CommandError(str(e)) from None
    finally:
        if console is not None:
            console.stop()
        feed.close()  # the capture thread is joined before the camera closes
        source.close()
        signals.close()  # lights off, buzzer silent
    dropped = f", {feed.dropped} dropped while reading" if feed.dropped else ""
    lost = f", the camera lost {service.outages} time(s)" if service.outages else ""
    print(f"{n} frames{dropped}{lost}{stopped}; {loop.session.status()}; record: {config.record}", flush=True)
    return 0
