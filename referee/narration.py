"""Teacher narration: every event at the table in plain words, for the console and the record.

>>> from referee.moves import legal_plays
>>> from bgboard.position import Position
>>> pos = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 1, 20: 1})
>>> play = [p for p in legal_plays(pos, (3, 2)) if p.text == "8/5* 6/4"][0]
>>> describe_play(Side.DARK, (3, 2), pos, play)[1]
"dark hits the blot on light's 20-point"
"""

from __future__ import annotations

from collections.abc import Sequence

from bgboard.layout import Board, Side
from bgboard.position import BAR, Position
from referee.moves import Play
from referee.scoring import GameResult

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


def describe_score(light: int, dark: int, length: int | None, names: tuple[str, str] | None = None) -> str:
    """``"match score: light 2, dark 0 (to 3)"``; with the players' ``names`` (light's, dark's) in place
    of the colours."""
    to = f" (to {length})" if length else ""
    a, b = names or ("light", "dark")
    return f"match score: {a} {light}, {b} {dark}{to}"


def game_starts(number: int, crawford: bool) -> str:
    crawford_text = " (the Crawford game: no doubling)" if crawford else ""
    return f"game {number}: the board is set up; throw one die each for the opening roll{crawford_text}"


def opening_again(bad: dict[Side, str]) -> str:
    """``bad`` says why each side's opening die must be thrown again: its owner alone throws it."""
    return "; ".join(f"{s.value}'s die {why}: {s.value} throws again" for s, why in bad.items())


def one_die(mover: Side) -> str:
    return f"only one die is on the board: the other landed outside it; {mover.value} throws both again"


def lone_unread_die() -> str:
    return "one die seen and it cannot be read surely: it may be two dice lying together"


def ask_dice(faces: Sequence[int], opening: bool, at_edge: bool = False) -> str:
    """The question about dice the reader is not sure of. A die that leans, or (``at_edge``: a die lies
    at the field's edge) lies outside the field, is thrown again (house rule: both dice; at the opening
    only that die). Flat dice showing other numbers are played as they fell, and the play names the roll
    (``Session._played_unread``): a face misread is never a good throw thrown again. At the opening,
    with no play to name it, they are thrown again.

        >>> ask_dice([5, 1], False, at_edge=True).split("? ")[0].split(". ")[1]
        'Is it 5 and 1, every die flat inside the field'
    """
    shown = " and ".join(str(f) for f in faces)
    if at_edge:
        doubt, where, bad = (
            "a die lies at the edge of the playing field",
            " inside the field",
            "leans or lies outside the field",
        )
    else:
        doubt, where, bad = "a die may lean, or a face is unclear", "", "leans"
    question = f"not sure of the dice: {doubt}. Is it {shown}, every die flat{where}? "
    if opening:
        return (
            question + f"Press ACCEPT if so; if not, throw both dice again; if a die {bad}, its owner alone"
        )
    return (
        question + f"Press ACCEPT if so; if a die {bad}, throw both dice again; if the dice show other "
        "numbers, play them: the play names the roll"
    )


def ask_roll(mover: Side, read: tuple[int, int], other: tuple[int, int]) -> str:
    """The question about a play that is illegal for the roll as read but legal for a roll the dice may
    have shown (a die was read unsurely)."""
    return (
        f"{mover.value} played what {dice_text(other)} allows, but the dice were read {dice_text(read)}, "
        f"one of them unsurely. Was it {dice_text(other)}? Press ACCEPT if so; if not, it is an illegal play"
    )


def ask_roll_from_play(
    mover: Side, roll: tuple[int, int], play: str, others: Sequence[tuple[int, int]] = ()
) -> str:
    """The question about a throw the referee could not read, played anyway: the play fits ``roll`` and,
    if any, ``others``.

    >>> ask_roll_from_play(Side.DARK, (6, 3), "13/4", [(5, 4)])[:57]
    "a die could not be read, and dark's play 13/4 fits 6-3 or"
    """
    fits = [dice_text(r) for r in (roll, *others)]
    named = fits[0] + " alone" if len(fits) == 1 else ", ".join(fits[:-1]) + " or " + fits[-1]
    return (
        f"a die could not be read, and {mover.value}'s play {play} fits {named}. "
        f"Was it {dice_text(roll)}, both dice flat in {mover.value}'s half, played {play}? "
        "Press ACCEPT if so"
    )


def roll_from_play(mover: Side, roll: tuple[int, int]) -> str:
    """The table confirmed the roll the play fits."""
    return f"the table confirms {mover.value} threw {dice_text(roll)}"


def roll_from_play_by_throw(mover: Side, roll: tuple[int, int], play: str) -> str:
    """The next roller threw with the question unanswered: by the rules the play stands."""
    return (
        f"{mover.other.value} threw, so {mover.value}'s play {play} stands: "
        f"recorded as {dice_text(roll)}, the one roll it fits"
    )


def roll_corrected(mover: Side, read: tuple[int, int], thrown: tuple[int, int]) -> str:
    """The table confirmed the roll a play fits: it replaces the roll as read."""
    return (
        f"the table confirms {mover.value} threw {dice_text(thrown)} (read {dice_text(read)}): "
        "the roll is corrected"
    )


def cube_question(why: str) -> str:
    """The question about a cube that lies where the record says it cannot (``referee.cube_watch``)."""
    return f"please check the cube: {why}"


