"""Tell systemd how the service is doing (``sd_notify``): ready, alive, status text.

    >>> notifier = Notifier(env={})    # the frame loop's view of systemd (here: none)
    >>> notifier.frame("waiting for the starting position")  # READY=1 on the first frame, then WATCHDOG=1
    False

Outside systemd (no ``NOTIFY_SOCKET`` in the environment) every call does nothing and returns
``False``. The protocol is one datagram of ``KEY=value`` lines to the unix socket named in
``NOTIFY_SOCKET``; a name starting with ``@`` is in the abstract namespace. A failed send is logged,
never raised: losing a ping must not stop the referee (if pings stop for good, the watchdog restarts it,
which is the point).
"""

from __future__ import annotations

import logging
import math
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Mapping
from types import FrameType

log = logging.getLogger(__name__)


def _address(env: Mapping[str, str]) -> str | None:
    name = env.get("NOTIFY_SOCKET", "")
    if name.startswith("@"):
        return "\0" + name[1:]
    if name.startswith("/"):
        return name
    if name:
        log.warning("NOTIFY_SOCKET=%r is neither a path nor an abstract name; not notifying", name)
    return None


def notify(*assignments: str, env: Mapping[str, str] | None = None) -> bool:
    """Send ``KEY=value`` lines to systemd; ``True`` if a datagram was sent.

    >>> notify("READY=1", env={})
    False
    """
    address = _address(os.environ if env is None else env)
    if address is None:
        return False
    message = "\n".join(assignments).encode()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(message, address)
    except OSError as e:
        log.warning("sd_notify to %r failed: %s", address.replace("\0", "@"), e)
        return False
    return True


def ready(status: str | None = None, *, env: Mapping[str, str] | None = None) -> bool:
    """The service is up (send once, after the first fresh frame)."""
    lines = ["READY=1"] + ([f"STATUS={status}"] if status else [])
    return notify(*lines, env=env)


def watchdog(*, env: Mapping[str, str] | None = None) -> bool:
    """Still alive (send after each fresh frame; systemd restarts the service when these stop)."""
    return notify("WATCHDOG=1", env=env)


def status(text: str, *, env: Mapping[str, str] | None = None) -> bool:
    """One line shown by ``systemctl status`` (newlines are replaced: the protocol is line based)."""
    return notify("STATUS=" + " ".join(text.splitlines()), env=env)


def stopping(*, env: Mapping[str, str] | None = None) -> bool:
    """The service is shutting down on purpose."""
    return notify("STOPPING=1", env=env)


def watchdog_interval(env: Mapping[str, str] | None = None) -> float | None:
    """Seconds systemd allows between ``WATCHDOG=1`` pings, or ``None`` when no watchdog is set.

    >>> watchdog_interval({"WATCHDOG_USEC": "30000000"})
    30.0
    """
    env = os.environ if env is None else env
    pid = env.get("WATCHDOG_PID")
    if pid and pid != str(os.getpid()):
        return None  # the watchdog is meant for another process
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    return usec / 1e6 if usec > 0 else None


class Notifier:
    """What the frame loop tells systemd: ``READY=1`` once the first frame has been read, ``WATCHDOG=1``
    while frames keep coming (at most every third of the watchdog interval), and ``STATUS=`` whenever
    the words change. Nothing is sent between frames, so a loop that hangs stops the pings and systemd
    restarts the service after ``WatchdogSec``.
    """

    def __init__(self, env: Mapping[str, str] | None = None, clock: Callable[[], float] = time.monotonic):
        self.env = env
        self.clock = clock
        interval = watchdog_interval(env)
        self.ping_every = interval / 3 if interval is not None else None
        self.ready = False
        self._status: str | None = None
        self._last_ping = -math.inf

    def frame(self, status_text: str) -> bool:
        """After a frame was read and handled; ``True`` if anything was sent."""
        if not self.ready:
            self.ready = True
            self._status = status_text
            self._last_ping = self.clock()
            return ready(status_text, env=self.env)
        sent = self.status(status_text)
        now = self.clock()
        if self.ping_every is not None and now - self._last_ping >= self.ping_every:
            self._last_ping = now
            sent = watchdog(env=self.env) or sent
        return sent

    def status(self, text: str) -> bool:
        """``STATUS=text`` if it differs from the last one sent."""
        if text == self._status:
            return False
        self._status = text
        return status(text, env=self.env)


def stop_on_sigterm(stop: threading.Event) -> None:
    """Turn SIGTERM (``systemctl stop``) into ``stop.set()``: the frame loop ends after the frame in hand,
    joins the capture thread, closes the camera, turns the lights off and closes the record.

    Python's default for SIGTERM ends the process at once, which would leave the camera open and the
    lights on; call this once at start-up, from the main thread.
    """

    def handler(signum: int, frame: FrameType | None) -> None:
        stopping()
        stop.set()

    signal.signal(signal.SIGTERM, handler)
