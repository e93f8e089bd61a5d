"""Issue 6's proof: the demo's recorded frames replayed through `referee run` with GPIO on gpiozero's
mock pins give the demo's verdicts, and the pins show the signal table's patterns.

One short demo (a wrong setup, the opening roll with a cocked die thrown again, a turn with hands over
the board) is recorded with ``--save-frames`` and shared by the tests here. The replay runs in this
process with ``GPIOZERO_PIN_FACTORY=mock GPIOZERO_MOCK_PIN_CLASS=mockpwmpin``, as a Pi-less machine
would run the service. Signal patterns are made short (finite ones end before the next frame is read)
and the endless reroll blink slow, so every pin history is exact and no test sleeps.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.journal import Journal

GREEN, AMBER, RED, LIGHT, DARK, BUZZER = 17, 27, 22, 5, 6, 18
BEEPS = {"ROLL_OK": 1, "REROLL": 2, "ILLEGAL": 1}  # DESIGN.md's signal table (game over: 1-3 by result)


@pytest.fixture(scope="module")
def recorded(demo_recording: Any) -> Any:
    return demo_recording


def test_demo_start_through_the_real_pipeline(recorded: Any) -> None:
    result, log = recorded.result, recorded.log
    assert not result.missed, log
    assert "set up the starting position: light 13-point has 4, expected 5" in log
    # setup, the cocked die thrown again, the opening roll read, its play judged legal (when the
    # reader leaves doubt the referee may ask first, amber, and the players confirm with ACCEPT)
    given = [s.name for s in result.signals]
    asked = [s for s in given if s != "CANNOT_SEE"]
    assert asked[:4] == ["READY", "REROLL", "ROLL_OK", "READY"], log
    assert given.count("CANNOT_SEE") <= result.confirmed
    assert "ILLEGAL" not in given  # (the whole demo's illegal play: `referee demo`, bench.e2e)
    assert "light plays 6-4: 24/14" in log
    with Journal(recorded.folder.parent / "demo.sqlite") as journal:
        kinds = [e.kind for e in journal.events(journal.games()[0].id)]
    assert kinds[:2] == ["setup", "reroll"] and "play" in kinds
    frames = sorted((recorded.folder / "frames").glob("*.jpg"))
    assert len(frames) == result.frames
    assert (recorded.folder / "replay.toml").is_file() and (recorded.folder / "profile.json").is_file()


def gpio_config(folder: Path) -> Path:
    """The demo's replay config with the signals on GPIO pins instead of the console."""
    text = (folder / "replay.toml").read_text()
    text = text.replace(
        '[signals]\noutput = "console"\n',
        '[signals]\noutput = "gpio"\nduration_scale = 0.01\n'
        f"lights = {{ green = {GREEN}, amber = {AMBER}, red = {RED}, light = {LIGHT}, dark = {DARK} }}\n"
        f"buzzer = {{ pin = {BUZZER}, tonal = false }}\n",
    )
    assert 'output = "gpio"' in text
    path = folder / "replay-gpio.toml"
    path.write_text(text)
    (folder / "replay.sqlite").unlink(missing_ok=True)
    return path


def patterns_for_tests() -> Any:
    """Short finite patterns; the endless reroll blink once an hour, so its history is just "on"."""
    from hardware.signals import DEFAULT_PATTERNS, Blink, Pattern

    fast = DEFAULT_PATTERNS.scaled(0.01)
    return replace(fast, reroll=Pattern(lights=(("amber", Blink(3600.0, 3600.0)),), sound=fast.reroll.sound))


def test_replay_with_gpio_on_mock_pins_gives_the_demo_verdicts(
    recorded: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    from hardware.config import SignalsConfig
    from hardware.gpio_signals import GpioSignals
    from hardware.signals import Signal
    from referee.cli import main

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    monkeypatch.setenv("GPIOZERO_MOCK_PIN_CLASS", "mockpwmpin")
    monkeypatch.setattr(Device, "pin_factory", None)  # gpiozero makes its factory from the environment
    monkeypatch.setattr(SignalsConfig, "patterns", lambda self: patterns_for_tests())
    shown: list[tuple[str, str | None, int]] = []
    original_show = GpioSignals.show

    def show_and_finish(
        self: GpioSignals, signal: Signal, *, winner: str | None = None, points: int = 1
    ) -> None:
        shown.append((signal.name, winner, points))
        original_show(self, signal, winner=winner, points=points)
        self.wait()  # the finite part of a pattern ends before the next frame: exact pin histories

    monkeypatch.setattr(GpioSignals, "show", show_and_finish)
    capsys.readouterr()
    assert main(["run", "--config", str(gpio_config(recorded.folder)), "--no-keys"]) == 0
    factory = Device.pin_factory
    said = [line.strip() for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]

    # the same decisions, in the same words, in the same order
    demo = recorded.result
    assert said == [s.text for s in demo.says]
    given = [s.name for s in demo.signals]
    assert [name for name, _, _ in shown] == given
    assert isinstance(factory, MockFactory) and factory.pin_class is MockPWMPin

    # the pins: each status light came on once per signal that lights it, the buzzer beeped the table's
    # number of beeps, and the same signals on a fresh set of mock pins leave exactly the same histories
    def rises(pin: int) -> int:
        states = [s.state for s in factory.pin(pin).states]
        return sum(1 for a, b in zip(states, states[1:], strict=False) if a == 0 and b == 1)

    count = Counter(given)
    assert rises(RED) == count["ILLEGAL"] == 0
    assert rises(BUZZER) == sum(BEEPS.get(s, 0) for s in given)
    assert rises(AMBER) >= 1 and rises(AMBER) <= count["REROLL"] + count["CANNOT_SEE"]
    assert rises(GREEN) >= 1
    histories = {pin: [s.state for s in factory.pin(pin).states] for pin in (GREEN, AMBER, RED, BUZZER)}

    reference = MockFactory(pin_class=MockPWMPin)
    config = replace(_signals_config(recorded.folder), output="gpio")
    expected = GpioSignals(config, reference)
    for name, winner, points in shown:
        original_show(expected, Signal[name], winner=winner, points=points)
        expected.wait()
    expected.close()
    assert histories == {pin: [s.state for s in reference.pin(pin).states] for pin in histories}
    monkeypatch.setattr(Device, "pin_factory", None)
    factory.close()


def _signals_config(folder: Path) -> Any:
    from referee.config import load_config

    return load_config(folder / "replay-gpio.toml").hardware.signals
