"""gnubg Match ID: 12 base64 characters for cube, score, turn and dice.

The 72-bit key (little-endian, as in gnubg's ``matchid.c``) holds, from bit 0: log2 of the cube (4 bits),
the cube owner (2: 0, 1, or 3 for centred), the player on roll (1), the Crawford flag (1), the game
state (3), the player who must decide now (1), a double being offered (1), a resignation offered (2),
the two dice, larger first (3 each), the match length (15, 0 for money) and the two scores (15 each);
bit 66 is set when the Jacoby rule is *off*.

    >>> s = decode_match_id('cIkKAAAAAAAE')
    >>> s.dice, s.match_length, s.cube_owner, s.jacoby
    ((5, 2), 0, None, False)
    >>> encode_match_id(s)
    'cIkKAAAAAAAE'
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass

__all__ = [
    "GAME_DROPPED",
    "GAME_NONE",
    "GAME_OVER",
    "GAME_PLAYING",
    "GAME_RESIGNED",
    "MatchIdError",
    "MatchState",
    "decode_match_id",
    "encode_match_id",
]

# gnubg's ``gamestate`` values.
GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROPPED = range(5)
MAX_SCORE = 0x7FFF
_ID_RE = re.compile(r"[A-Za-z0-9+/]{12}")


class MatchIdError(ValueError):
    """Text that is not a gnubg Match ID, or a match state that one cannot hold."""


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything a Match ID records. Players are gnubg's 0 and 1 (1 is the bottom player in gnubg).

    ``cube_owner`` is ``None`` for a centred cube; ``turn`` is the player who must act now (the taker
    while a double is offered); ``resigned`` is 0, or 1/2/3 for a single/gammon/backgammon offered;
    ``dice`` is ``None`` before the roll; ``match_length`` 0 means money play.

        >>> MatchState(on_roll=1, turn=1, dice=(5, 2), match_length=9, score=(2, 4)).cube
        1
    """

    cube: int = 1
    cube_owner: int | None = None
    on_roll: int = 0
    crawford: bool = False
    game_state: int = GAME_PLAYING
    turn: int = 0
    double_offered: bool = False
    resigned: int = 0
    dice: tuple[int, int] | None = None
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False

    def __post_init__(self) -> None:
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise MatchIdError(f"cube {self.cube} is not a power of two from 1 to 32768")
        if self.cube_owner not in (None, 0, 1):
            raise MatchIdError(f"cube owner {self.cube_owner!r} must be None (centred), 0 or 1")
        for name in ("on_roll", "turn"):
            if getattr(self, name) not in (0, 1):
                raise MatchIdError(f"{name} must be player 0 or 1, got {getattr(self, name)!r}")
        if not GAME_NONE <= self.game_state <= GAME_DROPPED:
            raise MatchIdError(f"game state {self.game_state} is not one of gnubg's 0..4")
        if not 0 <= self.resigned <= 3:
            raise MatchIdError("resigned must be 0 (none) or 1..3 (single, gammon, backgammon)")
        if self.dice is not None and (len(self.dice) != 2 or not all(1 <= d <= 6 for d in self.dice)):
            raise MatchIdError(f"dice {self.dice!r} must be two numbers from 1 to 6, or None")
        if not 0 <= self.match_length <= MAX_SCORE:
            raise MatchIdError(f"match length {self.match_length} must be 0 (money) to {MAX_SCORE}")
        if len(self.score) != 2 or not all(0 <= s <= MAX_SCORE for s in self.score):
            raise MatchIdError(f"score {self.score!r} must be two numbers from 0 to {MAX_SCORE}")
        if self.match_length and any(s > self.match_length for s in self.score):
            raise MatchIdError(f"score {self.score} exceeds the match length {self.match_length}")
        if not self.match_length and self.crawford:
            raise MatchIdError("money play has no Crawford game")


def _fields(state: MatchState) -> list[tuple[int, int]]:
    """(width, value) of each field in key order."""
    d1, d2 = sorted(state.dice, reverse=True) if state.dice else (0, 0)  # gnubg stores the larger die first
    return [
        (4, state.cube.bit_length() - 1),
        (2, 3 if state.cube_owner is None else state.cube_owner),
        (1, state.on_roll),
        (1, int(state.crawford)),
        (3, state.game_state),
        (1, state.turn),
        (1, int(state.double_offered)),
        (2, state.resigned),
        (3, d1),
        (3, d2),
        (15, state.match_length),
        (15, state.score[0]),
        (15, state.score[1]),
        (1, int(not state.jacoby)),
    ]


def encode_match_id(state: MatchState) -> str:
    """The Match ID gnubg writes for ``state``."""
    key, bit = 0, 0
    for width, value in _fields(state):
        key |= value << bit
        bit += width
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def decode_match_id(text: str) -> MatchState:
    """The match state of a gnubg Match ID; refuses what gnubg refuses (bad dice, scores past the length)."""
    text = text.strip()
    if not _ID_RE.fullmatch(text):
        raise MatchIdError(
            f"{text!r} is not a Match ID: expected 12 characters from A-Z a-z 0-9 + / "
            "(copy it from gnubg, e.g. cIkKAAAAAAAE)"
        )
    key = int.from_bytes(base64.b64decode(text), "little")
    if key >> 67:
        raise MatchIdError(f"{text!r} has bits set beyond bit 66: not a gnubg Match ID")
    values: list[int] = []
    bit = 0
    for width, _ in _fields(MatchState()):
        values.append(key >> bit & ((1 << width) - 1))
        bit += width
    (log_cube, owner, on_roll, crawford, game_state, turn, doubled, resigned, d1, d2, length, s0, s1,
     no_jacoby) = values  # fmt: skip
    if owner == 2:
        raise MatchIdError(f"{text!r} gives the cube owner code 2, which gnubg never writes")
    if (d1 == 0) != (d2 == 0) or d1 > 6 or d2 > 6:
        raise MatchIdError(f"{text!r} has dice {d1}-{d2}: each die must be 1..6, or both 0 before the roll")
    try:
        return MatchState(
            cube=1 << log_cube,
            cube_owner=None if owner == 3 else owner,
            on_roll=on_roll,
            crawford=bool(crawford),
            game_state=game_state,
            turn=turn,
            double_offered=bool(doubled),
            resigned=resigned,
            dice=(d1, d2) if d1 else None,
            match_length=length,
            score=(s0, s1),
            jacoby=not no_jacoby,
        )
    except MatchIdError as e:
        raise MatchIdError(f"{text!r} is not a valid Match ID: {e}") from None
