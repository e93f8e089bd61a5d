"""The session as a state machine, fed readings built from boards (no camera)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from test_session_fixtures import O, Table, after, die, moved, signals

from bgboard.layout import Board, Half, Orientation, Row, Side
from bgboard.position import Position
from hardware.signals import Patterns, Signal
from referee.events import EventKind
from referee.journal import Journal
from referee.rules_options import MovesRule, RuleOptions
from referee.session import ANSWER_WAIT, Session, SessionOptions, Stage
from referee.throws import CallKind
from vision.reading import DieReading

START = Board.start()


def table(**rules: Any) -> Table:
    return Table(Session(SessionOptions(O, RuleOptions(**rules)), Journal(":memory:")))


def opened(t: Table) -> Board:
    """Setup and an opening 3-1 for light (light's die right, dark's left); returns the board."""
    assert signals(t.see(START)) == ["READY"]
    assert signals(t.see(START, [die(3, "right"), die(1, "left")])) == ["ROLL_OK"]
    return START


def dark_to_roll(t: Table) -> Board:
    """Setup, light's opening 3-1 played 8/5 6/5 and judged legal: dark to roll into its right-hand
    half (the image's left). Returns the board."""
    opened(t)
    board = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    t.see(board)
    return board


def test_seats_and_halves_follow_the_orientation() -> None:
    assert Orientation.TOP_LEFT.seat(Side.LIGHT) is Row.TOP
    assert Orientation.TOP_LEFT.throwing_half(Side.LIGHT) is Half.LEFT
    assert Orientation.TOP_LEFT.throwing_half(Side.DARK) is Half.RIGHT


def test_setup_names_the_wrong_points_then_starts() -> None:
    t = table()
    light = list(START.light)
    light[12], light[7] = 4, 4
    wrong = Board(tuple(light), START.dark)
    said = t.see(wrong)
    assert said and said[0].signal is None
    assert "light 13-point has 4, expected 5" in said[0].text
    assert t.session.stage is Stage.SETUP
    assert signals(t.see(START)) == ["READY"]
    assert t.session.stage is Stage.OPENING


def test_opening_rethrows_only_the_cocked_die_and_higher_die_plays() -> None:
    t = table()
    t.see(START)
    said = t.see(START, [die(5, "right"), die(2, "left", cocked=True)])
    assert signals(said) == ["REROLL"]
    assert "dark's die is cocked: dark throws again" in said[0].text
    # the same dice still lying there are not a new throw
    assert t.see(START, [die(5, "right"), die(2, "left", cocked=True)]) == []
    t.moving()
    said = t.see(START, [die(5, "right"), die(3, "left", shift=40)])
    assert signals(said) == ["ROLL_OK"]
    assert t.session.on_roll is Side.LIGHT and t.session.game.dice == (5, 3)


def test_opening_tie_throws_both_again_and_dark_can_win() -> None:
    t = table()
    t.see(START)
    assert signals(t.see(START, [die(4, "right"), die(4, "left")])) == ["REROLL"]
    t.moving()
    assert signals(t.see(START, [die(2, "right", shift=30), die(6, "left", shift=30)])) == ["ROLL_OK"]
    assert t.session.on_roll is Side.DARK


def test_legal_play_is_accepted_only_after_the_dice_are_lifted() -> None:
    t = table()
    opened(t)
    played = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    # checkers moved, dice still down: no verdict, even with a hand hiding points
    assert t.see(played, [die(3, "right"), die(1, "left")]) == []
    assert t.see(played, hidden=("bottom-7", "bottom-8")) == []
    said = t.see(played)
    assert signals(said) == ["READY"]
    assert any("light makes the 5-point" in s.text for s in said)
    assert t.session.board == played and t.session.on_roll is Side.DARK


def test_a_move_taken_back_before_lifting_is_not_judged() -> None:
    t = table()
    opened(t)
    wrong = after(START, Side.LIGHT, (3, 1), "24/23 13/10")
    right = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    t.see(wrong, [die(3, "right"), die(1, "left")])
    t.see(START, [die(3, "right"), die(1, "left")])
    assert signals(t.see(right)) == ["READY"]
    assert t.session.board == right


def test_illegal_play_is_caught_restored_and_replayed() -> None:
    t = table()
    opened(t)
    illegal = moved(START, Side.LIGHT, "13/9 8/7")  # 13/9 needs two steps of a 3-1: not legal
    said = t.see(illegal, frames=3)
    assert signals(said) == ["ILLEGAL"]
    assert "illegal play by light (3-1)" in said[0].text
    assert t.session.stage is Stage.RESTORE
    assert t.session.board == START
    # nothing happens until the start position is back
    assert t.see(illegal) == []
    said = t.see(START)
    assert signals(said) == ["ROLL_OK"] and "plays 3-1 again" in said[0].text
    legal = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    assert signals(t.see(legal)) == ["READY"]
    assert t.session.board == legal
    kinds = [k for k, _ in t.session.log]
    assert kinds.index("illegal") < kinds.index("restored") < kinds.index("play")


def test_a_restored_position_read_doubtfully_is_not_taken_for_the_play_made_again() -> None:
    """`python -m bench.e2e --games 16 --jobs 2 --seed 29 --drift 0.06 --noise 0.006`, worker seed 1029:
    light's illegal 2-1 was caught and the position restored. The frame after, the same picture, read a
    home point doubtfully: it fitted the restored board and one legal 2-1 (3/off), and the referee
    called that play legal before light had made it. A reading that still fits the restored board is no
    play made again yet (after a lifted throw, by the rules, a board unchanged is a play: none)."""
    t = table()
    opened(t)
    t.see(moved(START, Side.LIGHT, "13/9 8/7"), frames=3)
    assert signals(t.see(START, frames=1)) == ["ROLL_OK"]
    doubt = {"bottom-4": (3, 0.6, (2, 3)), "bottom-6": (5, 0.6, (4, 5)), "bottom-7": (0, 0.6, (0, 2))}
    assert "READY" not in signals(t.see(START, doubtful=doubt, frames=5))
    legal = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    assert signals(t.see(legal)) == ["READY"]
    assert t.session.board == legal


def test_doubtful_reading_is_never_called_illegal() -> None:
    t = table()
    opened(t)
    legal = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    # bottom-6 is light's 6-point (4 checkers after 8/5 6/5): a doubtful count that excludes 4
    doubtful = {"bottom-6": (5, 0.6, (5,))}
    said = t.see(legal, doubtful=doubtful, frames=5)
    assert "ILLEGAL" not in signals(said)
    # after a while the table is asked
    said = t.see(legal, doubtful=doubtful, frames=30)
    assert signals(said) == ["CANNOT_SEE"]
    assert signals(t.see(legal)) == ["READY"]


def test_hidden_cell_gives_no_verdict() -> None:
    t = table()
    opened(t)
    light = list(START.light)
    light[12] -= 2
    light[10] += 2  # 13/11(2): not a 3-1 play
    illegal = Board(tuple(light), START.dark)
    # a hand over light's 11-point: no verdict at all
    said = t.see(illegal, hidden=("bottom-1",), frames=6)
    assert "ILLEGAL" not in signals(said) and "READY" not in signals(said)


def test_reroll_for_cocked_on_checker_and_wrong_half() -> None:
    t = table()
    board = dark_to_roll(t)
    for bad in (
        [die(3, "left", cocked=True), die(2, "left", shift=50)],
        [die(3, "left", on_checker=True), die(2, "left", shift=50)],
        [die(3, "right"), die(2, "right", shift=50)],
        [die(3, None, outside_field=True), die(2, "left", shift=50)],
    ):
        said = t.see(board, bad)
        assert signals(said) == ["REROLL"], bad
        assert "dark throws both dice again" in said[0].text
        t.moving()
    assert signals(t.see(board, [die(6, "left", shift=10), die(4, "left", shift=60)])) == ["ROLL_OK"]


def test_a_throw_like_the_last_roll_after_the_dice_were_lifted_is_a_new_throw() -> None:
    """Dark's 4-2 is lifted and judged; light then throws 4-2 into dark's half where dark's dice lay.
    The referee saw the board without dice in between: this is a new throw (in the wrong half), not
    dark's dice still lying there."""
    t = table()
    board = dark_to_roll(t)
    dark_dice = [die(4, "left"), die(2, "left", shift=50)]
    assert signals(t.see(board, dark_dice)) == ["ROLL_OK"]
    board = after(board, Side.DARK, (4, 2), "8/4 6/4")
    assert signals(t.see(board, frames=1)) == ["READY"]  # the verdict on the first frame without dice
    said = t.see(board, dark_dice)
    assert signals(said) == ["REROLL"] and "right-hand half" in said[0].text


def test_a_throw_called_again_that_lands_alike_after_a_hand_is_a_new_throw() -> None:
    """Dark throws 4-5 into the wrong half and is told to throw again; the rethrow shows 4-5 again, a
    few pixels from where the first lay. A hand came between: it is a new throw, called again, and
    the throw after it that counts is read."""
    t = table()
    board = dark_to_roll(t)
    wrong_half = [die(4, "right"), die(5, "right", shift=50)]
    assert signals(t.see(board, wrong_half)) == ["REROLL"]
    assert t.see(board, wrong_half) == []  # the same dice still lying there: not called twice
    t.moving()
    again = [die(4, "right", shift=5), die(5, "right", shift=55)]
    assert signals(t.see(board, again)) == ["REROLL"]
    t.moving()
    assert signals(t.see(board, [die(4, "left"), die(5, "left", shift=50)])) == ["ROLL_OK"]


def test_a_hand_over_the_board_after_a_roll_that_counts_does_not_make_its_dice_new() -> None:
    """After ROLL_OK a hand moves checkers with the dice still down: the roll's dice are not a new
    throw, even though the board moved."""
    t = table()
    board = dark_to_roll(t)
    dark_dice = [die(4, "left"), die(2, "left", shift=50)]
    assert signals(t.see(board, dark_dice)) == ["ROLL_OK"]
    t.moving()
    assert t.see(board, dark_dice) == []
    assert t.session.game.dice == (4, 2) and t.session.stage is Stage.PLAY


def unclear(value: int, half: str, shift: float = 0.0) -> DieReading:
    """A die the reader cannot be sure of (an unclear face, or one that may lean): its likeliest face."""
    return replace(die(None, half, shift, unreadable=True), likeliest=value)


def test_dice_it_is_not_sure_of_are_asked_about_and_accept_takes_them() -> None:
    t = table()
    board = dark_to_roll(t)
    said = t.see(board, [unclear(4, "left"), die(2, "left", shift=50)])
    assert signals(said) == ["CANNOT_SEE"]
    assert "Is it 4 and 2, every die flat? Press ACCEPT" in said[0].text
    assert t.see(board, [unclear(4, "left"), die(2, "left", shift=50)]) == []  # asked once
    assert t.session.game.dice is None
    assert signals(t.press("ACCEPT")) == ["ROLL_OK"]
    assert sorted(t.session.game.dice) == [2, 4] and t.session.on_roll is Side.DARK


def test_a_die_at_the_fields_edge_is_asked_about_and_accept_takes_the_roll() -> None:
    """A die whose footprint lies just beyond the field's edge may lie in or out (``at_edge``): read
    surely, it is still no roll until the table says it lies inside."""
    t = table()
    board = dark_to_roll(t)
    said = t.see(board, [die(4, "left", at_edge=True), die(2, "left", shift=50)])
    assert signals(said) == ["CANNOT_SEE"]
    assert "a die lies at the edge of the playing field. Is it 4 and 2, every die flat inside the field?" in (
        said[0].text
    )
    assert "if a die leans or lies outside the field, throw both dice again" in said[0].text
    assert t.session.game.dice is None
    assert signals(t.press("ACCEPT")) == ["ROLL_OK"]
    assert sorted(t.session.game.dice) == [2, 4] and t.session.on_roll is Side.DARK


def test_dice_asked_about_with_a_face_they_do_not_show_are_played_and_the_play_names_the_roll() -> None:
    """Dark threw 6-3; the 3 is read unsurely as a 4, so the referee asks about 6-4. The dice are flat,
    so dark plays 6-3 as the question says, rather than throwing a good throw again: the board fits 6-3
    alone of the rolls with a 6, and ACCEPT records that roll and the play, not the faces asked about."""
    t = table()
    board = dark_to_roll(t)
    asked = [die(6, "left"), unclear(4, "left", shift=50)]
    said = t.see(board, asked)
    assert signals(said) == ["CANNOT_SEE"] and "Is it 6 and 4, every die flat?" in said[0].text
    assert "if a die leans, throw both dice again; if the dice show other numbers, play them" in said[0].text
    played = after(board, Side.DARK, (6, 3), "24/18 13/10")
    assert t.see(played, asked) == []  # moved, the dice still down: no verdict
    said = t.see(played)
    assert signals(said) == ["CANNOT_SEE"] and "fits 6-3 alone. Was it 6-3" in said[0].text
    assert t.session.played_roll_question == (6, 3)
    assert signals(t.press("ACCEPT")) == ["READY"]
    assert t.session.board == played and t.session.on_roll is Side.LIGHT
    rolls = [e.dice for e in t.session.game.history if e.kind is EventKind.ROLL]
    assert rolls[-1] == (6, 3)


def test_at_the_opening_a_die_that_may_lean_is_thrown_again_by_its_owner_alone() -> None:
    t = table()
    t.see(START)
    said = t.see(START, [unclear(1, "right"), die(5, "left")])
    assert signals(said) == ["CANNOT_SEE"]
    assert "Is it 1 and 5, every die flat?" in said[0].text
    assert "if a die leans, its owner alone" in said[0].text
    t.moving()
    assert signals(t.see(START, [die(6, "right", shift=30), die(5, "left")])) == ["ROLL_OK"]
    assert t.session.on_roll is Side.LIGHT and t.session.game.dice == (6, 5)


def test_dice_thrown_again_after_the_question_are_read_afresh() -> None:
    t = table()
    board = dark_to_roll(t)
    assert signals(t.see(board, [unclear(5, "left"), die(1, "left", shift=50)])) == ["CANNOT_SEE"]
    t.moving()  # the die leaned: both thrown again
    assert signals(t.see(board, [die(6, "left", shift=20), die(3, "left", shift=70)])) == ["ROLL_OK"]
    assert sorted(t.session.game.dice) == [3, 6]
    assert signals(t.press("ACCEPT")) == []  # the question went with the old throw


def test_accept_pressed_after_the_dice_were_thrown_again_confirms_nothing() -> None:
    """Asked about the dice, the table threw them again instead, and someone pressed ACCEPT before the
    new throw settled: the question went with the old throw, so the new one is read as it lies (here in
    the other half: thrown again), not taken as the faces asked about."""
    t = table()
    board = dark_to_roll(t)
    assert signals(t.see(board, [unclear(4, "left"), die(6, "left", shift=50)])) == ["CANNOT_SEE"]
    t.moving()  # lifted and thrown again
    assert signals(t.press("ACCEPT")) == [] and t.session.game.dice is None
    assert signals(t.see(board, [die(4, "right"), die(6, "right", shift=50)])) == ["REROLL"]


def test_a_throw_called_again_stays_so_however_a_later_frame_reads_it() -> None:
    """Dark's 3 leans and the throw is called again. The dice lie as they lay and a later frame reads
    the 3 flat: they are the same dice, not a throw of 3-2, until a hand comes for them."""
    t = table()
    board = dark_to_roll(t)
    assert signals(t.see(board, [die(3, "left", cocked=True), die(2, "left", shift=50)])) == ["REROLL"]
    assert t.see(board, [die(3, "left"), die(2, "left", shift=50)], frames=4) == []
    assert t.session.game.dice is None
    t.moving()
    assert signals(t.see(board, [die(3, "left", shift=5), die(2, "left", shift=55)])) == ["ROLL_OK"]


def test_a_face_still_dice_show_only_now_and_then_is_never_taken() -> None:
    """A still throw's frames differ by the camera's noise: a die no face of which can be made out in
    most frames, read as a 6 two frames in five, is no roll of 6-6 however long it lies. Once most
    frames read the 6 (a shadow left it), it counts."""
    t = table()
    board = dark_to_roll(t)
    unclear_six = [die(6, "left"), die(None, "left", shift=50, unreadable=True)]
    six_six = [die(6, "left"), die(6, "left", shift=50)]
    assert signals(t.see(board, unclear_six)) == ["CANNOT_SEE"]
    for _ in range(5):
        assert t.see(board, six_six, frames=2) + t.see(board, unclear_six, frames=3) == []
    assert t.session.game.dice is None
    assert t.session.call is not None and t.session.call.kind is CallKind.WAIT
    assert signals(t.see(board, six_six, frames=10)) == ["ROLL_OK"]
    assert t.session.game.dice == (6, 6)


def test_dice_read_alike_frame_after_frame_count_at_their_least_sure() -> None:
    """One frame reads a 4 unsurely and the next surely: the roll counts, and a play that another face
    of that die allows is asked about, as after unsure frames alone."""
    t = table()
    board = dark_to_roll(t)
    t.see(board, [replace(die(4, "left"), confidence=0.6), die(2, "left", shift=50)], frames=1)
    said = t.see(board, [die(4, "left"), die(2, "left", shift=50)], frames=1)
    assert signals(said) == ["ROLL_OK"]
    assert t.session.roll_faces is not None and len(t.session.roll_faces[0]) == 6


def test_a_die_read_in_the_field_and_beyond_it_is_asked_about() -> None:
    """One frame reads a die just inside the field's edge, the next just beyond it: where it lies is
    in doubt, and the table is asked, not told to throw again."""
    t = table()
    board = dark_to_roll(t)
    t.see(board, [die(4, "left"), die(2, "left", shift=50)], frames=1)
    beyond = replace(die(4, "left"), outside_field=True, half=None)
    said = t.see(board, [beyond, die(2, "left", shift=50)], frames=1)
    assert signals(said) == ["CANNOT_SEE"]
    assert "a die lies at the edge of the playing field" in said[0].text


def test_dice_still_lying_as_asked_after_a_hand_passed_are_asked_about_again() -> None:
    t = table()
    board = dark_to_roll(t)
    asked = [unclear(4, "left"), die(6, "left", shift=50)]
    assert signals(t.see(board, asked)) == ["CANNOT_SEE"]
    t.moving()  # a hand passed over the board and left the dice as they lay
    assert signals(t.see(board, asked)) == ["CANNOT_SEE"]
    assert signals(t.press("ACCEPT")) == ["ROLL_OK"]
    assert sorted(t.session.game.dice) == [4, 6]


def test_an_unclear_opening_die_is_asked_about_too() -> None:
    t = table()
    t.see(START)
    said = t.see(START, [unclear(6, "right"), die(2, "left")])
    assert signals(said) == ["CANNOT_SEE"]
    assert signals(t.press("ACCEPT")) == ["ROLL_OK"]
    assert t.session.on_roll is Side.LIGHT and t.session.game.dice == (6, 2)


def test_one_die_on_a_clear_board_means_the_other_left_it() -> None:
    t = table()
    board = dark_to_roll(t)
    said = t.see(board, [die(4, "left")])
    assert signals(said) == ["REROLL"] and "only one die is on the board" in said[0].text
    t.moving()
    assert signals(t.see(board, [die(6, "left", shift=10), die(4, "left", shift=60)])) == ["ROLL_OK"]


def test_one_die_that_cannot_be_read_may_be_two_and_is_waited_on() -> None:
    """Two dice lying together can be seen as one die the reader cannot make out: the referee says it
    cannot see and waits, never "only one die", until it sees the throw."""
    t = table()
    board = dark_to_roll(t)
    said = t.see(board, [unclear(4, "left")])
    assert signals(said) == ["CANNOT_SEE"] and "two dice lying together" in said[0].text
    assert signals(t.see(board, [die(6, "left", shift=10), die(4, "left", shift=30)])) == ["ROLL_OK"]


def test_one_die_is_no_reroll_where_a_die_on_a_checker_counts() -> None:
    t = table(on_checker_valid=True)
    board = dark_to_roll(t)
    assert "REROLL" not in signals(t.see(board, [die(4, "left")]))


def test_one_die_beside_a_hand_is_not_a_reroll() -> None:
    t = table()
    board = dark_to_roll(t)
    assert "REROLL" not in signals(t.see(board, [die(4, "left")], hidden=("top-3",)))


def test_die_on_a_checker_counts_when_the_table_says_so() -> None:
    t = table(on_checker_valid=True)
    board = dark_to_roll(t)
    assert signals(t.see(board, [die(3, "left", on_checker=True), die(2, "left", shift=50)])) == ["ROLL_OK"]


def test_roll_before_the_dice_are_lifted_does_not_count() -> None:
    t = table()
    opened(t)
    board = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    # dark throws into its half while light's dice still lie in light's half
    assert (
        t.see(board, [die(3, "right"), die(1, "right", shift=40), die(5, "left"), die(2, "left", shift=40)])
        == []
    )
    said = t.see(board, [die(5, "left"), die(2, "left", shift=40)])
    assert signals(said) == ["READY", "REROLL"]
    # the early dice are not read as dark's roll
    assert t.see(board, [die(5, "left"), die(2, "left", shift=40)]) == []
    t.moving()
    assert signals(t.see(board, [die(6, "left", shift=5), die(1, "left", shift=70)])) == ["ROLL_OK"]
    assert t.session.game.dice == (6, 1)


def test_cube_double_take_then_drop_ends_the_game() -> None:
    t = table()
    board = dark_to_roll(t)
    t.press("DOUBLE")
    assert t.session.stage is Stage.DOUBLED
    said = t.press("TAKE")
    assert signals(said) == ["READY"] and t.session.game.cube.value == 2
    t.see(board, [die(6, "left"), die(5, "left", shift=40)])
    board = after(board, Side.DARK, (6, 5), "24/13")
    t.see(board)
    t.press("DOUBLE")
    said = t.press("DROP")
    assert signals(said) == ["GAME_OVER"]
    assert said[-1].winner is Side.LIGHT and said[-1].points == 1  # a single, on a 2-cube
    assert t.session.score == [2, 0]


def test_bear_off_to_a_gammon_scores_and_waits_for_setup() -> None:
    t = table()
    pos = Position.from_points({1: 1, 2: 1}, {20: 15})
    board = Board.from_position(pos, Side.LIGHT)
    t.session.start_from(board, Side.LIGHT)
    t.see(board, [die(2, "right"), die(1, "right", shift=40)])
    end = Board.from_position(Position.from_points({}, {20: 15}), Side.LIGHT)
    said = t.see(end)
    assert signals(said) == ["GAME_OVER"]
    over = next(s for s in said if s.signal is Signal.GAME_OVER)
    assert over.winner is Side.LIGHT and over.points == 3  # dark still in light's home: backgammon
    assert t.session.stage is Stage.OVER
    assert signals(t.see(START)) == ["READY"]
    assert t.session.game_number == 2


def test_responsible_moves_accept_makes_the_play_stand() -> None:
    t = table(tournament_mode=True, moves=MovesRule.RESPONSIBLE)
    opened(t)
    illegal = moved(START, Side.LIGHT, "13/9 8/7")  # 13/9 needs two steps of a 3-1: not legal
    said = t.see(illegal, frames=3)
    assert signals(said) == ["ILLEGAL"] and "may accept" in said[0].text
    said = t.press("ACCEPT")
    assert t.session.board == illegal and t.session.on_roll is Side.DARK
    assert signals(said) == ["READY"]


def test_responsible_moves_next_roll_makes_the_play_stand() -> None:
    t = table(tournament_mode=True, moves=MovesRule.RESPONSIBLE)
    opened(t)
    illegal = moved(START, Side.LIGHT, "13/9 8/7")  # 13/9 needs two steps of a 3-1: not legal
    t.see(illegal, frames=3)
    said = t.see(illegal, [die(6, "left"), die(2, "left", shift=40)])
    assert signals(said) == ["ROLL_OK"]
    assert t.session.board == illegal and t.session.game.dice == (6, 2)


def test_a_roll_with_no_move_passes_when_the_dice_are_lifted() -> None:
    t = table()
    pos = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 3})
    board = Board.from_position(pos, Side.LIGHT)
    t.session.start_from(board, Side.LIGHT)
    said = t.see(board, [die(6, "right"), die(5, "right", shift=40)])
    assert signals(said) == ["ROLL_OK"] and any("cannot enter" in s.text for s in said)
    assert t.see(board, [die(6, "right"), die(5, "right", shift=40)]) == []
    said = t.see(board)
    assert signals(said) == ["READY"] and t.session.on_roll is Side.DARK
    assert signals(t.see(board, [die(3, "left"), die(1, "left", shift=40)])) == ["ROLL_OK"]


