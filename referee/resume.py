"""What the record keeps of a session so that a restart carries on where it stopped.

Every event the session records is written together with a :func:`snapshot` (plain JSON): the stage,
the match and the game's events so far. :func:`restore` puts a fresh session back in that state by
replaying the game's events through the rules, so a restored game is exactly the game that was played.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bgboard.layout import Side
from referee.game import Game, Phase
from referee.match import FinishedGame, Match
from referee.scoring import GameResult, Outcome
from referee.turns import SessionOptions, Stage

if TYPE_CHECKING:
    from referee.session import Session

# The stage each phase of the game implies when the snapshot is taken (see settled_stage).
_STAGE_OF_PHASE = {
    Phase.OPENING: Stage.OPENING,
    Phase.ROLL: Stage.ROLL,
    Phase.DOUBLED: Stage.DOUBLED,
    Phase.PLAY: Stage.PLAY,
    Phase.ILLEGAL: Stage.ACCEPT,
}


def snapshot(session: Session) -> dict[str, Any]:
    """Everything needed to resume after a restart (JSON-ready)."""
    game = session.game
    return {
        "stage": settled_stage(session).value,
        "score": list(session.score),
        "match": _match_state(session.match),
        "game_number": session.game_number,
        "match_id": session.match_id,
        "game_id": session.game_id,
        "crawford": bool(game and game.crawford),
        "history": [e.to_dict() for e in game.history] if game else None,
        "rules": session.options.rules.to_mapping(),
        "match_length": session.options.match_length,
    }


def settled_stage(session: Session) -> Stage:
    """The stage the game's own phase implies (snapshots are taken in the middle of a change)."""
    game, stage = session.game, session.stage
    if game is None or stage is Stage.MATCH_OVER:
        return stage
    phase = game.phase
    if phase is Phase.PLAY and game.pending_correction is not None:
        return Stage.REPLAY if stage is Stage.REPLAY else Stage.RESTORE
    if phase is Phase.OVER:
        return Stage.MATCH_OVER if session.match.over else Stage.OVER
    return _STAGE_OF_PHASE[phase]


def restore(session: Session, state: dict[str, Any]) -> None:
    """Puts a fresh ``session`` in the state of a snapshot."""
    options = session.options
    session.match = _match_of(state, options)
    session.game_number = int(state["game_number"])
    session.match_id = state["match_id"]
    session.game_id = state["game_id"]
    session.stage = Stage(state["stage"])
    if state.get("history") is not None:
        game = Game(options=options.rules, money=options.match_length is None, crawford=state["crawford"])
        game.replay(state["history"])
        session.game = game
        session.match.current = None if game.over else game


def _match_state(match: Match) -> dict[str, Any]:
    """The match for a snapshot: the finished games without their moves (the record keeps those)."""
    data = match.to_dict()
    for game in data["games"]:
        game["history"] = []
    return data


def _match_of(state: dict[str, Any], options: SessionOptions) -> Match:
    """The match of a snapshot; a record written before snapshots held the match gives its score."""
    if "match" in state:
        return Match.from_dict(state["match"])
    match = Match(options.match_length or 0, options.rules, crawford_played=bool(state.get("crawford_done")))
    for side, points in zip(Side, state["score"], strict=True):
        if points:
            won = GameResult(side, Outcome.SINGLE, points, points)
            match.games.append(FinishedGame(len(match.games) + 1, match.score, False, won))
    return match
