"""Open the frame source and the signals named in the config or on the command line.

    >>> open_source("replay:recordings/game1")        # doctest: +SKIP
    >>> open_source(CameraConfig(source="picamera"))  # doctest: +SKIP

Source forms:

| form | source |
| --- | --- |
| ``picamera`` or ``picamera:1`` | the Pi camera (number 0 or the given one) through picamera2 |
| ``opencv:0``, ``0`` | OpenCV capture by camera index (USB webcam) |
| ``opencv:/dev/video2``, ``/dev/video2`` | OpenCV capture by device path |
| ``opencv:game.mp4`` | a video file played through OpenCV as if live (wall-clock timestamps) |
| ``replay:FOLDER`` or ``FOLDER`` | recorded images with their timestamps (``hardware.replay``) |
| ``replay:game.avi`` or ``game.avi`` | a recorded video with its own timestamps |

Nothing heavy is imported until a source is opened: this module is safe to import from ``referee/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

from hardware.config import CameraConfig, SignalsConfig
from hardware.frames import FrameSource, SourceSpecError
from hardware.picamera import CameraSettings
from hardware.signals import Signals

FORMS = '"picamera", "opencv:0", "/dev/video0", "replay:FOLDER", a folder or a video file'


def open_source(config: str | CameraConfig, *, settings: CameraSettings | None = None) -> FrameSource:
    """Open the source ``config`` names (a spec string or a ``[camera]`` config).

    ``settings`` are locked exposure and colour gains from the calibration profile, applied to a Pi
    camera instead of letting it settle afresh. Raises :class:`SourceSpecError` for a nonsense or
    missing source and ``CameraUnavailable`` for a camera that cannot be opened.
    """
    cfg = CameraConfig(source=config) if isinstance(config, str) else config
    spec = cfg.source.strip()
    kind, _, rest = spec.partition(":")
    if kind == "picamera":
        if rest and not rest.isdigit():
            raise SourceSpecError(f"camera source {spec!r}: after 'picamera:' give a camera number like 0")
        from hardware.picamera import PiCameraSource

        return PiCameraSource(
            int(rest or 0),
            size=cfg.size,
            fps=cfg.fps,
            lores_size=cfg.lores,
            settle_frames=cfg.settle_frames,
            settings=settings,
            lock=cfg.lock_exposure,
            timeout=cfg.timeout,
        )
    if kind == "opencv":
        if not rest:
            raise SourceSpecError(f"camera source {spec!r}: after 'opencv:' give an index (0) or a path")
        return _opencv(rest, cfg)
    if kind == "replay":
        if not rest:
            raise SourceSpecError(f"camera source {spec!r}: after 'replay:' give a folder or a video file")
        return _replay(rest, cfg)
    if spec.isdigit() or spec.startswith("/dev/"):
        return _opencv(spec, cfg)
    if Path(spec).exists():
        return _replay(spec, cfg)
    if "/" in spec or Path(spec).suffix:
        raise SourceSpecError(f"camera source {spec!r} does not exist; give an existing folder or video")
    raise SourceSpecError(f"unknown camera source {spec!r}; use {FORMS}")


def _opencv(target: str, cfg: CameraConfig) -> FrameSource:
    from hardware.opencv_source import OpenCVSource

    device: int | str = int(target) if target.isdigit() else target
    if isinstance(device, str) and not Path(device).exists():
        raise SourceSpecError(
            f"camera source {target!r} does not exist; list cameras with `v4l2-ctl --list-devices`"
        )
    return OpenCVSource(device, size=cfg.size, fps=cfg.fps)


def _replay(target: str, cfg: CameraConfig) -> FrameSource:
    from hardware.replay import ReplaySource

    return ReplaySource(target, fps=cfg.replay_fps)


def open_signals(config: SignalsConfig, *, pin_factory: Any = None, stream: TextIO | None = None) -> Signals:
    """The table's signals as ``config.output`` says: gpiozero devices or the console stand-in.

    >>> from hardware.signals import Signal
    >>> open_signals(SignalsConfig(output="console")).show(Signal.READY)
    [green steady]
    """
    if config.output == "gpio":
        from hardware.gpio_signals import GpioSignals

        return GpioSignals(config, pin_factory)
    from hardware.console_signals import ConsoleSignals

    return ConsoleSignals(stream, patterns=config.patterns())
