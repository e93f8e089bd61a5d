"""One record, one referee: a lock beside the record that a crash cannot leave behind.

    >>> import tempfile, pathlib
    >>> record = pathlib.Path(tempfile.mkdtemp()) / "record.sqlite"
    >>> with RecordLock(record):
    ...     RecordLock(record)  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    RecordInUse: the record ... is in use by another referee (pid ...)

The lock is ``flock`` on ``RECORD.lock``: the kernel drops it when the process ends, however it ends
(``kill -9``, a power cut), so a stale lock file never keeps a referee out. The file says which process
holds it, so the refusal can name that referee. Readers (``referee history``, ``export``) take no lock:
they open the record read-only and may look while a referee writes.
"""

from __future__ import annotations

import fcntl
import os
import socket
import time
from pathlib import Path
from types import TracebackType

from referee.journal import JournalError, lock_path


class RecordInUse(JournalError):
    """Another referee is writing this record; the message names it."""


class RecordLock:
    """Holds the record for this process until :meth:`release` (or the process ends)."""

    def __init__(self, record: str | Path) -> None:
        self.record = Path(record)
        self.path = lock_path(record)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise JournalError(
                f"cannot lock the record {self.record} ({self.path}: {e.strerror or e}): "
                "may this user write in its folder?"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise RecordInUse(
                f"the record {self.record} is in use by another referee ({holder or 'pid unknown'}): "
                "stop that one first (`sudo systemctl stop bg-referee` for the service), or name "
                "another record"
            ) from None
        os.ftruncate(fd, 0)
        started = time.strftime("%Y-%m-%d %H:%M:%S")
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}, since {started}\n".encode())
        self._fd: int | None = fd

    def release(self) -> None:
        """Lets another referee have the record (the file stays; only the lock matters)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> RecordLock:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def _read(fd: int) -> str:
    try:
        return os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""
