"""XGID, the position text of eXtreme Gammon, read and written the way gnubg's ``SetXGID`` reads it.

``XGID=PPPPPPPPPPPPPPPPPPPPPPPPPP:CV:CP:T:D:S1:S2:CJ:ML:MC``

- ``P``: 26 characters seen from the bottom player: the top player's bar, points 1..24 of the bottom
  player, the bottom player's bar. ``-`` is empty, ``A``..``O`` are 1..15 bottom checkers, ``a``..``o``
  top checkers.
- ``CV`` log2 of the cube; ``CP`` cube position (1 bottom owns, -1 top owns, 0 centred); ``T`` the player
  on roll (1 bottom, -1 top); ``D`` the dice (``00`` not yet rolled, ``D`` the player on roll has doubled
  and the other must take or drop, or two digits); ``S1``/``S2`` the bottom and top scores; ``CJ`` in a
  match 1 for the Crawford game, in money play 1 for Jacoby plus 2 for beavers; ``ML`` the match length
  (0 money); ``MC`` log2 of the largest cube allowed.

gnubg maps the bottom player to its player 1 and the top player to its player 0; :class:`MatchState`
uses that numbering, and :class:`Xgid.position` is seen from ``state.on_roll``.

    >>> from bgboard.position import START
    >>> x = decode_xgid('XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10')
    >>> x.position == START, x.state.dice, x.state.on_roll
    (True, (5, 2), 1)
    >>> encode_xgid(*x)
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10'
"""

from __future__ import annotations

import re
from typing import NamedTuple

from bgboard.position import BAR, Position, PositionError
from referee.notation.match_id import GAME_PLAYING, MatchIdError, MatchState

__all__ = ["Xgid", "XgidError", "decode_xgid", "encode_xgid"]

_XGID_RE = re.compile(
    r"(?:XGID=)?(?P<pos>[-A-Oa-o]{26}):(?P<cv>\d+):(?P<cp>-?\d+):(?P<t>-?\d+):(?P<d>[0-9A-Za-z]{1,2})"
    r":(?P<s1>\d+):(?P<s2>\d+):(?P<cj>\d+):(?P<ml>\d+)(?::(?P<mc>\d+))?"
)


class XgidError(ValueError):
    """Text that is not an XGID, or a state that an XGID cannot express."""


class Xgid(NamedTuple):
    """A decoded XGID: ``encode_xgid(*decode_xgid(text))`` gives ``text`` back (with the ``XGID=`` prefix)."""

    position: Position
    state: MatchState
    beavers: bool = False
    max_cube: int = 1024


def _char(n: int, upper: bool) -> str:
    if n == 0:
        return "-"
    return chr((ord("A") if upper else ord("a")) + n - 1)


def encode_xgid(position: Position, state: MatchState, beavers: bool = False, max_cube: int = 1024) -> str:
    """The XGID of ``position`` (seen from ``state.on_roll``) in ``state``.

    Only a game in progress with no resignation pending can be written; ``beavers`` only in money play.
    """
    if state.game_state != GAME_PLAYING or state.resigned:
        raise XgidError("an XGID can only describe a game in progress with no resignation offered")
    if state.double_offered and (state.dice is not None or state.turn == state.on_roll):
        raise XgidError("while a double is offered the dice must be unrolled and the other player to act")
    if not state.double_offered and state.turn != state.on_roll:
        raise XgidError("an XGID cannot show a decision by the player not on roll unless a double is offered")
    if state.match_length and (beavers or state.jacoby):
        raise XgidError("Jacoby and beavers are money-play rules; an XGID of a match cannot carry them")
    if max_cube < 1 or max_cube & (max_cube - 1):
        raise XgidError(f"max cube {max_cube} is not a power of two")
    bottom, top = (
        (position.player, position.opponent) if state.on_roll == 1 else (position.opponent, position.player)
    )
    chars = [_char(top[BAR], upper=False)]
    for i in range(24):
        if bottom[i]:
            chars.append(_char(bottom[i], upper=True))
        else:
            chars.append(_char(top[23 - i], upper=False))
    chars.append(_char(bottom[BAR], upper=True))
    if state.double_offered:
        dice = "D"
    elif state.dice is None:
        dice = "00"
    else:
        dice = f"{state.dice[0]}{state.dice[1]}"
    owner = {None: 0, 1: 1, 0: -1}[state.cube_owner]
    rules = int(state.crawford) if state.match_length else int(state.jacoby) + 2 * int(beavers)
    fields = [
        "".join(chars),
        str(state.cube.bit_length() - 1),
        str(owner),
        "1" if state.on_roll == 1 else "-1",
        dice,
        str(state.score[1]),
        str(state.score[0]),
        str(rules),
        str(state.match_length),
        str(max_cube.bit_length() - 1),
    ]
    return "XGID=" + ":".join(fields)