def test_an_unclear_play_asks_the_table_which_can_confirm_it() -> None:
    t = table()
    opened(t)
    played = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    # light's 8-, 7-, 6- and 5-points (bottom-4..7) doubtful: both 8/5 6/5 and 8/7 8/5 fit
    doubtful = {
        "bottom-4": (2, 0.6, (1, 2)),
        "bottom-5": (0, 0.6, (0, 1)),
        "bottom-6": (4, 0.6, (4, 5)),
        "bottom-7": (2, 0.6, (1, 2)),
    }
    said = t.see(played, doubtful=doubtful, frames=30)
    assert signals(said) == ["CANNOT_SEE"]
    assert "Press ACCEPT" in said[-1].text and "8/5 6/5" in said[-1].text
    said = t.press("ACCEPT")
    assert signals(said) == ["READY"] and t.session.board == played
    assert ("confirmed", "the table confirms 8/5 6/5") in t.session.log


def test_crawford_game_follows_the_match_and_survives_a_restart(tmp_path) -> None:
    """Match to 3 with a cube: light wins a gammon (2), so the next game is the Crawford game (no
    doubling); a resumed session knows the score and that the Crawford game is under way."""
    path = tmp_path / "rec.sqlite"
    options = SessionOptions(O, RuleOptions(), match_length=3)
    t = Table(Session(options, Journal(path)))
    board = Board.from_position(Position.from_points({1: 1, 2: 1}, {13: 15}), Side.LIGHT)
    t.session.start_from(board, Side.LIGHT)
    t.see(board, [die(2, "right"), die(1, "right", shift=40)])
    said = t.see(Board.from_position(Position.from_points({}, {13: 15}), Side.LIGHT))
    assert signals(said) == ["GAME_OVER"]
    assert t.session.score == [2, 0] and t.session.match.next_is_crawford
    assert signals(t.see(START)) == ["READY"]
    assert t.session.game.crawford and "Crawford" in t.session.log[-1][1]
    t.see(START, [die(3, "right"), die(1, "left")])
    t.see(after(START, Side.LIGHT, (3, 1), "8/5 6/5"))
    said = t.press("DOUBLE")
    assert t.session.stage is Stage.ROLL and not signals(said)  # no doubling in the Crawford game
    t.session.journal.close()
    resumed = Session.resume(options, Journal(path))
    assert resumed.score == [2, 0] and resumed.game.crawford
    assert resumed.match.current is resumed.game


