"""The roll a play fits, when the referee could not read the throw.

A die the reader cannot make out leaves the referee waiting ("cannot read a die"). Players at a table
play on regardless: they read their dice, move, and lift them. The settled board then says which roll
was played: of every roll the faces read allow (a die read stays as read, a die not read may show any
face), the rolls for which the board is a legal result. The table is asked whether the likeliest of
them was the roll and the play (ACCEPT records both), and where several fit, about the next one after a
while, round and round until it answers; a board read doubtfully is asked about the same way, by its
likeliest play, once it has stayed so for a while, as any unclear play is. When none fits, or nothing
moved, the referee goes on waiting. It does not take the roll on the play alone: a play that fits one
roll is also what a player who miscounted would leave. Only when the table leaves the question
unanswered and the next roller throws does the play stand, as the rules have it, and only where one
roll fits it (``Session._played_unread``). A board read surely that no roll the dice may have shown makes
a legal result (a die read less than surely may show any face) is an illegal play whatever was thrown
(``Played.illegal``).

    >>> rolls_allowed((6, None))
    [(6, 6), (6, 5), (6, 4), (6, 3), (6, 2), (6, 1)]
    >>> len(rolls_allowed((None, None)))
    21
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bgboard.layout import Board, Orientation, Side
from referee.moves import Play, legal_plays
from referee.observe import Verdict, explain
from vision.reading import BoardReading

FACES = range(1, 7)


def rolls_allowed(faces: Sequence[int | None]) -> list[tuple[int, int]]:
    """Every roll (higher die first, each once) that dice showing ``faces`` may be: a face read is
    kept, a face not read (None) is any; one die seen that may be two (``(None,)``) is any roll."""
    first, second = (*faces, None)[:2]
    rolls = {
        (max(a, b), min(a, b))
        for a in (FACES if first is None else (first,))
        for b in (FACES if second is None else (second,))
    }
    return sorted(rolls, reverse=True)


@dataclass(frozen=True)
class Fit:
    """A roll a play fits, and the play; ``sure`` when the reading shows that play, not only likeliest
    among the plays a doubtful count leaves open (the table is then asked after a while)."""

    roll: tuple[int, int]
    play: Play
    sure: bool


@dataclass(frozen=True)
class Played:
    """What the board after a throw not read says of the play: the rolls it fits (``Fit``), likeliest
    first; and, where the board is read surely and fits none of them, that board (``illegal``: an
    illegal play whatever was thrown)."""

    fits: list[Fit]
    illegal: Board | None = None


def roll_played(
    reading: BoardReading,
    orientation: Orientation,
    mover: Side,
    before: Board,
    faces: Sequence[int | None],
    likeliest: Sequence[int | None] = (),
) -> Played:
    """Every roll of those ``faces`` allow for which the board ``reading`` shows (or, read doubtfully,
    most likely shows) is a legal result of ``mover``'s play from ``before``, likeliest first: the rolls
    with more of the ``likeliest`` faces of the dice not read (as the reader ranked them), then the
    higher. None fits where the board shows no move or none of them; where it is read surely and is no
    legal result of any, it is ``illegal``."""
    start = before.position(mover)
    plays = {roll: legal_plays(start, roll) for roll in rolls_allowed(faces)}
    seen = explain(reading, orientation, mover, before, [p for ps in plays.values() for p in ps])
    if seen.verdict is Verdict.LEGAL and seen.play is not None:
        shown, sure = seen.play, True
    elif seen.verdict is Verdict.UNCLEAR and seen.candidates:
        shown, sure = seen.candidates[0], False
    else:
        moved = seen.verdict is Verdict.ILLEGAL and seen.board is not None and seen.board != before
        return Played([], seen.board if moved else None)
    if shown.result == start:
        return Played([])
    fits: dict[tuple[int, int], Play] = {}
    for roll, ps in plays.items():
        for p in ps:
            if p.result == shown.result:
                fits.setdefault(roll, p)  # one play per roll: its ways of writing reach the same board
    hinted = [f for f in likeliest if f is not None]
    ranked = sorted(fits, key=lambda roll: (-sum(f in roll for f in hinted), [-d for d in roll]))
    return Played([Fit(roll, fits[roll], sure) for roll in ranked])
