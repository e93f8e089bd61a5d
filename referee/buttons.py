"""What the table's cube and ACCEPT buttons do at each stage of a turn.

>>> from referee.game import Game
>>> from referee.rules_options import RuleOptions
>>> act(Button.TAKE, Stage.ROLL, Game(), RuleOptions()) is None  # nothing to take
True
"""

from __future__ import annotations

from hardware.signals import Button
from referee.events import Event
from referee.game import Game, Phase
from referee.rules_options import RuleOptions
from referee.turns import Stage

# what a button pressed out of turn is told
NOT_NOW = {
    Button.DOUBLE: "no double now",
    Button.TAKE: "nothing to take",
    Button.DROP: "nothing to drop",
    Button.ACCEPT: "nothing to accept",
}


def act(button: Button, stage: Stage, game: Game, rules: RuleOptions) -> tuple[list[Event], Stage] | None:
    """The game's events for a cube button, or for ACCEPT of an illegal play (tournament mode), and the
    stage they lead to; None when the button means nothing now. Raises the game's errors (a double the
    cube does not allow) for the table to read."""
    if button is Button.DOUBLE:
        if stage is Stage.DOUBLED and rules.beavers:
            return game.beaver(), Stage.ROLL
        if stage is Stage.ROLL:
            return game.offer_double(), Stage.DOUBLED
        if stage is Stage.ACCEPT and game.on_roll is not None:
            # doubling instead of answering an illegal play makes it stand (it may end the game)
            events = game.offer_double(by=game.on_roll.other)
            return events, Stage.DOUBLED if game.phase is Phase.DOUBLED else Stage.OVER
        return None
    if button is Button.TAKE and stage is Stage.DOUBLED:
        return game.take(), Stage.ROLL
    if button is Button.DROP and stage is Stage.DOUBLED:
        return game.drop(), stage
    if button is Button.ACCEPT and stage is Stage.ACCEPT:
        return game.accept_illegal(), stage
    return None
