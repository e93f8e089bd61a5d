"""Ctrl-C ends the demo's console whichever of its threads the kernel hands the signal to.

A process-wide SIGINT goes to any thread that does not block it. Python runs its handler in the main
thread only, and a main thread asleep on a lock with no timeout is not woken when another thread took the
signal: the demo then served on, deaf to Ctrl-C (and to systemd's stop). The test sends the signal to one
of the other threads on purpose, the case the kernel picks now and then.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.console_fixtures import ctrl_c_reaches_it

REFEREE = [sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())"]
LIBC = ctypes.CDLL(None, use_errno=True)
TASKS = Path("/proc/self/task")


def to_thread(pid: int, tid: int, signum: int) -> None:
    """tgkill(2): a signal for one thread of a process, as the kernel delivers a process's signal."""
    if LIBC.tgkill(pid, tid, signum) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


@pytest.mark.skipif(
    not TASKS.is_dir() or not hasattr(LIBC, "tgkill"), reason="needs Linux's /proc and glibc's tgkill"
)
def test_ctrl_c_taken_by_another_thread_ends_the_serving_demo(tmp_path: Path) -> None:
    record = str(tmp_path / "r.sqlite")
    demo = subprocess.Popen(
        [*REFEREE, "demo", "--turns", "1", "--console", "127.0.0.1:0", "--record", record],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_reaches_it,
    )
    try:
        assert demo.stdout is not None
        lines = []
        for line in demo.stdout:
            lines.append(line)
            if "keeps serving" in line:
                break
        others = [int(t.name) for t in Path(f"/proc/{demo.pid}/task").iterdir() if int(t.name) != demo.pid]
        assert others, "the serving demo runs its console in threads of its own"
        to_thread(demo.pid, others[0], signal.SIGINT)
        out, err = demo.communicate(timeout=30)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert demo.returncode == 0, err
    assert "record: " in out and "Traceback" not in err
