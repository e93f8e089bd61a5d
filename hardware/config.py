"""The ``[camera]`` and ``[signals]`` tables of the referee's TOML config file.

    >>> cfg = HardwareConfig.from_toml({"camera": {"source": "opencv:0"},
    ...                                 "signals": {"output": "console"}})
    >>> cfg.camera.source, cfg.signals.output
    ('opencv:0', 'console')

See ``examples/referee.toml`` for every key with its default. Other tables of the file belong to other
parts of the referee and are ignored here; unknown keys *inside* these two tables are errors, because a
misspelt pin would otherwise be silently ignored.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware.signals import DEFAULT_PATTERNS, LIGHTS, Button, Patterns


class ConfigError(ValueError):
    """The hardware part of the config file is wrong; the message names the key and what to do."""


Pin = int | str  # BCM number (17) or a gpiozero pin name ("GPIO17", "BOARD11")


@dataclass(frozen=True)
class CameraConfig:
    """Where frames come from (see ``hardware.sources.open_source`` for the ``source`` forms)."""

    source: str = "picamera"
    size: tuple[int, int] = (1640, 1232)
    fps: float = 10.0
    lores: tuple[int, int] | None = (320, 240)  # Pi camera low-resolution stream; None for none
    settle_frames: int = 30  # frames of automatic exposure before locking it
    lock_exposure: bool = True
    timeout: float = 5.0  # seconds one read may take before the camera counts as lost
    replay_fps: float | None = None  # timestamps i / fps for a replayed folder without timestamps.txt


@dataclass(frozen=True)
class LedPin:
    pin: Pin
    active_high: bool = True


@dataclass(frozen=True)
class RgbPins:
    """One RGB LED instead of separate green, amber and red LEDs."""

    red: Pin
    green: Pin
    blue: Pin
    active_high: bool = True  # False for a common-anode LED
    pwm: bool = True  # PWM mixes a true amber; without it amber is red + green at full


@dataclass(frozen=True)
class BuzzerPin:
    pin: Pin
    tonal: bool = False  # a passive piezo driven with tones; False for an active buzzer (one pitch)
    active_high: bool = True  # ignored for a tonal buzzer


@dataclass(frozen=True)
class ButtonPin:
    pin: Pin
    pull_up: bool = True  # button wired between the pin and ground


@dataclass(frozen=True)
class SignalsConfig:
    """Which signalling devices are fitted and on which pins."""

    output: str = "console"  # "gpio" on the Pi, "console" on a laptop
    lights: Mapping[str, LedPin] = field(default_factory=dict)  # green, amber, red, light, dark
    rgb: RgbPins | None = None
    buzzer: BuzzerPin | None = None
    buttons: Mapping[Button, ButtonPin] = field(default_factory=dict)
    bounce_time: float | None = 0.05
    duration_scale: float = 1.0  # stretch (>1) or shorten (<1) every blink and beep of the patterns

    def patterns(self) -> Patterns:
        """The signal patterns this table uses: DESIGN.md's, scaled by ``duration_scale``."""
        return (
            DEFAULT_PATTERNS if self.duration_scale == 1.0 else DEFAULT_PATTERNS.scaled(self.duration_scale)
        )


@dataclass(frozen=True)
class HardwareConfig:
    camera: CameraConfig = field(default_factory=CameraConfig)
    signals: SignalsConfig = field(default_factory=SignalsConfig)

    @classmethod
    def from_toml(cls, data: Mapping[str, Any]) -> HardwareConfig:
        """Build from the parsed TOML document (only its ``camera`` and ``signals`` tables)."""
        return cls(
            camera=parse_camera(_table(data, "camera", "")),
            signals=parse_signals(_table(data, "signals", "")),
        )


