"""The dice of settled frames: when they are a new throw, and whether that throw counts.

Dice count once ``frames`` settled readings in a row show them lying in the same places, and they count
as the readings since they came to rest agree (:func:`agreed`): a camera keeps giving frames of a still
throw, each with its own noise, so a face counts only where most of them read it, and a flag some read
and others do not (cocked, beyond the field) is in doubt, and the table is asked. Dice the referee has
already dealt with (a roll it took, a throw it called to be thrown again) are not a new throw while they
lie where they lay, whatever a frame reads them as; once they are lifted, or the board moves after a
call to throw again, whatever settles next is.

A die must be thrown again when it lies off the field or on the bar, leans (cocked), rests on a checker
(unless the table lets that count), or lies outside the roller's right-hand half.

    >>> from vision.reading import DieReading
    >>> box = (880.0, 340.0, 920.0, 380.0)
    >>> problem(DieReading(None, (900.0, 360.0), box, 0.9, cocked=True, half=Half.RIGHT), False)
    'is cocked'
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum

from bgboard.layout import Half, Orientation, Side
from referee import narration
from vision.reading import DieReading

Dice = Sequence[DieReading]


def problem(die: DieReading, on_checker_valid: bool) -> str | None:
    """Why ``die`` must be thrown again wherever it lies, or None."""
    if die.outside_field or die.half is None:
        return "landed outside the playing field"
    if die.cocked:
        return "is cocked"
    if die.on_checker and not on_checker_valid:
        return "rests on a checker"
    return None


# A die read less surely than this may show another face: a play that another face makes legal is not
# called illegal on its reading (the table is asked which roll it was). A die is read at this confidence
# or above nearly always rightly; below it, now and then another face with the same look.
SURE_ROLL = 0.9
# A still die's readings weighed together (:func:`agreed`): the last ten seconds or so at the few frames
# a second a Raspberry Pi reads, longer than dice lie still before they are called.
KEPT_READINGS = 64
# A lone die read less surely than this may be two dice lying together seen as one: the crop holds the
# other die's pips, so no face stands out (the reader's own bar for a half of such a pair). The referee
# waits rather than call "only one die" on a good throw.
LONE_DIE_SURE = 0.7


def faces(die: DieReading) -> tuple[int, ...]:
    """The faces a counted die may show: its own when read surely, else any (its own first).

    >>> faces(DieReading(4, (0.0, 0.0), (0.0, 0.0, 1.0, 1.0), 0.99))
    (4,)
    >>> faces(DieReading(4, (0.0, 0.0), (0.0, 0.0, 1.0, 1.0), 0.8))
    (4, 1, 2, 3, 5, 6)
    """
    value = die.value or 0
    if die.confidence >= SURE_ROLL:
        return (value,)
    return (value, *(f for f in range(1, 7) if f != value))


def surely_read(dice: Dice) -> tuple[int | None, ...]:
    """The faces of ``dice`` read at ``SURE_ROLL`` or above; None for the others, which may show any face
    (as ``referee.unread.rolls_allowed`` takes them).

    >>> surely_read([DieReading(4, (0.0, 0.0), (0.0, 0.0, 1.0, 1.0), c) for c in (0.99, 0.8)])
    (4, None)
    """
    return tuple(d.value if d.confidence >= SURE_ROLL else None for d in dice)


def faces_played(read: Sequence[int | None], roll: tuple[int, int]) -> tuple[int | None, ...]:
    """The face of each die that the ``roll`` the table confirmed says, given the faces ``read`` surely
    (None: not read surely; :func:`surely_read`): a double gives every die its number; otherwise a die
    read surely keeps its face and the other die takes the roll's other number. None where that leaves
    a doubt: two dice not read, or a face read that the roll does not hold.

    >>> faces_played((6, None), (6, 3)), faces_played((None, None), (4, 4))
    ((6, 3), (4, 4))
    >>> faces_played((None, None), (6, 3)), faces_played((5, None), (6, 3))
    ((None, None), (None, None))
    """
    a, b = roll
    if a == b:
        return tuple(a for _ in read)
    if len(read) != 2 or sorted(f for f in read if f is not None) not in ([a], [b], sorted(roll)):
        return tuple(None for _ in read)
    first, second = read
    if first is None:
        return (a + b - second, second) if second is not None else (None, None)
    return (first, a + b - first)


def lessons(dice: Dice, faces: Sequence[int | None]) -> list[tuple[DieReading, int]]:
    """What a confirmed throw teaches the reader: each die of ``dice`` read below ``SURE_ROLL`` that
    ``faces`` (one a die, None where the confirmation does not say) gives a face, with that face.

    >>> seen = [DieReading(4, (0.0, 0.0), (0.0, 0.0, 1.0, 1.0), c) for c in (0.99, 0.8)]
    >>> [(d.confidence, f) for d, f in lessons(seen, faces_played(surely_read(seen), (4, 2)))]
    [(0.8, 2)]
    """
    read = zip(dice, faces, surely_read(dice), strict=True)
    return [(die, f) for die, f, sure in read if sure is None and f is not None]


def face(die: DieReading) -> int | None:
    """The die's face as read, or its likeliest face where the reader was not sure (None if cocked)."""
    return die.value if die.value is not None else die.likeliest