def _misread_six_three(t: Table) -> tuple[Board, Board]:
    """Dark throws 6-3, the 3 read as a 2 (unsurely), and plays the 6-3 24/18 13/10: the board before the
    roll and after the play."""
    board = dark_to_roll(t)
    unsure = replace(die(2, "left", shift=40), confidence=0.8)
    assert signals(t.see(board, [die(6, "left"), unsure])) == ["ROLL_OK"]
    return board, after(board, Side.DARK, (6, 3), "24/18 13/10")


def test_a_play_another_face_of_an_unsure_die_allows_is_asked_about_never_called_illegal() -> None:
    """13/10 is no move of a 6-2; but the 2 was read unsurely, and with a 3 the play is legal. The table
    is asked whether it threw 6-3; ACCEPT corrects the roll (the record keeps both) and the play stands."""
    t = table()
    _, played = _misread_six_three(t)
    said = t.see(played, frames=10)
    assert signals(said) == ["CANNOT_SEE"] and "Was it 6-3?" in said[0].text
    assert t.session.roll_question == (6, 3)
    said = t.press("ACCEPT")
    assert signals(said) == ["READY"]
    assert t.session.board == played and t.session.on_roll is Side.LIGHT
    game = t.session.game
    assert game is not None
    assert [e.dice for e in game.history if e.kind is EventKind.ROLL][-1] == (6, 3)
    assert [k for k, _ in t.session.log][-5:] == ["roll", "unclear", "confirmed", "roll", "play"]


