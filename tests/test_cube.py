"""The doubling cube and the rule options."""

from __future__ import annotations

import pytest

from bgboard.layout import Side
from referee.cube import Cube, CubeError
from referee.rules_options import RuleOptions, RuleOptionsError

LIGHT, DARK = Side.LIGHT, Side.DARK


def test_a_centred_cube_may_be_turned_by_either_side() -> None:
    assert Cube().may_double(LIGHT) and Cube().may_double(DARK)


def test_double_then_take_doubles_the_value_and_gives_the_cube_to_the_taker() -> None:
    offered = Cube().double(LIGHT)
    assert offered.offered_by is LIGHT and offered.value == 1  # not turned until taken
    taken = offered.take(DARK)
    assert (taken.value, taken.owner, taken.offered_by) == (2, DARK, None)


def test_drop_is_worth_the_value_before_the_double() -> None:
    cube = Cube(value=4, owner=LIGHT).double(LIGHT)
    assert cube.drop(DARK) == 4


def test_redouble_by_owner_only() -> None:
    cube = Cube().double(LIGHT).take(DARK)  # dark owns a 2-cube
    with pytest.raises(CubeError, match="light may not double: dark owns the cube") as e:
        cube.double(LIGHT)
    assert "only the cube's owner may redouble" in str(e.value)
    redoubled = cube.double(DARK).take(LIGHT)
    assert (redoubled.value, redoubled.owner) == (4, LIGHT)


def test_cube_cap_at_64() -> None:
    cube = Cube()
    side = LIGHT
    for _ in range(6):
        cube = cube.double(side).take()
        side = side.other
    assert cube.value == 64 and cube.owner is LIGHT
    with pytest.raises(CubeError, match="the cube is at 64, it cannot be turned"):
        cube.double(LIGHT)


def test_cap_follows_max_value() -> None:
    cube = Cube(value=8, owner=DARK, max_value=8)
    with pytest.raises(CubeError, match="the cube is at 8"):
        cube.double(DARK)


def test_no_second_offer_and_no_take_without_offer() -> None:
    offered = Cube().double(LIGHT)
    with pytest.raises(CubeError, match="light has already doubled: dark must take or drop"):
        offered.double(DARK)
    with pytest.raises(CubeError, match="no double to take"):
        Cube().take()
    with pytest.raises(CubeError, match="no double to drop"):
        Cube().drop()
    with pytest.raises(CubeError, match="cannot take its own double"):
        offered.take(LIGHT)


def test_beaver_takes_and_redoubles_keeping_the_cube() -> None:
    cube = Cube(value=2, owner=LIGHT).double(LIGHT).beaver(DARK)
    assert (cube.value, cube.owner, cube.offered_by) == (8, DARK, None)


def test_beaver_cannot_pass_the_cap() -> None:
    cube = Cube(value=32, owner=LIGHT).double(LIGHT)
    with pytest.raises(CubeError, match="past 64"):
        cube.beaver(DARK)
    assert cube.take(DARK).value == 64  # a plain take still fits


def test_disabled_cube_says_why() -> None:
    for reason in ("no doubling in the Crawford game", "cubeless match: no doubling"):
        with pytest.raises(CubeError, match=reason):
            Cube(disabled=reason).double(LIGHT)


def test_automatic_double_stays_centred() -> None:
    cube = Cube().automatic_double().automatic_double()
    assert (cube.value, cube.owner) == (4, None)
    with pytest.raises(CubeError):
        Cube(value=2, owner=LIGHT).automatic_double()


def test_impossible_cubes_are_refused() -> None:
    for value in (0, 3, 128):
        with pytest.raises(CubeError, match="power of two"):
            Cube(value=value)
    with pytest.raises(CubeError, match="cannot offer a cube that dark owns"):
        Cube(value=2, owner=DARK, offered_by=LIGHT)


def test_cube_errors_are_value_errors() -> None:
    assert issubclass(CubeError, ValueError)


# ---- rule options ----------------------------------------------------------------------------------


def test_options_defaults_are_the_plain_rules() -> None:
    o = RuleOptions()
    assert not (o.jacoby or o.beavers or o.automatic_doubles or o.tournament_mode or o.cubeless)
    assert o.max_cube == 64 and not o.on_checker_valid


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"max_cube": 48}, "power of two"),
        ({"max_cube": 128}, "power of two"),
        ({"automatic_double_cap": -1}, "0..6"),
        ({"jacoby": "yes"}, "jacoby must be true or false"),
        ({"max_cube": 32.0}, "max_cube must be a whole number"),
    ],
)
def test_bad_options_are_refused_with_words(kwargs: dict, words: str) -> None:
    with pytest.raises(RuleOptionsError, match=words):
        RuleOptions(**kwargs)


def test_options_from_a_config_table() -> None:
    o = RuleOptions.from_mapping({"jacoby": True, "max_cube": 16})
    assert o.jacoby and o.max_cube == 16
    assert RuleOptions.from_mapping(o.to_mapping()) == o
    with pytest.raises(RuleOptionsError, match="unknown rule option.*jacobi"):
        RuleOptions.from_mapping({"jacobi": True})
    with pytest.raises(RuleOptionsError, match="table of name = value"):
        RuleOptions.from_mapping(["jacoby"])
    assert issubclass(RuleOptionsError, ValueError)