def _key(dice: Dice) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    return tuple(sorted((d.half.value if d.half else "", d.value or 0, tuple(d.flags)) for d in dice))


def lies_among(die: DieReading, dice: Dice, tolerance: float) -> bool:
    """Whether ``die`` lies where one of ``dice`` lies, within ``tolerance`` pixels (whatever it shows)."""
    return any(math.dist(die.center, d.center) <= tolerance for d in dice)


def same_places(a: Dice, b: Dice, tolerance: float) -> bool:
    """As many dice in ``a`` as in ``b``, each lying where one of the other lies, within ``tolerance``
    pixels (the same dice, whatever a frame reads them as)."""
    return len(a) == len(b) and len(matched(a, b, tolerance)) == len(a)


def same_dice(a: Dice, b: Dice, tolerance: float) -> bool:
    """The same dice lying in the same places, within ``tolerance`` pixels, and read alike."""
    return _key(a) == _key(b) and same_places(a, b, tolerance)


def matched(a: Dice, b: Dice, tolerance: float) -> list[tuple[DieReading, DieReading]]:
    """Each die of ``b`` with the die of ``a`` lying where it lies, where one does (each used once)."""
    unused, pairs = list(a), []
    for d in b:
        match = next((e for e in unused if math.dist(d.center, e.center) <= tolerance), None)
        if match is not None:
            unused.remove(match)
            pairs.append((match, d))
    return pairs


def agreed(readings: Sequence[DieReading]) -> DieReading:
    """One still die as the ``readings`` of it, frame after frame, agree: as the last reads it, at the
    lowest confidence, where they all read it alike; else in doubt.

    - In or out: read inside the field by some and beyond it (or at its edge, or on the bar) by others,
      it lies at the edge (``at_edge``: counted in its half, and the table is asked).
    - Leaning, or resting on a checker, by some readings and not by others: it may lean, so its face is
      unclear (``unreadable``; the question says to throw again if a die leans).
    - Its face: where the readings that name a face (a leaning die names none) name two, none counts.
      Else the face counts where more than half the readings read it (``value``, at the lowest confidence
      they give it), and the table is asked about it where more than half name it, if some only as
      the likeliest of an unclear die. A face one frame in a few shows is the camera's noise.

    >>> box = (0.0, 0.0, 1.0, 1.0)
    >>> sure, unsure = DieReading(3, (0.5, 0.5), box, 0.97), DieReading(3, (0.5, 0.5), box, 0.6)
    >>> d = agreed([sure, unsure, sure]); d.value, d.confidence
    (3, 0.6)
    >>> d = agreed([sure, DieReading(2, (0.5, 0.5), box, 0.95)]); d.value, d.unreadable, d.likeliest
    (None, True, None)
    >>> unclear = DieReading(None, (0.5, 0.5), box, 0.45, unreadable=True)
    >>> [agreed([unclear, unsure, *more]).value for more in ([], [unsure])]
    [None, 3]
    >>> d = agreed([DieReading(None, (0.5, 0.5), box, 0.7, cocked=True), sure])
    >>> d.value, d.cocked, d.unreadable, d.likeliest
    (None, False, True, 3)
    """
    last = readings[-1]
    confidence = min(d.confidence for d in readings)
    if all(_key([d]) == _key([last]) and d.likeliest == last.likeliest for d in readings):
        return replace(last, confidence=confidence)
    out = all(d.outside_field for d in readings)
    halves = {d.half for d in readings}
    at_edge = not out and (len(halves) > 1 or any(d.outside_field or d.at_edge for d in readings))
    half = next((d.half for d in reversed(readings) if d.half is not None), None)
    leans = all(d.cocked for d in readings)
    on_checker = all(d.on_checker for d in readings)
    lies_alike = len({(d.cocked, d.on_checker) for d in readings}) == 1
    flat = [d for d in readings if not d.cocked]
    named = [d.value if d.value is not None else d.likeliest for d in flat]
    faces = {f for f in named if f is not None}
    face = faces.pop() if len(faces) == 1 else None
    valued = [d for d in flat if d.value is not None and d.value == face]
    value = face if lies_alike and 2 * len(valued) > len(flat) else None
    likeliest = face if value is None and 2 * named.count(face) > len(flat) else None
    return replace(
        last,
        value=value,
        confidence=min(d.confidence for d in valued) if value is not None else confidence,
        cocked=leans,
        on_checker=on_checker,
        outside_field=out,
        at_edge=at_edge,
        half=half if not out else None,
        unreadable=value is None and not leans,
        likeliest=likeliest,
    )


