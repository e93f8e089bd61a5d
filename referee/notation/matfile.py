"""Match transcripts in the Jellyfish ``.mat`` text format that gnubg imports and exports.

A file has ``; [Key "value"]`` header lines, `` N point match``, then per game `` Game k``, a
names-and-score line and numbered lines with the left player's entry and the right player's entry::

     1) 51: 24/23 13/8              42: 8/4 6/4
     2)  Doubles => 2                Takes

Entries are ``DD: steps`` (``DD:`` alone when no play was possible), ``Doubles => N``, ``Takes``,
``Drops`` and ``Wins N point(s)``. :func:`parse_mat` reads the BackgammonGalaxy style (one step per die,
25 for the bar, 0 for off, hits unmarked) and the Backgammon Studio style (``bar/22``, ``6/off``, ``*``
for hits, ``(2)`` for repeats, joined steps such as ``22/13``); :func:`write_mat` writes what gnubg's
own ``export match mat`` writes (25 and 0, columns of 28). Plays are kept as move text from the mover's
side, normalised so that ``parse_mat(write_mat(r)) == r``: ``bar`` and ``off`` for 25 and 0, repeats
written out (``8/4*(2)`` becomes ``8/4* 8/4``), ``Cannot Move`` as the empty play, hit marks kept as
given. The player numbers are the columns: 0 is the left player (``Player 1``), 1 the right.

    >>> rec = MatchRecord(3, ("ann", "bob"), (GameRecord((0, 0), (
    ...     Action(0, "roll", (3, 1), "8/5 6/5"), Action(1, "double", cube=2), Action(0, "drop"),
    ...     Action(1, "win", points=1))),))
    >>> parse_mat(write_mat(rec)) == rec
    True
    >>> print(write_mat(rec).splitlines()[7])
      1) 31: 8/5 6/5                  Doubles => 2
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "Action",
    "ActionKind",
    "GameRecord",
    "MatchParseError",
    "MatchRecord",
    "parse_mat",
    "write_mat",
]

ActionKind = Literal["roll", "double", "take", "drop", "win"]
_KINDS = ("roll", "double", "take", "drop", "win")
UNKNOWN_PLAY = "????"  # Backgammon Studio's mark for a play it did not record
_COLUMN = 28  # width of the left column in gnubg's export
_NUMBER = 5  # width of "NNN) "


class MatchParseError(ValueError):
    """A match transcript (or a record to be written) that does not follow the .mat format."""


@dataclass(frozen=True, slots=True)
class Action:
    """One entry of a game: a roll and its play, a double, a take, a drop, or the win.

    ``play`` is the move text of a roll from the mover's side (``"24/18 18/13"``, ``"bar/22 6/off"``),
    ``""`` when no play was possible; ``cube`` is the value a double offers; ``points`` what a win scores.
    """

    player: int
    kind: ActionKind
    dice: tuple[int, int] | None = None
    play: str = ""
    cube: int = 0
    points: int = 0

    def __post_init__(self) -> None:
        if self.player not in (0, 1):
            raise MatchParseError(f"action player must be 0 (left) or 1 (right), got {self.player!r}")
        if self.kind not in _KINDS:
            raise MatchParseError(f"action kind {self.kind!r} is not one of {', '.join(_KINDS)}")
        if (self.kind == "roll") != (self.dice is not None):
            raise MatchParseError(f"a {self.kind} action {'needs' if self.kind == 'roll' else 'has no'} dice")
        if self.dice is not None and (len(self.dice) != 2 or not all(1 <= d <= 6 for d in self.dice)):
            raise MatchParseError(f"dice {self.dice!r} must be two numbers from 1 to 6")
        if self.kind != "roll" and self.play:
            raise MatchParseError(f"a {self.kind} action has no play")
        if self.kind == "roll" and self.play != normalise_play(self.play):
            raise MatchParseError(
                f"play {self.play!r} is not in normal form; use {normalise_play(self.play)!r}"
            )
        if (self.kind == "double") != (self.cube > 0):
            raise MatchParseError("a double needs the cube value it offers (cube=2, 4, ...), only a double")
        if (self.kind == "win") != (self.points > 0):
            raise MatchParseError("a win needs the points it scores (points >= 1), only a win")


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: the score before it, its actions in order, and (derived from the win action) the result.

    ``winner`` and ``points`` may be left out; they are taken from the win action and must agree with it.
    ``crawford`` is not written in the file; :func:`parse_mat` derives it from the scores.
    """

    score: tuple[int, int]
    actions: tuple[Action, ...]
    winner: int | None = None
    points: int = 0
    crawford: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "actions", tuple(self.actions))
        wins = [a for a in self.actions if a.kind == "win"]
        if len(wins) > 1 or (wins and self.actions[-1] is not wins[0]):
            raise MatchParseError("a game has at most one win, and it is the last action")
        if wins:
            win = wins[0]
            if self.winner is None and not self.points:
                object.__setattr__(self, "winner", win.player)
                object.__setattr__(self, "points", win.points)
            elif (self.winner, self.points) != (win.player, win.points):
                raise MatchParseError(
                    f"game says player {self.winner} won {self.points} but its win action says "
                    f"player {win.player} won {win.points}"
                )
        elif self.winner is not None or self.points:
            raise MatchParseError("a game with a winner needs a win action at its end")


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match: its length (0 for money play), the two names (left, right), the games, other headers."""

    length: int
    players: tuple[str, str]
    games: tuple[GameRecord, ...]
    headers: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "games", tuple(self.games))
        object.__setattr__(self, "headers", tuple(tuple(h) for h in self.headers))
        if self.length < 0:
            raise MatchParseError(f"match length {self.length} is negative")
        for name in self.players:
            if name != name.strip() or ":" in name or "\n" in name or '"' in name:
                raise MatchParseError(
                    f"player name {name!r} must have no ':', quotes, newlines or spaces at either end"
                )


# ---------------------------------------------------------------------------------------------- plays

_STEP_RE = re.compile(r"^(?P<chain>[^()]+?)(?:\((?P<n>[1-4])\))?$")
_POINT_RE = re.compile(r"^(?P<p>\d+|bar|off)(?P<hit>\*?)$", re.IGNORECASE)


def _point_token(text: str, first: bool) -> tuple[int, bool]:
    m = _POINT_RE.match(text)
    if not m:
        raise MatchParseError(f"{text!r} is not a point: use 1..24, bar (25) or off (0)")
    word = m["p"].lower()
    point = 25 if word == "bar" else 0 if word == "off" else int(word)
    if point > 25 or (word == "bar" and not first) or (word == "off" and first):
        raise MatchParseError(f"{text!r} is not a point a checker can move {'from' if first else 'to'}")
    return point, bool(m["hit"])


def play_steps(play: str) -> list[list[tuple[int, bool]]]:
    """The checker moves of a play: per move, the points it visits with a hit flag (25 = bar, 0 = off).

    >>> play_steps("bar/22* 13/11(2)")
    [[(25, False), (22, True)], [(13, False), (11, False)], [(13, False), (11, False)]]
    """
    moves: list[list[tuple[int, bool]]] = []
    for token in play.split():
        m = _STEP_RE.match(token)
        if not m or "/" not in m["chain"]:
            raise MatchParseError(f"{token!r} is not a move like 13/7, bar/22, 6/off or 8/4*(2)")
        parts = m["chain"].split("/")
        points = [_point_token(p, i == 0) for i, p in enumerate(parts)]
        if points[0][1]:
            raise MatchParseError(f"{token!r} marks a hit on the point a checker leaves")
        values = [p for p, _ in points]
        if any(a <= b for a, b in zip(values, values[1:], strict=False)):
            raise MatchParseError(f"{token!r} does not move toward home (points must fall, off is 0)")
        if any(p == 0 for p in values[:-1]) or any(p == 25 for p in values[1:]):
            raise MatchParseError(f"{token!r} passes through the bar or off")
        if any(hit for p, hit in points if p == 0):
            raise MatchParseError(f"{token!r} marks a hit on a checker borne off")
        n = int(m["n"] or 1)
        moves.append(points)
        # only the first of repeated moves can hit: the blot is gone once it is hit
        moves.extend([[(p, False) for p, _ in points] for _ in range(n - 1)])
    return moves


def _format_step(points: list[tuple[int, bool]], words: bool) -> str:
    def one(p: int, hit: bool) -> str:
        text = ("bar" if p == 25 else "off" if p == 0 else str(p)) if words else str(p)
        return text + ("*" if hit else "")

    return "/".join(one(p, hit) for p, hit in points)


def normalise_play(text: str) -> str:
    """A play in the record's normal form: ``bar``/``off`` words, repeats written out, one space apart.

    >>> normalise_play("25/22 6/0(2)"), normalise_play("Cannot Move")
    ('bar/22 6/off 6/off', '')
    """
    text = text.strip()
    if text.lower() in ("", "cannot move"):
        return ""
    if text == UNKNOWN_PLAY:
        return text
    return " ".join(_format_step(m, words=True) for m in play_steps(text))


# -------------------------------------------------------------------------------------------- writing


def _entry(action: Action) -> str:
    if action.kind == "roll":
        assert action.dice is not None
        head = f"{action.dice[0]}{action.dice[1]}:"
        if action.play == UNKNOWN_PLAY:
            return f"{head} {UNKNOWN_PLAY}"
        steps = " ".join(_format_step(m, words=False) for m in play_steps(action.play))
        return f"{head} {steps}" if steps else head
    if action.kind == "double":
        return f" Doubles => {action.cube}"
    if action.kind == "take":
        return " Takes"
    if action.kind == "drop":
        return " Drops"
    return f" Wins {action.points} point{'s' if action.points > 1 else ''}"


def _game_lines(game: GameRecord, players: tuple[str, str], number: int) -> list[str]:
    left_head = f"{players[0]} : {game.score[0]}"
    lines = [f" Game {number}", f" {left_head.ljust(_COLUMN + 3)}{players[1]} : {game.score[1]}"]
    rows: list[list[str | None]] = []
    win: Action | None = None
    for action in game.actions:
        if action.kind == "win" and (action.player == 0 or not rows or rows[-1][1] is not None):
            win = action  # as gnubg: on a line of its own unless the right player wins beside a drop
            continue
        if action.player == 0 or not rows or rows[-1][1] is not None:
            rows.append([None, None])
        rows[-1][action.player] = _entry(action)
    for i, (left, right) in enumerate(rows, start=1):
        left_text = (left or "").ljust(_COLUMN)
        if right and not left_text.endswith(" "):  # a long play overruns the column: keep a space
            left_text += " "
        line = f"{i:3d}) " + left_text + (right or "")
        lines.append(line.rstrip())
    if win is not None:
        lines.append(" " * (_NUMBER + _COLUMN * win.player) + _entry(win))
    return lines


def write_mat(record: MatchRecord) -> str:
    """The record as a ``.mat`` file gnubg imports (``import mat FILE``), ending in a newline."""
    lines = [f'; [Player {i + 1} "{name}"]' for i, name in enumerate(record.players)]
    for key, value in record.headers:
        if '"' in value or "\n" in value or "]" in key or "\n" in key:
            raise MatchParseError(f"header {key!r} = {value!r} cannot be written: no quotes, ] or newlines")
        lines.append(f'; [{key} "{value}"]')
    lines += ["", f" {record.length} point match", ""]
    for number, game in enumerate(record.games, start=1):
        lines += _game_lines(game, record.players, number)
        lines.append("")
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------------------------- parsing

_HEADER_RE = re.compile(r'^\s*;\s*\[(?P<key>[^"\]]+?)\s+"(?P<value>[^"]*)"\]\s*$')
_LENGTH_RE = re.compile(r"^\s*(?P<n>\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME_RE = re.compile(r"^\s*Game\s+(?P<n>\d+)\s*$", re.IGNORECASE)
# a name may be empty (BackgammonGalaxy writes ": 0" for a player it has no name for)
_NAMES_RE = re.compile(r"^\s*(?P<a>\S.*?|)\s*:\s*(?P<sa>\d+)\s+(?P<b>\S.*?|)\s*:\s*(?P<sb>\d+)\s*$")
_NUMBERED_RE = re.compile(r"^\s*\d+\)")
# points have at most two digits: BackgammonGalaxy sometimes runs the next entry into a long play
# ("13/1033: 25/22"), and the dice "33:" must not be read as part of the point.
_POINT = r"(?:\d{1,2}|bar|off)\*?"
_MOVE_TOKEN = rf"(?:{_POINT}(?:/{_POINT})+(?:\([1-4]\))?)"
_ENTRY_RE = re.compile(
    r"(?P<roll>(?P<dice>[1-6]{2}):(?P<play>(?:[ \t]+" + _MOVE_TOKEN + r")+|[ \t]+Cannot[ \t]+Move|"
    r"[ \t]+\?\?\?\?)?)"
    r"|(?P<double>Doubles\s*=>\s*(?P<cube>\d+))"
    r"|(?P<take>Takes)|(?P<drop>Drops)"
    r"|(?P<win>Wins\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?)"
    r"|(?P<lose>Losses\s+\d+\s+points?)",
    re.IGNORECASE,
)


class _Parser:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def fail(self, lineno: int, message: str) -> MatchParseError:
        line = self.lines[lineno - 1].strip() if 0 < lineno <= len(self.lines) else ""
        return MatchParseError(f"line {lineno} ({line!r}): {message}")

    def entries(self, lineno: int, line: str, start: int, split: int) -> list[tuple[int, re.Match[str]]]:
        """The entries of one line with the column (player) of each."""
        found: list[re.Match[str]] = []
        pos = start
        for m in _ENTRY_RE.finditer(line, start):
            if line[pos : m.start()].strip():
                break
            found.append(m)
            pos = m.end()
        if line[pos:].strip():
            raise self.fail(
                lineno,
                f"cannot read {line[pos:].strip()!r}: expected a roll like '52: 13/8 13/11', "
                "'Doubles => 2', 'Takes', 'Drops' or 'Wins 1 point'",
            )
        if len(found) > 2:
            raise self.fail(lineno, "more than two entries on one line")
        if len(found) == 2:
            return [(0, found[0]), (1, found[1])]
        return [(0 if m.start() < split else 1, m) for m in found]

    def action(self, lineno: int, player: int, m: re.Match[str]) -> Action | None:
        try:
            if m["roll"]:
                dice = (int(m["dice"][0]), int(m["dice"][1]))
                return Action(player, "roll", dice, normalise_play(m["play"] or ""))
            if m["double"]:
                cube = int(m["cube"])
                if cube < 2 or cube & (cube - 1):
                    raise MatchParseError(f"a double offers a cube of 2, 4, 8, ...; not {cube}")
                return Action(player, "double", cube=cube)
            if m["take"]:
                return Action(player, "take")
            if m["drop"]:
                return Action(player, "drop")
            if m["win"]:
                return Action(player, "win", points=int(m["points"]))
        except MatchParseError as e:
            raise self.fail(lineno, str(e)) from None
        return None  # "Losses N point": the loser's echo of the win, nothing to record

    def parse(self) -> MatchRecord:
        headers: list[tuple[str, str]] = []
        players: list[str | None] = [None, None]
        length: int | None = None
        games: list[GameRecord] = []
        i = 0
        n = len(self.lines)
        while i < n and length is None:
            line = self.lines[i]
            i += 1
            if not line.strip():
                continue
            if m := _HEADER_RE.match(line):
                key, value = m["key"].strip(), m["value"]
                if key in ("Player 1", "Player 2"):
                    players[int(key[-1]) - 1] = value.strip()
                else:
                    headers.append((key, value))
            elif m := _LENGTH_RE.match(line):
                length = int(m["n"])
            elif line.lstrip().startswith(";"):
                continue  # a comment line that is not a header
            else:
                raise self.fail(i, "expected header lines '; [Key \"value\"]' and then 'N point match'")
        if length is None:
            raise MatchParseError("no 'N point match' line: this is not a .mat match file")
        crawford_rule = dict(headers).get("Crawford", "On").lower() != "off"
        crawford_done = False
        while i < n:
            line = self.lines[i]
            i += 1
            if not line.strip():
                continue
            if not _GAME_RE.match(line):
                raise self.fail(i, "expected ' Game N'")
            while i < n and not self.lines[i].strip():
                i += 1
            if i >= n or not (m := _NAMES_RE.match(self.lines[i])):
                raise self.fail(i + 1, "expected the names-and-score line 'name : score   name : score'")
            names = (m["a"], m["b"])
            score = (int(m["sa"]), int(m["sb"]))
            split = (m.start("b") + _NUMBER) // 2
            i += 1
            for k in (0, 1):
                if players[k] is None:
                    players[k] = names[k]
            actions: list[Action] = []
            while i < n and not _GAME_RE.match(self.lines[i]):
                line = self.lines[i]
                i += 1
                if not line.strip():
                    continue
                start = _NUMBERED_RE.match(line)
                for player, em in self.entries(i, line, start.end() if start else 0, split):
                    if actions and actions[-1].kind == "win":
                        if em["lose"]:
                            continue
                        raise self.fail(i, "an entry after the game was won")
                    act = self.action(i, player, em)
                    if act is not None:
                        actions.append(act)
            crawford = False
            if length > 1 and crawford_rule and not crawford_done and length - 1 in score:
                crawford = crawford_done = True
            try:
                games.append(GameRecord(score, tuple(actions), crawford=crawford))
            except MatchParseError as e:
                raise self.fail(i, f"game {len(games) + 1}: {e}") from None
        if players[0] is None or players[1] is None:
            raise MatchParseError("no player names: need '; [Player 1 \"...\"]' headers or a game")
        try:
            return MatchRecord(length, (players[0], players[1]), tuple(games), tuple(headers))
        except MatchParseError as e:
            raise MatchParseError(f"bad match header: {e}") from None


def parse_mat(text: str) -> MatchRecord:
    """Reads a ``.mat``/``.txt`` match transcript (Jellyfish, gnubg, BackgammonGalaxy, Backgammon Studio).

    Raises :class:`MatchParseError` naming the line that could not be read.
    """
    return _Parser(text).parse()
