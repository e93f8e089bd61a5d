"""GPIO signals on gpiozero's mock pins: the exact pin history of every pattern, and the buttons.

Whole histories are compared with ``==`` (gpiozero's ``assert_states`` stops at the shorter list and
would pass a pattern that is missing its end). Patterns run 100 times faster than at the table, and
forever-blinks blink once an hour so the history is fixed; no test sleeps.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory, MockPWMPin
from gpiozero.tones import Tone

from hardware.config import ConfigError, parse_signals
from hardware.gpio_signals import GpioSignals, SignalsUnavailable
from hardware.signals import DEFAULT_PATTERNS, Blink, Button, Pattern, Signal

GREEN, AMBER, RED, LIGHT, DARK, BUZZER = 17, 27, 22, 5, 6, 18
BUTTON_PINS = {
    Button.DOUBLE: 23,
    Button.TAKE: 24,
    Button.DROP: 25,
    Button.ACCEPT: 12,
    Button.NEW_GAME: 16,
    Button.HINT: 20,
    Button.VOID: 21,
    Button.PAUSE: 7,
    Button.CHECK: 8,
}
R, G, B = 13, 19, 26  # RGB LED

HOUR = 3600.0
# fast, and forever-blinks so slow that their history is exactly "on" until the next signal
FAST = DEFAULT_PATTERNS.scaled(0.01)
FAST = replace(FAST, reroll=Pattern(lights=(("amber", Blink(HOUR, HOUR)),), sound=FAST.reroll.sound))


class TonePin(MockPWMPin):
    """A mock PWM pin that also remembers every frequency set, to hear which notes were played."""

    def __init__(self, factory, info):
        super().__init__(factory, info)
        self.frequencies: list[float | None] = []

    def _set_frequency(self, value):
        super()._set_frequency(value)
        self.frequencies.append(value)


def config(
    *,
    tonal: bool = True,
    winners: bool = True,
    rgb: bool = False,
    lights_low: bool = False,
    buttons: bool = False,
):
    lights = {} if rgb else {"green": GREEN, "amber": AMBER, "red": RED}
    if winners:
        lights |= {"light": LIGHT, "dark": DARK}
    table = {
        "output": "gpio",
        "active_high": not lights_low,
        "lights": lights,
        "buzzer": {"pin": BUZZER, "tonal": tonal, "active_high": True},
        # (a gpiozero Button takes 0.1 s to close: fitted only where a test presses them)
        "buttons": {b.value: pin for b, pin in BUTTON_PINS.items()} if buttons else {},
    }
    if rgb:
        table["rgb"] = {"red": R, "green": G, "blue": B, "pwm": True, "active_high": True}
    return parse_signals(table)


@pytest.fixture
def factory(monkeypatch):
    f = MockFactory(pin_class=TonePin)
    opened: list[GpioSignals] = []
    original = GpioSignals.__init__

    def tracking(self, *args, **kwargs):
        opened.append(self)
        original(self, *args, **kwargs)

    # a test that fails before its close() must not leave blink threads running into the next one
    monkeypatch.setattr(GpioSignals, "__init__", tracking)
    yield f
    for signals in opened:
        signals.close()
    f.reset()


def make(factory, **kwargs) -> GpioSignals:
    signals = GpioSignals(config(**kwargs), factory, patterns=FAST)
    for pin in factory.pins.values():
        pin.clear_states()
        pin.frequencies.clear()
    return signals


def states(factory, pin) -> list:
    return [s.state for s in factory.pin(pin).states]


def history(factory, pins) -> dict:
    return {pin: states(factory, pin) for pin in pins}


def tones(*notes) -> list:
    """Frequencies a tonal buzzer goes through for these notes: each note, then silence."""
    out: list = []
    for n in notes:
        out += [Tone(n).frequency, None]
    return out


LEDS = (GREEN, AMBER, RED, LIGHT, DARK)


def expect(**changed) -> dict:
    """Expected histories of every LED and the buzzer: untouched pins stay [0]."""
    names = {"green": GREEN, "amber": AMBER, "red": RED, "light": LIGHT, "dark": DARK, "buzzer": BUZZER}
    base = {pin: [0] for pin in names.values()}
    base.update({names[k]: v for k, v in changed.items()})
    return base


@pytest.mark.parametrize(
    ("signal", "kwargs", "expected", "notes"),
    [
        (Signal.READY, {}, expect(green=[0, 1]), ()),
        (Signal.ROLL_OK, {}, expect(green=[0, 1, 0], buzzer=[0, 0.5, 0]), ("E6",)),
        (Signal.REROLL, {}, expect(amber=[0, 1], buzzer=[0, 0.5, 0, 0.5, 0]), ("A5", "A5")),
        (Signal.CANNOT_SEE, {}, expect(amber=[0, 1]), ()),
        (Signal.ILLEGAL, {}, expect(red=[0, 1], buzzer=[0, 0.5, 0]), ("A3",)),
        (
            Signal.GAME_OVER,
            {"winner": "light", "points": 1},
            expect(light=[0, 1], buzzer=[0, 0.5, 0]),
            ("C5",),
        ),
        (
            Signal.GAME_OVER,
            {"winner": "dark", "points": 2},
            expect(dark=[0, 1], buzzer=[0, 0.5, 0, 0.5, 0]),
            ("C5", "E5"),
        ),
        (
            Signal.GAME_OVER,
            {"winner": "dark", "points": 3},
            expect(dark=[0, 1], buzzer=[0, 0.5, 0, 0.5, 0, 0.5, 0]),
            ("C5", "E5", "G5"),
        ),
        (Signal.OFF, {}, expect(), ()),
    ],
)
def test_every_pattern_gives_the_exact_pin_history_on_a_tonal_buzzer(
    factory, signal, kwargs, expected, notes
):
    signals = make(factory)
    signals.show(signal, **kwargs)
    signals.wait()
    assert history(factory, (*LEDS, BUZZER)) == expected
    assert factory.pin(BUZZER).frequencies == tones(*notes)
    signals.close()


def test_game_over_tones_rise(factory):
    signals = make(factory)
    signals.show(Signal.GAME_OVER, winner="light", points=3)
    signals.wait()
    played = [f for f in factory.pin(BUZZER).frequencies if f is not None]
    assert played == sorted(played) and len(set(played)) == 3
    signals.close()


@pytest.mark.parametrize(
    ("signal", "kwargs", "buzzer"),
    [
        (Signal.READY, {}, [0]),
        (Signal.ROLL_OK, {}, [0, 1, 0]),
        (Signal.REROLL, {}, [0, 1, 0, 1, 0]),
        (Signal.CANNOT_SEE, {}, [0]),
        (Signal.ILLEGAL, {}, [0, 1, 0]),
        (Signal.GAME_OVER, {"winner": "light", "points": 1}, [0, 1, 0]),
        (Signal.GAME_OVER, {"winner": "light", "points": 2}, [0, 1, 0, 1, 0]),
        (Signal.GAME_OVER, {"winner": "light", "points": 3}, [0, 1, 0, 1, 0, 1, 0]),
        (Signal.OFF, {}, [0]),
    ],
)
def test_a_plain_buzzer_beeps_the_same_rhythm(factory, signal, kwargs, buzzer):
    signals = make(factory, tonal=False)
    signals.show(signal, **kwargs)
    signals.wait()
    assert states(factory, BUZZER) == buzzer
    signals.close()


def test_a_forever_blink_runs_until_the_next_signal(factory):
    signals = make(factory)
    signals.show(Signal.REROLL)
    signals.wait()  # waits for the beeps, not for the endless blink
    assert states(factory, AMBER) == [0, 1]
    signals.show(Signal.READY)
    assert history(factory, (GREEN, AMBER, RED)) == {GREEN: [0, 1], AMBER: [0, 1, 0], RED: [0]}
    signals.close()


def test_a_new_signal_replaces_the_last_one(factory):
    signals = make(factory)
    for signal in (Signal.READY, Signal.CANNOT_SEE, Signal.READY, Signal.ILLEGAL, Signal.OFF):
        signals.show(signal)
        signals.wait()
    assert history(factory, (*LEDS, BUZZER)) == expect(
        green=[0, 1, 0, 1, 0], amber=[0, 1, 0], red=[0, 1, 0], buzzer=[0, 0.5, 0]
    )
    signals.close()


def test_a_long_tone_is_cut_short_by_the_next_signal(factory):
    slow = replace(FAST, illegal=Pattern(lights=(("red", True),), sound=replace(FAST.illegal.sound, on=HOUR)))
    signals = GpioSignals(config(), factory, patterns=slow)
    factory.pin(BUZZER).clear_states()
    signals.show(Signal.ILLEGAL)
    signals.show(Signal.READY)  # returns at once: the tone thread is told to stop
    signals.wait()
    assert states(factory, BUZZER) == [0, 0.5, 0]
    assert states(factory, RED)[-1] == 0 and states(factory, GREEN)[-1] == 1
    signals.close()


def test_roll_ok_at_the_real_tempo(factory):
    signals = GpioSignals(config(), factory)  # the DESIGN.md patterns, unscaled (0.3 s)
    for pin in factory.pins.values():
        pin.clear_states()
    signals.show(Signal.ROLL_OK)
    signals.wait()
    assert history(factory, (GREEN, BUZZER)) == {GREEN: [0, 1, 0], BUZZER: [0, 0.5, 0]}
    signals.close()


def test_active_low_lights_drive_the_pin_the_other_way(factory):
    signals = make(factory, lights_low=True)
    signals.show(Signal.READY)
    signals.show(Signal.ILLEGAL)
    signals.wait()
    assert history(factory, (GREEN, AMBER, RED)) == {GREEN: [1, 0, 1], AMBER: [1], RED: [1, 0]}
    signals.close()


def test_game_over_lights_green_when_no_winner_leds_are_fitted(factory):
    signals = make(factory, winners=False)
    signals.show(Signal.GAME_OVER, winner="dark", points=1)
    signals.wait()
    assert history(factory, (GREEN, AMBER, RED)) == {GREEN: [0, 1], AMBER: [0], RED: [0]}
    assert LIGHT not in factory.pins and DARK not in factory.pins
    signals.close()


def test_an_rgb_led_shows_the_status_colours(factory):
    signals = make(factory, rgb=True)
    signals.show(Signal.READY)
    signals.show(Signal.REROLL)
    signals.wait()
    signals.show(Signal.ILLEGAL)
    signals.wait()
    signals.show(Signal.OFF)
    # READY green; REROLL amber (red + half green, straight from green); ILLEGAL red; OFF dark
    assert history(factory, (R, G, B)) == {R: [0, 1, 0], G: [0, 1, 0.5, 0], B: [0]}
    signals.close()


def test_an_rgb_led_blinks_once_for_a_good_roll(factory):
    signals = make(factory, rgb=True)
    signals.show(Signal.ROLL_OK)
    signals.wait()
    assert history(factory, (R, G, B)) == {R: [0], G: [0, 1, 0], B: [0]}
    signals.close()


def test_without_a_buzzer_the_lights_still_work(factory):
    table = {"output": "gpio", "lights": {"green": GREEN, "amber": AMBER, "red": RED}}
    signals = GpioSignals(parse_signals(table), factory, patterns=FAST)
    signals.show(Signal.ILLEGAL)
    signals.wait()
    assert states(factory, RED) == [0, 1]
    assert BUZZER not in factory.pins
    signals.close()


@pytest.mark.parametrize("button", list(Button))
def test_each_button_reaches_the_callback(factory, button):
    signals = make(factory, buttons=True)
    pressed: list[Button] = []
    signals.on_button(pressed.append)
    pin = factory.pin(BUTTON_PINS[button])
    pin.drive_low()  # pulled up: pressing connects the pin to ground
    pin.drive_high()
    assert pressed == [button]
    signals.close()


def test_buttons_wired_to_3v3_press_on_a_high_pin(factory):
    table = {
        "output": "gpio",
        "lights": {"green": GREEN, "amber": AMBER, "red": RED},
        "buttons": {"take": 24, "drop": 25, "pull_up": False},
    }
    signals = GpioSignals(parse_signals(table), factory)
    pressed: list[Button] = []
    signals.on_button(pressed.append)
    factory.pin(25).drive_high()
    factory.pin(25).drive_low()
    factory.pin(24).drive_high()
    factory.pin(24).drive_low()
    assert pressed == [Button.DROP, Button.TAKE]
    signals.close()


def test_a_failing_callback_does_not_silence_the_button(factory):
    signals = make(factory, buttons=True)
    pressed: list[Button] = []

    def broken(button: Button) -> None:
        raise RuntimeError("session bug")

    signals.on_button(broken)
    signals.on_button(pressed.append)
    pin = factory.pin(BUTTON_PINS[Button.NEW_GAME])
    for _ in range(2):
        pin.drive_low()
        pin.drive_high()
    assert pressed == [Button.NEW_GAME, Button.NEW_GAME]
    signals.close()


def test_a_pin_already_in_use_is_a_clear_error_and_frees_what_was_set_up(factory):
    first = GpioSignals(config(), factory)
    with pytest.raises(SignalsUnavailable, match="pin 22"):
        GpioSignals(
            parse_signals({"output": "gpio", "lights": {"green": 4, "amber": 9, "red": RED}}), factory
        )
    first.close()
    LED(4, pin_factory=factory).close()  # the failed attempt released the green pin it had claimed
    again = GpioSignals(config(), factory)
    again.close()


def test_close_turns_everything_off_and_can_be_repeated(factory):
    signals = make(factory)
    signals.show(Signal.REROLL)
    signals.close()
    signals.close()
    assert states(factory, AMBER)[-1] == 0


def test_game_over_needs_a_winner_and_points(factory):
    signals = make(factory)
    with pytest.raises(ValueError, match="winner"):
        signals.show(Signal.GAME_OVER, winner="white")
    with pytest.raises(ValueError, match="points"):
        signals.show(Signal.GAME_OVER, winner="light", points=4)
    signals.close()


def test_duration_scale_from_the_config_retimes_the_patterns(factory):
    table = {"output": "gpio", "lights": {"green": GREEN, "amber": AMBER, "red": RED}, "duration_scale": 0.01}
    signals = GpioSignals(parse_signals(table), factory)
    assert signals.patterns == DEFAULT_PATTERNS.scaled(0.01)
    signals.close()
    signals.show(Signal.READY)  # after close: ignored, not an error
    with pytest.raises(ConfigError, match="signals.duration_scale"):
        parse_signals({"duration_scale": 0})
