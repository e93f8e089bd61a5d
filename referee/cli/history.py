"""``referee history``: the games in the record, newest last; ``--game N`` shows one game's events, each
with its number; ``--evidence N -o FILE`` takes event N's evidence frame out of the record (a dispute).

    $ referee history record.sqlite --evidence 42 -o dispute.png

The record is opened read-only: looking at it never changes it, even while the referee is writing it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.cli import CommandError

if TYPE_CHECKING:
    from referee.journal import Journal

KINDS = {1: "single", 2: "gammon", 3: "backgammon"}
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("history", help="list the games in the record, or the events of one")
    p.add_argument("record", type=Path, help="the SQLite record")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--game", type=int, help="show this game's events and verdicts, numbered")
    which.add_argument(
        "--evidence", type=int, metavar="EVENT", help="write the frame the referee judged event EVENT on"
    )
    p.add_argument("-o", "--output", type=Path, help="with --evidence: the image file to write (.png, .jpg)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from referee.journal import Journal, JournalError

    if args.evidence is not None and args.output is None:
        raise CommandError("--evidence needs -o FILE.png (or .jpg): where to write the frame")
    if args.output is not None and args.evidence is None:
        raise CommandError("-o goes with --evidence EVENT: which event's frame to write")
    if args.output is not None and args.output.suffix.lower() not in IMAGE_SUFFIXES:
        raise CommandError(f"-o {args.output}: name a .png or .jpg file")
    try:
        with Journal.reader(args.record) as journal:
            if args.evidence is not None:
                return write_evidence(journal, args.evidence, args.output)
            if args.game is not None:
                list_events(journal, args.game)
            else:
                list_games(journal)
    except JournalError as e:
        raise CommandError(str(e)) from None
    return 0


def list_events(journal: Journal, game_id: int) -> None:
    journal.require_game(game_id)
    for e in journal.events(game_id):
        note = ""
        if journal.evidence(e.id) is not None:
            note = " [evidence]"
        elif journal.pruned(e.id):
            note = " [evidence removed to keep the record under its size bound]"
        when = f"{e.t:8.1f}s" if e.t is not None else " " * 9
        first = e.text.splitlines()[0] if e.text else ""
        print(f"{e.id:>6}  {when}  {e.kind:<12} {first}{note}")


def list_games(journal: Journal) -> None:
    games = journal.games()
    if not games:
        print("no games recorded yet")
    matches = {m.id: m for m in journal.matches()}
    for g in games:
        started = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.started))
        match = matches[g.match_id]
        names = {"light": match.light_name, "dark": match.dark_name}
        if g.winner:
            how = "drop" if g.resigned else KINDS.get(g.kind or 1, "?")
            who = g.winner if names[g.winner] == g.winner else f"{g.winner} ({names[g.winner]})"
            result = f"{who} wins {g.points} ({how}, cube {g.cube})"
        else:
            result = "void: no points" if g.void else "in progress"
        crawford = " Crawford" if g.crawford else ""
        practice = f"  practice ({match.variation})" if match.practice else ""
        print(
            f"game {g.id:>4}  match {g.match_id:>3}  {started}  "
            f"score {g.score_light}-{g.score_dark}{crawford}  {result}{practice}"
        )


def write_evidence(journal: Journal, event_id: int, output: Path) -> int:
    """Event ``event_id``'s evidence frame into ``output``, in the format its name asks for."""
    import cv2
    import numpy as np

    event = journal.event(event_id)
    if event is None:
        raise CommandError(f"there is no event {event_id}: `referee history RECORD --game N` numbers them")
    data = journal.evidence(event_id)
    if data is None:
        why = (
            "it was removed to keep the record under its size bound"
            if journal.pruned(event_id)
            else "only illegal, unclear and throw-again calls keep one"
        )
        raise CommandError(f"event {event_id} ({event.kind}) has no evidence frame: {why}")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise CommandError(f"event {event_id}'s evidence frame is damaged in the record")
    tmp = output.with_name(output.name + ".tmp" + output.suffix)
    try:
        written = cv2.imwrite(str(tmp), image)
    except cv2.error:
        written = False
    if not written:
        tmp.unlink(missing_ok=True)
        raise CommandError(f"cannot write {output}: is its folder there and writable?")
    tmp.replace(output)
    print(f"wrote {output}: the frame of event {event_id}, {event.kind}: {event.text.splitlines()[0]}")
    return 0
