"""The judge: legal results accepted, illegal ones refused with the rule they break in words."""

import pytest

from bgboard.position import START, Position
from referee.judge import judge
from referee.moves import apply_moves, parse_moves

P = Position.from_points


def after(before, text):
    return apply_moves(before, parse_moves(text))


def test_a_legal_play_is_legal_and_named():
    j = judge(START, (6, 1), after(START, "13/7 8/7"))
    assert j.legal and j.play is not None and j.play.text == "13/7 8/7"


def test_both_dice_could_be_played():
    j = judge(START, (6, 1), after(START, "13/7"))
    assert not j.legal
    assert j.reason.startswith("both dice could be played: 6-1 can be played")
    assert len(j.alternatives) == len({p.result for p in j.alternatives}) > 1


def test_no_checker_moved():
    j = judge(START, (6, 1), START)
    assert not j.legal and "no checker was moved" in j.reason


def test_bar_checker_must_enter_first():
    before = P({25: 1, 13: 5, 8: 3, 6: 5, 24: 1}, {6: 5, 8: 3, 13: 5, 24: 2})
    j = judge(before, (6, 1), after(before, "13/7 8/7"))
    assert not j.legal and j.reason.startswith("a checker on the bar must enter first")


def test_larger_die_when_only_one_can_be():
    before = P({10: 1}, {24: 2})
    j = judge(before, (6, 3), after(before, "10/7"))
    assert not j.legal and j.reason.startswith("the larger die must be played")


def test_cannot_bear_off_with_a_checker_outside():
    before = P({7: 1, 6: 14}, {})
    j = judge(before, (6, 5), after(before, "7/2 6/off"))
    # 7/2 brings the last checker home first, so 6/off is legal after it
    assert j.legal
    j = judge(before, (6, 5), after(before, "6/off 6/1"))
    assert not j.legal and j.reason == "cannot bear off while a checker is outside the home board"


def test_oversized_die_from_a_lower_point():
    before = P({5: 1, 3: 1}, {})
    j = judge(before, (6, 1), after(before, "3/off 5/4"))
    assert not j.legal and "highest occupied point" in j.reason


def test_doubles_as_many_as_possible():
    j = judge(START, (6, 6), after(START, "13/7(2)"))
    assert not j.legal and j.reason.startswith("as many of the 6-6 as possible")


def test_wrong_distance():
    j = judge(START, (6, 1), after(START, "13/10 8/7"))
    assert not j.legal and "does not allow" in j.reason


@pytest.mark.parametrize("dice", [(3, 1), (6, 6), (5, 2)])
def test_every_legal_result_is_judged_legal(dice):
    for play in judge(START, dice, START).alternatives:
        assert judge(START, dice, play.result).legal
