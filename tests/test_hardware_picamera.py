"""The Pi camera wrapper against a fake ``picamera2`` module put into ``sys.modules`` for the test only.

The fake records every call, so the tests check what the wrapper asks of the camera: the RGB888 main
stream and the lores stream, settling then locking exposure and white balance, fresh frames through
``capture_request(flush=True)``, and that the camera is closed on every way out.
"""

from __future__ import annotations

import json
import sys
import types

import numpy as np
import pytest

from hardware.frames import CameraLost, CameraUnavailable
from hardware.picamera import CameraSettings, CameraSettingsError, PiCameraSource
from hardware.sources import open_source

SETTLED = {"ExposureTime": 16000, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6), "SensorTimestamp": 5}


class FakeRequest:
    def __init__(self, cam, n):
        self.cam, self.n = cam, n

    def make_array(self, name):
        if self.cam.broken_arrays:
            raise RuntimeError("buffer gone")
        w, h = self.cam.config[name]["size"]
        if name == "lores":
            return np.full((h * 3 // 2, w), 100 + self.n, np.uint8)  # YUV420: Y rows over U, V
        image = np.zeros((h, w, 3), np.uint8)
        image[..., 0] = self.n  # blue channel first: RGB888 is B, G, R in memory
        return image

    def get_metadata(self):
        return {**SETTLED, "SensorTimestamp": 2_000_000_000 + self.n * 100_000_000}

    def release(self):
        self.cam.calls.append("release")


class FakePicamera2:
    """Records calls; ``cameras`` is what ``global_camera_info`` reports."""

    instances: list = []
    cameras = [{"Model": "imx708", "Num": 0}]
    busy = False
    old_api = False

    def __init__(self, camera_num=0):
        if FakePicamera2.busy:
            raise RuntimeError("Failed to acquire camera: Device or resource busy")
        self.calls = [("open", camera_num)]
        self.controls: list[dict] = []
        self.frames = 0
        self.fail_capture = False
        self.broken_arrays = False
        FakePicamera2.instances.append(self)

    @staticmethod
    def global_camera_info():
        return FakePicamera2.cameras

    def create_video_configuration(self, main, lores=None, controls=None):
        self.calls.append(("create", main, lores, controls))
        return {"main": main, "lores": lores}

    def configure(self, config):
        self.config = config
        self.calls.append("configure")

    def set_controls(self, controls):
        self.controls.append(dict(controls))
        self.calls.append("set_controls")

    def start(self):
        self.calls.append("start")

    def capture_metadata(self):
        self.calls.append("metadata")
        return dict(SETTLED)

    def capture_request(self, wait=None, signal_function=None, **kwargs):
        if self.old_api and kwargs:
            raise TypeError("capture_request() got an unexpected keyword argument 'flush'")
        self.calls.append(("request", kwargs.get("flush"), wait))
        if self.fail_capture:
            raise TimeoutError("no frame within the timeout")
        self.frames += 1
        return FakeRequest(self, self.frames)

    def stop(self):
        self.calls.append("stop")

    def close(self):
        self.calls.append("close")


@pytest.fixture
def fake(monkeypatch):
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2
    monkeypatch.setitem(sys.modules, "picamera2", module)
    monkeypatch.setattr(FakePicamera2, "instances", [])
    monkeypatch.setattr(FakePicamera2, "cameras", [{"Model": "imx708", "Num": 0}])
    monkeypatch.setattr(FakePicamera2, "busy", False)
    monkeypatch.setattr(FakePicamera2, "old_api", False)
    return FakePicamera2


LOCKED = {
    "AeEnable": False,
    "AwbEnable": False,
    "ExposureTime": 16000,
    "AnalogueGain": 2.5,
    "ColourGains": (1.9, 1.6),
}


def test_settles_then_locks_exposure_and_white_balance(fake):
    with PiCameraSource(size=(64, 48), fps=15, lores_size=(32, 24), settle_frames=4, timeout=3.0) as camera:
        cam = fake.instances[0]
        assert cam.calls[:4] == [
            ("open", 0),
            (
                "create",
                {"format": "RGB888", "size": (64, 48)},
                {"format": "YUV420", "size": (32, 24)},
                {"FrameRate": 15.0},
            ),
            "configure",
            "start",
        ]
        assert cam.calls[4:] == ["metadata"] * 5 + ["set_controls"]  # 4 to settle, 1 to read the values
        assert cam.controls == [LOCKED]
        assert camera.settings == CameraSettings(16000, 2.5, (1.9, 1.6))
        frame = camera.read()
        assert cam.calls[-2:] == [("request", True, 3.0), "release"]
    assert cam.calls[-2:] == ["stop", "close"]
    assert frame.image.shape == (48, 64, 3) and int(frame.image[0, 0, 0]) == 1 and frame.index == 0
    assert frame.lores.shape == (24, 32) and int(frame.lores[0, 0]) == 101  # the Y plane only
    assert frame.timestamp == pytest.approx(2.1)  # SensorTimestamp, ns to s


def test_stored_settings_are_applied_before_start_without_settling(fake):
    stored = CameraSettings.from_dict(
        {"exposure_time_us": 9000, "analogue_gain": 1.5, "colour_gains": [2.0, 1.4]}
    )
    with open_source("picamera", settings=stored) as camera:
        cam = fake.instances[0]
        assert cam.calls[2:] == ["configure", "set_controls", "start"]
        assert cam.controls == [
            {
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": 9000,
                "AnalogueGain": 1.5,
                "ColourGains": (2.0, 1.4),
            }
        ]
        assert camera.settings == stored
    assert cam.calls[-1] == "close"


def test_unlocked_camera_sets_no_controls(fake):
    with PiCameraSource(lock=False, lores_size=None) as camera:
        assert fake.instances[0].controls == [] and camera.settings is None
        assert camera.read().lores is None


def test_settings_round_trip_through_the_profile_dict():
    s = CameraSettings(12000, 2.0, (1.8, 1.5))
    assert s.to_dict() == {"exposure_time_us": 12000, "analogue_gain": 2.0, "colour_gains": [1.8, 1.5]}
    assert CameraSettings.from_dict(s.to_dict()) == s
    for bad in (
        {},
        {"exposure_time_us": -1, "analogue_gain": 1, "colour_gains": [1, 1]},
        {"exposure_time_us": 1, "analogue_gain": 1, "colour_gains": [1]},
    ):
        with pytest.raises(CameraSettingsError):
            CameraSettings.from_dict(bad)


def test_a_busy_camera_is_a_clear_error(fake):
    fake.busy = True
    with pytest.raises(CameraUnavailable, match="another program.*--list-cameras"):
        PiCameraSource()


def test_a_missing_camera_is_a_clear_error(fake):
    fake.cameras = []
    with pytest.raises(CameraUnavailable, match="no camera number 0.*--list-cameras"):
        PiCameraSource()
    assert fake.instances == []


def test_missing_picamera2_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # makes the import fail
    with pytest.raises(CameraUnavailable, match="apt install python3-picamera2.*system-site-packages"):
        PiCameraSource()


def test_a_camera_that_stops_delivering_raises_camera_lost_and_still_closes(fake):
    camera = PiCameraSource(settle_frames=0)
    cam = fake.instances[0]
    cam.fail_capture = True
    with pytest.raises(CameraLost, match="stopped delivering"):
        camera.read()
    cam.fail_capture, cam.broken_arrays = False, True
    with pytest.raises(CameraLost, match="broken frame"):
        camera.read()
    assert cam.calls[-1] == "release"  # the request went back to the camera even so
    camera.close()
    camera.close()
    assert cam.calls.count("close") == 1
    with pytest.raises(CameraLost, match="closed"):
        camera.read()


def test_a_camera_that_fails_while_starting_is_closed(fake, monkeypatch):
    def refuse(self, config):
        raise RuntimeError("size not supported")

    monkeypatch.setattr(FakePicamera2, "configure", refuse)
    with pytest.raises(CameraUnavailable, match="would not start"):
        PiCameraSource()
    assert fake.instances[0].calls[-1] == "close"


def test_old_picamera2_without_flush_still_gives_frames(fake):
    fake.old_api = True
    with PiCameraSource(settle_frames=0) as camera:
        assert camera.read().index == 0 and camera.read().index == 1
        requests = [c for c in fake.instances[0].calls if isinstance(c, tuple) and c[0] == "request"]
        assert requests == [("request", None, None)] * 2


def test_capture_tool_saves_the_locked_settings_for_the_profile(fake, tmp_path, capsys):
    from referee.cli import main
    from vision.profile import Profile

    def capture(args):
        return main(["capture", *args])

    profile = tmp_path / "board.profile"
    Profile.example().save(profile)
    args = [
        "--source",
        "picamera",
        "-o",
        str(tmp_path / "start.png"),
        "--settings",
        str(tmp_path / "camera.json"),
    ]
    assert capture([*args, "--profile", str(profile)]) == 0
    saved = {"exposure_time_us": 16000, "analogue_gain": 2.5, "colour_gains": [1.9, 1.6]}
    assert json.loads((tmp_path / "camera.json").read_text()) == saved
    assert Profile.load(profile).camera == saved
    assert fake.instances[-1].calls[-1] == "close"
    assert "stored in" in capsys.readouterr().out
    # a second capture with the stored settings applies them instead of settling
    stored = CameraSettings.from_dict(saved)
    assert (
        capture(
            [
                "--source",
                "picamera",
                "-o",
                str(tmp_path / "check.png"),
                "--use-settings",
                str(tmp_path / "camera.json"),
            ]
        )
        == 0
    )
    assert fake.instances[-1].controls == [stored.controls()]
    assert "metadata" not in fake.instances[-1].calls
