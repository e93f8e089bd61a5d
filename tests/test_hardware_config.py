"""The [camera] and [signals] tables: the example file parses, every mistake gets a clear error."""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

import pytest

from hardware.config import (
    ButtonPin,
    BuzzerPin,
    CameraConfig,
    ConfigError,
    HardwareConfig,
    LedPin,
    load_hardware_config,
    parse_camera,
    parse_signals,
)
from hardware.console_signals import ConsoleSignals, key_to_button
from hardware.signals import DEFAULT_PATTERNS, Button, Signal, Signals
from hardware.sources import open_signals

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "referee.toml"


def test_the_example_config_parses_to_the_documented_pins():
    config = load_hardware_config(EXAMPLE)
    assert config.camera == CameraConfig()  # the example shows the defaults
    s = config.signals
    assert s.output == "gpio"
    assert s.lights == {
        "green": LedPin(17),
        "amber": LedPin(27),
        "red": LedPin(22),
        "light": LedPin(5),
        "dark": LedPin(6),
    }
    assert s.buzzer == BuzzerPin(18, tonal=True)
    assert s.buttons == {
        Button.DOUBLE: ButtonPin(23),
        Button.TAKE: ButtonPin(24),
        Button.DROP: ButtonPin(25),
        Button.ACCEPT: ButtonPin(12),
        Button.NEW_GAME: ButtonPin(16),
    }
    assert s.rgb is None


def test_defaults_without_the_tables():
    config = HardwareConfig.from_toml({"store": {"path": "elsewhere"}})
    assert config.camera.source == "picamera" and config.signals.output == "console"


def test_camera_values():
    c = parse_camera(
        {
            "source": " replay:rec ",
            "size": [800, 600],
            "lores": False,
            "fps": 5,
            "replay_fps": 2,
            "timeout": 1,
        }
    )
    assert (c.source, c.size, c.lores, c.fps, c.replay_fps, c.timeout) == (
        "replay:rec",
        (800, 600),
        None,
        5.0,
        2.0,
        1.0,
    )


def test_led_tables_give_per_light_polarity():
    s = parse_signals(
        {
            "output": "gpio",
            "active_high": False,
            "lights": {"green": {"pin": "GPIO17", "active_high": True}, "amber": 27, "red": 22},
        }
    )
    assert s.lights["green"] == LedPin("GPIO17", True) and s.lights["amber"] == LedPin(27, False)


def test_an_rgb_led_replaces_the_three_status_lights():
    s = parse_signals({"output": "gpio", "rgb": {"red": 13, "green": 19, "blue": 26, "active_high": False}})
    assert (s.rgb.red, s.rgb.green, s.rgb.blue, s.rgb.active_high, s.rgb.pwm) == (13, 19, 26, False, True)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"camera": {"sourse": "picamera"}}, "unknown key sourse in \\[camera\\]"),
        ({"camera": {"size": [640]}}, "camera.size must be \\[width, height\\]"),
        ({"camera": {"fps": 0}}, "camera.fps must be a positive number"),
        ({"camera": {"lock_exposure": "yes"}}, "camera.lock_exposure must be true or false"),
        ({"camera": {"source": ""}}, "camera.source"),
        ({"camera": "picamera"}, "\\[camera\\] must be a table"),
        ({"signals": {"output": "leds"}}, 'signals.output must be "gpio" or "console"'),
        ({"signals": {"lights": {"blue": 4}}}, "unknown key blue in \\[signals.lights\\]"),
        ({"signals": {"lights": {"green": True}}}, "signals.lights.green = .* is not a GPIO pin"),
        ({"signals": {"lights": {"green": {"active_high": False}}}}, "signals.lights.green needs a pin"),
        ({"signals": {"buttons": {"undo": 4}}}, "unknown key undo in \\[signals.buttons\\]"),
        ({"signals": {"buzzer": {"tonal": True}}}, "\\[signals.buzzer\\] needs a pin"),
        ({"signals": {"lights": {"green": 4, "red": 4}}}, "pin 4 is given to more than one device"),
        ({"signals": {"output": "gpio", "lights": {"green": 4}}}, "needs green, amber and red"),
        ({"signals": {"rgb": {"red": 1, "green": 2}}}, "missing blue"),
        (
            {"signals": {"lights": {"green": 4}, "rgb": {"red": 1, "green": 2, "blue": 3}}},
            "replaces the green",
        ),
    ],
)
def test_mistakes_are_clear_value_errors(table, message):
    with pytest.raises(ConfigError, match=message) as e:
        HardwareConfig.from_toml(table)
    assert isinstance(e.value, ValueError)


def test_a_missing_or_broken_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_hardware_config(tmp_path / "none.toml")
    (tmp_path / "bad.toml").write_text("[camera\nsource = 1")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_hardware_config(tmp_path / "bad.toml")
    (tmp_path / "typo.toml").write_text("[camera]\nfsp = 10\n")
    with pytest.raises(ConfigError, match="typo.toml: unknown key fsp"):
        load_hardware_config(tmp_path / "typo.toml")


def test_the_example_is_valid_toml_with_only_known_hardware_keys():
    data = tomllib.loads(EXAMPLE.read_text())
    assert {"camera", "signals"} <= set(data)


# --- the console stand-in ----------------------------------------------------------------------------


def test_console_signals_say_what_the_table_would_see_and_hear():
    out = io.StringIO()
    signals = open_signals(parse_signals({"output": "console"}), stream=out)
    assert isinstance(signals, ConsoleSignals) and isinstance(signals, Signals)
    signals.show(Signal.READY)
    signals.show(Signal.ROLL_OK)
    signals.show(Signal.REROLL)
    signals.show(Signal.CANNOT_SEE)
    signals.show(Signal.ILLEGAL)
    signals.show(Signal.GAME_OVER, winner="dark", points=3)
    signals.show(Signal.OFF)
    assert out.getvalue().splitlines() == [
        "[green steady]",
        "[green blink once] short tick",
        "[amber blinking] two short beeps",
        "[amber steady]",
        "[red steady] long low tone",
        "[dark LED steady] three rising tones: dark wins a backgammon",
        "[all off]",
    ]
    assert signals.shown[-2] == (Signal.GAME_OVER, "dark", 3)


def test_console_buttons_by_press_and_by_key():
    out = io.StringIO()
    signals = ConsoleSignals(out)
    pressed: list[Button] = []
    signals.on_button(pressed.append)
    signals.press(Button.DOUBLE)
    reader = signals.read_keys(io.StringIO("t\nP\n\nx\na\nn\n"))
    reader.join(5)
    assert pressed == [Button.DOUBLE, Button.TAKE, Button.DROP, Button.ACCEPT, Button.NEW_GAME]
    assert "'x' is no button" in out.getvalue()
    assert key_to_button("d") is Button.DOUBLE and key_to_button("q") is None


def test_console_game_over_checks_its_arguments():
    with pytest.raises(ValueError, match="winner"):
        ConsoleSignals(io.StringIO()).show(Signal.GAME_OVER)


def test_patterns_scale_every_duration():
    slow = DEFAULT_PATTERNS.scaled(2)
    assert slow.reroll.light("amber").on == 0.5 and slow.game_over_beep == (0.4, 0.16)
    assert slow.pattern(Signal.READY) == DEFAULT_PATTERNS.pattern(Signal.READY)
