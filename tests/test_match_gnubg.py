"""A whole random match, written as .mat and imported by gnubg itself: gnubg must see the same
positions before every play, the same dice, and the same winner and points of every game."""

import contextlib
import io

import pytest
from strategies import random_match

from bgboard.layout import Board
from referee.events import EventKind
from referee.notation import encode_position_id, write_mat


def ours(game) -> tuple[list[tuple[str, tuple[int, int]]], tuple[int, int]]:
    board, plays = Board.start(), []
    for e in game.history:
        if e.kind is EventKind.PLAY:
            if e.board != board:  # a pass leaves the board as it is and is not a play
                plays.append((encode_position_id(board.position(e.side)), tuple(sorted(e.dice))))
            board = e.board
    return plays, (game.result.points, 0 if game.result.winner.value == "light" else 1)


def theirs(game) -> list[tuple[str, tuple[int, int]]]:
    return [
        (r["board"], tuple(sorted(r["dice"])))
        for r in game["game"]
        if r.get("action") == "move" and r.get("move")
    ]


@pytest.mark.parametrize("seed", [3, 11])
def test_gnubg_replays_a_whole_random_match_as_we_played_it(seed, tmp_path):
    gnubg = pytest.importorskip("gnubg")
    match = random_match(seed, length=7)
    path = tmp_path / "match.mat"
    path.write_text(write_mat(match.to_record()), encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        gnubg.command(f'import mat "{path}"')
    imported = gnubg.match()["games"]
    assert len(imported) == len(match.games)
    for mine, gn in zip(match.games, imported, strict=True):
        plays, (points, winner) = ours(mine)
        assert theirs(gn) == plays
        assert gn["info"]["points-won"] == points
        assert gn["info"]["winner"] == ("X", "O")[winner]  # gnubg calls the .mat's first player X
