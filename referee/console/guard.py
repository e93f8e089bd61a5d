"""Who may act at the table through the console: the table's PIN, the page's CSRF token, and a limit on
wrong PINs.

Reading is open to whoever reaches the console; every action needs the PIN. With no PIN set, every
action is refused. The PIN is kept only as a digest and compared in constant time; it is never written
anywhere.

    >>> guard = Guard("2468")
    >>> guard.check("2468", "10.0.0.7", now=0.0)
    <Verdict.OK: 'ok'>
    >>> guard.check("1111", "10.0.0.7", now=0.0)
    <Verdict.WRONG: 'wrong'>
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import deque
from enum import Enum

MIN_PIN = 4  # characters: a PIN shorter than this falls to a few minutes of guessing
# Wrong PINs allowed per window, from one address and from all together; past either, every PIN (even
# the right one) is refused until the window has passed, so guessing costs a window per few tries.
WINDOW = 60.0  # seconds
PER_CLIENT = 5
IN_ALL = 20


class PinError(ValueError):
    """A PIN the table cannot use."""


class Verdict(Enum):
    OK = "ok"
    NO_PIN_SET = "no_pin_set"  # the table set no PIN: actions are off
    MISSING = "missing"
    WRONG = "wrong"
    LIMITED = "limited"  # too many wrong PINs lately


def check_pin(pin: str) -> str:
    """A PIN as the config gives it, checked: at least :data:`MIN_PIN` characters, no spaces.

    >>> check_pin("12")
    Traceback (most recent call last):
    referee.console.guard.PinError: the console PIN must be at least 4 characters, with no spaces
    """
    if len(pin) < MIN_PIN or any(c.isspace() for c in pin):
        raise PinError(f"the console PIN must be at least {MIN_PIN} characters, with no spaces")
    return pin


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


class Guard:
    """Checks PINs (constant time, rate-limited) and holds the CSRF token of this run of the console.

    ``csrf`` is new at every start: a page or a program reads it from the page or ``/api/state`` and sends
    it back with every action, which another site's page cannot do (it cannot read this origin).
    """

    def __init__(self, pin: str | None) -> None:
        self._pin = _digest(check_pin(pin)) if pin is not None else None
        self.csrf = secrets.token_urlsafe(24)
        self._wrong: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()

    @property
    def actions_allowed(self) -> bool:
        return self._pin is not None

    def csrf_ok(self, token: str | None) -> bool:
        return token is not None and hmac.compare_digest(_digest(token), _digest(self.csrf))

    def check(self, pin: object, client: str, now: float) -> Verdict:
        """The answer to ``pin`` from ``client`` (an address) at ``now`` (monotonic seconds)."""
        if self._pin is None:
            return Verdict.NO_PIN_SET
        if self.retry_after(client, now) > 0:
            return Verdict.LIMITED
        if not isinstance(pin, str) or not pin:
            return Verdict.MISSING
        if hmac.compare_digest(_digest(pin), self._pin):
            return Verdict.OK
        self._wrong.setdefault(client, deque()).append(now)
        self._all.append(now)
        return Verdict.WRONG

    def retry_after(self, client: str, now: float) -> float:
        """Seconds until ``client`` may try a PIN again (0 when it may now)."""
        mine = self._wrong.get(client, deque())
        for times in (mine, self._all):
            while times and times[0] <= now - WINDOW:
                times.popleft()
        if not mine and client in self._wrong:
            del self._wrong[client]
        waits = [
            times[0] + WINDOW - now
            for times, limit in ((mine, PER_CLIENT), (self._all, IN_ALL))
            if len(times) >= limit
        ]
        return max(waits, default=0.0)
