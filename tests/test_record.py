"""The record as its readers see it: read-only, refusing what is not a record, one referee at a time,
evidence frames taken out for a dispute."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import DemoRecording, one_line_error

from referee.cli import main
from referee.journal import Journal
from referee.record_lock import RecordInUse, RecordLock


def damage(record: Path) -> None:
    """Overwrites every page but the first (the header and the schema) with noise, as a dying SD card."""
    data = bytearray(record.read_bytes())
    page = 4096
    for start in range(page, len(data), page):
        data[start : start + page] = os.urandom(len(data[start : start + page]))
    record.write_bytes(bytes(data))


def test_a_damaged_record_is_one_line_for_its_readers(
    demo_recording: DemoRecording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "record.sqlite"
    shutil.copy(demo_recording.folder.parent / "demo.sqlite", record)
    damage(record)
    for command in (["history", str(record)], ["history", str(record), "--game", "1"]):
        assert main(command) == 2
        one_line_error(capsys, "damaged")
    assert main(["export", str(record), "-o", str(tmp_path / "x.mat")]) == 2
    one_line_error(capsys)


@contextlib.contextmanager
def another_referee(record: Path) -> Iterator[subprocess.Popen[str]]:
    """A process holding ``record``'s lock as a referee would, killed with -9 (no clean-up of any kind)
    when the block ends."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                f"""
                import time
                from referee.record_lock import RecordLock
                lock = RecordLock({str(record)!r})
                print("locked", flush=True)
                time.sleep(60)
                """
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        yield holder
    finally:
        holder.kill()
        holder.wait()


def test_one_record_one_referee_and_a_crash_leaves_no_lock(tmp_path: Path) -> None:
    record = tmp_path / "record.sqlite"
    with another_referee(record) as holder:
        in_use = f"in use by another referee \\(pid {holder.pid} on "
        with pytest.raises(RecordInUse, match=in_use):
            RecordLock(record)
    with RecordLock(record):  # the kernel dropped the dead one's lock
        pass


@pytest.mark.parametrize("kind", ["empty", "foreign"])
def test_readers_refuse_what_is_not_a_record_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    path = tmp_path / "x.sqlite"
    if kind == "empty":
        path.write_bytes(b"")
    else:
        db = sqlite3.connect(path)
        db.execute("CREATE TABLE recipes (name TEXT)")
        db.commit()
        db.close()
    before = path.read_bytes()
    assert main(["history", str(path)]) == 2
    one_line_error(capsys, "not a referee record")
    assert main(["export", str(path), "-o", str(tmp_path / "x.mat")]) == 2
    one_line_error(capsys, "not a referee record")
    assert path.read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["x.sqlite"]


def test_a_read_only_copy_of_a_record_reads(
    demo_recording: DemoRecording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "stick"
    folder.mkdir()
    record = folder / "record.sqlite"
    shutil.copy(demo_recording.folder.parent / "demo.sqlite", record)
    record.chmod(0o444)
    folder.chmod(0o555)
    try:
        assert main(["history", str(record)]) == 0
        assert "game    1" in capsys.readouterr().out
        assert sorted(p.name for p in folder.iterdir()) == ["record.sqlite"]
    finally:
        folder.chmod(0o755)


def test_an_evidence_frame_comes_out_for_a_dispute(
    demo_recording: DemoRecording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import cv2

    record = demo_recording.folder.parent / "demo.sqlite"
    with Journal.reader(record) as journal:
        reroll = next(e for e in journal.events(1) if e.kind == "reroll")
        stored = journal.evidence(reroll.id)
    assert stored is not None and stored[:2] == b"\xff\xd8"  # kept as a JPEG
    assert main(["history", str(record), "--game", "1"]) == 0
    assert f"{reroll.id:>6}" in capsys.readouterr().out  # the events are numbered
    out = tmp_path / "dispute.png"
    assert main(["history", str(record), "--evidence", str(reroll.id), "-o", str(out)]) == 0
    image = cv2.imread(str(out))
    assert image is not None and image.shape[0] > 100
    assert main(["history", str(record), "--evidence", "999", "-o", str(out)]) == 2
    one_line_error(capsys, "no event 999")
    assert main(["history", str(record), "--evidence", "1", "-o", str(out)]) == 2
    one_line_error(capsys, "has no evidence frame")