def test_an_unanswered_question_about_the_roll_leaves_the_play_illegal() -> None:
    t = table()
    _, played = _misread_six_three(t)
    assert signals(t.see(played, frames=10)) == ["CANNOT_SEE"]
    assert signals(t.see(played, frames=int(ANSWER_WAIT * 10))) == ["ILLEGAL"]
    game = t.session.game
    assert game is not None and game.dice == (6, 2)


def test_a_surely_read_roll_is_not_asked_about() -> None:
    t = table()
    board = dark_to_roll(t)
    assert signals(t.see(board, [die(6, "left"), die(2, "left", shift=40)])) == ["ROLL_OK"]
    played = after(board, Side.DARK, (6, 3), "24/18 13/10")
    assert signals(t.see(played, frames=3)) == ["ILLEGAL"]


def test_a_board_left_as_it_was_is_asked_about_when_the_roll_may_have_been_blocked() -> None:
    """Light on the bar against dark's 6-point: 6-6 cannot move, 6-5 can. With the 5 read unsurely and
    nobody moving, the table is asked whether it threw 6-6; ACCEPT corrects the roll and the turn passes."""
    t = table()
    board = Board.from_position(Position.from_points({25: 1, 6: 14}, {6: 2, 13: 13}), Side.LIGHT)
    t.session.start_from(board, Side.LIGHT)
    unsure = replace(die(5, "right", shift=40), confidence=0.8)
    assert signals(t.see(board, [die(6, "right"), unsure])) == ["ROLL_OK"]
    said = t.see(board, frames=10)
    assert signals(said) == ["CANNOT_SEE"] and "Was it 6-6?" in said[0].text
    assert signals(t.press("ACCEPT")) == ["READY"]
    assert t.session.on_roll is Side.DARK and t.session.board == board
    assert t.session.stage is Stage.ROLL


