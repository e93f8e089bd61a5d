"""Teacher narration: every event at the table in plain words, for the console and the record.

>>> from referee.moves import legal_plays
>>> from bgboard.position import Position
>>> pos = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 1, 20: 1})
>>> play = [p for p in legal_plays(pos, (3, 2)) if p.text == "8/5* 6/4"][0]
>>> describe_play(Side.DARK, (3, 2), pos, play)[1]
"dark hits the blot on light's 20-point"
"""

from __future__ import annotations

from bgboard.layout import Side
from bgboard.position import BAR, Position
from referee.moves import Play

KINDS = {1: "a single game", 2: "a gammon", 3: "a backgammon"}


def dice_text(dice: tuple[int, int]) -> str:
    """``(1, 3)`` -> ``"3-1"``, the way players call a roll."""
    return f"{max(dice)}-{min(dice)}"


def _all_home(side: tuple[int, ...]) -> bool:
    return not any(side[6:])


def describe_play(mover: Side, dice: tuple[int, int], before: Position, play: Play) -> list[str]:
    """Sentences for one legal play: the play itself, then hits, entries, points made, bearing off.

    ``before`` and ``play.result`` are seen from ``mover``.
    """
    who, other = mover.value, mover.other.value
    if not play.moves:
        return [f"{who} cannot move with {dice_text(dice)}"]
    lines = [f"{who} plays {dice_text(dice)}: {play.text}"]
    entries: list[int] = []
    for move in play.moves:
        if move.src == 25:
            entries.append(move.dst)
        if move.hit:
            lines.append(f"{who} hits the blot on {other}'s {25 - move.dst}-point")
    for dst in entries:
        lines.append(f"{who} enters from the bar on {other}'s {25 - dst}-point")
    after = play.result
    made = [i + 1 for i in range(24) if before.player[i] < 2 <= after.player[i]]
    for point in sorted(made, reverse=True):
        lines.append(f"{who} makes the {point}-point")
    if after.opponent[BAR] > before.opponent[BAR]:
        n = after.opponent[BAR]
        lines.append(f"{other} has {n} checker{'s' if n > 1 else ''} on the bar")
    borne = after.off_player - before.off_player
    if not _all_home(before.player) and (borne or _all_home(after.player)):
        lines.append(f"{who} has all checkers home and may now bear off")
    if borne:
        lines.append(f"{who} bears off {borne} checker{'s' if borne > 1 else ''} ({after.off_player} off)")
    return lines


def describe_score(light: int, dark: int, length: int | None) -> str:
    """``"match score: light 2, dark 0 (to 3)"``."""
    to = f" (to {length})" if length else ""
    return f"match score: light {light}, dark {dark}{to}"