def decode_xgid(text: str) -> Xgid:
    """Reads an XGID (with or without ``XGID=``); the max-cube field may be left out (then 1024)."""
    text = text.strip()
    m = _XGID_RE.fullmatch(text)
    if not m:
        raise XgidError(
            f"{text!r} is not an XGID: expected XGID=<26 characters of -, A-O, a-o>:cube:owner:turn:dice:"
            "score:score:rules:length:maxcube, e.g. XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
        )
    pos = m["pos"]
    bottom, top = [0] * 25, [0] * 25
    for i, c in enumerate(pos):
        if c == "-":
            continue
        n = ord(c.lower()) - ord("a") + 1
        if i in (0, 25) and c.isupper() != (i == 25):
            raise XgidError(
                f"{text!r}: character {i} is a bar and holds only the {'bottom' if i else 'top'} player"
            )
        if c.isupper():
            bottom[BAR if i == 25 else i - 1] = n
        else:
            top[BAR if i == 0 else 24 - i] = n
    cube_log, owner_code, turn_code = int(m["cv"]), int(m["cp"]), int(m["t"])
    if cube_log > 15:
        raise XgidError(f"{text!r}: cube value 2^{cube_log} is beyond 2^15")
    if owner_code not in (-1, 0, 1) or turn_code not in (-1, 1):
        raise XgidError(f"{text!r}: cube position must be -1, 0 or 1 and turn -1 or 1")
    on_roll = 1 if turn_code == 1 else 0
    dice_text = m["d"]
    double_offered = dice_text == "D"
    dice: tuple[int, int] | None = None
    if not double_offered and dice_text != "00":
        if not re.fullmatch(r"[1-6]{2}", dice_text):
            raise XgidError(
                f"{text!r}: dice {dice_text!r} must be 00 (not rolled), D (doubled) or two digits 1-6 "
                "(beavers and raccoons offered are not supported)"
            )
        dice = (int(dice_text[0]), int(dice_text[1]))
    length, rules = int(m["ml"]), int(m["cj"])
    if rules > (1 if length else 3):
        raise XgidError(f"{text!r}: rules field {rules} must be 0-1 in a match, 0-3 in money play")
    max_log = int(m["mc"]) if m["mc"] is not None else 10
    if max_log > 15:
        raise XgidError(f"{text!r}: max cube 2^{max_log} is beyond 2^15")
    try:
        state = MatchState(
            cube=1 << cube_log,
            cube_owner={0: None, 1: 1, -1: 0}[owner_code],
            on_roll=on_roll,
            crawford=bool(rules) if length else False,
            game_state=GAME_PLAYING,
            turn=1 - on_roll if double_offered else on_roll,
            double_offered=double_offered,
            dice=dice,
            match_length=length,
            score=(int(m["s2"]), int(m["s1"])),
            jacoby=bool(rules & 1) if not length else False,
        )
        bottom_t, top_t = tuple(bottom), tuple(top)
        position = Position(bottom_t, top_t) if on_roll == 1 else Position(top_t, bottom_t)
    except (MatchIdError, PositionError) as e:
        raise XgidError(f"{text!r} is not a valid XGID: {e}") from None
    return Xgid(position, state, beavers=bool(rules & 2) if not length else False, max_cube=1 << max_log)