def too_early(roller: Side) -> str:
    return f"{roller.value} threw too early: that roll does not count, throw again"


def thrown_before_lifted(roller: Side, mover: Side) -> str:
    return f"{roller.value} threw before {mover.value} lifted the dice: that roll does not count, throw again"


def cannot_judge(reason: str, likeliest: Play | None) -> str:
    """Asking the table about a play it cannot judge: naming the likeliest legal play when few fit."""
    text = f"I cannot judge the play yet: {reason}"
    if likeliest is not None:
        return (
            text + f". Was it {likeliest.text or 'no move'}? Press ACCEPT if so, or straighten the checkers"
        )
    return text + "; please straighten the checkers or clear the view"


def illegal(
    mover: Side, dice: tuple[int, int] | None, reason: str, tournament: bool, fixes: Sequence[str]
) -> str:
    """An illegal play and its remedy: in tournament mode the opponent may accept it; under the house
    remedy the position before the roll is restored (``fixes`` say what to put back) and played again.
    ``dice`` None: the throw was not read (the play is illegal whatever it showed)."""
    other = mover.other.value
    if tournament:
        remedy = (
            f"{other} may accept the play (ACCEPT), or ask for the position before the roll to be restored; "
            f"the play stands once {other} rolls"
        )
    else:
        remedy = f"restore the position before the roll and play {_the_roll(dice)} again"
    rolled = f" ({dice_text(dice)})" if dice is not None else ""
    text = f"illegal play by {mover.value}{rolled}: {reason}. {remedy}"
    if fixes and not tournament:
        text += f" ({'; '.join(fixes)})"
    return text


def restored(mover: Side, dice: tuple[int, int] | None) -> str:
    """The position before an illegal play is back: ``mover`` plays the roll again (``dice`` None: the
    throw, which was not read)."""
    return f"the position is restored: {mover.value} plays {_the_roll(dice)} again"


def _the_roll(dice: tuple[int, int] | None) -> str:
    return dice_text(dice) if dice is not None else "the throw"


def game_over(
    result: GameResult,
    score: tuple[int, int],
    length: int | None,
    match_over: bool,
    names: tuple[str, str] | None = None,
    practice: bool = False,
) -> str:
    """The end of a game; ``names`` (light's, dark's) are the players' where the table named them; a
    ``practice`` game counts in no match score."""
    winner = result.winner.value
    if names is not None and names != ("light", "dark"):
        winner = f"{winner} ({names[0 if result.winner is Side.LIGHT else 1]})"
    text = f"{winner}{result.text.removeprefix(result.winner.value)}"
    if practice:
        return text + " (practice: counted in no match score). Set up the board for the next game"
    text += f". {describe_score(*score, length, names)}"
    if match_over:
        return text + f". {winner} wins the match"
    return text + ". Set up the board for the next game"


def announce_play(mover: Side, dice: tuple[int, int], before: Position, play: Play) -> str:
    """A play as a teacher announces it, to be made on the board, every point in the mover's numbers:
    ``"dark plays 6-4: 24/18 13/9, hitting on the 9-point (light's checker to the bar)"``.

    >>> from referee.moves import legal_plays
    >>> pos = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {16: 1, 13: 4, 8: 3, 6: 5, 24: 2})
    >>> play = next(p for p in legal_plays(pos, (6, 4)) if p.text == "24/18 13/9*")
    >>> announce_play(Side.DARK, (6, 4), pos, play)
    "dark plays 6-4: 24/18 13/9, hitting on the 9-point (light's checker to the bar)"
    """
    who, other = mover.value, mover.other.value
    if not play.moves:
        return f"{who} rolls {dice_text(dice)} and cannot move"
    clauses = []
    hits = sorted({m.dst for m in play.moves if m.hit}, reverse=True)
    if hits:
        where = " and ".join(f"the {p}-point" for p in hits)
        whose = f"{other}'s checker{'s' if len(hits) > 1 else ''} to the bar"
        clauses.append(f"hitting on {where} ({whose})")
    entries = [m.dst for m in play.moves if m.src == 25]
    if entries:
        clauses.append(
            "entering on " + " and ".join(f"the {p}-point" for p in sorted(set(entries), reverse=True))
        )
    borne = play.result.off_player - before.off_player
    if borne:
        clauses.append(
            f"bearing off {borne} checker{'s' if borne > 1 else ''} ({play.result.off_player} off)"
        )
    moves = play.text.replace("*", "")
    return f"{who} plays {dice_text(dice)}: {moves}" + "".join(f", {c}" for c in clauses)


def layout_words(board: Board) -> str:
    """Which checkers go where, by colour and point in each colour's own numbers, for setting up a board.

    >>> print(layout_words(Board.start()))  # doctest: +NORMALIZE_WHITESPACE
    light: 2 on the 24-point, 5 on the 13-point, 3 on the 8-point, 5 on the 6-point;
    dark: 2 on the 24-point, 5 on the 13-point, 3 on the 8-point, 5 on the 6-point
    """
    parts = []
    for side in Side:
        counts = board.counts(side)
        points = [f"{n} on the {i + 1}-point" for i, n in sorted(enumerate(counts[:BAR]), reverse=True) if n]
        if counts[BAR]:
            points.append(f"{counts[BAR]} on the bar")
        off = board.off(side)
        if off:
            points.append(f"{off} borne off")
        parts.append(f"{side.value}: {', '.join(points) or 'none on the board'}")
    return "; ".join(parts)