def load_hardware_config(path: str | Path) -> HardwareConfig:
    """Read a config file; :class:`ConfigError` if it is missing or is not valid TOML."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist; copy examples/referee.toml there") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path} is not valid TOML: {e}") from None
    try:
        return HardwareConfig.from_toml(data)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None


# --- parsing helpers: each names the full key in its message -----------------------------------------


def _table(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"[{where}{key}] must be a table, not {value!r}")
    return value


def _check_keys(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise ConfigError(
            f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} in [{where}]; "
            f"known keys: {', '.join(sorted(allowed))}"
        )


def _bool(value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, not {value!r}")
    return value


def _number(value: Any, key: str, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or (positive and value <= 0):
        raise ConfigError(f"{key} must be a {'positive ' if positive else ''}number, not {value!r}")
    return float(value)


def _count(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{key} must be a whole number 0 or more, not {value!r}")
    return value


def _size(value: Any, key: str) -> tuple[int, int]:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value)
    ):
        raise ConfigError(f"{key} must be [width, height] in pixels, e.g. [1640, 1232], not {value!r}")
    return int(value[0]), int(value[1])


# gpiozero's pin names and the numbers each may carry on a Pi's 40-pin header
PIN_NAMES = {
    "GPIO": range(28),
    "BCM": range(28),
    "BOARD": range(1, 41),
    "J8:": range(1, 41),
    "WPI": range(32),
}


def _pin(value: Any, key: str) -> Pin:
    """A BCM number (0-27, as ``pinout`` prints them) or a gpiozero pin name such as ``"GPIO17"``."""
    problem = (
        f"{key} = {value!r} is not a GPIO pin: give a BCM number 0-27 (as `pinout` prints it) "
        'or a name like "GPIO17"'
    )
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ConfigError(problem)
    if isinstance(value, int):
        if value not in PIN_NAMES["BCM"]:
            raise ConfigError(problem)
        return value
    text = value.strip().upper()
    for prefix, numbers in PIN_NAMES.items():
        rest = text.removeprefix(prefix)
        if rest != text and rest.isdigit() and int(rest) in numbers:
            return value
    raise ConfigError(problem)


def parse_camera(table: Mapping[str, Any]) -> CameraConfig:
    where = "camera"
    _check_keys(table, set(CameraConfig.__dataclass_fields__), where)
    d = CameraConfig()
    source = table.get("source", d.source)
    if not isinstance(source, str) or not source.strip():
        raise ConfigError(f'camera.source must be a string such as "picamera", not {source!r}')
    lores_value = table.get("lores", list(d.lores) if d.lores else False)
    lores = None if lores_value is False else _size(lores_value, "camera.lores (or false)")
    replay_fps = table.get("replay_fps")
    return CameraConfig(
        source=source.strip(),
        size=_size(table.get("size", list(d.size)), "camera.size"),
        fps=_number(table.get("fps", d.fps), "camera.fps"),
        lores=lores,
        settle_frames=_count(table.get("settle_frames", d.settle_frames), "camera.settle_frames"),
        lock_exposure=_bool(table.get("lock_exposure", d.lock_exposure), "camera.lock_exposure"),
        timeout=_number(table.get("timeout", d.timeout), "camera.timeout"),
        replay_fps=None if replay_fps is None else _number(replay_fps, "camera.replay_fps"),
    )


def _led(value: Any, key: str, default_high: bool) -> LedPin:
    if isinstance(value, Mapping):
        _check_keys(value, {"pin", "active_high"}, key)
        if "pin" not in value:
            raise ConfigError(f"{key} needs a pin, e.g. {key.rsplit('.', 1)[-1]} = {{ pin = 17 }}")
        return LedPin(_pin(value["pin"], f"{key}.pin"), _bool(value.get("active_high", default_high), key))
    return LedPin(_pin(value, key), default_high)


def parse_signals(table: Mapping[str, Any]) -> SignalsConfig:
    where = "signals"
    known = {"output", "active_high", "lights", "rgb", "buzzer", "buttons", "bounce_time", "duration_scale"}
    _check_keys(table, known, where)
    output = table.get("output", "console")
    if output not in ("gpio", "console"):
        raise ConfigError(f'signals.output must be "gpio" or "console", not {output!r}')
    default_high = _bool(table.get("active_high", True), "signals.active_high")

    lights_table = _table(table, "lights", "signals.")
    _check_keys(lights_table, set(LIGHTS), "signals.lights")
    lights = {name: _led(v, f"signals.lights.{name}", default_high) for name, v in lights_table.items()}

    rgb = None
    if "rgb" in table:
        t = _table(table, "rgb", "signals.")
        _check_keys(t, {"red", "green", "blue", "active_high", "pwm"}, "signals.rgb")
        missing = [c for c in ("red", "green", "blue") if c not in t]
        if missing:
            raise ConfigError(f"[signals.rgb] needs red, green and blue pins; missing {', '.join(missing)}")
        taken = {"green", "amber", "red"} & set(lights)
        if taken:
            raise ConfigError(
                f"[signals.rgb] replaces the {', '.join(sorted(taken))} light(s) in [signals.lights]; "
                "fit one or the other"
            )
        rgb = RgbPins(
            _pin(t["red"], "signals.rgb.red"),
            _pin(t["green"], "signals.rgb.green"),
            _pin(t["blue"], "signals.rgb.blue"),
            active_high=_bool(t.get("active_high", default_high), "signals.rgb.active_high"),
            pwm=_bool(t.get("pwm", True), "signals.rgb.pwm"),
        )

    buzzer = None
    if "buzzer" in table:
        t = _table(table, "buzzer", "signals.")
        _check_keys(t, {"pin", "tonal", "active_high"}, "signals.buzzer")
        if "pin" not in t:
            raise ConfigError(
                "[signals.buzzer] needs a pin, e.g. pin = 18 (leave the table out if none is fitted)"
            )
        buzzer = BuzzerPin(
            _pin(t["pin"], "signals.buzzer.pin"),
            tonal=_bool(t.get("tonal", False), "signals.buzzer.tonal"),
            active_high=_bool(t.get("active_high", default_high), "signals.buzzer.active_high"),
        )

    buttons_table = _table(table, "buttons", "signals.")
    names = {b.value: b for b in Button}
    _check_keys(buttons_table, set(names) | {"pull_up"}, "signals.buttons")
    pull_up = _bool(buttons_table.get("pull_up", True), "signals.buttons.pull_up")
    buttons = {
        names[name]: ButtonPin(_pin(v, f"signals.buttons.{name}"), pull_up)
        for name, v in buttons_table.items()
        if name != "pull_up"
    }

    bounce = table.get("bounce_time", 0.05)
    bounce_time = None if bounce == 0 else _number(bounce, "signals.bounce_time")

    pins = [p.pin for p in lights.values()] + [b.pin for b in buttons.values()]
    if rgb is not None:
        pins += [rgb.red, rgb.green, rgb.blue]
    if buzzer is not None:
        pins.append(buzzer.pin)
    repeated = sorted({str(p) for p in pins if pins.count(p) > 1})
    if repeated:
        raise ConfigError(f"pin {', '.join(repeated)} is given to more than one device in [signals]")

    if output == "gpio" and rgb is None and not {"green", "amber", "red"} <= set(lights):
        raise ConfigError(
            'signals.output = "gpio" needs green, amber and red in [signals.lights] or one [signals.rgb] LED'
        )
    scale = _number(table.get("duration_scale", 1.0), "signals.duration_scale")
    return SignalsConfig(output, lights, rgb, buzzer, buttons, bounce_time, scale)
