"""The house variations and policies at the session: their buttons, and the words they add.

- **HINT** (the open coaching game): what the roll allows and, for the play the board shows while the
  dice still lie there, which blots it leaves and which the opponent could hit with one die
  (:mod:`referee.coaching`). The play is still judged strictly once the dice are lifted.
- **VOID** (the house remedy): when the position before an illegal play cannot be restored, both players
  press it (one after the other, within :data:`VOID_WINDOW` seconds): the game is void, recorded so with
  the reason, and starts again from the starting position with no points.
- **PAUSE**: a rule look-up. The referee stops the clocks of its waits (before it asks the table, before
  it calls a replayed play) and reads nothing until PAUSE is pressed again; nothing else changes.
- **CHECK**: a player asks whether the last play was legal (:mod:`referee.monitor`).

Pairs hear who moves each game; a practice game hears that it counts in no match score.

    >>> from referee.variations import TableSetup, Variation
    >>> pairs = TableSetup(Variation.PAIRS, ("Ann", "Bo"), ("Cy", "Di"))
    >>> movers_text(pairs, 0)
    'Ann moves for light (Ann & Bo), Cy moves for dark (Cy & Di)'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hardware.signals import Button, Signal
from referee import coaching, monitor, narration
from referee.journal import Entry
from referee.observe import Verdict
from referee.turns import Say, Stage
from referee.variations import TableSetup, Variation

if TYPE_CHECKING:
    from referee.session import Session

VOID_WINDOW = 10.0  # seconds within which the second player's VOID press agrees to the first's

# the buttons this module answers, whatever the stage
BUTTONS = {Button.HINT, Button.VOID, Button.PAUSE, Button.CHECK}


@dataclass
class House:
    """What the variations keep between presses and frames."""

    paused_at: float | None = None  # stream time of the PAUSE press, while paused
    void_asked: float | None = None  # stream time of the first VOID press, until the second

    @property
    def paused(self) -> bool:
        return self.paused_at is not None


def press(session: Session, button: Button, t: float | None) -> list[Say]:
    """The answer to one of :data:`BUTTONS`, or to any button but PAUSE during a lesson."""
    if session.stage is Stage.LESSON and session.lesson is not None and button is not Button.PAUSE:
        return session.lesson.press(session, button, t)
    if button is Button.PAUSE:
        return _pause(session, t)
    if button is Button.HINT:
        return _hint(session)
    if button is Button.VOID:
        return _void(session, t)
    assert button is Button.CHECK, button
    return monitor.check(session, t)


# ---- the pause ------------------------------------------------------------------------------------------


def _pause(session: Session, t: float | None) -> list[Say]:
    house = session.house
    if house.paused_at is None:
        house.paused_at = t if t is not None else 0.0
        session.record(Entry("pause", t, text="paused for a rule look-up"))
        return [Say(None, "paused for a rule look-up: the referee waits; press PAUSE again to play on")]
    stopped = (t - house.paused_at) if t is not None else 0.0
    house.paused_at = None
    # the clocks of the referee's waits stood still while it was paused
    session.watch.shift(stopped)
    if house.void_asked is not None:
        house.void_asked += stopped
    if session.lesson is not None:
        session.lesson.shift(stopped)
    session.record(Entry("pause", t, text=f"play on after a pause of {stopped:.0f} s"))
    return [Say(None, f"play on: {session.status()}")]


# ---- the open coaching game ---------------------------------------------------------------------------


def _hint(session: Session) -> list[Say]:
    if session.options.table.variation is not Variation.COACHING:
        return [Say(None, 'hint: hints are for the open coaching game ([table] variation = "coaching")')]
    game = session.game
    if game is None or session.stage is not Stage.PLAY or game.dice is None or game.on_roll is None:
        return [Say(None, f"hint: after the roll is read; {session.status()}")]
    mover, dice = game.on_roll, game.dice
    before = game.board.position(mover)
    lines = [f"hint for {mover.value}: {coaching.roll_allows(before, dice)}"]
    seen = session.seen
    if seen is None or seen.unreadable_points:
        lines.append("make a play on the board, dice still down, and press HINT to hear what it leaves")
        return [Say(None, line) for line in lines]
    shown = session.explain(seen, mover)
    if shown.verdict is Verdict.LEGAL and shown.play is not None:
        lines.append(coaching.leaves(shown.play))
    elif shown.board == game.board:  # nothing moved yet
        lines.append("make a play on the board, dice still down, and press HINT to hear what it leaves")
    elif shown.verdict is Verdict.ILLEGAL:
        lines.append(f"the board shows no legal play of {narration.dice_text(dice)}")
    else:
        lines.append(f"I cannot tell which play the board shows: {shown.reason}")
    return [Say(None, line) for line in lines]


# ---- a position that cannot be restored -----------------------------------------------------------------


def _void(session: Session, t: float | None) -> list[Say]:
    game, house = session.game, session.house
    if session.options.rules.tournament_mode:
        return [Say(None, "void: a void game is a house remedy; at a tournament, call the director")]
    if game is None or session.stage is not Stage.RESTORE or game.pending_correction is None:
        return [Say(None, f"void: only a position that cannot be restored voids a game; {session.status()}")]
    mover, dice = game.on_roll, game.dice
    assert mover is not None and dice is not None
    first = house.void_asked
    if first is None or (t is not None and t - first > VOID_WINDOW):
        house.void_asked = t if t is not None else 0.0
        return [
            Say(
                None,
                f"void: the other player presses VOID too within {VOID_WINDOW:.0f} s to agree; the game "
                "then starts again from the starting position, with no points",
            )
        ]
    house.void_asked = None
    reason = f"the position before {mover.value}'s {narration.dice_text(dice)} could not be restored"
    text = f"the game is void: {reason}; both players agreed. Set up the starting position (no points)"
    session.record(Entry("void", t, mover, dice, reason=reason, text=text))
    session.void_game()
    return [Say(Signal.OFF, text)]


# ---- what the variations add to the game's words --------------------------------------------------------


def movers_text(table: TableSetup, games_played: int) -> str:
    """Who moves for each pair in the next game."""
    light, dark = table.movers(games_played)
    names = table.names
    return f"{light} moves for light ({names[0]}), {dark} moves for dark ({names[1]})"


def game_starts(session: Session, text: str) -> str:
    """The start of a game in words, with the movers of a pairs game."""
    table = session.options.table
    if table.variation is Variation.PAIRS:
        return f"{text}. {movers_text(table, len(session.match.games))}"
    if table.practice:
        return f"{text} (practice: it counts in no match score)"
    return text


def game_over(session: Session, text: str) -> str:
    """The end of a game in words, with who moves next for pairs."""
    table = session.options.table
    if table.variation is Variation.PAIRS and not session.match.over:
        # the narration ends "Set up the board for the next game"
        rematch = "" if table.match_length else " (the rematch)"
        text += f"{rematch}: {movers_text(table, len(session.match.games))}"
    return text
