"""The rules of movement, one test per rule, and the examples of the issue."""

import pytest

from bgboard.position import START, Position
from referee.moves import Move, PlayParseError, apply_moves, format_moves, legal_plays, parse_moves

P = Position.from_points


def results(position, dice):
    return {play.result for play in legal_plays(position, dice)}


# x on roll, o in x's numbering (o's own point = 25 - x's point), 25 = x's bar, missing checkers are off.
def x_o(x: dict, o_in_x: dict) -> Position:
    return P(x, {25 - p if p != 25 else 25: n for p, n in o_in_x.items()})


@pytest.mark.parametrize(
    ("x", "o", "dice", "only"),
    [
        ({7: 2}, {2: 2}, (5, 2), {7: 1, 5: 1}),
        ({8: 1, 4: 3}, {1: 2}, (4, 3), {5: 1, 4: 2}),
        ({25: 1}, {20: 2}, (3, 2), {22: 1}),
        ({25: 1, 12: 1}, {20: 2, 10: 2}, (3, 2), {23: 1, 9: 1}),
        ({7: 1, 6: 3}, {2: 2}, (5, 4), {6: 2, 3: 1, 1: 1}),
        ({4: 1, 2: 4}, {24: 1, 1: 1}, (6, 4), {2: 3}),
    ],
)
def test_examples_of_the_issue(x, o, dice, only):
    before = x_o(x, o)
    assert results(before, dice) == {Position(P(only, {}).player, before.opponent)}


def test_opening_31_has_sixteen_plays_and_makes_the_five_point():
    plays = legal_plays(START, (3, 1))
    assert len(plays) == 16
    assert "8/5 6/5" in {p.text for p in plays}


def test_each_die_is_a_separate_move_through_an_open_intermediate_point():
    # 6-5 from the 24-point: 24/18/13 goes through 18, but 19 and 18 are both blocked here
    before = x_o({24: 1, 6: 14}, {18: 2, 19: 2})
    assert all(p.result.player[23] == 1 for p in legal_plays(before, (6, 5)))
    opened = x_o({24: 1, 6: 14}, {19: 2})
    assert any(p.result.player[12] == 1 for p in legal_plays(opened, (6, 5)))


def test_doubles_are_four_moves():
    plays = legal_plays(START, (6, 6))
    assert all(len(p.moves) == 4 for p in plays)


def test_as_many_of_a_double_as_possible():
    # only two 6s can be played: 13/7 twice; 7/1 is blocked and nothing else moves 6
    before = x_o({13: 2}, {1: 2, 19: 2, 18: 2, 17: 2, 16: 2, 15: 2, 14: 2})
    plays = legal_plays(before, (6, 6))
    assert {len(p.moves) for p in plays} == {2}


def test_the_larger_die_when_only_one_can_be_played():
    # 10/4 or 10/7 alone, never both (the 1-point is blocked): the 6 must be the one
    before = x_o({10: 1}, {1: 2})
    (play,) = legal_plays(before, (6, 3))
    assert play.text == "10/4"


def test_no_legal_move_leaves_the_position():
    before = x_o({25: 1, 6: 14}, {k: 2 for k in range(19, 25)})
    (play,) = legal_plays(before, (4, 3))
    assert play.moves == () and play.result == before and play.text == ""


def test_all_bar_checkers_enter_first():
    before = x_o({25: 2, 6: 13}, {})
    for play in legal_plays(before, (6, 5)):
        assert play.result.player[24] == 0
        assert {m.src for m in play.moves} == {25}


def test_hit_sends_the_blot_to_the_bar_and_hit_and_run_is_legal():
    before = x_o({13: 1, 6: 14}, {10: 1})
    after = {p.text: p.result for p in legal_plays(before, (3, 2))}
    assert "13/10*/8" in after
    assert after["13/10*/8"].opponent[24] == 1 and after["13/10*/8"].player[7] == 1


def test_bear_off_needs_all_checkers_home():
    # after 8/7 the 7-point checker is still outside, so the 6 may not bear off
    before = x_o({8: 1, 6: 14}, {})
    assert all(p.result.off_player == 0 for p in legal_plays(before, (6, 1)))
    home = x_o({6: 15}, {})
    assert all(p.result.off_player == 1 for p in legal_plays(home, (6, 1)))


def test_oversized_die_only_from_the_highest_point():
    before = x_o({4: 1, 2: 2}, {})
    texts = {p.text for p in legal_plays(before, (6, 5))}
    assert "4/off 2/off" in texts and all("2/off(2)" not in t for t in texts)


def test_moving_inside_the_home_board_instead_of_bearing_off():
    before = x_o({6: 1, 5: 1}, {})
    texts = {p.text for p in legal_plays(before, (4, 1))}
    assert "6/2 5/4" in texts and "6/1" in texts


def test_a_hit_while_bearing_off_suspends_it_until_the_checker_is_home_again():
    hit = x_o({25: 1, 6: 13}, {})  # one checker was hit: it must enter and come home first
    assert all(p.result.off_player == 1 for p in legal_plays(hit, (6, 5)))  # none more off
    back_home = x_o({7: 1, 6: 13}, {})
    assert apply_moves(back_home, [(7, 6), (6, 0)]) in results(back_home, (6, 1))


def test_plays_are_deduplicated_by_result():
    plays = legal_plays(START, (2, 1))
    assert len({p.result for p in plays}) == len(plays)


@pytest.mark.parametrize(
    ("moves", "text"),
    [
        ((Move(13, 7), Move(8, 7)), "13/7 8/7"),
        ((Move(25, 22),), "bar/22"),
        ((Move(6, 0), Move(6, 0)), "6/off(2)"),
        ((Move(24, 18, True), Move(18, 13)), "24/18*/13"),
        ((Move(8, 5), Move(6, 5)), "8/5 6/5"),
    ],
)
def test_play_text_is_gnubg_style(moves, text):
    assert format_moves(moves) == text


def test_parse_and_apply_moves():
    assert parse_moves("25/22 6/0") == [(25, 22), (6, 0)]
    after = apply_moves(START, parse_moves("8/5 6/5"))
    assert after in results(START, (3, 1))
    with pytest.raises(PlayParseError, match="cannot read"):
        parse_moves("8-5")
    with pytest.raises(PlayParseError, match="no checker"):
        apply_moves(START, [(7, 1)])


def test_dice_are_checked():
    with pytest.raises(ValueError, match="two numbers 1..6"):
        legal_plays(START, (7, 1))