class CallKind(Enum):
    """What the referee tells the table about a throw."""

    ROLL = "roll"  # the throw counts: these numbers
    REROLL = "reroll"  # it must be thrown again
    ASK = "ask"  # the reader is not sure of a die: the table is asked whether these are the numbers
    WAIT = "wait"  # the referee cannot see the throw well enough yet, and keeps looking


@dataclass(frozen=True)
class Call:
    """The call on one throw: for ROLL and ASK the numbers (at the opening light's die, then dark's), and
    the reason in words for the others."""

    kind: CallKind
    dice: tuple[int, ...] = ()
    reason: str = ""


def _unsure(dice: Dice, numbers: Sequence[DieReading], opening: bool) -> Call:
    """Dice a reader is not sure of (a face, a lean, or whether a die at the field's edge lies inside it):
    asked about when every face can be made out, else waited on."""
    faces = [face(d) for d in numbers]
    if any(f is None for f in faces):
        return Call(CallKind.WAIT, reason="cannot read a die")
    # the question names the faces as they lie, left to right
    shown = [face(d) or 0 for d in dice]
    at_edge = any(d.at_edge for d in numbers)
    return Call(CallKind.ASK, tuple(f or 0 for f in faces), narration.ask_dice(shown, opening, at_edge))


def call_opening(dice: Dice, orientation: Orientation, on_checker_valid: bool) -> Call:
    """The opening throw, one die each into the thrower's own right-hand half. A bad die is thrown again
    by its owner alone; a die off the field, or the second die in one half, belongs to the side still
    without one and is not in its owner's half."""
    if len(dice) != 2:
        return Call(CallKind.WAIT, reason=f"{len(dice)} dice on the board: the opening roll is one die each")
    by_side: dict[Side, DieReading] = {}
    bad: dict[Side, str] = {}
    homeless = []
    for d in dice:
        owner = next((s for s in Side if orientation.throwing_half(s) == d.half), None)
        if owner is None or owner in by_side:
            homeless.append(d)
        else:
            by_side[owner] = d
    for d in homeless:
        owner = Side.LIGHT if Side.LIGHT not in by_side else Side.DARK
        by_side[owner] = d
        bad[owner] = problem(d, on_checker_valid) or "is not in its owner's half"
    for owner, d in by_side.items():
        why = problem(d, on_checker_valid)
        if why and owner not in bad:
            bad[owner] = why
    if bad:
        return Call(CallKind.REROLL, reason=narration.opening_again(bad))
    light, dark = by_side[Side.LIGHT], by_side[Side.DARK]
    # a die at the field's edge may lie outside it: asked, as a face in doubt is
    if light.value is None or dark.value is None or light.at_edge or dark.at_edge:
        return _unsure(dice, (light, dark), opening=True)
    return Call(CallKind.ROLL, (light.value, dark.value))


def roll_problems(dice: Dice, mover: Side, half: Half, on_checker_valid: bool) -> list[str]:
    """Why ``mover``'s throw of ``dice`` into its ``half`` must be thrown again, die by die."""
    problems = []
    for d in dice:
        why = problem(d, on_checker_valid)
        if why is None and d.half != half:
            why = f"is not in {mover.value}'s right-hand half"
        if why:
            problems.append(f"a die {why}")
    return problems


def call_roll(
    dice: Dice, mover: Side, orientation: Orientation, on_checker_valid: bool, occluded: bool
) -> Call:
    """A throw of two dice into ``mover``'s right-hand half; ``occluded``: something covers the board."""
    if len(dice) == 1 and not occluded and not on_checker_valid:
        (die,) = dice
        if (die.unreadable or die.confidence < LONE_DIE_SURE) and die.half is not None:
            # a lone die on the field that the reader cannot make out, or makes out only unsurely, may be
            # two lying together, seen as one: the referee waits rather than call a good throw bad
            return Call(CallKind.WAIT, reason=narration.lone_unread_die())
        # both dice leave the cup together: one settled on a clear board, the other is off it or on a
        # checker where it was not seen (a reroll too, unless the table lets a die on a checker count:
        # then the referee waits, as a die there may simply be unseen)
        return Call(CallKind.REROLL, reason=narration.one_die(mover))
    if len(dice) != 2:
        return Call(CallKind.WAIT, reason=f"{len(dice)} dice on the board, expected 2")
    problems = roll_problems(dice, mover, orientation.throwing_half(mover), on_checker_valid)
    if problems:
        return Call(CallKind.REROLL, reason="; ".join(problems) + f": {mover.value} throws both dice again")
    first, second = dice
    if first.value is None or second.value is None or first.at_edge or second.at_edge:
        return _unsure(dice, dice, opening=False)
    return Call(CallKind.ROLL, (first.value, second.value))


