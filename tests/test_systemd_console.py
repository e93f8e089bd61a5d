"""The console under systemd: a socket unit listens and hands its socket to the service, so the service
keeps its network sandbox (PrivateNetwork=yes, IPAddressDeny=any) with the console on.

The socket-activation protocol itself (LISTEN_FDS, LISTEN_PID, descriptor 3) is exercised for real with
systemd's own ``systemd-socket-activate``, which passes a listening socket exactly as the service manager
does.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.console_fixtures import ctrl_c_reaches_it
from tests.test_systemd import ANALYZE, directives, needs_analyze, verifiable_copy

SOCKET = Path(__file__).resolve().parents[1] / "systemd" / "bg-referee-console.socket"
ACTIVATE = shutil.which("systemd-socket-activate")
REFEREE = [sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())"]


def socket_values(key: str) -> list[str]:
    return [v for s, k, v in directives(SOCKET.read_text()) if s == "Socket" and k == key]


@needs_analyze
def test_the_socket_unit_verifies_beside_the_service(tmp_path: Path) -> None:
    verifiable_copy(tmp_path)
    shutil.copy(SOCKET, tmp_path / SOCKET.name)
    result = subprocess.run(
        [ANALYZE, "verify", "--man=no", str(tmp_path / SOCKET.name), str(tmp_path / "bg-referee.service")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 0 and result.stdout + result.stderr == "", result.stdout + result.stderr


def test_the_socket_listens_on_this_machine_alone_by_default() -> None:
    assert socket_values("ListenStream") == ["127.0.0.1:8080"]
    assert socket_values("Service") == ["bg-referee.service"]
    assert socket_values("Accept") == ["no"]
    assert socket_values("IPAddressDeny") == ["any"] and socket_values("IPAddressAllow") == ["localhost"]


@pytest.mark.skipif(ACTIVATE is None, reason="systemd-socket-activate is not installed (apt install systemd)")
def test_the_console_serves_on_the_socket_systemd_passes(tmp_path: Path) -> None:
    import socket as sockets

    with sockets.socket() as probe:  # a free port for systemd-socket-activate to listen on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert ACTIVATE is not None
    cmd = [
        ACTIVATE,
        "-l",
        f"127.0.0.1:{port}",
        *REFEREE,
        "demo",
        "--turns",
        "1",
        "--console",
        "systemd",
        "--record",
        str(tmp_path / "r.sqlite"),
    ]
    demo = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_reaches_it
    )
    try:
        deadline = time.monotonic() + 10
        while True:  # systemd-socket-activate listens first, then starts the demo on the first connection
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=60) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        assert demo.stdout is not None
        lines = []
        for line in demo.stdout:
            lines.append(line)
            if "keeps serving" in line:
                break
    finally:
        demo.send_signal(signal.SIGINT)
        out, err = demo.communicate(timeout=30)
    out = "".join(lines) + out
    assert demo.returncode == 0, out + err
    assert f"console: http://127.0.0.1:{port}/" in out


def test_without_a_socket_from_systemd_the_console_says_what_to_enable(tmp_path: Path) -> None:
    result = subprocess.run(
        [*REFEREE, "demo", "--turns", "1", "--console", "systemd", "--record", str(tmp_path / "r.sqlite")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("referee demo: ")
    assert "systemctl enable --now bg-referee-console.socket" in result.stderr
    assert "Traceback" not in result.stderr
