import json

import pytest

from bgboard.layout import Board, ImageLayout, Orientation, Side
from bgboard.position import START, Position, PositionError


def test_starting_position_of_the_oblique_product_photo(shared_data):
    labels = json.loads((shared_data / "real-boards" / "labels.json").read_text())
    test2 = next(d for d in labels if d["image"] == "test2.jpg")
    layout = ImageLayout.from_json(test2)
    matches = [o for o in Orientation if Board.from_layout(layout, o) == Board.start()]
    assert matches == [Orientation.TOP_RIGHT]


@pytest.mark.parametrize("orientation", list(Orientation))
def test_cell_and_point_are_inverse(orientation):
    seen = set()
    for side in Side:
        for p in range(1, 25):
            row, index = orientation.cell(side, p)
            assert orientation.point(side, row, index) == p
            seen.add((side, row, index))
    assert len(seen) == 48


@pytest.mark.parametrize("orientation", list(Orientation))
def test_layout_round_trip(orientation):
    board = Board.start()
    assert Board.from_layout(board.layout(orientation), orientation) == board


def test_opponent_points_mirror():
    o = Orientation.BOTTOM_RIGHT
    assert o.cell(Side.LIGHT, 1) == o.cell(Side.DARK, 24) == ("bottom", 11)
    assert o.cell(Side.LIGHT, 13) == ("top", 0)


@pytest.mark.parametrize(
    ("player", "opponent", "message"),
    [
        ({6: 16}, {}, "16 checkers"),
        ({6: 2}, {19: 1}, "both sides"),
        ({6: -1}, {}, "negative"),
        ({26: 1}, {}, "not on the board"),
    ],
)
def test_impossible_positions_are_refused(player, opponent, message):
    with pytest.raises(PositionError, match=message):
        Position.from_points(player, opponent)


def test_position_is_hashable_and_swaps():
    assert hash(START) == hash(START.swap())
    assert START.off_player == 0
    assert START.pip_counts() == (167, 167)
