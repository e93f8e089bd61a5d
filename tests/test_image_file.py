"""An image that is not whole is an error everywhere: cut-off JPEGs and damaged PNGs are refused, in
words, by the readers of image files (calibrate, read, dice, a replayed folder)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.frames import SourceSpecError
from hardware.image_file import ImageFileError, image_problem, read_image
from hardware.replay import ReplaySource
from referee.cli import main


def picture() -> np.ndarray:
    rng = np.random.default_rng(1)
    return cv2.GaussianBlur(rng.integers(0, 255, (120, 160, 3), dtype=np.uint8), (7, 7), 0)


@pytest.mark.parametrize("suffix", [".jpg", ".png"])
def test_whole_files_read_and_every_cut_is_refused(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"f{suffix}"
    cv2.imwrite(str(path), picture())
    data = path.read_bytes()
    assert read_image(path).shape == (120, 160, 3)
    for cut in (len(data) // 3, len(data) // 2, len(data) - 20, len(data) - 1):
        assert image_problem(data[:cut]) is not None, cut
        path.write_bytes(data[:cut])
        with pytest.raises(ImageFileError, match="cut off"):
            read_image(path)


def test_a_png_whose_data_is_damaged_fails_its_checksum(tmp_path: Path) -> None:
    ok, png = cv2.imencode(".png", picture())
    data = bytearray(png.tobytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte inside the image data
    assert "checksum" in (image_problem(bytes(data)) or "")


def test_the_real_photographs_are_whole(shared_data: Path) -> None:
    photos = (
        sorted((shared_data / "real-boards").glob("*.jpg"))
        + sorted((shared_data / "real-dice" / "images").glob("*.jpg"))[:50]
    )
    assert photos and all(image_problem(p.read_bytes()) is None for p in photos)


def test_a_cut_off_frame_in_a_replay_names_itself(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.jpg"), picture())
    bad = tmp_path / "f1.jpg"
    bad.write_bytes(bad.read_bytes()[:500])
    source = ReplaySource(tmp_path, fps=10)
    source.read()
    with pytest.raises(SourceSpecError, match=r"f1.jpg: the JPEG is cut off.*remove it from the replay"):
        source.read()


@pytest.mark.parametrize("command", [["calibrate", "--start", "-o", "p.profile"], ["dice"]])
def test_the_commands_refuse_a_cut_off_photograph(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    cv2.imwrite("cut.jpg", picture())
    Path("cut.jpg").write_bytes(Path("cut.jpg").read_bytes()[:700])
    argv = [command[0], "cut.jpg", *command[1:]]
    assert main(argv) in (1, 2)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cut.jpg: the JPEG is cut off" in err[0]
    assert not Path("p.profile").exists()


def test_dice_names_a_missing_photograph_once_and_reads_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One line on standard error names the file once and says what is wrong; the other photographs are
    still read, and the exit status says one could not be."""
    monkeypatch.chdir(tmp_path)
    cv2.imwrite("table.png", picture())
    assert main(["dice", "gone.jpg", "table.png"]) == 1
    out, err = capsys.readouterr()
    assert err.strip() == "referee dice: gone.jpg: no such file"
    lines = out.strip().splitlines()
    assert lines[0] == "error: gone.jpg: no such file"
    assert lines[1].startswith("table.png: ")
