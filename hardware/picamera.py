"""The Raspberry Pi camera through picamera2: the only module that imports it, and only when opened.

    >>> with PiCameraSource(size=(1640, 1232)) as camera:  # doctest: +SKIP
    ...     saved = camera.settings.to_dict()   # store in the calibration profile's ``camera`` dict
    ...     frame = camera.read()

On opening, the camera runs with automatic exposure and white balance for ``settle_frames`` frames, then
both are locked at the values they reached, so that a checker's colour does not drift when a hand or a
sleeve changes the scene's brightness. The locked values (:class:`CameraSettings`) are kept on the
source; store them in the calibration profile and pass them back as ``settings=`` on later starts so
colours match the calibration from night to night.

picamera2 is not a pip package: on Raspberry Pi OS it comes from ``sudo apt install python3-picamera2``
and the venv must be made with ``--system-site-packages``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from hardware.frames import BaseSource, CameraLost, CameraUnavailable, Frame, as_bgr

log = logging.getLogger(__name__)

LIST_CAMERAS = "run `libcamera-hello --list-cameras` (or `rpicam-hello --list-cameras`)"


class CameraSettingsError(ValueError):
    """Stored camera settings (from a calibration profile) are malformed."""


@dataclass(frozen=True)
class CameraSettings:
    """Locked exposure and white balance.

    ``exposure_time`` in microseconds, ``analogue_gain`` as libcamera reports it, ``colour_gains`` as
    (red, blue) white-balance gains.

    >>> s = CameraSettings(12000, 2.0, (1.8, 1.5))
    >>> CameraSettings.from_dict(s.to_dict()) == s
    True
    """

    exposure_time: int
    analogue_gain: float
    colour_gains: tuple[float, float]

    def controls(self) -> dict[str, Any]:
        """The picamera2 controls that fix the camera at these values."""
        return {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": self.exposure_time,
            "AnalogueGain": self.analogue_gain,
            "ColourGains": self.colour_gains,
        }

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values for the calibration profile's ``camera`` dict."""
        return {
            "exposure_time_us": self.exposure_time,
            "analogue_gain": self.analogue_gain,
            "colour_gains": [self.colour_gains[0], self.colour_gains[1]],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CameraSettings:
        """Read what :meth:`to_dict` wrote; a clear :class:`CameraSettingsError` otherwise."""
        hint = "recalibrate with `referee calibrate` to store fresh camera settings"
        try:
            exposure = data["exposure_time_us"]
            gain = data["analogue_gain"]
            gains = data["colour_gains"]
        except (KeyError, TypeError) as e:
            raise CameraSettingsError(f"camera settings lack {e}; {hint}") from None
        if isinstance(exposure, bool) or not isinstance(exposure, int | float) or exposure <= 0:
            raise CameraSettingsError(f"exposure_time_us must be a positive number, not {exposure!r}; {hint}")
        if isinstance(gain, bool) or not isinstance(gain, int | float) or gain <= 0:
            raise CameraSettingsError(f"analogue_gain must be a positive number, not {gain!r}; {hint}")
        if (
            not isinstance(gains, list | tuple)
            or len(gains) != 2
            or not all(isinstance(g, int | float) and not isinstance(g, bool) and g > 0 for g in gains)
        ):
            raise CameraSettingsError(f"colour_gains must be two positive numbers [red, blue], not {gains!r}")
        return cls(int(exposure), float(gain), (float(gains[0]), float(gains[1])))

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> CameraSettings:
        """The values the automatic algorithms reached, from a frame's metadata."""
        try:
            red, blue = metadata["ColourGains"]
            return cls(
                int(metadata["ExposureTime"]), float(metadata["AnalogueGain"]), (float(red), float(blue))
            )
        except (KeyError, TypeError, ValueError) as e:
            raise CameraLost(
                f"the camera reported no exposure or colour gains ({e}); is it a colour camera?"
            ) from e


def _import_picamera2() -> Any:
    try:
        from picamera2 import Picamera2
    except ImportError as e:
        raise CameraUnavailable(
            f"picamera2 is not installed ({e}): on Raspberry Pi OS run `sudo apt install python3-picamera2` "
            "and make the venv with `python3 -m venv --system-site-packages`"
        ) from e
    return Picamera2


class PiCameraSource(BaseSource):
    """A Pi camera delivering BGR frames (picamera2's ``RGB888`` is B, G, R in memory).

    ``lores_size`` adds a small YUV420 stream whose luma plane becomes ``Frame.lores`` (``None`` for
    none). ``settings`` are stored values to apply at once instead of settling; ``lock=False`` leaves
    exposure and white balance automatic (for looking, not refereeing). ``timeout`` is how long one
    read waits before :class:`CameraLost`.
    """

    def __init__(
        self,
        camera_num: int = 0,
        *,
        size: tuple[int, int] = (1640, 1232),
        fps: float = 10.0,
        lores_size: tuple[int, int] | None = (320, 240),
        settle_frames: int = 30,
        settings: CameraSettings | None = None,
        lock: bool = True,
        timeout: float = 5.0,
    ) -> None:
        self.camera_num = camera_num
        self.timeout = timeout
        self.settings: CameraSettings | None = None
        self._lores_size = lores_size
        self._index = 0
        self._flush = True  # older picamera2 releases have no capture_request(flush=...)
        picamera2 = _import_picamera2()
        info = getattr(picamera2, "global_camera_info", None)
        if info is not None and camera_num >= len(info()):
            raise CameraUnavailable(
                f"no camera number {camera_num} is connected: check the ribbon cable and "
                f"`camera_auto_detect=1` in /boot/firmware/config.txt, then {LIST_CAMERAS}"
            )
        try:
            self._camera = picamera2(camera_num)
        except Exception as e:  # picamera2 raises RuntimeError/IndexError depending on version
            raise CameraUnavailable(
                f"cannot open camera {camera_num} ({e}): is another program using the camera "
                f"(`sudo systemctl stop bg-referee` if the service holds it)? {LIST_CAMERAS}"
            ) from e
        try:
            self._start(size, fps, settle_frames, settings, lock)
        except BaseException:
            self.close()
            raise

    def _start(
        self,
        size: tuple[int, int],
        fps: float,
        settle_frames: int,
        settings: CameraSettings | None,
        lock: bool,
    ) -> None:
        cam = self._camera
        streams: dict[str, Any] = {"main": {"format": "RGB888", "size": tuple(size)}}
        if self._lores_size is not None:
            streams["lores"] = {"format": "YUV420", "size": tuple(self._lores_size)}
        try:
            config = cam.create_video_configuration(**streams, controls={"FrameRate": float(fps)})
            cam.configure(config)
            if settings is not None and lock:
                cam.set_controls(settings.controls())
            cam.start()
            if settings is None and lock:
                for _ in range(settle_frames):
                    cam.capture_metadata()
                settings = CameraSettings.from_metadata(cam.capture_metadata())
                cam.set_controls(settings.controls())
                log.info("camera locked at %s", settings)
        except CameraLost:
            raise
        except Exception as e:
            raise CameraUnavailable(
                f"camera {self.camera_num} opened but would not start ({e}); "
                f"try another size in [camera], then {LIST_CAMERAS}"
            ) from e
        self.settings = settings if lock else None

    def _capture_request(self) -> Any:
        if self._flush:
            try:
                # flush: a frame whose exposure began after this call, not one queued earlier
                return self._camera.capture_request(flush=True, wait=self.timeout)
            except TypeError:
                self._flush = False
                log.warning("this picamera2 has no capture_request(flush=True); frames may be one behind")
        return self._camera.capture_request()

    def read(self) -> Frame:
        if self._camera is None:
            raise CameraLost(f"camera {self.camera_num} is closed")
        try:
            request = self._capture_request()
        except Exception as e:
            raise CameraLost(f"camera {self.camera_num} stopped delivering frames ({e!r})") from e
        try:
            image = as_bgr(np.asarray(request.make_array("main")), "Pi camera")
            lores = None
            if self._lores_size is not None:
                # YUV420 arrays stack Y (height rows) over U and V; Y alone is the greyscale picture
                lores = np.asarray(request.make_array("lores"))[: self._lores_size[1]]
            metadata = request.get_metadata() or {}
        except Exception as e:
            raise CameraLost(f"camera {self.camera_num} delivered a broken frame ({e!r})") from e
        finally:
            request.release()
        stamp = metadata.get("SensorTimestamp")
        # SensorTimestamp is CLOCK_MONOTONIC in ns on the Pi, the same clock as time.monotonic()
        timestamp = stamp / 1e9 if isinstance(stamp, int | float) and stamp > 0 else time.monotonic()
        frame = Frame(image, timestamp, self._index, lores)
        self._index += 1
        return frame

    def close(self) -> None:
        cam, self._camera = getattr(self, "_camera", None), None
        if cam is None:
            return
        try:
            cam.stop()
        except Exception as e:  # stopping a camera that never started must not stop the close
            log.debug("camera stop failed: %r", e)
        finally:
            cam.close()
