"""``referee teach``: set up a position on the board, or replay a recorded game on it, for a lesson.

    $ referee teach --config referee.toml --position 'XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10'
    $ referee teach --config referee.toml --position match.mat:2:14
    $ referee teach --config referee.toml --replay match.mat --game 2
    $ referee teach --replay match.mat --game 2 --print

``--position`` takes a gnubg Position ID (with ``--on-roll``, and ``--dice`` for a roll given), an XGID
(its dice, if any, are the roll given), or ``FILE.mat:GAME:MOVE``: the position before play MOVE of game
GAME with that play's roll (``--print`` of ``--replay`` numbers the plays). The referee says which checkers
go where, names what is still wrong until the board matches, then referees from there: the roll given is
played (the board as set up is no play yet), or the side on roll throws. ``--replay`` announces each play
of the game, waits for the teacher to make it on the board, checks it and names what is wrong. Both run
through the session and frame loop of ``referee run``, with the camera, profile and signals of the config;
a lesson is practice, cubeless, and never written to the config's own record (whose game ``referee run``
resumes); the game played from a ``--position`` is kept in ``--record FILE`` if one is named. ``--print``
writes the lesson as text, with no camera.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bgboard.layout import Board, Side
from referee.cli import CommandError
from referee.lesson import Lesson, Replay, SetPosition

if TYPE_CHECKING:
    from hardware.frames import Frame
    from referee.notation.matfile import MatchRecord
    from referee.session import Session


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "teach",
        help="set up a position on the board, or replay a recorded game on it (a lesson)",
        description=__doc__.split("\n\n", 2)[2] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--position", metavar="POS", help="Position ID, XGID, or FILE.mat:GAME:MOVE")
    what.add_argument("--replay", type=Path, metavar="FILE.mat", help="a recorded match to replay")
    p.add_argument("--game", type=int, default=1, help="with --replay: which game (default 1)")
    p.add_argument(
        "--from", dest="first", type=int, default=1, metavar="MOVE", help="with --replay: begin at play MOVE"
    )
    p.add_argument("--to", dest="last", type=int, metavar="MOVE", help="with --replay: stop after play MOVE")
    p.add_argument(
        "--on-roll", choices=("light", "dark"), help="with a Position ID: the side on roll (light)"
    )
    p.add_argument("--dice", help="with a Position ID: the roll given, e.g. 64 (default: it is thrown)")
    p.add_argument("--config", type=Path, help="the TOML config of `referee run` (camera, profile, signals)")
    p.add_argument("--print", action="store_true", help="write the lesson as text; no camera")
    p.add_argument(
        "--record", type=Path, help="with --position: keep the game played from it in this new record"
    )
    p.add_argument("--no-keys", action="store_true", help="do not read button keys from the console")
    p.set_defaults(run=run)


# ---- what the lesson is -----------------------------------------------------------------------------------


def read_record(path: Path) -> MatchRecord:
    from referee.notation.matfile import MatchParseError, parse_mat

    try:
        return parse_mat(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CommandError(f"{path} does not exist: name a .mat match file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CommandError(f"cannot read {path}: {e}") from None
    except MatchParseError as e:
        raise CommandError(f"{path} is not a match file gnubg writes: {e}") from None


def replay_of(path: Path, game: int, first: int = 1, last: int | None = None) -> Replay:
    from referee.steps import StepsError, excerpt, steps

    record = read_record(path)
    try:
        found = excerpt(steps(record, game), first, last)
    except StepsError as e:
        raise CommandError(f"{path}: {e}") from None
    light, dark = record.players
    length = f"{record.length}-point match" if record.length else "money game"
    score = record.games[game - 1].score
    players = f"{light} (light) against {dark} (dark)"
    title = f"game {game} of {path.name}, {players}, {length}, score {score[0]}-{score[1]}"
    return Replay(found, title)


def position_of(text: str, on_roll: str | None, dice: str | None) -> SetPosition:
    """``--position`` (with ``--on-roll`` and ``--dice``) as a lesson."""
    from referee.cli.legal import parse_dice
    from referee.notation.position_id import decode_position_id
    from referee.notation.xgid import XgidError, decode_xgid
    from referee.steps import StepsError, position_at

    given = parse_dice(dice) if dice is not None else None
    if text.upper().startswith("XGID=") or text.count(":") >= 8:
        if on_roll or given:
            raise CommandError("an XGID says which side is on roll and holds the roll: give neither")
        try:
            xgid = decode_xgid(text)
        except XgidError as e:
            raise CommandError(f"--position {text}: {e}") from None
        side = Side.LIGHT if xgid.state.on_roll == 0 else Side.DARK  # gnubg's player 0 plays light
        return SetPosition(Board.from_position(xgid.position, side), side, xgid.state.dice)
    head, _, tail = text.rpartition(":")
    mat, _, game = head.rpartition(":")
    if mat and game.isdigit() and tail.isdigit():
        if on_roll or given:
            raise CommandError("a FILE.mat:GAME:MOVE position comes with its side on roll and its roll")
        try:
            step = position_at(read_record(Path(mat)), int(game), int(tail))
        except StepsError as e:
            raise CommandError(f"{mat}: {e}") from None
        assert step.mover is not None
        return SetPosition(step.before, step.mover, step.dice)
    try:
        position = decode_position_id(text)
    except ValueError as e:
        raise CommandError(
            f"--position {text}: not a Position ID, an XGID or FILE.mat:GAME:MOVE ({e})"
        ) from None
    side = Side(on_roll or "light")
    return SetPosition(Board.from_position(position, side), side, given)


def lesson_of(args: argparse.Namespace) -> Lesson:
    if args.replay is not None:
        if args.on_roll or args.dice:
            raise CommandError("--on-roll and --dice go with a --position Position ID, not --replay")
        if args.record is not None:
            raise CommandError("--record goes with --position: a replayed game is recorded already")
        return replay_of(args.replay, args.game, args.first, args.last)
    if args.game != 1 or args.first != 1 or args.last is not None:
        raise CommandError(
            "--game, --from and --to go with --replay; "
            "a position names its game and play as FILE.mat:GAME:MOVE"
        )
    return position_of(args.position, args.on_roll, args.dice)


def print_lesson(lesson: Lesson) -> None:
    """The lesson as text: the setup, then each step as the table would hear it."""
    from referee.steps import StepKind

    if isinstance(lesson, Replay):
        if lesson.title:
            print(f"the lesson: {lesson.title}")
        print(lesson.instructions())
        for step in lesson.steps:
            number = f"{step.number:3d}." if step.kind is StepKind.PLAY else "    "
            print(f"{number} {step.text}")
        return
    print(lesson.instructions())


# ---- the lesson at the table ---------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    lesson = lesson_of(args)
    if args.print:
        print_lesson(lesson)
        return 0
    if args.config is None:
        raise CommandError(
            "a lesson at the table needs --config (the camera, profile and signals); "
            "--print writes it as text"
        )
    if args.record is not None and args.record.exists():
        raise CommandError(f"{args.record} already exists: a lesson writes a new record; name another file")
    return teach(args.config, lesson, args.record, keys=not args.no_keys)


def teach(config_path: Path, lesson: Lesson, record: Path | None, keys: bool = True) -> int:
    from hardware.console_signals import ConsoleSignals
    from hardware.frames import Frame, FrameSourceError, SourceSpecError
    from hardware.picamera import CameraSettings, CameraSettingsError
    from hardware.sources import open_signals, open_source
    from referee.config import RefereeConfigError, load_config
    from referee.feed import Feed
    from referee.journal import Journal, JournalError
    from referee.loop import FrameLoop, Pipeline
    from referee.session import Session, SessionOptions
    from referee.variations import TableSetup, Variation
    from vision.board_reader import BoardReader
    from vision.profile import Profile, ProfileError

    try:
        config = load_config(config_path)
        profile = Profile.load(config.profile)
        settings = CameraSettings.from_dict(profile.camera) if profile.camera else None
        journal = Journal(record) if record is not None else None
    except (RefereeConfigError, ProfileError, CameraSettingsError, JournalError) as e:
        raise CommandError(str(e)) from None
    table = TableSetup(Variation.LESSON, config.table.light[:1], config.table.dark[:1])
    options = SessionOptions(
        profile.orientation,
        replace(config.rules, cubeless=True),
        dice_frames=config.dice_frames,
        unclear_after=config.unclear_after,
        table=table,
    )
    session = Session(options, journal)
    session.lesson = lesson
    try:
        source = open_source(config.hardware.camera, settings=settings)
    except (SourceSpecError, FrameSourceError) as e:
        if journal is not None:
            journal.close()
        raise CommandError(str(e)) from None
    signals = open_signals(config.hardware.signals)
    loop = FrameLoop(Pipeline(BoardReader(profile), still_frames=config.settle_frames), session, signals)
    if isinstance(signals, ConsoleSignals) and keys and sys.stdin is not None and sys.stdin.isatty():
        signals.read_keys()
    spec = config.hardware.camera.source
    live = not spec.startswith("replay:") and not Path(spec).exists()
    feed = Feed(live=live)  # a live camera on a thread of its own, the newest frame kept
    feed.start(source)
    frames = (item for item in feed if isinstance(item, Frame))
    print(lesson.instructions(), flush=True)
    try:
        n = loop.run(until_over(frames, session))
    except FrameSourceError as e:
        raise CommandError(f"the camera stopped: {e}") from None
    finally:
        feed.close()  # the capture thread is joined before the camera closes
        source.close()
        signals.close()
        if journal is not None:
            journal.close()
    print(f"{n} frames; {session.status()}")
    return 0


def until_over(frames: Iterable[Frame], session: Session) -> Iterator[Frame]:
    """The frames until the lesson is over (the replayed game's end, or the game from the position)."""
    from referee.turns import Stage

    for frame in frames:
        yield frame
        if session.stage in (Stage.OVER, Stage.MATCH_OVER):
            return