def test_a_doubled_backgammon_shows_a_backgammon_and_scores_six() -> None:
    """The lights and the buzzer show a single, gammon or backgammon; what it scores on a turned cube is
    in the words and the score (a GAME_OVER saying 6 stopped the frame loop: no pattern has six notes)."""
    t = table()
    board = Board.from_position(Position.from_points({1: 1, 2: 1}, {20: 15}), Side.LIGHT)
    t.session.start_from(board, Side.LIGHT)
    t.press("DOUBLE")
    assert signals(t.press("TAKE")) == ["READY"]
    t.see(board, [die(2, "right"), die(1, "right", shift=40)])
    said = t.see(Board.from_position(Position.from_points({}, {20: 15}), Side.LIGHT))
    over = next(s for s in said if s.signal is Signal.GAME_OVER)
    assert over.winner is Side.LIGHT and over.points == 3 and t.session.score == [6, 0]
    shown = Patterns().pattern(Signal.GAME_OVER, winner=over.winner.value, points=over.points)
    assert shown.caption == "light wins a backgammon"


def test_a_roll_the_table_confirmed_is_not_asked_about_again() -> None:
    """Dice the table confirmed are sure, however unsurely they were read: a play another face would
    allow is illegal at once."""
    t = table()
    board = dark_to_roll(t)
    unsure_two = replace(unclear(2, "left", shift=40), confidence=0.3)
    assert signals(t.see(board, [die(6, "left"), unsure_two])) == ["CANNOT_SEE"]
    assert signals(t.press("ACCEPT")) == ["ROLL_OK"]
    assert signals(t.see(after(board, Side.DARK, (6, 3), "24/18 13/10"), frames=3)) == ["ILLEGAL"]


