"""``referee export``: a game or a match of the record as a ``.mat`` file that gnubg imports."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from referee.cli import CommandError


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("export", help="write a game or match of the record as a .mat file")
    p.add_argument("record", type=Path, help="the SQLite record (`referee run` or `referee demo` wrote it)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--game", type=int, help="the game number shown by `referee history`")
    which.add_argument("--match", type=int, help="the match number (default: the last match)")
    p.add_argument("-o", "--output", type=Path, required=True, help="the .mat file to write")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from referee.export import ExportError, write_match_mat
    from referee.journal import Journal, JournalError

    try:
        with Journal.reader(args.record) as journal:
            if args.game is not None:
                game = journal.require_game(args.game)
                text = write_match_mat(journal, game.match_id, game.id)
            else:
                matches = journal.matches()
                if not matches:
                    raise CommandError(f"{args.record} holds no match yet")
                text = write_match_mat(journal, args.match if args.match is not None else matches[-1].id)
    except (ExportError, JournalError) as e:
        raise CommandError(str(e)) from None
    try:
        args.output.write_text(text)
    except OSError as e:
        raise CommandError(f"cannot write {args.output}: {e.strerror}") from None
    print(f"wrote {args.output}")
    return 0
