"""What the referee can tell the table, what the table can tell the referee, and how it looks and sounds.

The session speaks in :class:`Signal` values and hears :class:`Button` presses; a :class:`Signals`
implementation (``hardware.gpio_signals.GpioSignals`` on the Pi, ``hardware.console_signals.ConsoleSignals``
on a laptop and in the demonstration) turns them into lights and sounds. The patterns follow the signal
table in DESIGN.md and are plain data, so a club can retime them:

    >>> DEFAULT_PATTERNS.pattern(Signal.REROLL).describe()
    '[amber blinking] two short beeps'
    >>> DEFAULT_PATTERNS.pattern(Signal.GAME_OVER, winner="dark", points=2).describe()
    '[dark LED steady] two rising tones: dark wins a gammon'

A pattern lights some lights (every other light goes off) and plays one run of beeps. Lights that blink
forever (``Blink.n is None``) keep blinking until the next signal; everything else ends by itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable


class Signal(Enum):
    """What the referee tells the table (DESIGN.md, "Signals")."""

    READY = "ready"  # waiting for a roll: green steady
    ROLL_OK = "roll_ok"  # roll read and valid: green blinks once, short tick
    REROLL = "reroll"  # cocked die, on a checker, off the half: amber blinking, two short beeps
    CANNOT_SEE = "cannot_see"  # hands, glare: amber steady
    ILLEGAL = "illegal"  # restore the pre-roll position: red, long low tone
    GAME_OVER = "game_over"  # winner's LED, one/two/three rising tones for single/gammon/backgammon
    OFF = "off"  # everything dark and silent


class Button(Enum):
    """What the table tells the referee."""

    DOUBLE = "double"
    TAKE = "take"
    DROP = "drop"  # pass a double
    ACCEPT = "accept"  # accept an illegal play (tournament mode)
    NEW_GAME = "new_game"
    # the house variations and tournament policies (referee.house)
    HINT = "hint"  # open coaching game: what the roll allows, and the play pointed at on the board
    VOID = "void"  # both players press it: a position that cannot be restored voids the game
    PAUSE = "pause"  # a rule look-up: the referee's waits stop until it is pressed again
    CHECK = "check"  # a player asks whether the last play was legal (before the next roll)


@runtime_checkable
class Signals(Protocol):
    """Lights, sound and buttons at the table."""

    def show(self, signal: Signal, *, winner: str | None = None, points: int = 1) -> None:
        """Show ``signal`` at once, replacing whatever was showing. For ``GAME_OVER``, ``winner`` is
        ``"light"`` or ``"dark"`` and ``points`` 1, 2 or 3 (single, gammon, backgammon)."""
        ...

    def on_button(self, callback: Callable[[Button], None]) -> None:
        """Call ``callback(button)`` on every press (from a background thread on the Pi)."""
        ...

    def close(self) -> None:
        """Lights off, buzzer silent, devices released. Safe to call twice."""
        ...


LIGHTS = ("green", "amber", "red", "light", "dark")
WINNER_LIGHTS = ("light", "dark")
SIDES = ("light", "dark")
RESULT_NAMES = {1: "a single game", 2: "a gammon", 3: "a backgammon"}
COUNT_WORDS = {1: "one", 2: "two", 3: "three"}


@dataclass(frozen=True)
class Blink:
    """Blink ``n`` times (``None``: until the next signal), ``on`` then ``off`` seconds each time."""

    on: float
    off: float
    n: int | None = None

    def describe(self) -> str:
        if self.n is None:
            return "blinking"
        return "blink once" if self.n == 1 else f"blinks {self.n} times"


Light = bool | Blink  # True: steady on; False: off


@dataclass(frozen=True)
class Beeps:
    """A run of beeps: one per note, each ``on`` seconds, ``off`` seconds apart.

    ``notes`` are gpiozero tone names ("A4", "C5") for a tonal buzzer; a plain buzzer beeps the same
    rhythm at its one pitch. ``label`` is how the console stand-in says it.
    """

    notes: tuple[str, ...]
    on: float
    off: float
    label: str


@dataclass(frozen=True)
class Pattern:
    """Lit lights and the sound of one signal; lights not named are off."""

    lights: tuple[tuple[str, Light], ...] = ()
    sound: Beeps | None = None
    caption: str = ""  # said after the sound on the console ("dark wins a gammon")

    def light(self, name: str) -> Light:
        return dict(self.lights).get(name, False)

    def describe(self) -> str:
        """How the console stand-in shows it: ``[green steady]``, ``[amber blinking] two short beeps``."""
        parts = []
        for name, state in self.lights:
            if state is False:
                continue
            label = f"{name} LED" if name in WINNER_LIGHTS else name
            parts.append(f"{label} {'steady' if state is True else state.describe()}")
        text = f"[{', '.join(parts) or 'all off'}]"
        if self.sound is not None:
            text += f" {self.sound.label}"
        if self.caption:
            text += f": {self.caption}" if self.sound is not None else f" {self.caption}"
        return text


@dataclass(frozen=True)
class Patterns:
    """The pattern of every signal. ``Patterns()`` is the DESIGN.md table; replace fields to retime."""

    ready: Pattern = Pattern(lights=(("green", True),))
    roll_ok: Pattern = Pattern(
        lights=(("green", Blink(0.3, 0.0, 1)),), sound=Beeps(("E6",), 0.04, 0.0, "short tick")
    )
    reroll: Pattern = Pattern(
        lights=(("amber", Blink(0.25, 0.25, None)),),
        sound=Beeps(("A5", "A5"), 0.1, 0.1, "two short beeps"),
    )
    cannot_see: Pattern = Pattern(lights=(("amber", True),))
    illegal: Pattern = Pattern(lights=(("red", True),), sound=Beeps(("A3",), 1.0, 0.0, "long low tone"))
    off: Pattern = Pattern()
    # game over: the winner's LED steady and one rising tone per point
    game_over_light: Light = True
    game_over_notes: tuple[str, ...] = ("C5", "E5", "G5")
    game_over_beep: tuple[float, float] = (0.2, 0.08)

    def scaled(self, factor: float) -> Patterns:
        """Every duration multiplied by ``factor`` (a slower or snappier table; fast tests).

        >>> DEFAULT_PATTERNS.scaled(0.5).illegal.sound.on
        0.5
        """
        if not factor > 0:
            raise ValueError(f"scale factor must be positive, not {factor!r}")

        def light(state: Light) -> Light:
            return (
                Blink(state.on * factor, state.off * factor, state.n) if isinstance(state, Blink) else state
            )

        def pattern(p: Pattern) -> Pattern:
            sound = p.sound
            if sound is not None:
                sound = Beeps(sound.notes, sound.on * factor, sound.off * factor, sound.label)
            return Pattern(tuple((name, light(s)) for name, s in p.lights), sound, p.caption)

        on, off = self.game_over_beep
        return Patterns(
            ready=pattern(self.ready),
            roll_ok=pattern(self.roll_ok),
            reroll=pattern(self.reroll),
            cannot_see=pattern(self.cannot_see),
            illegal=pattern(self.illegal),
            off=pattern(self.off),
            game_over_light=light(self.game_over_light),
            game_over_notes=self.game_over_notes,
            game_over_beep=(on * factor, off * factor),
        )

    def pattern(self, signal: Signal, *, winner: str | None = None, points: int = 1) -> Pattern:
        """The pattern for ``signal``; ``winner``/``points`` matter only for ``GAME_OVER``."""
        if signal is Signal.GAME_OVER:
            return self._game_over(winner, points)
        return {
            Signal.READY: self.ready,
            Signal.ROLL_OK: self.roll_ok,
            Signal.REROLL: self.reroll,
            Signal.CANNOT_SEE: self.cannot_see,
            Signal.ILLEGAL: self.illegal,
            Signal.OFF: self.off,
        }[signal]

    def _game_over(self, winner: str | None, points: int) -> Pattern:
        if winner not in SIDES:
            raise ValueError(f"GAME_OVER needs winner='light' or 'dark', not {winner!r}")
        if points not in RESULT_NAMES or isinstance(points, bool):
            raise ValueError(f"GAME_OVER needs points 1, 2 or 3 (single, gammon, backgammon), not {points!r}")
        word = COUNT_WORDS[points]
        on, off = self.game_over_beep
        sound = Beeps(
            tuple(self.game_over_notes[:points]), on, off, f"{word} rising tone{'s' if points > 1 else ''}"
        )
        return Pattern(
            lights=((winner, self.game_over_light),),
            sound=sound,
            caption=f"{winner} wins {RESULT_NAMES[points]}",
        )


DEFAULT_PATTERNS = Patterns()
