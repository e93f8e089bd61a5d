"""Never silent: when nothing the referee sees fits what it waits for, it says why after a few seconds.

    quiet = Quiet(lambda: session)
    says = quiet.after(t, observation, said, moved=False)   # once per frame, after the session

The session speaks when something happens; a table where nothing it sees fits (a camera knocked aside,
a board that never comes to rest, a start position never set up) would get no word at all. So once
``after`` seconds have passed with nothing said, the referee tells the table what it waits for, in words
a player acts on, with amber, once for each cause; anything the session says starts the clock again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hardware.signals import Signal
from referee.turns import Observation, Say, Stage

QUIET_AFTER = 5.0  # seconds of nothing said before the referee says what it waits for
# seconds of a board never still before "hands off": a player may think a while with a hand over it
RESTLESS_AFTER = 20.0

MOVED = (
    "this does not look like the calibrated board: has the camera moved? Put it back where it was, "
    "or calibrate again"
)
RESTLESS = "the board has not been still for a while: hands off the board, please, so the referee can see it"
SET_UP = "set up the starting position (dice off the board, hands clear) to start the game"
SETUP_STAGES = (Stage.SETUP, Stage.OVER)


class Quiet:
    """What to say when the table has heard nothing for ``after`` seconds (see the module doc)."""

    def __init__(
        self, stage: Callable[[], Stage], after: float = QUIET_AFTER, restless_after: float = RESTLESS_AFTER
    ) -> None:
        self.stage = stage
        self.after_seconds = after
        self.restless_after = restless_after
        self._since: float | None = None
        self._told: str | None = None
        self._settled = False  # a settled frame was seen since the clock started

    def after(self, t: float, observation: Observation | None, said: Sequence[Say], moved: bool) -> list[Say]:
        """What to add to what the table heard about the frame at ``t`` (usually nothing)."""
        if said or self._since is None:
            self._since, self._told, self._settled = t, None, False
            return []
        if observation is not None and observation.reading is not None:
            self._settled = True
        if t - self._since < self.after_seconds:
            return []
        why = self._why(moved, t - self._since)
        if why is None or why == self._told:
            return []
        self._told = why
        return [Say(Signal.CANNOT_SEE, why)]

    def _why(self, moved: bool, quiet_for: float) -> str | None:
        if moved:
            return MOVED
        if not self._settled:
            return RESTLESS if quiet_for >= self.restless_after else None
        if self.stage() in SETUP_STAGES:
            return SET_UP
        return None
