"""A stand-in for the table's lights, buzzer and buttons: text on a stream, keys for buttons.

    >>> import io
    >>> out = io.StringIO()
    >>> signals = ConsoleSignals(out)
    >>> signals.show(Signal.REROLL)
    >>> out.getvalue()
    '[amber blinking] two short beeps\\n'

Buttons are pressed with :meth:`ConsoleSignals.press` (demonstration, tests) or from the keyboard with
:meth:`ConsoleSignals.read_keys` (``referee run`` on a laptop): ``d`` double, ``t`` take, ``p`` drop
(pass), ``a`` accept, ``n`` new game, ``h`` hint, ``v`` void, ``w`` wait (a rule look-up), ``c`` check
the last play, each followed by Enter.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from hardware.signals import DEFAULT_PATTERNS, Button, Patterns, Signal

log = logging.getLogger(__name__)

KEYS: dict[str, Button] = {
    "d": Button.DOUBLE,
    "t": Button.TAKE,
    "p": Button.DROP,
    "a": Button.ACCEPT,
    "n": Button.NEW_GAME,
    "h": Button.HINT,
    "v": Button.VOID,
    "w": Button.PAUSE,
    "c": Button.CHECK,
}
KEY_HELP = (
    "keys: d=double t=take p=drop(pass) a=accept n=new game h=hint v=void w=wait (rule look-up) "
    "c=check the last play, then Enter"
)


def key_to_button(text: str) -> Button | None:
    """The button a typed key stands for, or ``None``.

    >>> key_to_button(" P\\n")
    <Button.DROP: 'drop'>
    """
    return KEYS.get(text.strip().lower()[:1])


class ConsoleSignals:
    """:class:`~hardware.signals.Signals` that prints what the table would see and hear.

    ``shown`` keeps every (signal, winner, points) shown, for the demonstration and tests.
    """

    def __init__(self, stream: TextIO | None = None, *, patterns: Patterns = DEFAULT_PATTERNS) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.patterns = patterns
        self.shown: list[tuple[Signal, str | None, int]] = []
        self._callbacks: list[Callable[[Button], None]] = []
        self._lock = threading.Lock()
        self._closed = False

    def show(self, signal: Signal, *, winner: str | None = None, points: int = 1) -> None:
        pattern = self.patterns.pattern(signal, winner=winner, points=points)
        with self._lock:
            self.shown.append((signal, winner, points))
            print(pattern.describe(), file=self.stream, flush=True)

    def on_button(self, callback: Callable[[Button], None]) -> None:
        self._callbacks.append(callback)

    def press(self, button: Button) -> None:
        """Press ``button``: every registered callback is called with it, in this thread."""
        for callback in list(self._callbacks):
            callback(button)

    def read_keys(self, keys: TextIO | None = None) -> threading.Thread:
        """Read key lines from ``keys`` (stdin) in a background thread and press the buttons they name."""
        source = keys if keys is not None else sys.stdin
        print(KEY_HELP, file=self.stream, flush=True)

        def loop() -> None:
            for line in source:
                if self._closed:
                    return
                button = key_to_button(line)
                if button is None:
                    if line.strip():
                        print(f"? {line.strip()!r} is no button; {KEY_HELP}", file=self.stream, flush=True)
                    continue
                try:
                    self.press(button)
                except Exception:  # a failing callback must not stop the keyboard
                    log.exception("button callback failed for %s", button)

        thread = threading.Thread(target=loop, name="console-keys", daemon=True)
        thread.start()
        return thread

    def wait(self, timeout: float | None = None) -> None:
        """Nothing plays in the background here; present so both stand-ins can be waited on alike."""

    def close(self) -> None:
        self._closed = True

    def __enter__(self) -> ConsoleSignals:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
