"""sd_notify: datagrams reach a socket named by NOTIFY_SOCKET, nothing happens without it."""

from __future__ import annotations

import os
import socket

import pytest

from hardware import notify


@pytest.fixture
def listener(tmp_path, monkeypatch):
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(5)  # a missing datagram fails the test instead of hanging it
    monkeypatch.setenv("NOTIFY_SOCKET", str(path))
    yield sock
    sock.close()


def test_ready_watchdog_status_and_stopping_arrive(listener):
    assert notify.ready("watching the board")
    assert listener.recv(4096) == b"READY=1\nSTATUS=watching the board"
    assert notify.watchdog()
    assert listener.recv(4096) == b"WATCHDOG=1"
    assert notify.status("camera lost\nretrying")
    assert listener.recv(4096) == b"STATUS=camera lost retrying"
    assert notify.stopping()
    assert listener.recv(4096) == b"STOPPING=1"


def test_abstract_socket_names_start_with_at(monkeypatch):
    name = f"bg-referee-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(5)
    try:
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert notify.ready()
        assert sock.recv(4096) == b"READY=1"
    finally:
        sock.close()


def test_without_systemd_nothing_is_sent(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert notify.ready() is False and notify.watchdog() is False


def test_a_vanished_socket_is_not_fatal(tmp_path, monkeypatch):
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "gone.sock"))
    assert notify.watchdog() is False


def test_watchdog_interval_from_the_environment():
    assert notify.watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 30.0
    assert notify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}) == 30.0
    assert notify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    assert notify.watchdog_interval({}) is None and notify.watchdog_interval({"WATCHDOG_USEC": "x"}) is None


def test_sigterm_sets_the_stop_event(listener):
    import signal
    import threading

    previous = signal.getsignal(signal.SIGTERM)
    stop = threading.Event()
    try:
        notify.stop_on_sigterm(stop)
        os.kill(os.getpid(), signal.SIGTERM)
        signal.sigtimedwait([], 0)  # let the handler run here, not at some later line
        assert stop.is_set()
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert listener.recv(4096) == b"STOPPING=1"


def test_the_notifier_is_ready_on_the_first_frame_then_pings_at_a_third_of_the_interval(listener):
    now = [0.0]
    env = {"NOTIFY_SOCKET": os.environ["NOTIFY_SOCKET"], "WATCHDOG_USEC": "3000000"}
    notifier = notify.Notifier(env, clock=lambda: now[0])
    assert notifier.frame("light to roll")
    assert listener.recv(4096) == b"READY=1\nSTATUS=light to roll"
    now[0] = 0.5
    assert not notifier.frame("light to roll")  # nothing new, and too soon to ping
    now[0] = 1.0
    assert notifier.frame("light to roll")
    assert listener.recv(4096) == b"WATCHDOG=1"
    assert notifier.frame("light to play 3-1")  # words changed: STATUS at once
    assert listener.recv(4096) == b"STATUS=light to play 3-1"
