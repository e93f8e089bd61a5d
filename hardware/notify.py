"""Tell systemd how the service is doing (``sd_notify``): ready, alive, status text.

    >>> ready("watching the board")   # doctest: +SKIP
    >>> watchdog()                    # after every fresh frame  # doctest: +SKIP

Outside systemd (no ``NOTIFY_SOCKET`` in the environment) every call does nothing and returns
``False``. The protocol is one datagram of ``KEY=value`` lines to the unix socket named in
``NOTIFY_SOCKET``; a name starting with ``@`` is in the abstract namespace. A failed send is logged,
never raised: losing a ping must not stop the referee (if pings stop for good, the watchdog restarts it,
which is the point).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
from collections.abc import Mapping
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


def exit_on_sigterm() -> None:
    """Turn SIGTERM (``systemctl stop``) into ``SystemExit`` so ``finally`` blocks and context managers run.

    Python's default for SIGTERM ends the process at once, which would leave the camera open and the
    lights on; call this once at start-up, from the main thread.
    """

    def handler(signum: int, frame: FrameType | None) -> None:
        stopping()
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)
