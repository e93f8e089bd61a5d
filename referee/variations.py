"""The house variations a table agrees on before it starts: who sits there and what they play.

A :class:`TableSetup` names the players and the variation. In **pairs** four people play as two pairs
sharing a colour: one person of each pair rolls and moves for a whole game, and the movers swap within
each pair for the next game; the pairs play one game or the three-point cubeless match. The **open
coaching game** is cubeless and recorded as practice: it counts in no match score.

    >>> pairs = TableSetup(Variation.PAIRS, ("Ann", "Bo"), ("Cy", "Di"))
    >>> pairs.names
    ('Ann & Bo', 'Cy & Di')
    >>> pairs.movers(games_played=1)
    ('Bo', 'Di')
    >>> pairs.match_length, pairs.cubeless
    (3, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from bgboard.layout import Side
from referee.rules_options import RuleOptions

__all__ = ["PairsFormat", "TableSetup", "TableSetupError", "Variation"]

PAIRS_MATCH = 3  # the pairs' match: three points, no cube
MAX_NAME = 40  # a name the console line and the .mat header both hold


class TableSetupError(ValueError):
    """A table setup that cannot be played: the message names the key and what to write instead."""


class Variation(Enum):
    """What the table plays."""

    STANDARD = "standard"  # two players, money play or a match
    PAIRS = "pairs"  # two pairs at one board, one mover a pair per game
    COACHING = "coaching"  # the open coaching game: cubeless, hints on a button, practice
    LESSON = "lesson"  # `referee teach`: a position set up or a recorded game replayed (practice)

    @property
    def practice(self) -> bool:
        """Recorded as practice: the game counts in no match score."""
        return self in (Variation.COACHING, Variation.LESSON)


class PairsFormat(Enum):
    """What the pairs agreed to play before the start."""

    MATCH = "match"  # the three-point cubeless match
    GAME = "game"  # one game (its 1, 2 or 3 points are recorded); the movers swap for a rematch


@dataclass(frozen=True)
class TableSetup:
    """The players at the table and the variation they play.

    ``light`` and ``dark`` are the names of each colour's players: one name (or none: the colour's own
    name is used) at a standard or coaching table, two at pairs, the first of whom moves in game 1.
    """

    variation: Variation = Variation.STANDARD
    light: tuple[str, ...] = ()
    dark: tuple[str, ...] = ()
    pairs_format: PairsFormat = PairsFormat.MATCH

    def __post_init__(self) -> None:
        wanted = 2 if self.variation is Variation.PAIRS else 1
        for side, names in ((Side.LIGHT, self.light), (Side.DARK, self.dark)):
            if self.variation is Variation.PAIRS and len(names) != 2:
                raise TableSetupError(
                    f'pairs need two players for {side.value}, e.g. {side.value} = ["Ann", "Bo"] '
                    f"(the first moves in game 1), got {list(names)!r}"
                )
            if len(names) > wanted:
                raise TableSetupError(
                    f"{side.value} names one player at a {self.variation.value} table, got {list(names)!r}"
                )
            for name in names:
                _check_name(name, side)

    # ---- what the setup implies -------------------------------------------------------------------

    @property
    def names(self) -> tuple[str, str]:
        """The record's and the .mat's name for each colour (light first): ``"Ann & Bo"`` for a pair."""
        light = " & ".join(self.light) or Side.LIGHT.value
        dark = " & ".join(self.dark) or Side.DARK.value
        return light, dark

    @property
    def practice(self) -> bool:
        return self.variation.practice

    @property
    def cubeless(self) -> bool:
        """Pairs, coaching and lessons are played without the cube."""
        return self.variation is not Variation.STANDARD

    @property
    def match_length(self) -> int | None:
        """The length the variation sets (None: the table's own ``match_length``; 0 = money play)."""
        if self.variation is Variation.PAIRS:
            return PAIRS_MATCH if self.pairs_format is PairsFormat.MATCH else 0
        if self.practice:
            return 0  # practice games are single games that count in no match
        return None

    def settle(self, match_length: int | None, rules: RuleOptions) -> tuple[int | None, RuleOptions]:
        """The match length (0 or None: money play) and rules the table plays: the variation's where it
        sets them. ``match_length`` is the table's own (None when it names none)."""
        length = self.match_length
        if length is None:
            return match_length, rules
        if match_length is not None and (match_length or 0) != length:
            what = f"the {self.variation.value} variation plays " + (
                "money games that count in no match" if self.practice else self._format_words()
            )
            raise TableSetupError(f"{what}: leave [referee] match_length out")
        return length or None, replace(rules, cubeless=True)

    def _format_words(self) -> str:
        return "the three-point cubeless match" if self.pairs_format is PairsFormat.MATCH else "one game"

    def movers(self, games_played: int) -> tuple[str, str]:
        """Who rolls and moves for light and for dark in the game after ``games_played`` counted games:
        the movers swap within each pair every game."""
        if self.variation is not Variation.PAIRS:
            return self.names
        k = games_played % 2
        return self.light[k], self.dark[k]

    # ---- the config table -------------------------------------------------------------------------

    @classmethod
    def from_toml(cls, table: Mapping[str, Any]) -> TableSetup:
        """Reads the config's ``[table]``: ``variation``, ``format`` (pairs), ``light`` and ``dark``."""
        if not isinstance(table, Mapping):
            raise TableSetupError(f"[table] must be a table of name = value, got {type(table).__name__}")
        known = {"variation", "format", "light", "dark"}
        unknown = sorted(set(table) - known)
        if unknown:
            raise TableSetupError(
                f"unknown key(s) in [table]: {', '.join(map(str, unknown))}; "
                f"known are {', '.join(sorted(known))}"
            )
        offered = [v.value for v in Variation if v is not Variation.LESSON]  # lessons are `referee teach`
        variation = table.get("variation", Variation.STANDARD.value)
        if variation not in offered:
            raise TableSetupError(
                f"[table] variation must be {', '.join(map(repr, offered))}, got {variation!r}"
            )
        kind = Variation(variation)
        if "format" in table and kind is not Variation.PAIRS:
            raise TableSetupError('[table] format is for pairs (variation = "pairs"): leave it out')
        formats = [f.value for f in PairsFormat]
        fmt = table.get("format", PairsFormat.MATCH.value)
        if fmt not in formats:
            raise TableSetupError(
                f"[table] format must be {' or '.join(map(repr, formats))} (the three-point cubeless match, "
                f"or one game), got {fmt!r}"
            )
        return cls(kind, _names(table, Side.LIGHT), _names(table, Side.DARK), PairsFormat(fmt))


def _names(table: Mapping[str, Any], side: Side) -> tuple[str, ...]:
    value = table.get(side.value, ())
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence) or not all(isinstance(v, str) for v in value):
        raise TableSetupError(
            f'[table] {side.value} is a name ("Ann") or, for pairs, two names (["Ann", "Bo"]); got {value!r}'
        )
    return tuple(v.strip() for v in value)


def _check_name(name: str, side: Side) -> None:
    # the .mat's names-and-score line and header take any name without a colon, quote or line break
    if not name or len(name) > MAX_NAME or any(c in name for c in ':"\n\r\t') or "&" in name:
        raise TableSetupError(
            f"{side.value}'s player name {name!r} must be 1 to {MAX_NAME} characters without : \" & or a "
            "line break"
        )
