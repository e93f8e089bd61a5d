"""After a restart: the board must be the one the record holds before the referee judges anything.

    session.recheck = Recheck()      # Session.resume does this for a game in progress

While the referee was down the players may have gone on, or the board may have been knocked. The first
settled readings after a restart are therefore checked against the recorded position: the board as
recorded (dice on it or not), or during a play a legal result of the recorded roll, carries on as if
nothing happened. A board that surely differs is said so, naming the recorded position by its gnubg
Position ID and what to put back; it is never judged as an illegal play, since nobody saw it played.
During a play, once the recorded position is back the roll is played again (the dice need not lie there
still), as after a restored illegal play.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hardware.signals import Signal
from referee.notation.position_id import encode_position_id
from referee.observe import Verdict, differences, shows
from referee.turns import Observation, Say, Stage

if TYPE_CHECKING:
    from referee.session import Session


class Recheck:
    """Holds back judging after a restart until the board fits the record (see the module doc)."""

    def __init__(self) -> None:
        self._told: tuple[str, ...] = ()

    def check(self, session: Session, obs: Observation) -> list[Say] | None:
        """``None`` once the board fits the record (the session then goes on as usual), else what to
        tell the table (said again only when what differs changes)."""
        reading, game = obs.reading, session.game
        if game is None or session.stage in (Stage.SETUP, Stage.OVER, Stage.MATCH_OVER):
            return None
        assert reading is not None
        if reading.occluded:
            return []
        orientation = session.options.orientation
        if shows(reading, orientation, game.board):
            return None
        mover = game.on_roll
        playing = session.stage in (Stage.PLAY, Stage.REPLAY)
        if playing and mover is not None and session._explain(reading, mover).verdict is Verdict.LEGAL:
            return None  # the play was made while the referee was down: judge it as usual
        wrong = differences(game.board, reading, orientation, sure_only=True)
        fixes = tuple(d.fix for d in wrong)
        if not fixes or fixes == self._told:
            return []
        self._told = fixes
        if playing:
            # the play the board shows was never seen, and the dice may be lifted while it is set back:
            # once the recorded position is back the roll is played again, as after a restore
            session.stage = Stage.RESTORE
        position_id = encode_position_id(game.board.position(mover)) if mover else ""
        text = (
            f"the board differs from the record kept while the referee was off: it has {game.status()}, "
            f"Position ID {position_id}. Set the board up as recorded: {'; '.join(fixes)}"
        )
        return [Say(Signal.CANNOT_SEE, text)]
