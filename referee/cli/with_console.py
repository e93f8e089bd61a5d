"""``--console [HOST:]PORT`` for ``referee run`` and ``referee demo``: the table console beside the frame
loop (:mod:`referee.console`)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from referee.cli import CommandError
from referee.console.address import ConsoleAddress, ConsoleAddressError, format_address, parse_address

if TYPE_CHECKING:  # numpy and the loop load only when a command runs, not for `referee legal`
    from hardware.frames import Frame
    from referee.loop import FrameLoop

PIN_VARIABLE = "REFEREE_CONSOLE_PIN"  # the demo's PIN (a PIN on the command line would show in `ps`)


def address_argument(text: str) -> ConsoleAddress:
    """argparse's ``type=`` for ``--console``."""
    try:
        return parse_address(text)
    except ConsoleAddressError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def add_console_argument(p: argparse.ArgumentParser, more: str = "") -> None:
    p.add_argument(
        "--console",
        type=address_argument,
        metavar="[HOST:]PORT",
        help="serve the table console (a web page and /api) on PORT of 127.0.0.1, or of HOST when given "
        f"(0.0.0.0: every address of this machine); 'systemd' takes the socket systemd passes{more}",
    )


def start_console(
    address: ConsoleAddress,
    loop: FrameLoop,
    *,
    pin: str | None,
    record: Path | None,
    warp: Any = None,
    out: TextIO | None = None,
) -> Any:
    """Binds, starts the console and hooks it to ``loop``; returns it (stop it with ``.stop()``)."""
    from referee.console.server import Console, ConsoleError

    try:
        console = Console.open(address, loop.session, loop.submit, pin=pin, record=record, warp=warp)
    except ConsoleAddressError as e:
        raise CommandError(str(e)) from None
    try:
        console.start()
    except ConsoleError as e:
        raise CommandError(f"--console {format_address(address)}: {e}") from None
    loop.watchers.append(console.hub)
    actions = "actions need the table's PIN" if pin else "no PIN set: reading only, actions are refused"
    reach = "" if console.listener.public else " (this machine only)"
    print(f"console: {console.url}{reach}; {actions}", file=out or sys.stdout, flush=True)
    return console


def at_table_speed(frames: Iterable[Frame]) -> Iterator[Frame]:
    """The frames at the pace their timestamps give (a recording or the virtual table, played live)."""
    began: float | None = None
    first = 0.0
    for frame in frames:
        if began is None:
            began, first = time.monotonic(), frame.timestamp
        delay = began + (frame.timestamp - first) - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        yield frame
