"""gnubg Position ID: 14 base64 characters for the checkers of both sides.

gnubg packs the side *not* on roll first, then the side on roll; for each side, points 1..24 and then the
bar, each as one ``1`` bit per checker followed by a ``0``. The 80-bit string is stored little-endian in
10 bytes and written as base64 without padding.

    >>> from bgboard.position import START
    >>> encode_position_id(START)
    '4HPwATDgc/ABMA'
    >>> decode_position_id('4HPwATDgc/ABMA') == START
    True
"""

from __future__ import annotations

import base64
import binascii
import re

from bgboard.position import BAR, CHECKERS, Counts, Position, PositionError

__all__ = ["PositionIdError", "decode_position_id", "encode_position_id"]

_ID_RE = re.compile(r"[A-Za-z0-9+/]{14}")
_KEY_BITS = 80


class PositionIdError(ValueError):
    """Text that is not a gnubg Position ID, or one that gnubg itself would refuse."""


def encode_position_id(pos: Position) -> str:
    """The Position ID gnubg shows for ``pos`` (the player on roll is ``pos.player``)."""
    key = 0
    bit = 0
    for side in (pos.opponent, pos.player):  # gnubg's order: the side not on roll first
        for n in side:
            key |= ((1 << n) - 1) << bit  # n one-bits, then the zero that ends the point
            bit += n + 1
    return base64.b64encode(key.to_bytes(10, "little")).decode("ascii")[:14]


def decode_position_id(text: str) -> Position:
    """The position a gnubg Position ID describes, seen from the player on roll.

    Raises :class:`PositionIdError` for anything gnubg would not accept, and for IDs with stray padding
    bits, so that ``encode_position_id(decode_position_id(t)) == t`` for every accepted ``t``.
    """
    text = text.strip()
    if not _ID_RE.fullmatch(text):
        raise PositionIdError(
            f"{text!r} is not a Position ID: expected 14 characters from A-Z a-z 0-9 + / "
            "(copy it from gnubg, e.g. 4HPwATDgc/ABMA)"
        )
    try:
        raw = base64.b64decode(text + "==", validate=True)
    except binascii.Error as e:  # cannot happen after the pattern check, kept for safety
        raise PositionIdError(f"{text!r} is not valid base64: {e}") from None
    if base64.b64encode(raw).decode("ascii")[:14] != text:
        raise PositionIdError(f"{text!r} has stray bits in its last character; it is not a gnubg Position ID")
    key = int.from_bytes(raw, "little")
    sides: list[list[int]] = [[0] * 25, [0] * 25]
    side, point = 0, 0
    for bit in range(_KEY_BITS):
        if side == 2:
            if key >> bit:
                raise PositionIdError(f"{text!r} has checkers beyond both sides' bars: not a Position ID")
            break
        if key >> bit & 1:
            sides[side][point] += 1
        else:
            point += 1
            if point == 25:
                side, point = side + 1, 0
    if side < 2:
        raise PositionIdError(f"{text!r} describes more than 30 checkers: not a Position ID")
    not_on_roll, on_roll = (tuple(s) for s in sides)
    for name, counts in (("player not on roll", not_on_roll), ("player on roll", on_roll)):
        if sum(counts) > CHECKERS:
            raise PositionIdError(f"{text!r} gives the {name} {sum(counts)} checkers; a side has {CHECKERS}")
    try:
        pos = Position(on_roll, not_on_roll)
    except PositionError as e:
        raise PositionIdError(f"{text!r} is not a possible position: {e}") from None
    if _both_barred_against_closed_boards(pos.player, pos.opponent):
        raise PositionIdError(
            f"{text!r} has both sides on the bar against closed boards, which gnubg refuses"
        )
    return pos


def _both_barred_against_closed_boards(a: Counts, b: Counts) -> bool:
    # gnubg's CheckPosition: a position where neither side could ever move again is refused.
    closed = all(a[i] >= 2 and b[i] >= 2 for i in range(6))
    return closed and a[BAR] > 0 and b[BAR] > 0
