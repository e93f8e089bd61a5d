"""The Pi's hardware behind plain interfaces: frame sources, table signals, systemd notification.

Importing this package is cheap (no OpenCV, gpiozero or picamera2 until a device is opened). It imports
nothing of the project and decides nothing about the game; ``Signal`` and ``Button`` are the vocabulary
the session speaks to the table in.
"""

from hardware.config import CameraConfig, ConfigError, HardwareConfig, SignalsConfig, load_hardware_config
from hardware.console_signals import ConsoleSignals
from hardware.frames import (
    CameraLost,
    CameraUnavailable,
    EndOfStream,
    Frame,
    FrameSource,
    FrameSourceError,
    SourceSpecError,
)
from hardware.picamera import CameraSettings, CameraSettingsError
from hardware.retry import RetryingSource
from hardware.signals import Button, Signal, Signals
from hardware.sources import open_signals, open_source

__all__ = [
    "Button",
    "CameraConfig",
    "CameraLost",
    "CameraSettings",
    "CameraSettingsError",
    "CameraUnavailable",
    "ConfigError",
    "ConsoleSignals",
    "EndOfStream",
    "Frame",
    "FrameSource",
    "FrameSourceError",
    "HardwareConfig",
    "RetryingSource",
    "Signal",
    "Signals",
    "SignalsConfig",
    "SourceSpecError",
    "load_hardware_config",
    "open_signals",
    "open_source",
]
