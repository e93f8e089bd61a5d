"""Signals on real pins through gpiozero: LEDs (or one RGB LED), a buzzer, buttons.

    >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
    >>> from hardware.config import parse_signals
    >>> config = parse_signals({"output": "gpio", "lights": {"green": 17, "amber": 27, "red": 22}})
    >>> signals = GpioSignals(config, pin_factory=MockFactory(pin_class=MockPWMPin))
    >>> signals.show(Signal.READY)
    >>> signals.close()

Lights blink with gpiozero's own ``blink()`` background threads and an active buzzer beeps with
``beep()``. gpiozero's ``TonalBuzzer`` has no background player, so a tonal buzzer's notes are played
by one small thread here, stopped the moment another signal arrives. ``wait()`` joins every part of the
current pattern that ends by itself, so tests can check pin histories without sleeping.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from gpiozero import LED, RGBLED, Buzzer, TonalBuzzer
from gpiozero import Button as GpioButton
from gpiozero.exc import GPIOZeroError
from gpiozero.tones import Tone

from hardware.config import SignalsConfig
from hardware.signals import WINNER_LIGHTS, Beeps, Blink, Button, Light, Patterns, Signal

log = logging.getLogger(__name__)

STATUS_LIGHTS = ("green", "amber", "red")


class SignalsUnavailable(RuntimeError):
    """A configured GPIO device could not be set up (pin busy or invalid, no GPIO library)."""


def rgb_colours(pwm: bool) -> dict[str, tuple[float, float, float]]:
    """Colours of the status lights on an RGB LED; amber needs PWM to be amber rather than yellow."""
    return {"green": (0.0, 1.0, 0.0), "amber": (1.0, 0.5 if pwm else 1.0, 0.0), "red": (1.0, 0.0, 0.0)}


class GpioSignals:
    """:class:`~hardware.signals.Signals` on gpiozero devices described by ``config``.

    ``pin_factory`` is handed to every device (a ``MockFactory`` in tests; ``None`` for gpiozero's
    default, lgpio on current Raspberry Pi OS). A device left out of the config is simply not used; a
    game-over for a side without a winner LED lights green instead.
    """

    def __init__(
        self, config: SignalsConfig, pin_factory: Any = None, *, patterns: Patterns | None = None
    ) -> None:
        self.patterns = patterns if patterns is not None else config.patterns()
        self._closed = False
        self._lock = threading.RLock()
        self._callbacks: list[Callable[[Button], None]] = []
        self._finite: list[threading.Thread] = []
        self._tone_stop = threading.Event()
        self._tone_thread: threading.Thread | None = None
        self._devices: list[Any] = []
        self.leds: dict[str, LED] = {}
        self.rgb: RGBLED | None = None
        self.buzzer: Buzzer | TonalBuzzer | None = None
        self.buttons: dict[Button, GpioButton] = {}
        self._colours = rgb_colours(config.rgb.pwm if config.rgb else True)
        try:
            self._build(config, pin_factory)
        except BaseException:
            self.close()
            raise

    def _make(self, what: str, pin: Any, factory: Callable[[], Any]) -> Any:
        try:
            device = factory()
        except GPIOZeroError as e:
            raise SignalsUnavailable(
                f"cannot set up the {what} on pin {pin}: {e}; check [signals] in the config, that no other "
                "program uses the pin, and that the user is in the gpio group"
            ) from e
        self._devices.append(device)
        return device

    def _build(self, config: SignalsConfig, pf: Any) -> None:
        for name, led in config.lights.items():
            self.leds[name] = self._make(
                f"{name} light",
                led.pin,
                partial(LED, led.pin, active_high=led.active_high, pin_factory=pf),
            )
        if config.rgb is not None:
            r = config.rgb
            self.rgb = self._make(
                "RGB light",
                (r.red, r.green, r.blue),
                lambda: RGBLED(r.red, r.green, r.blue, active_high=r.active_high, pwm=r.pwm, pin_factory=pf),
            )
        if config.buzzer is not None:
            b = config.buzzer
            if b.tonal:
                # two octaves around A4 reach every note of the default patterns (A3 .. E6)
                self.buzzer = self._make(
                    "buzzer", b.pin, lambda: TonalBuzzer(b.pin, octaves=2, pin_factory=pf)
                )
            else:
                self.buzzer = self._make(
                    "buzzer", b.pin, lambda: Buzzer(b.pin, active_high=b.active_high, pin_factory=pf)
                )
        for button, spec in config.buttons.items():
            device = self._make(
                f"{button.value} button",
                spec.pin,
                partial(
                    GpioButton, spec.pin, pull_up=spec.pull_up, bounce_time=config.bounce_time, pin_factory=pf
                ),
            )
            device.when_pressed = self._handler(button)
            self.buttons[button] = device

    # --- buttons -------------------------------------------------------------------------------------

    def _handler(self, button: Button) -> Callable[[], None]:
        def pressed() -> None:
            for callback in list(self._callbacks):
                try:
                    callback(button)
                except Exception:  # a failing callback must not silence the button for good
                    log.exception("button callback failed for %s", button)

        return pressed

    def on_button(self, callback: Callable[[Button], None]) -> None:
        self._callbacks.append(callback)

    # --- lights and sound ----------------------------------------------------------------------------

    def show(self, signal: Signal, *, winner: str | None = None, points: int = 1) -> None:
        pattern = self.patterns.pattern(signal, winner=winner, points=points)
        with self._lock:
            if self._closed:  # a button thread may still report after shutdown began
                log.debug("signal %s after close ignored", signal)
                return
            self._silence()
            self._finite = []
            wanted = {name: pattern.light(name) for name in (*STATUS_LIGHTS, *WINNER_LIGHTS)}
            for name in WINNER_LIGHTS:
                if wanted[name] is not False and name not in self.leds:
                    wanted["green"], wanted[name] = wanted[name], False
            for name, led in self.leds.items():
                self._set_led(led, wanted[name])
            if self.rgb is not None:
                self._set_rgb({n: wanted[n] for n in STATUS_LIGHTS})
            if pattern.sound is not None and self.buzzer is not None:
                self._play(pattern.sound)

    def _track(self, device: Any, blink: Blink) -> None:
        # gpiozero keeps its blink thread in a private attribute; joining it is the only way to know the
        # pattern finished without sleeping. Blinks that never end are not waited for.
        thread = getattr(device, "_blink_thread", None)
        if blink.n is not None and thread is not None:
            self._finite.append(thread)

    def _set_led(self, led: LED, state: Light) -> None:
        if isinstance(state, Blink):
            led.blink(on_time=state.on, off_time=state.off, n=state.n)
            self._track(led, state)
        elif state:
            led.on()
        else:
            led.off()

    def _set_rgb(self, wanted: dict[str, Light]) -> None:
        assert self.rgb is not None
        lit = [(name, state) for name, state in wanted.items() if state is not False]
        if not lit:
            self.rgb.off()
            return
        name, state = lit[0]  # one colour at a time: the patterns never light two status lights
        colour = self._colours[name]
        if isinstance(state, Blink):
            self.rgb.blink(
                on_time=state.on, off_time=state.off, on_color=colour, off_color=(0, 0, 0), n=state.n
            )
            self._track(self.rgb, state)
        else:
            self.rgb.color = colour

    def _play(self, beeps: Beeps) -> None:
        if isinstance(self.buzzer, TonalBuzzer):
            self._tone_stop = threading.Event()
            self._tone_thread = threading.Thread(
                target=self._play_tones, args=(self.buzzer, beeps, self._tone_stop), daemon=True
            )
            self._tone_thread.start()
            self._finite.append(self._tone_thread)
        elif self.buzzer is not None:
            blink = Blink(beeps.on, beeps.off, len(beeps.notes))
            self.buzzer.beep(on_time=blink.on, off_time=blink.off, n=blink.n)
            self._track(self.buzzer, blink)

    @staticmethod
    def _play_tones(buzzer: TonalBuzzer, beeps: Beeps, stop: threading.Event) -> None:
        playing = False
        try:
            for i, note in enumerate(beeps.notes):
                buzzer.play(Tone(note))
                playing = True
                if stop.wait(beeps.on):
                    break
                buzzer.stop()
                playing = False
                if i + 1 < len(beeps.notes) and stop.wait(beeps.off):
                    break
        finally:
            if playing:  # stopping twice would add a second "silent" to the pin's history
                buzzer.stop()

    def _silence(self) -> None:
        if self._tone_thread is not None:
            self._tone_stop.set()
            self._tone_thread.join()
            self._tone_thread = None
        elif isinstance(self.buzzer, Buzzer):
            self.buzzer.off()

    def wait(self, timeout: float | None = None) -> None:
        """Block until the current pattern's lights and sound have finished (forever-blinks excepted)."""
        for thread in list(self._finite):
            thread.join(timeout)

    @staticmethod
    def _close_one(device: Any) -> None:
        try:
            device.close()
        except Exception as e:  # close the rest even if one device is already gone
            log.debug("closing %r failed: %r", device, e)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if not self._devices:
                return
            try:
                self._silence()
                for led in self.leds.values():
                    led.off()  # the lights go dark before their pins are given back
                if self.rgb is not None:
                    self.rgb.off()
            except Exception as e:
                log.debug("silencing on close failed: %r", e)
            # gpiozero's Button takes ~0.1 s to stop its hold thread: close them side by side
            closers = [threading.Thread(target=self._close_one, args=(d,)) for d in self._devices]
            for thread in closers:
                thread.start()
            for thread in closers:
                thread.join()
            self._devices = []
            self._finite = []

    def __enter__(self) -> GpioSignals:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
