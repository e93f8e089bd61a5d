"""Frame sources without a camera: replayed folders and videos, OpenCV on a file, opening by name, retries."""

from __future__ import annotations

import os

import cv2
import numpy as np
import pytest

from hardware.config import CameraConfig
from hardware.frames import (
    CameraLost,
    CameraUnavailable,
    EndOfStream,
    Frame,
    FrameSource,
    FrameSourceError,
    SourceSpecError,
)
from hardware.opencv_source import OpenCVSource
from hardware.replay import ReplaySource
from hardware.retry import RetryingSource
from hardware.sources import open_source


def image(value: int, size: tuple[int, int] = (40, 30)) -> np.ndarray:
    """A frame whose pixels say which one it is: blue = value, green = 255 - value, red = 7."""
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[..., 0], img[..., 1], img[..., 2] = value, 255 - value, 7
    return img


def write_folder(folder, values, names=None):
    folder.mkdir(exist_ok=True)
    names = names or [f"frame{i}.png" for i in range(len(values))]
    for name, v in zip(names, values, strict=True):
        assert cv2.imwrite(str(folder / name), image(v))
    return names


def test_a_folder_replays_in_natural_order_with_sidecar_timestamps(tmp_path):
    # frame10 must come after frame2: natural order, not string order
    write_folder(tmp_path / "rec", [10, 20, 30], ["frame1.png", "frame2.png", "frame10.png"])
    (tmp_path / "rec" / "timestamps.txt").write_text("# seconds\n0.0\n0.25\n\n1.5\n")
    with ReplaySource(tmp_path / "rec") as source:
        frames = list(source)
    assert [(f.index, f.timestamp) for f in frames] == [(0, 0.0), (1, 0.25), (2, 1.5)]
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 20, 30]
    assert frames[0].image.shape == (30, 40, 3) and frames[0].image.dtype == np.uint8
    assert tuple(frames[0].image[0, 0]) == (10, 245, 7)  # B, G, R as written


def test_a_sidecar_with_names_chooses_and_orders_the_frames(tmp_path):
    write_folder(tmp_path, [1, 2, 3], ["a.png", "b.png", "c.png"])
    (tmp_path / "timestamps.txt").write_text("c.png 100.0\na.png 100.5\n")
    frames = list(ReplaySource(tmp_path))
    assert [(int(f.image[0, 0, 0]), f.timestamp) for f in frames] == [(3, 100.0), (1, 100.5)]


def test_without_a_sidecar_fps_gives_the_times(tmp_path):
    write_folder(tmp_path, [5, 6, 7, 8])
    frames = list(ReplaySource(tmp_path, fps=4))
    assert [f.timestamp for f in frames] == [0.0, 0.25, 0.5, 0.75]


def test_without_a_sidecar_or_fps_file_times_are_used(tmp_path):
    names = write_folder(tmp_path, [5, 6])
    os.utime(tmp_path / names[0], (1000.0, 1000.0))
    os.utime(tmp_path / names[1], (1002.5, 1002.5))
    assert [f.timestamp for f in ReplaySource(tmp_path)] == [1000.0, 1002.5]


def test_a_replay_ends_with_end_of_stream(tmp_path):
    write_folder(tmp_path, [1])
    source = ReplaySource(tmp_path, fps=1)
    source.read()
    with pytest.raises(EndOfStream):
        source.read()


@pytest.mark.parametrize(
    ("sidecar", "message"),
    [
        ("0.0\n", "1 timestamps for 2 images"),
        ("0.0\nsoon\n", "'soon' is not a number"),
        ("1.0\n0.5\n", "must not go backwards"),
        ("frame0.png 0\n0.5\n", "mixes"),
        ("frame0.png 0\nnothere.png 1\n", "'nothere.png' is not a file"),
        ("# nothing\n", "no timestamps"),
    ],
)
def test_a_bad_sidecar_is_a_clear_error(tmp_path, sidecar, message):
    write_folder(tmp_path, [1, 2])
    (tmp_path / "timestamps.txt").write_text(sidecar)
    with pytest.raises(SourceSpecError, match=message):
        ReplaySource(tmp_path)


def test_bad_replay_paths_and_images_are_clear_errors(tmp_path):
    with pytest.raises(SourceSpecError, match="does not exist"):
        ReplaySource(tmp_path / "missing")
    with pytest.raises(SourceSpecError, match="no images"):
        ReplaySource(tmp_path)
    (tmp_path / "notes.txt").write_text("not a video")
    with pytest.raises(SourceSpecError, match="not a video"):
        ReplaySource(tmp_path / "notes.txt")
    (tmp_path / "broken.png").write_bytes(b"\x89PNG but not really")
    source = ReplaySource(tmp_path, fps=1)
    with pytest.raises(SourceSpecError, match="broken.png: cannot read it as an image"):
        source.read()
    with pytest.raises(SourceSpecError, match="fps"):
        ReplaySource(tmp_path, fps=0)


def write_video(path, values, fps=5.0):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, (40, 30))
    assert writer.isOpened()
    for v in values:
        writer.write(image(v))
    writer.release()


def test_a_video_replays_with_its_own_timestamps(tmp_path):
    video = tmp_path / "game.avi"
    write_video(video, [0, 80, 160, 240])
    with ReplaySource(video) as source:
        assert len(source) == 4
        frames = list(source)
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.2, 0.4, 0.6])
    # MJPG is lossy: the blue level identifies the frame within a few units
    assert [int(f.image[15, 20, 0]) for f in frames] == pytest.approx([0, 80, 160, 240], abs=6)


def test_a_video_through_opencv_plays_live_and_ends(tmp_path):
    video = tmp_path / "game.avi"
    write_video(video, [50, 100])
    with OpenCVSource(str(video)) as source:
        frames = list(source)
    assert [f.index for f in frames] == [0, 1]
    assert frames[0].timestamp <= frames[1].timestamp


