"""The fault table of `referee run`: each ordinary fault is one clear line (and exit 2), never a
traceback, and loses nothing. (The record's readers: test_record.py; `legal --batch` and pipes:
test_cli_legal.py; whole images: test_image_file.py; the demo: test_demo.py; config: test_config.py;
calibration: test_calibration.py; a full disk, the camera away, SIGTERM: test_service.py.)"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from conftest import DemoRecording, one_line_error
from test_record import another_referee, damage
from test_service import REFEREE, config_for, said

from referee.cli import main
from referee.journal import Journal
from vision.dice_verdict import CLEAR_DIE_PX


def test_a_record_locked_by_another_program(
    demo_recording: DemoRecording,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import referee.journal

    monkeypatch.setattr(referee.journal, "BUSY_SECONDS", 0.1)
    record = tmp_path / "record.sqlite"
    Journal(record).close()
    other = sqlite3.connect(record, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")  # an sqlite3 shell holding the file
    try:
        assert main(["run", "--config", str(config_for(demo_recording, tmp_path)), "--no-keys"]) == 2
    finally:
        other.close()
    one_line_error(capsys, "locked by another program")


def test_a_record_in_use_by_another_referee_and_a_crashed_one(
    demo_recording: DemoRecording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The second referee is refused with a message naming the first; a referee killed with -9 leaves
    no lock behind."""
    record = tmp_path / "record.sqlite"
    cfg = config_for(demo_recording, tmp_path)
    with another_referee(record) as holder:
        assert main(["run", "--config", str(cfg), "--no-keys"]) == 2
        one_line_error(capsys, "in use by another referee", f"pid {holder.pid}")
    assert main(["run", "--config", str(cfg), "--no-keys"]) == 0  # the dead one's lock is gone


def test_a_profile_made_at_another_resolution(
    demo_recording: DemoRecording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads((demo_recording.folder / "profile.json").read_text())
    data["image_size"] = [640, 480]
    profile = tmp_path / "small.json"
    profile.write_text(json.dumps(data))
    cfg = config_for(demo_recording, tmp_path)
    cfg.write_text(
        cfg.read_text().replace(str((demo_recording.folder / "profile.json").resolve()), str(profile))
    )
    assert main(["run", "--config", str(cfg), "--no-keys"]) == 2
    one_line_error(capsys, "1280x720", "640x480", "size = [640, 480]")


def test_a_camera_that_gives_a_die_too_few_pixels_is_named_at_start(
    demo_recording: DemoRecording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The demo's rendered camera puts its field 704 px wide in a 1280x720 frame, 23 px a die, under
    CLEAR_DIE_PX: `referee run` says so once, before the first frame, and referees the table anyway."""
    assert main(["run", "--config", str(config_for(demo_recording, tmp_path)), "--no-keys"]) == 0
    out = capsys.readouterr().out
    first, *rest = out.splitlines()
    profile = (demo_recording.folder / "profile.json").resolve()
    assert first.startswith(f"warning: {profile}: a die is about 23 px across in these frames")
    assert f"real dice are read surely from {CLEAR_DIE_PX} px" in first
    assert not any(line.startswith("warning") for line in rest)
    assert said(out) == [s.text for s in demo_recording.result.says]


@pytest.mark.parametrize(
    ("pin", "words"),
    [("99", "not a GPIO pin"), ('"banana"', "not a GPIO pin"), ("28", "not a GPIO pin")],
)
def test_gpio_pins_that_do_not_exist(
    demo_recording: DemoRecording, tmp_path: Path, capsys: pytest.CaptureFixture[str], pin: str, words: str
) -> None:
    cfg = config_for(demo_recording, tmp_path)
    cfg.write_text(
        cfg.read_text().replace(
            '[signals]\noutput = "console"\n',
            f'[signals]\noutput = "gpio"\nlights = {{ green = {pin}, amber = 27, red = 22 }}\n',
        )
    )
    assert main(["run", "--config", str(cfg), "--no-keys"]) == 2
    one_line_error(capsys, "signals.lights.green", words)


def test_gpio_output_off_a_pi(demo_recording: DemoRecording, tmp_path: Path) -> None:
    """No GPIO library works here (this is no Pi): one line, and what to do on a Pi and off one."""
    cfg = config_for(demo_recording, tmp_path)
    cfg.write_text(
        cfg.read_text().replace(
            '[signals]\noutput = "console"\n',
            '[signals]\noutput = "gpio"\nlights = { green = 17, amber = 27, red = 22 }\n',
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPIOZERO_")}
    done = subprocess.run([REFEREE, "run", "--config", str(cfg)], env=env, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "no GPIO library works on this machine" in done.stderr and 'output = "console"' in done.stderr


def test_an_unreadable_frame_inside_a_replay(
    demo_recording: DemoRecording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frames = tmp_path / "frames"
    shutil.copytree(demo_recording.folder / "frames", frames)
    bad = sorted(frames.glob("*.jpg"))[25]
    bad.write_bytes(bad.read_bytes()[: bad.stat().st_size // 2])
    cfg = config_for(demo_recording, tmp_path, source=f"replay:{frames}")
    assert main(["run", "--config", str(cfg), "--no-keys"]) == 2
    one_line_error(capsys, bad.name, "cut off", "remove it from the replay folder")
    with Journal.reader(tmp_path / "record.sqlite") as journal:  # what came before it is kept
        assert [e.kind for e in journal.events(journal.games()[0].id)][:2] == ["setup", "reroll"]


def test_a_record_with_corrupt_pages(
    demo_recording: DemoRecording, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "record.sqlite"
    shutil.copy(demo_recording.folder.parent / "demo.sqlite", record)
    damage(record)
    assert main(["run", "--config", str(config_for(demo_recording, tmp_path)), "--no-keys"]) == 2
    one_line_error(capsys, "damaged")  # (its readers: tests/test_record.py)
