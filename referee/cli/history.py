"""``referee history``: the games in the record, newest last; ``--game N`` shows one game's events."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from referee.cli import CommandError

KINDS = {1: "single", 2: "gammon", 3: "backgammon"}


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("history", help="list the games in the record, or the events of one")
    p.add_argument("record", type=Path, help="the SQLite record")
    p.add_argument("--game", type=int, help="show this game's events and verdicts")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from referee.journal import Journal, JournalError

    try:
        with Journal.existing(args.record) as journal:
            if args.game is not None:
                journal.require_game(args.game)
                for e in journal.events(args.game):
                    evidence = (
                        " [evidence]" if e.kind in ("illegal", "unclear") and journal.evidence(e.id) else ""
                    )
                    when = f"{e.t:8.1f}s" if e.t is not None else " " * 9
                    first = e.text.splitlines()[0] if e.text else ""
                    print(f"{when}  {e.kind:<12} {first}{evidence}")
                return 0
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
    except JournalError as e:
        raise CommandError(str(e)) from None
    return 0