def test_a_throw_it_cannot_read_is_named_by_the_play_made_anyway() -> None:
    """Dark's 6 is read, the other die not: the referee waits. Dark plays on and lifts the dice; of the
    rolls 6-1 to 6-6, the board fits 6-3 alone, and the table is asked; ACCEPT records roll and play."""
    t = table()
    board = dark_to_roll(t)
    unread = [die(6, "left"), die(None, "left", shift=50, unreadable=True)]
    said = t.see(board, unread)
    assert signals(said) == ["CANNOT_SEE"] and "cannot read a die" in said[0].text
    played = after(board, Side.DARK, (6, 3), "24/18 13/10")
    assert t.see(played, unread) == []  # moved, the dice still down: no verdict
    # lifted; a checker that moved since the turn's still changed the frame as a die does
    moved_checker = die(None, "left", shift=-150, unreadable=True)
    said = t.see(played, [moved_checker])
    assert signals(said) == ["CANNOT_SEE"]
    assert "dark's play 24/18 13/10 fits 6-3 alone. Was it 6-3, both dice flat in dark's half" in said[0].text
    assert t.session.played_roll_question == (6, 3) and t.session.game.dice is None
    assert t.see(played) == []  # asked once
    said = t.press("ACCEPT")
    assert signals(said) == ["READY"]
    assert t.session.board == played and t.session.on_roll is Side.LIGHT
    game = t.session.game
    assert [e.dice for e in game.history if e.kind is EventKind.ROLL][-1] == (6, 3)
    assert [k for k, _ in t.session.log][-4:] == ["unclear", "confirmed", "roll", "play"]


