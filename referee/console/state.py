"""The table's state as the console's JSON interface gives it (``GET /api/state``, the ``state`` events).

Built in the web thread from a :class:`~referee.console.view.TableView` and the latest settled reading;
the notations are the ones a player pastes into gnubg or eXtreme Gammon.

    >>> from bgboard.layout import Orientation
    >>> from referee.console.view import ViewBuilder
    >>> from referee.session import Session, SessionOptions
    >>> view = ViewBuilder().view(Session(SessionOptions(Orientation.BOTTOM_RIGHT)))
    >>> state = StateBuilder().state(view, None, show_legal=True)
    >>> state["stage"], state["position_id"], state["dice"]
    ('setup', '4HPwATDgc/ABMA', None)
"""

from __future__ import annotations

import dataclasses
from typing import Any

from bgboard.layout import Board, Side
from hardware.signals import Button
from referee.console.board_svg import CubePicture, board_svg, picture_of_board, picture_of_reading
from referee.console.view import TableView
from referee.game import GameState, Phase
from referee.moves import Play, legal_plays
from referee.notation.match_id import MatchState, encode_match_id
from referee.notation.position_id import encode_position_id
from referee.notation.xgid import XgidError, encode_xgid
from referee.rules_options import RuleOptions
from vision.reading import BoardReading


@dataclasses.dataclass(frozen=True)
class Ids:
    """A position in the three notations; ``match_id`` and ``xgid`` need a game in progress."""

    position_id: str
    match_id: str | None
    xgid: str | None


def ids_of(board: Board, on_roll: Side | None, state: MatchState | None, rules: RuleOptions) -> Ids:
    """Position ID, Match ID and XGID of ``board`` with ``on_roll`` to play in ``state``.

    >>> ids_of(Board.start(), Side.LIGHT, None, RuleOptions()).position_id
    '4HPwATDgc/ABMA'
    """
    position = board.position(on_roll or Side.LIGHT)
    pid = encode_position_id(position)
    if state is None:
        return Ids(pid, None, None)
    if state.match_length:  # the money rules have no place in a match's XGID (gnubg still writes Jacoby)
        state = dataclasses.replace(state, jacoby=False)
    try:
        beavers = rules.beavers and not state.match_length
        xgid: str | None = encode_xgid(position, state, beavers=beavers, max_cube=rules.max_cube)
    except XgidError:
        xgid = None  # a finished game has no XGID
    return Ids(pid, encode_match_id(state), xgid)


def cube_of(game: GameState | None) -> CubePicture | None:
    if game is None:
        return None
    cube = game.cube
    return CubePicture(cube.value, cube.owner, cube.disabled is None)


def _play_json(play: Play) -> dict[str, str]:
    """A legal play and the Position ID it leaves, the opponent on roll (as ``referee legal`` gives it)."""
    return {"play": play.text or "(no move)", "position_id": encode_position_id(play.result.swap())}


class StateBuilder:
    """Turns views into state dicts; keeps the legal plays of the roll being played (computed once)."""

    def __init__(self) -> None:
        self._plays: tuple[tuple[Board, Side, tuple[int, int]], list[Play]] | None = None

    def legal(self, game: GameState) -> list[Play] | None:
        """The legal plays of the roll on the table, or None when no roll waits to be played."""
        if game.phase not in (Phase.PLAY, Phase.ILLEGAL) or game.dice is None or game.on_roll is None:
            return None
        key = (game.board, game.on_roll, game.dice)
        if self._plays is None or self._plays[0] != key:
            self._plays = (key, legal_plays(game.board.position(game.on_roll), game.dice))
        return self._plays[1]

    def state(self, view: TableView, reading: BoardReading | None, *, show_legal: bool) -> dict[str, Any]:
        """The JSON-ready state (the page draws it; programs read it)."""
        game = view.game
        ids = ids_of(view.board, view.on_roll, view.match_state, view.rules)
        cube = cube_of(game)
        numbers_for = view.on_roll or Side.LIGHT
        if reading is not None:
            picture = picture_of_reading(reading, view.orientation, cube, numbers_for)
        else:
            picture = picture_of_board(view.board, view.orientation, cube, numbers_for)
        plays = self.legal(game) if game is not None and show_legal else None
        mover = view.on_roll
        return {
            "stage": view.stage.value,
            "stage_words": view.stage_words,
            "status": view.status,
            "on_roll": mover.value if mover else None,
            "dice": list(game.dice) if game is not None and game.dice is not None else None,
            "score": {"light": view.score[0], "dark": view.score[1]},
            "match_length": view.match_length,
            "crawford": view.crawford,
            "game_number": view.game_number,
            "cube": None
            if cube is None
            else {
                "value": cube.value,
                "owner": cube.owner.value if cube.owner else None,
                "in_play": cube.in_play,
                "why_not": game.cube.disabled if game is not None else None,
            },
            "position_id": ids.position_id,
            "match_id": ids.match_id,
            "xgid": ids.xgid,
            "board": {"light": list(view.board.light), "dark": list(view.board.dark)},
            "last_verdict": dataclasses.asdict(view.last_verdict) if view.last_verdict else None,
            "question": view.question.text if view.question is not None else None,
            "dice_question": list(view.dice_question) if view.dice_question else None,
            "legal_shown": show_legal,
            "legal_plays": [_play_json(p) for p in plays] if plays is not None else None,
            "reading": _reading_json(reading),
            "board_svg": board_svg(picture),
            "record": {"match": view.record_match, "game": view.record_game},
            "settings": {
                "match_length": view.match_length or 0,
                "rules": view.rules.to_mapping(),
                "can_configure": view.can_configure,
            },
            "buttons": [b.value for b in Button],
        }


def _reading_json(reading: BoardReading | None) -> dict[str, Any] | None:
    """What the last settled frame showed beyond the counts: doubtful cells and dice with flags."""
    if reading is None:
        return None
    cells = reading.cells()
    return {
        "unsure": [str(c) for c, r in cells.items() if r.readable and not r.certain],
        "covered": [str(c) for c in reading.unreadable_points],
        "dice": [d.to_json() for d in reading.dice],
    }
