"""Where the console listens: ``[HOST:]PORT`` as given on the command line or in the config, or the
socket systemd passes in (``systemd``), and the listening socket itself.

Nothing listens unless asked, and an address without a host is this machine alone:

    >>> parse_address("8080")
    ConsoleAddress(host='127.0.0.1', port=8080)
    >>> format_address(parse_address("[::]:8080"))
    '[::]:8080'

``systemd`` takes the listening socket of ``bg-referee-console.socket`` (the socket-activation protocol:
``LISTEN_FDS`` and ``LISTEN_PID``, descriptors from 3 on), so the service itself keeps its network
sandbox: it never opens a socket of its own, it only accepts on the one systemd bound.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass

LOCAL = "127.0.0.1"
SYSTEMD = "systemd"
LISTEN_FDS_START = 3  # sd_listen_fds(3): the first descriptor systemd passes


class ConsoleAddressError(ValueError):
    """A console address that cannot be listened on; the message says what to give instead."""


@dataclass(frozen=True)
class ConsoleAddress:
    """``host`` and ``port`` to bind, or ``host == "systemd"`` (and port 0) for the socket systemd passes.

    Port 0 asks the system for a free port (tests, benchmarks): :meth:`Listener.url` names the real one.
    """

    host: str
    port: int

    @property
    def from_systemd(self) -> bool:
        return self.host == SYSTEMD


def parse_address(text: str) -> ConsoleAddress:
    """``PORT``, ``HOST:PORT``, ``[IPV6]:PORT`` or ``systemd``.

    >>> parse_address("0.0.0.0:8080").host
    '0.0.0.0'
    >>> parse_address("80800")
    Traceback (most recent call last):
    referee.console.address.ConsoleAddressError: console address '80800': the port must be 0..65535
    """
    spec = text.strip()
    if spec == SYSTEMD:
        return ConsoleAddress(SYSTEMD, 0)
    if spec.startswith("["):
        host, sep, port = spec[1:].partition("]:")
        if not sep:
            raise ConsoleAddressError(f"console address {text!r}: write an IPv6 host as [::1]:8080")
    elif ":" in spec:
        host, _, port = spec.rpartition(":")
    else:
        host, port = LOCAL, spec
    if not port.isdigit():
        raise ConsoleAddressError(
            f"console address {text!r}: give [HOST:]PORT such as 8080 or 0.0.0.0:8080, or systemd"
        )
    if not 0 <= int(port) <= 65535:
        raise ConsoleAddressError(f"console address {text!r}: the port must be 0..65535")
    if not host or any(c.isspace() for c in host):
        raise ConsoleAddressError(f"console address {text!r}: the host is empty; leave it out for {LOCAL}")
    return ConsoleAddress(host, int(port))


def format_address(address: ConsoleAddress) -> str:
    """The inverse of :func:`parse_address`."""
    if address.from_systemd:
        return SYSTEMD
    host = f"[{address.host}]" if ":" in address.host else address.host
    return f"{host}:{address.port}"


@dataclass
class Listener:
    """A listening TCP socket for the console, and the address a browser reaches it at."""

    sock: socket.socket

    @property
    def url(self) -> str:
        host, port = self.sock.getsockname()[:2]
        if host in ("0.0.0.0", "::"):
            host = LOCAL if host == "0.0.0.0" else "::1"
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"

    @property
    def public(self) -> bool:
        """Whether it listens beyond this machine (more than the loopback addresses)."""
        host = self.sock.getsockname()[0]
        try:
            return not ipaddress.ip_address(host).is_loopback
        except ValueError:
            return True

    def close(self) -> None:
        self.sock.close()


def listen(address: ConsoleAddress) -> Listener:
    """Binds and listens now, so that a port in use is one clear error before refereeing starts."""
    if address.from_systemd:
        return Listener(_systemd_socket())
    try:
        infos = socket.getaddrinfo(address.host, address.port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise ConsoleAddressError(f"console host {address.host!r} is not known here ({e.strerror})") from None
    family, kind, proto, _, where = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(where)
        sock.listen(64)
    except OSError as e:
        sock.close()
        raise ConsoleAddressError(
            f"cannot listen on {format_address(address)}: {e.strerror}; give another port with --console"
        ) from None
    sock.setblocking(False)
    return Listener(sock)


def _systemd_socket() -> socket.socket:
    """The one listening socket systemd passed (``sd_listen_fds``), checked to be a TCP listener."""
    fds, pid = os.environ.get("LISTEN_FDS", ""), os.environ.get("LISTEN_PID", "")
    if not fds.isdigit() or int(fds) < 1 or pid != str(os.getpid()):
        raise ConsoleAddressError(
            'console = "systemd" but systemd passed no socket: '
            "enable it with `systemctl enable --now bg-referee-console.socket`, then restart bg-referee"
        )
    if int(fds) > 1:
        raise ConsoleAddressError(f"systemd passed {fds} sockets; bg-referee-console.socket listens on one")
    for name in ("LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"):
        os.environ.pop(name, None)  # as sd_listen_fds(unset_environment=1): not for child processes
    sock = socket.socket(fileno=LISTEN_FDS_START)
    if sock.type != socket.SOCK_STREAM or sock.family not in (socket.AF_INET, socket.AF_INET6):
        raise ConsoleAddressError("the socket systemd passed is not a TCP socket: use ListenStream=")
    sock.setblocking(False)
    return sock
