"""The ``referee`` command: one subcommand per module of this package.

    $ referee legal 4HPwATDgc/ABMA 31
    8/5 6/5    4HPwATDg8+ABMA ...

Each module exposes ``add_parser(subparsers)``, which registers its subcommand and sets ``run`` to a
function taking the parsed arguments and returning the exit status. Modules that need OpenCV import it
inside ``run`` so that ``referee legal`` starts fast and the rules never depend on vision.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# Order here is the order of ``referee --help``.
COMMANDS = [
    "demo",
    "run",
    "teach",
    "legal",
    "capture",
    "calibrate",
    "check_dice",
    "read",
    "dice",
    "taught",
    "markers",
    "export",
    "history",
]


class CommandError(Exception):
    """A problem the user can fix: printed as one line, exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="referee", description="A neutral referee for real backgammon boards."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"referee.cli.{name}").add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, where it is handled, not at the interpreter's exit
        return status
    except CommandError as e:
        print(f"referee {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`referee history | head`): not an error of ours. Point stdout at
        # /dev/null so the interpreter's final flush does not fail again on the closed pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # what a shell reports for a command ended by SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