def test_a_play_that_fits_several_rolls_is_asked_about_one_roll_at_a_time() -> None:
    """One die seen that cannot be read (it may be two): a checker moved nine pips from the midpoint
    fits 6-3 and 5-4 alike. The table is asked about 6-3 (the higher; no face was made out), and, left
    unanswered, about 5-4. Light's throw meanwhile does not make the play stand: which roll it was, only
    the table can say. ACCEPT on 5-4 records 5-4, and light's throw, made after dark's dice were lifted,
    is then read as light's roll."""
    t = table()
    board = dark_to_roll(t)
    said = t.see(board, [die(None, "left", unreadable=True)])
    assert signals(said) == ["CANNOT_SEE"]
    played = after(board, Side.DARK, (5, 4), "13/4")
    said = t.see(played)
    assert signals(said) == ["CANNOT_SEE"] and "play 13/4 fits 6-3 or 5-4. Was it 6-3" in said[0].text
    questions = [k for k, _ in t.session.log].count("unclear")
    thrown = [die(5, "right"), die(2, "right", shift=40)]
    said = t.see(played, thrown, frames=30)  # three seconds: the next roll it fits
    assert signals(said) == ["CANNOT_SEE"] and "fits 5-4 or 6-3. Was it 5-4" in said[0].text
    assert [k for k, _ in t.session.log].count("unclear") == questions  # the record keeps it once
    assert t.session.played_roll_question == (5, 4) and t.session.game.dice is None
    assert signals(t.press("ACCEPT")) == ["READY"]
    rolls = [e.dice for e in t.session.game.history if e.kind is EventKind.ROLL]
    assert rolls[-1] == (5, 4) and t.session.board == played and t.session.on_roll is Side.LIGHT
    assert signals(t.see(played, thrown, frames=4)) == ["ROLL_OK"] and t.session.game.dice == (5, 2)


def test_the_faces_the_reader_ranked_first_are_asked_about_first() -> None:
    """Dark's 5 is read and the other die not, but the reader's likeliest face for it was a 4: a play
    of 13/4 fits 5-4 alone of the rolls with a 5, and of two unread dice whose likeliest faces were 5
    and 4, 5-4 is asked about before 6-3."""
    t = table()
    board = dark_to_roll(t)
    unsure = [replace(die(None, "left", unreadable=True), likeliest=5), unclear(4, "left", shift=50)]
    assert signals(t.see(board, unsure)) == ["CANNOT_SEE"]
    said = t.see(after(board, Side.DARK, (5, 4), "13/4"))
    assert signals(said) == ["CANNOT_SEE"] and "fits 5-4 or 6-3. Was it 5-4" in said[0].text


def test_a_board_left_as_it_was_names_no_roll() -> None:
    """A board left as it was is no play: the referee goes on waiting and takes the next throw it can
    read."""
    t = table()
    board = dark_to_roll(t)
    said = t.see(board, [die(None, "left", unreadable=True)])
    assert signals(said) == ["CANNOT_SEE"]
    assert t.see(board) == []  # lifted: nothing played
    assert t.session.played_roll_question is None
    assert signals(t.see(board, [die(6, "left", shift=10), die(4, "left", shift=60)])) == ["ROLL_OK"]
    assert t.session.game.dice == (6, 4)


def test_a_play_no_roll_the_dice_may_show_allows_is_illegal_and_replayed() -> None:
    """Dark's 6 is read surely, the other die not. Dark plays 13/10 13/9, which no roll with a 6
    allows: illegal whatever the other die showed, and called so. The position restored, dark plays the
    throw again, 24/18 13/10, which fits 6-3 alone, and the table is asked about it."""
    t = table()
    board = dark_to_roll(t)
    unread = [die(6, "left"), die(None, "left", shift=50, unreadable=True)]
    assert signals(t.see(board, unread)) == ["CANNOT_SEE"]
    said = t.see(after(board, Side.DARK, (4, 3), "13/10 13/9"), frames=3)
    assert signals(said) == ["ILLEGAL"]
    assert "illegal play by dark: no roll the dice may have shown allows it" in said[0].text
    said = t.see(board, frames=2)
    assert signals(said) == ["ROLL_OK"] and "dark plays the throw again" in said[0].text
    said = t.see(after(board, Side.DARK, (6, 3), "24/18 13/10"))
    assert signals(said) == ["CANNOT_SEE"] and "fits 6-3 alone" in said[0].text
    assert signals(t.press("ACCEPT")) == ["READY"] and t.session.on_roll is Side.LIGHT


