"""The optional rules a table switches on, in one immutable value.

    >>> RuleOptions.from_mapping({"beavers": True}).beavers
    True
    >>> RuleOptions.from_mapping({"beaver": True})
    Traceback (most recent call last):
    referee.rules_options.RuleOptionsError: unknown rule option(s) beaver: known are ...

Jacoby, beavers and automatic doubles are money-game rules (as in GNU Backgammon): a match game ignores
them. ``cubeless`` removes the cube altogether (the three-point house match of the seeds). Tournament
policies, agreed before the match, are ``moves`` and ``monitor``:

    >>> rules = RuleOptions.from_mapping({"tournament_mode": True, "moves": "responsible", "monitor": False})
    >>> rules.moves, rules.pends_illegal
    (<MovesRule.RESPONSIBLE: 'responsible'>, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any

PHYSICAL_CUBE_MAX = 64  # the highest face of a real doubling cube


class RuleOptionsError(ValueError):
    """A rule option that does not exist or has a value it cannot take."""


class MovesRule(Enum):
    """What happens to an illegal play at a tournament (WBGF: the director names one; Legal Moves when
    none is named)."""

    LEGAL = "legal"  # Legal Moves: noticed before the opponent's next roll, it must be corrected
    RESPONSIBLE = "responsible"  # Responsible Moves: the opponent may accept it or have it corrected


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """Optional rules of a table; the defaults are the plain rules with the house remedy for errors.

    - ``jacoby``: in a money game, gammons and backgammons count as single games while the cube is
      centred (never turned by a player; automatic doubles leave it centred).
    - ``beavers``: in a money game, a player who is doubled may beaver: take and at once redouble, keeping
      the cube, so it stands at four times its value before the double.
    - ``automatic_doubles``: in a money game, each tie on the opening roll doubles the cube, which stays
      centred, at most ``automatic_double_cap`` times a game (a cap of 2 lets the cube reach 4).
    - ``max_cube``: the highest value the cube may reach, a power of two from 2 to 64.
    - ``tournament_mode``: an illegal play is dealt with by the tournament's policies (``moves``,
      ``monitor``); otherwise (the house remedy) the referee calls it at once, the pre-roll position is
      restored and the same numbers are played again.
    - ``on_checker_valid``: a die resting flat on a checker counts; by default it is thrown again.
    - ``cubeless``: there is no cube; nobody may double.
    - ``moves`` (tournament mode): :class:`MovesRule`, Legal Moves unless the director names Responsible
      Moves (the opponent may then accept an illegal play, and it stands once the opponent rolls).
    - ``monitor`` (tournament mode): both players agreed before the match that the referee points out
      an illegal play (USBGF: a monitor may only then). Without that agreement the referee records the
      play with its evidence and says nothing unless a player asks (the CHECK button) before the next
      roll; once the next roll is thrown the play stands.
    """

    jacoby: bool = False
    beavers: bool = False
    automatic_doubles: bool = False
    automatic_double_cap: int = 1
    max_cube: int = PHYSICAL_CUBE_MAX
    tournament_mode: bool = False
    on_checker_valid: bool = False
    cubeless: bool = False
    moves: MovesRule = MovesRule.LEGAL
    monitor: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "moves":
                if not isinstance(value, MovesRule):
                    raise RuleOptionsError(f"rule option moves must be a MovesRule, got {value!r}")
                continue
            wanted = int if f.type in ("int", int) else bool
            # bool is an int in Python; an int where a bool belongs (or the reverse) is a config slip
            if type(value) is not wanted:
                raise RuleOptionsError(
                    f"rule option {f.name} must be {'a whole number' if wanted is int else 'true or false'}, "
                    f"got {value!r}"
                )
        if not 2 <= self.max_cube <= PHYSICAL_CUBE_MAX or self.max_cube & (self.max_cube - 1):
            raise RuleOptionsError(
                f"max_cube must be a power of two from 2 to {PHYSICAL_CUBE_MAX} "
                f"(a cube face), got {self.max_cube}"
            )
        if not 0 <= self.automatic_double_cap <= 6:
            raise RuleOptionsError(
                "automatic_double_cap counts automatic doubles per game, 0..6, "
                f"got {self.automatic_double_cap}"
            )
        if not self.tournament_mode and (self.moves is not MovesRule.LEGAL or not self.monitor):
            raise RuleOptionsError(
                "moves and monitor are tournament policies: set tournament_mode = true with them "
                "(at a house table the referee points out every illegal play and it is replayed)"
            )

    @property
    def pends_illegal(self) -> bool:
        """An illegal play waits on the table (for the opponent's word, or a player's question) instead
        of being refused at once: under Responsible Moves, or when the players did not agree to a
        monitor."""
        return self.tournament_mode and (self.moves is MovesRule.RESPONSIBLE or not self.monitor)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RuleOptions:
        """Reads options from a config table (TOML ``[rules]``); unknown keys are refused by name."""
        if not isinstance(data, Mapping):
            raise RuleOptionsError(f"rule options must be a table of name = value, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RuleOptionsError(
                f"unknown rule option(s) {', '.join(map(str, unknown))}: known are {', '.join(sorted(known))}"
            )
        values = dict(data)
        if "moves" in values:
            names = ", ".join(f'"{m.value}"' for m in MovesRule)
            try:
                values["moves"] = MovesRule(values["moves"])
            except (ValueError, TypeError):
                raise RuleOptionsError(
                    f"rule option moves must be {names} (Legal or Responsible Moves), got {values['moves']!r}"
                ) from None
        return cls(**values)

    def to_mapping(self) -> dict[str, Any]:
        """JSON-ready (the inverse of :meth:`from_mapping`)."""
        return {f.name: getattr(self, f.name) for f in fields(self)} | {"moves": self.moves.value}