def call_answer(dice: Dice, opponent: Side, orientation: Orientation, on_checker_valid: bool) -> Call:
    """Tournament mode: the opponent's throw after an illegal play, which makes the play stand. Only a
    clean throw counts (nothing here is asked about: a doubtful die is simply thrown again)."""
    half = orientation.throwing_half(opponent)
    values = [d.value for d in dice]
    doubt = any(d.at_edge for d in dice)  # a die that may lie outside the field is no clean throw
    if len(dice) != 2 or None in values or doubt or roll_problems(dice, opponent, half, on_checker_valid):
        return Call(
            CallKind.REROLL, reason=f"{opponent.value} throws both dice again into the right-hand half"
        )
    return Call(CallKind.ROLL, tuple(v or 0 for v in values))


class ThrowWatch:
    """Which settled dice are a new throw (see the module doc).

    ``early`` notes that the next roller threw before the mover lifted the dice (that roll does not
    count; the verdict on the play says so).
    """

    def __init__(self, frames: int, tolerance: float) -> None:
        self.frames = frames
        self.tolerance = tolerance
        # each die's readings since the dice came to rest where they lie (:func:`agreed`), and how many
        # settled frames showed them
        self._still: list[deque[DieReading]] = []
        self._seen = 0
        self._dealt: Dice | None = None  # dice already dealt with, not a new throw while they lie there
        # the dealt dice were called to be thrown again: once the board moves they are gone or thrown anew
        # (the same numbers may land in the same place again)
        self._again = False
        self.early = False

    def settle(self, dice: Dice) -> Dice | None:
        """Every ``frames`` settled readings of dice lying in the same places, what all the readings since
        they came to rest agree on (:func:`agreed`); None while they are the dice already dealt with."""
        if self._dealt is not None:
            if same_places(dice, self._dealt, self.tolerance):
                self._still, self._seen = [], 0
                return None
            if not dice or len(dice) < len(self._dealt):
                self._dealt = None  # lifted: whatever comes next is a new throw
        if not dice:
            self._still, self._seen = [], 0
            return None
        if not self._followed(dice):
            self._still, self._seen = [deque([d], maxlen=KEPT_READINGS) for d in dice], 0
        self._seen += 1
        if self._seen % self.frames:
            return None
        self._dealt, self._again = None, False
        return tuple(agreed(kept) for kept in self._still)

    def _followed(self, dice: Dice) -> bool:
        """Adds each die of ``dice`` to the readings of the still die lying where it lies; False (nothing
        added) where they do not all lie where the still dice lie."""
        latest = [kept[-1] for kept in self._still]
        if not latest or not same_places(dice, latest, self.tolerance):
            return False
        for was, now in matched(latest, dice, self.tolerance):
            self._still[next(k for k, d in enumerate(latest) if d is was)].append(now)
        return True

    def moving(self) -> None:
        """The board is moving. After a call to throw again a hand came for those dice: whatever settles
        next is a new throw (dice never picked up are simply called again). Not after a roll that counted,
        where a hand moving checkers must not make the roll's dice new."""
        self._still, self._seen = [], 0
        if self._again:
            self._dealt, self._again = None, False

    def counted(self, dice: Dice) -> None:
        """``dice`` were taken as a roll."""
        self._dealt = dice

    def call_again(self, dice: Dice) -> None:
        """``dice`` were called to be thrown again."""
        self._dealt, self._again = dice, True

    def forget(self) -> None:
        """Whatever is thrown next is a new throw."""
        self._dealt = None

    def lifted(self, dice: Dice, half: Half) -> bool:
        """True when no die lies in the mover's ``half`` (or off it); dice in the other half are the next
        roller's early throw, noted in :attr:`early` and not a new throw while they lie there."""
        mine = [d for d in dice if d.half == half or d.half is None]
        others = [d for d in dice if d.half is not None and d.half != half]
        if mine:
            return False
        if others:
            self.early = True
            self._dealt = others
        else:
            # the board showed no dice: whatever is thrown next is a new throw, even one that lands
            # where these dice lay showing the same numbers
            self._dealt = None
        return True