def test_a_question_about_the_roll_falls_when_the_board_fits_no_roll() -> None:
    """Asked whether dark's 24/18 13/10 was 6-3, the table moves a checker on instead of answering: the
    board now fits no roll with a 6, so ACCEPT confirms nothing (it would have recorded a play the board
    no longer shows), and the play is called illegal once it holds."""
    t = table()
    board = dark_to_roll(t)
    assert signals(t.see(board, [die(6, "left"), die(None, "left", shift=50, unreadable=True)])) == [
        "CANNOT_SEE"
    ]
    said = t.see(after(board, Side.DARK, (6, 3), "24/18 13/10"))
    assert "fits 6-3 alone" in said[0].text
    t.see(after(board, Side.DARK, (4, 3), "13/10 13/9"), frames=1)
    assert t.session.played_roll_question is None
    assert "ROLL_OK" not in signals(t.press("ACCEPT")) and t.session.game.dice is None


def test_a_face_read_unsurely_may_be_another_when_the_play_fits_none_with_it() -> None:
    """Dark's dice were read 6 (at 0.8, less than surely) and a die not read. Dark plays 13/10 13/9,
    which no roll with a 6 allows: the 6 may have been another face, and of every roll the play fits
    4-3 alone, so the table is asked about it rather than the play called illegal."""
    t = table()
    board = dark_to_roll(t)
    unsure_six = replace(die(6, "left"), confidence=0.8)
    assert signals(t.see(board, [unsure_six, die(None, "left", shift=50, unreadable=True)])) == ["CANNOT_SEE"]
    said = t.see(after(board, Side.DARK, (4, 3), "13/10 13/9"), frames=3)
    assert signals(said) == ["CANNOT_SEE"] and "fits 4-3 alone. Was it 4-3" in said[0].text


UNSURE_FIVE = replace(die(None, "right"), unreadable=True, confidence=0.58, likeliest=5)


@pytest.mark.parametrize("first", [die(5, "right"), UNSURE_FIVE], ids=["read", "read-unsurely"])
def test_a_throw_before_an_unread_throw_was_lifted_does_not_count(first: DieReading) -> None:
    """Light throws while dark, whose throw the referee could not read, has played and lifted: once the
    table confirms the roll dark's play fits, light's throw is called too early, as after any play;
    also where a die of it is read only unsurely (bench.e2e seed 7: light's early 6-3 lying together,
    neither face sure)."""
    t = table()
    board = dark_to_roll(t)
    assert signals(t.see(board, [die(6, "left"), die(None, "left", shift=50, unreadable=True)])) == [
        "CANNOT_SEE"
    ]
    played = after(board, Side.DARK, (6, 3), "24/18 13/10")
    early = [first, die(2, "right", shift=40)]
    assert signals(t.see(played, early)) == ["CANNOT_SEE"]  # the play fits 6-3 alone
    assert signals(t.press("ACCEPT")) == ["READY", "REROLL"]
    assert t.see(played, early) == []  # not read as light's roll
    t.moving()
    assert signals(t.see(played, [die(4, "right", shift=5), die(1, "right", shift=70)])) == ["ROLL_OK"]
    assert t.session.game.dice == (4, 1)


def test_the_next_throw_makes_a_play_after_an_unread_throw_stand() -> None:
    """Dark's throw could not be read; dark plays 24/18 13/10 (6-3 alone fits it) and lifts the dice,
    and light throws before anyone answers the question. By the rules light's throw makes dark's play
    stand: it is recorded as 6-3, and light's throw is light's roll, not one thrown too early."""
    t = table()
    board = dark_to_roll(t)
    assert signals(t.see(board, [die(6, "left"), die(None, "left", shift=50, unreadable=True)])) == [
        "CANNOT_SEE"
    ]
    played = after(board, Side.DARK, (6, 3), "24/18 13/10")
    assert signals(t.see(played)) == ["CANNOT_SEE"]  # asked, and not answered
    said = t.see(played, [die(5, "right"), die(2, "right", shift=40)], frames=4)
    assert signals(said) == ["READY", "ROLL_OK"]
    assert "light threw, so dark's play 24/18 13/10 stands: recorded as 6-3" in said[0].text
    rolls = [(e.side, e.dice) for e in t.session.game.history if e.kind is EventKind.ROLL]
    assert rolls[-2:] == [(Side.DARK, (6, 3)), (Side.LIGHT, (5, 2))]
    assert t.session.on_roll is Side.LIGHT and t.session.game.dice == (5, 2)


def test_a_play_read_doubtfully_after_an_unread_throw_is_asked_about_after_a_while() -> None:
    """The cells dark's 24/18 13/10 changed are read doubtfully: its likeliest play fits 6-3 alone, and
    the table is asked about roll and play once the reading has stayed so for ``unclear_after``."""
    t = table()
    board = dark_to_roll(t)
    t.see(board, [die(6, "left"), die(None, "left", shift=50, unreadable=True)])
    played = after(board, Side.DARK, (6, 3), "24/18 13/10")
    # each may hold another count, but none the count it held before the play
    doubtful = {
        "top-2": (-1, 0.6, (-2, -1)),
        "bottom-0": (-4, 0.6, (-4, -3)),
        "bottom-5": (-1, 0.6, (-2, -1)),
        "bottom-11": (-1, 0.6, (-1, 0)),
    }
    assert t.see(played, doubtful=doubtful, frames=10) == []  # one second: not yet
    said = t.see(played, doubtful=doubtful, frames=15)
    assert signals(said) == ["CANNOT_SEE"] and "played 24/18 13/10?" in said[0].text
    # light throws: a position read doubtfully stands only when the table says which, so it waits
    thrown = [die(5, "right"), die(2, "right", shift=40)]
    assert t.see(played, thrown, doubtful=doubtful, frames=4) == []
    assert signals(t.press("ACCEPT")) == ["READY"] and t.session.board == played
    # thrown after dark's dice were lifted: light's roll, not a throw too early
    assert signals(t.see(played, thrown)) == ["ROLL_OK"] and t.session.game.dice == (5, 2)
