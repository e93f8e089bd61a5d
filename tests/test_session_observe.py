"""Matching readings against the legal results: legal, illegal, unclear (the uncertainty principle)."""

from __future__ import annotations

from test_session_fixtures import O, after, reading

from bgboard.layout import Board, Side
from referee.moves import legal_plays
from referee.observe import Verdict, explain, shows

LEGAL, ILLEGAL, UNCLEAR = Verdict.LEGAL, Verdict.ILLEGAL, Verdict.UNCLEAR

START = Board.start()
PLAYS = legal_plays(START.position(Side.LIGHT), (3, 1))
LEGAL_AFTER = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
WIDE = tuple(range(-15, 16))


def verdict(board: Board, **kw) -> Verdict:
    return explain(reading(board, **kw), O, Side.LIGHT, START, PLAYS).verdict


def moved(board: Board, src: int, dst: int) -> Board:
    light = list(board.light)
    light[src - 1] -= 1
    light[dst - 1] += 1
    return Board(tuple(light), board.dark)


def test_a_sure_reading_of_a_legal_result_is_legal() -> None:
    seen = explain(reading(LEGAL_AFTER), O, Side.LIGHT, START, PLAYS)
    assert seen.verdict is LEGAL and seen.play is not None and seen.play.text == "8/5 6/5"


def test_a_sure_reading_no_play_reaches_is_illegal_with_the_board() -> None:
    wrong = moved(LEGAL_AFTER, 5, 4)  # one checker a pip too far
    seen = explain(reading(wrong), O, Side.LIGHT, START, PLAYS)
    assert seen.verdict is ILLEGAL and seen.board == wrong


def test_conservation_settles_a_count_the_reader_cannot_make() -> None:
    # light's 13-point (top-0) could be anything, but 15 light checkers leave only one count
    assert verdict(LEGAL_AFTER, doubtful={"top-0": (0, 0.3, WIDE)}) is LEGAL


def test_a_hidden_cell_or_a_doubtful_count_is_never_illegal() -> None:
    wrong = moved(LEGAL_AFTER, 5, 4)
    assert verdict(wrong, hidden=("bottom-8",)) is UNCLEAR
    # the cells that tell it from 8/5 6/5 (light's 5- and 4-points) are read, but not surely
    assert verdict(wrong, doubtful={"bottom-7": (1, 0.6, (1,)), "bottom-8": (1, 0.6, (1,))}) is UNCLEAR


def test_two_legal_results_that_look_alike_are_unclear_with_candidates() -> None:
    doubtful = {
        "bottom-4": (2, 0.6, (1, 2)),
        "bottom-5": (0, 0.6, (0, 1)),
        "bottom-6": (4, 0.6, (4, 5)),
        "bottom-7": (2, 0.6, (1, 2)),
    }
    seen = explain(reading(LEGAL_AFTER, doubtful=doubtful), O, Side.LIGHT, START, PLAYS)
    assert seen.verdict is UNCLEAR and seen.candidates[0].text == "8/5 6/5" and len(seen.candidates) == 2


def test_the_setup_check_wants_the_best_counts_but_a_restore_trusts_the_prior() -> None:
    short = Board(tuple(n - (i == 12) for i, n in enumerate(START.light)), START.dark)
    doubt = {"top-0": (4, 0.7, (4, 5))}  # light's 13-point: 4, perhaps 5
    assert not shows(reading(short, doubtful=doubt), O, START, exact=False)
    assert shows(reading(START), O, START, exact=False)
    assert shows(reading(START, doubtful=doubt), O, START, exact=True)
