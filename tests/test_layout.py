import json

import pytest

from bgboard.layout import CELLS, Board, Cell, CellError, ImageLayout, Orientation, Row, Side
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
            cell = orientation.cell(side, p)
            assert orientation.point(side, cell) == p
            seen.add((side, cell))
    assert len(seen) == 48


@pytest.mark.parametrize("orientation", list(Orientation))
def test_layout_round_trip(orientation):
    board = Board.start()
    assert Board.from_layout(board.layout(orientation), orientation) == board


def test_opponent_points_mirror():
    o = Orientation.BOTTOM_RIGHT
    assert o.cell(Side.LIGHT, 1) == o.cell(Side.DARK, 24) == Cell(Row.BOTTOM, 11)
    assert o.cell(Side.LIGHT, 13) == Cell.parse("top-0")


def test_cells_name_themselves_as_the_readings_json_does() -> None:
    assert [str(c) for c in CELLS[:2]] == ["top-0", "top-1"]
    assert [str(c) for c in CELLS[-2:]] == ["bar-light", "bar-dark"]
    assert all(Cell.parse(str(c)) == c for c in CELLS) and len(set(CELLS)) == 26
    for bad in ("top-12", "middle-3", "bar-blue", "top"):
        with pytest.raises(CellError, match="is not a cell"):
            Cell.parse(bad)


def test_a_layout_reads_and_writes_by_cell() -> None:
    layout = Board.start().layout(Orientation.BOTTOM_RIGHT)
    assert ImageLayout.from_cells(layout.cells()) == layout
    assert layout.value(Cell.parse("bottom-11")) == -2  # dark's 24-point, light's 1-point


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
