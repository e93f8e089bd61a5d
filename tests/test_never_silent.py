"""Never silent, never misleading after a restart: the next match starts from the next starting
position, and a restart on a board that changed says so and names the recorded position."""

from __future__ import annotations

from pathlib import Path

from test_session_fixtures import O, Table, after, die, moved, signals

from bgboard.layout import Board, Side
from bgboard.position import Position
from referee.journal import Journal
from referee.notation.position_id import encode_position_id
from referee.rules_options import RuleOptions
from referee.session import Session, SessionOptions, Stage

START = Board.start()


def won_match(options: SessionOptions, journal: Journal | None = None) -> Table:
    """A one-point match that light has just won with a single game."""
    t = Table(Session(options, journal))
    pos = Position.from_points({1: 1, 2: 1}, {13: 14, 1: 1})
    board = Board.from_position(pos, Side.LIGHT)
    t.session.start_from(board, Side.LIGHT)
    t.see(board, [die(2, "right"), die(1, "right", shift=40)])
    t.see(Board.from_position(Position.from_points({}, {13: 14, 1: 1}), Side.LIGHT))
    assert t.session.stage is Stage.MATCH_OVER
    return t


def test_after_a_match_the_next_starting_position_starts_the_next_match(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "record.sqlite")
    t = won_match(SessionOptions(O, RuleOptions(), match_length=1), journal)
    first_match = t.session.match_id
    said = t.see(START)
    assert signals(said) == ["READY"] and t.session.stage is Stage.OPENING
    assert t.session.match_id != first_match and t.session.score == [0, 0]
    assert [m.finished is not None for m in journal.matches()] == [True, False]
    # a restart after the match keeps that: the start on the board begins the next match
    journal.close()


def test_without_the_setting_only_new_game_starts_the_next_match() -> None:
    t = won_match(SessionOptions(O, RuleOptions(), match_length=1, next_match_on_start=False))
    assert t.see(START) == [] and t.session.stage is Stage.MATCH_OVER


def test_a_restart_on_a_board_that_changed_says_so_and_never_calls_an_illegal_play(tmp_path: Path) -> None:
    path = tmp_path / "record.sqlite"
    t = Table(Session(SessionOptions(O), Journal(path)))
    t.see(START)
    t.see(START, [die(3, "right"), die(1, "left")])
    played = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    t.see(played)
    t.session.journal.close()  # dark to roll; the referee goes down, and dark's checkers move meanwhile

    resumed = Session.resume(SessionOptions(O), Journal(path))
    knocked = moved(played, Side.DARK, "24/22 13/10")
    t2 = Table(resumed)
    said = t2.see(knocked, [die(2, "left"), die(1, "left", shift=40)])
    assert signals(said) == ["CANNOT_SEE"]
    text = said[0].text
    assert text.startswith("the board differs from the record") and "dark to roll" in text
    assert encode_position_id(played.position(Side.DARK)) in text
    assert "illegal" not in " ".join(s.text for s in t2.said)
    assert t2.see(knocked, [die(2, "left"), die(1, "left", shift=40)]) == []  # said once
    # put back as recorded: the referee goes on, and the dice now on the board are dark's roll
    said = t2.see(played, [die(2, "left"), die(1, "left", shift=80)])
    assert signals(said) == ["ROLL_OK"] and resumed.game.dice == (2, 1)


def restarted_mid_play(path: Path) -> Session:
    """Light to play 3-1 when the referee went down, and the session a restart resumes."""
    t = Table(Session(SessionOptions(O), Journal(path)))
    t.see(START)
    t.see(START, [die(3, "right"), die(1, "left")])
    t.session.journal.close()
    return Session.resume(SessionOptions(O), Journal(path))


def test_a_restart_mid_play_judges_a_play_made_while_the_referee_was_down(tmp_path: Path) -> None:
    resumed = restarted_mid_play(tmp_path / "record.sqlite")
    assert resumed.stage is Stage.PLAY
    said = Table(resumed).see(after(START, Side.LIGHT, (3, 1), "8/5 6/5"))
    assert signals(said) == ["READY"] and resumed.on_roll is Side.DARK


def test_a_restart_mid_play_on_a_board_set_back_lets_the_roll_be_played_again(tmp_path: Path) -> None:
    """Killed while light's play was going wrong: the restarted referee never saw it, so it asks for the
    recorded position, and once that is back (the dice lifted meanwhile) the roll is played again. The
    lifted dice are no play "with no checker moved" (found by the soak's kill -9 trials)."""
    resumed = restarted_mid_play(tmp_path / "record.sqlite")
    t2 = Table(resumed)
    wrong = moved(START, Side.LIGHT, "8/4 6/5")  # no play of 3-1
    said = t2.see(wrong)
    assert signals(said) == ["CANNOT_SEE"] and said[0].text.startswith("the board differs from the record")
    said = t2.see(START)  # set back as recorded, the dice off the board
    assert signals(said) == ["ROLL_OK"] and "light plays 3-1 again" in said[0].text
    said = t2.see(after(START, Side.LIGHT, (3, 1), "8/5 6/5"))
    assert signals(said) == ["READY"] and resumed.on_roll is Side.DARK
    assert "illegal" not in " ".join(s.text for s in t2.said)