def test_a_camera_that_is_not_there_is_a_clear_error():
    with pytest.raises(CameraUnavailable, match="another program"):
        OpenCVSource(99)


def test_open_source_understands_each_form(tmp_path):
    write_folder(tmp_path / "rec", [1, 2])
    write_video(tmp_path / "game.avi", [1, 2])
    for spec in (f"replay:{tmp_path / 'rec'}", str(tmp_path / "rec"), str(tmp_path / "game.avi")):
        with open_source(spec) as source:
            assert isinstance(source, ReplaySource) and isinstance(source, FrameSource)
            assert source.read().index == 0
    with open_source(f"opencv:{tmp_path / 'game.avi'}") as source:
        assert isinstance(source, OpenCVSource)
    with open_source(CameraConfig(source=str(tmp_path / "rec"), replay_fps=2.0)) as source:
        assert [f.timestamp for f in source] == [0.0, 0.5]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("webcam", "unknown camera source 'webcam'"),
        ("picamera:left", "camera number"),
        ("opencv:", "give an index"),
        ("replay:", "give a folder"),
        ("recordings/none", "does not exist"),
        ("opencv:/dev/video99", "does not exist"),
    ],
)
def test_open_source_rejects_nonsense(spec, message):
    with pytest.raises(SourceSpecError, match=message):
        open_source(spec)


class Flaky:
    """A source that fails on the reads listed in ``failures`` (counted across reopenings)."""

    opened = 0

    def __init__(self, log, failures):
        self.log, self.failures = log, failures
        Flaky.opened += 1
        self.log.append("open")

    def read(self):
        n = len([e for e in self.log if e.startswith("read")])
        self.log.append(f"read{n}")
        if n in self.failures:
            raise CameraLost(f"read {n} failed")
        return Frame(image(n), float(n), 0)

    def close(self):
        self.log.append("close")


def test_retrying_source_reopens_after_a_loss_and_keeps_counting():
    log, lost, restored, slept = [], [], [], []
    source = RetryingSource(
        lambda: Flaky(log, failures={1, 2}),
        on_lost=lost.append,
        on_restored=lambda: restored.append(True),
        delays=(0.5, 2.0),
        sleep=slept.append,
    )
    frames = [source.read(), source.read(), source.read()]
    assert [f.index for f in frames] == [0, 1, 2]  # the index runs on across the outage
    assert [f.timestamp for f in frames] == [0.0, 3.0, 4.0]
    assert log == ["open", "read0", "read1", "close", "open", "read2", "close", "open", "read3", "read4"]
    assert [str(e) for e in lost] == ["read 1 failed"]  # told once per outage, not per attempt
    assert restored == [True] and slept == [0.5, 2.0] and source.outages == 1
    source.close()
    assert log[-1] == "close"


def test_retrying_source_gives_up_after_max_attempts():
    source = RetryingSource(lambda: Flaky([], failures=set(range(10))), max_attempts=3, sleep=lambda s: None)
    with pytest.raises(CameraLost):
        source.read()


def test_retrying_source_reports_the_first_open_failure_at_once():
    def opener():
        raise CameraUnavailable("camera busy")

    with pytest.raises(CameraUnavailable, match="busy"):
        RetryingSource(opener, sleep=lambda s: pytest.fail("must not wait"))


def test_retrying_source_passes_the_end_of_a_replay_through(tmp_path):
    write_folder(tmp_path, [1])
    source = RetryingSource(lambda: ReplaySource(tmp_path, fps=1), sleep=lambda s: pytest.fail("no retry"))
    assert [f.index for f in source] == [0]


def test_frame_source_errors_share_a_base():
    assert issubclass(CameraLost, FrameSourceError) and issubclass(CameraUnavailable, FrameSourceError)
    assert issubclass(SourceSpecError, ValueError) and not issubclass(EndOfStream, FrameSourceError)


def test_capture_saves_a_frame_from_the_configured_source(tmp_path, capsys):
    from referee.cli import main

    def capture(args):
        return main(["capture", *args])

    write_folder(tmp_path / "rec", [42, 43])
    config = tmp_path / "referee.toml"
    config.write_text(f'[camera]\nsource = "replay:{tmp_path / "rec"}"\n')
    out = tmp_path / "board.png"
    assert (
        capture(
            ["--config", str(config), "-o", str(out), "--skip", "1", "--settings", str(tmp_path / "c.json")]
        )
        == 0
    )
    assert int(cv2.imread(str(out))[0, 0, 0]) == 43
    assert "40x30 frame 1; this source has no locked settings" in capsys.readouterr().out
    assert capture(["--source", "nowhere/at/all", "-o", str(out)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert capture(["--config", str(config), "-o", str(tmp_path / "board.unknown")]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_a_recording_replays_exactly(tmp_path):
    from hardware.replay import ReplayWriter

    originals = [Frame(image(v), t, i) for i, (v, t) in enumerate([(3, 10.0), (9, 10.1), (27, 10.35)])]
    with ReplayWriter(tmp_path / "rec") as rec:
        for f in originals:
            rec.write(f)
    replayed = list(ReplaySource(tmp_path / "rec"))
    assert [f.timestamp for f in replayed] == [10.0, 10.1, 10.35]
    assert all(np.array_equal(a.image, b.image) for a, b in zip(originals, replayed, strict=True))
    with pytest.raises(SourceSpecError, match="not empty"):
        ReplayWriter(tmp_path / "rec")
    with ReplayWriter(tmp_path / "rec2") as rec, pytest.raises(SourceSpecError, match="comes before"):
        rec.write(originals[1])
        rec.write(originals[0])
