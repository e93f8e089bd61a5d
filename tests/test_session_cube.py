"""The session follows the cube: one that lies where the record says it cannot is a question, once."""

from __future__ import annotations

from test_session import dark_to_roll, table
from test_session_fixtures import Table, die, signals

from bgboard.layout import Side
from vision.reading import CubePlace, CubeReading

# the orientation of the fixtures (bottom-right): light sits at the bottom row, dark at the top
BY_DARK = CubeReading(CubePlace.BAR, (640.0, 60.0), 0.06, None)
BY_LIGHT = CubeReading(CubePlace.BAR, (640.0, 660.0), 0.94, 2)
IN_A_TRAY = CubeReading(CubePlace.TRAY, (1200.0, 360.0), 0.5, None)


def taken_by_light(t: Table):
    board = dark_to_roll(t)
    t.press("DOUBLE")
    t.press("TAKE")
    assert t.session.game.cube.owner is Side.LIGHT and t.session.game.cube.value == 2
    return board


def cube_questions(t: Table) -> list[str]:
    return [text for kind, text in t.session.log if kind == "cube"]


def test_a_cube_on_the_doublers_side_after_a_take_is_asked_about_once() -> None:
    t = table()
    board = taken_by_light(t)
    said = t.see(board, cube=BY_DARK, frames=8)
    assert signals(said) == ["CANNOT_SEE"]
    assert said[0].text == (
        "please check the cube: the cube lies on dark's side, but the record gives it to light at 2"
    )
    assert cube_questions(t) == [said[0].text]  # recorded, with the frame as evidence
    # the game goes on: dark's throw is read as ever, and the cube is not a die
    assert "ROLL_OK" in signals(t.see(board, [die(6, "left"), die(5, "left", shift=40)], cube=BY_DARK))


def test_the_cube_where_the_record_has_it_is_no_question() -> None:
    t = table()
    board = taken_by_light(t)
    assert t.see(board, cube=BY_LIGHT, frames=8) == []
    assert t.see(board, cube=IN_A_TRAY, frames=8) == []  # a tray's middle is no side
    assert cube_questions(t) == []


def test_a_centred_cube_seen_at_one_side_or_showing_a_value_is_asked_about() -> None:
    t = table()
    board = dark_to_roll(t)
    said = t.see(board, cube=BY_LIGHT, frames=8)
    assert [s.text for s in said] == [
        "please check the cube: the cube lies on light's side showing 2, but the record has it in the middle"
    ]
    # moved back to the middle, the question is over; moved away again, it is asked again
    assert t.see(board, cube=IN_A_TRAY, frames=3) == []
    assert len(t.see(board, cube=BY_DARK, frames=8)) == 1


def test_a_fleeting_cube_is_not_asked_about() -> None:
    """A cube seen on the wrong side for fewer settled frames than a throw needs is a hand moving it."""
    t = table()
    board = taken_by_light(t)
    frames = t.session.options.dice_frames
    assert t.see(board, cube=BY_DARK, frames=frames - 1) == []
    assert t.see(board, cube=BY_LIGHT, frames=4) == []
    assert cube_questions(t) == []
