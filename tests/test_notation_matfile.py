""".mat transcripts: exact format, both real styles, errors, real files, replay of plays, gnubg import."""

from __future__ import annotations

import contextlib
import io
import itertools
from pathlib import Path

import pytest

from referee.notation.matfile import (
    UNKNOWN_PLAY,
    Action,
    GameRecord,
    MatchParseError,
    MatchRecord,
    normalise_play,
    parse_mat,
    play_steps,
    write_mat,
)

GAME = GameRecord(
    (0, 0),
    (
        Action(1, "roll", (4, 2), "8/4 6/4"),
        Action(0, "roll", (6, 5), "bar/18 18/13"),
        Action(1, "double", cube=2),
        Action(0, "take"),
        Action(1, "roll", (6, 2), ""),
        Action(0, "roll", (6, 6), "6/off 6/off 6/off 6/off"),
        Action(0, "win", points=2),
    ),
)
RECORD = MatchRecord(5, ("ann", "bob"), (GAME,), (("Site", "table 3"),))

EXPECTED = """\
; [Player 1 "ann"]
; [Player 2 "bob"]
; [Site "table 3"]

 5 point match

 Game 1
 ann : 0                        bob : 0
  1)                             42: 8/4 6/4
  2) 65: 25/18 18/13              Doubles => 2
  3)  Takes                      62:
  4) 66: 6/0 6/0 6/0 6/0
      Wins 2 points

"""


def test_writes_gnubg_layout_exactly() -> None:
    assert write_mat(RECORD) == EXPECTED
    assert GAME.winner == 0 and GAME.points == 2


def test_parses_what_it_writes() -> None:
    assert parse_mat(EXPECTED) == RECORD


def test_wins_are_placed_as_gnubg_places_them() -> None:
    # the right player's win shares the line of the left player's drop; a left win has a line of its own
    game = GameRecord((0, 1), (Action(0, "double", cube=2), Action(1, "drop"), Action(0, "win", points=1)))
    lines = write_mat(MatchRecord(3, ("a", "b"), (game,))).splitlines()
    assert lines[-3:-1] == ["  1)  Doubles => 2                Drops", "      Wins 1 point"]
    game = GameRecord((1, 0), (Action(1, "double", cube=2), Action(0, "drop"), Action(1, "win", points=1)))
    lines = write_mat(MatchRecord(3, ("a", "b"), (game,))).splitlines()
    assert lines[-3:-1] == [
        "  1)                              Doubles => 2",
        "  2)  Drops                       Wins 1 point",
    ]
    assert parse_mat("\n".join(lines)).games == (game,)


GALAXY = """\
; [Site "BackgammonGalaxy"]
; [Player 1 "lasse"]
; [Player 2 "bill"]
; [Crawford "On"]

3 point match

 Game 1
 lasse : 0                       bill : 0
  1) 51: 13/8 24/23              11: 6/5 6/5 24/23 23/22
  2) 52: 25/20 13/11             64: 25/21 13/7
  3) 33: 13/10 13/10 13/10 13/1062:
  4)  Doubles => 2                Drops
      Wins 1 point

 Game 2
 lasse : 1                       bill : 0
  1) 43: 13/9 6/3                 Losses 1 point
      Wins 1 point and the match
"""

STUDIO = """\
; [Site "Backgammon Studio"]
; [Player 1 "BoardLord"]
; [Player 2 "Breum "]

7 point match


 Game 1
 BoardLord : 6                          Breum : 0
  1) 51: 24/23 13/8                     42: 8/4 6/4
  2) 65: 24/18 23/18                    22: 24/22(2) 13/11(2)
  3) 42: Cannot Move                    63: 22/13
  4) 44: bar/21* 8/4*(2) 6/off          64: ????
  5)  Wins 4 point
"""


def test_galaxy_style() -> None:
    rec = parse_mat(GALAXY)
    assert rec.players == ("lasse", "bill") and rec.length == 3
    assert rec.headers == (("Site", "BackgammonGalaxy"), ("Crawford", "On"))
    g1, g2 = rec.games
    assert g1.actions[1] == Action(1, "roll", (1, 1), "6/5 6/5 24/23 23/22")
    assert g1.actions[2] == Action(0, "roll", (5, 2), "bar/20 13/11")
    # a long play runs into the next entry with no space between them
    assert g1.actions[4] == Action(0, "roll", (3, 3), "13/10 13/10 13/10 13/10")
    assert g1.actions[5] == Action(1, "roll", (6, 2), "")
    assert (g1.winner, g1.points, g1.crawford) == (0, 1, False)
    assert (g2.score, g2.winner, g2.points, g2.crawford) == ((1, 0), 0, 1, False)
    assert parse_mat(write_mat(rec)) == rec


def test_studio_style() -> None:
    rec = parse_mat(STUDIO)
    assert rec.players == ("BoardLord", "Breum")
    game = rec.games[0]
    assert game.crawford  # first game with a player one point away, Crawford rule on by default
    plays = [a.play for a in game.actions if a.kind == "roll"]
    assert plays == [
        "24/23 13/8",
        "8/4 6/4",
        "24/18 23/18",
        "24/22 24/22 13/11 13/11",
        "",
        "22/13",
        "bar/21* 8/4* 8/4 6/off",
        UNKNOWN_PLAY,
    ]
    assert (game.winner, game.points) == (0, 4)
    assert parse_mat(write_mat(rec)) == rec


def test_play_text_helpers() -> None:
    assert normalise_play("25/22* 6/0(2)") == "bar/22* 6/off 6/off"
    assert play_steps("24/18*/13") == [[(24, False), (18, True), (13, False)]]
    for bad, words in [
        ("13/15", "toward home"),
        ("off/3", "from"),
        ("6*/3", "leaves"),
        ("7-3", "not a move"),
    ]:
        with pytest.raises(MatchParseError, match=words):
            normalise_play(bad)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("hello\n", "expected header lines"),
        ('; [Player 1 "a"]\n', "no 'N point match'"),
        ("3 point match\n Gme 1\n", "expected ' Game N'"),
        ("3 point match\n Game 1\n a 0 b 0\n", "names-and-score"),
        ("3 point match\n Game 1\n a : 0  b : 0\n  1) 52: 13/8 13/11 garbage\n", "line 4.*garbage"),
        ("3 point match\n Game 1\n a : 0  b : 0\n  1) 52: 13/15\n", "line 4.*toward home"),
        ("3 point match\n Game 1\n a : 0  b : 0\n  1)  Doubles => 3\n", "2, 4, 8"),
        (
            "3 point match\n Game 1\n a : 0  b : 0\n      Wins 1 point\n  2) 52: 13/8 13/11\n",
            "after the game",
        ),
    ],
)
def test_bad_transcripts_are_refused_clearly(text: str, words: str) -> None:
    with pytest.raises(MatchParseError, match=words) as info:
        parse_mat(text)
    assert isinstance(info.value, ValueError)


def test_bad_records_are_refused() -> None:
    with pytest.raises(MatchParseError, match="needs dice"):
        Action(0, "roll")
    with pytest.raises(MatchParseError, match="normal form"):
        Action(0, "roll", (6, 1), "25/18")
    with pytest.raises(MatchParseError, match="win action says"):
        GameRecord((0, 0), (Action(1, "win", points=1),), winner=0, points=1)
    with pytest.raises(MatchParseError, match="last action"):
        GameRecord((0, 0), (Action(1, "win", points=1), Action(0, "take")))


# ----------------------------------------------------------------------------------- real transcripts


def sample_files(shared_data: Path, galaxy: int, studio: int) -> list[Path]:
    root = shared_data / "real-matches"
    return sorted(root.glob("*.txt"))[:galaxy] + sorted((root / "studio").glob("*.txt"))[:studio]


class Board:
    """Just enough of a board to check that a written play can be made: both sides in their own
    numbering (index 0 = off, 1..24 points, 25 = bar). No legal-move generation: it only checks that
    each checker exists, lands on an open point, uses a die of the roll, and obeys bar and bear-off."""

    def __init__(self) -> None:
        start = [0] * 26
        for point, n in {6: 5, 8: 3, 13: 5, 24: 2}.items():
            start[point] = n
        self.sides = [list(start), list(start)]

    def hop(self, me: int, a: int, b: int, dice: list[int], hit_mark: bool | None = None) -> None:
        """One checker by one die; ``hit_mark`` (when the transcript marks hits) must agree with a hit."""
        mine, theirs = self.sides[me], self.sides[1 - me]
        assert mine[a] > 0, f"no checker on {a}"
        assert a == 25 or mine[25] == 0, "a checker on the bar must enter first"
        if b > 0:
            assert theirs[25 - b] < 2, f"{b} is blocked"
            die = a - b
        else:
            assert sum(mine[7:26]) == 0, "bearing off with checkers outside home"
            higher = sum(mine[a + 1 : 7])
            bigger = [d for d in dice if d > a and not higher]
            die = a if a in dice else min(bigger, default=0)
        assert die in dice, f"{a}/{b} does not fit the dice {dice}"
        hit = b > 0 and theirs[25 - b] == 1
        assert hit_mark is None or hit_mark == hit, f"{a}/{b} {'hits' if hit else 'does not hit'}"
        dice.remove(die)
        mine[a] -= 1
        mine[b] += 1
        if hit:
            theirs[25 - b] = 0
            theirs[25] += 1


Hop = tuple[int, int, bool]


def hop_lists(moves: list[list[tuple[int, bool]]], dice: list[int]) -> list[list[Hop]]:
    """Every way to cut the written moves into single-die hops (22/13 with 6-3: 22/16/13 or 22/19/13),
    each hop with the hit mark of where it lands (points skipped by a joined step are unmarked)."""
    options: list[list[list[Hop]]] = []
    for move in moves:
        for (a, _), (b, mark) in itertools.pairwise(move):
            cuts = []
            for order in set(itertools.permutations(dice)):
                path, here = [a], a
                for d in order:
                    if here - b <= d:  # the last hop: exact, or a bear-off with a larger die
                        path.append(b)
                        break
                    here -= d
                    path.append(here)
                hops = [(x, y, mark if y == b else False) for x, y in itertools.pairwise(path)]
                if path[-1] == b and hops not in cuts:
                    cuts.append(hops)
            options.append(cuts)
    return [sum(choice, []) for choice in itertools.product(*options)]


def replay(game: GameRecord, marked: bool = False) -> int:
    """Applies every play of a game to a board, hop by hop; returns how many plays were applied.

    A play is accepted when some cutting of its moves into hops, in some order, can be made: transcripts
    write "bar/21*(2)" for two entering checkers, whose hops interleave. ``marked``: the transcript marks
    every hit with ``*`` (Backgammon Studio), so hits must agree with the marks."""
    board, count = Board(), 0
    for action in game.actions:
        if action.kind != "roll":
            continue
        if action.play == UNKNOWN_PLAY:
            break
        d1, d2 = action.dice or (0, 0)
        dice = [d1] * 4 if d1 == d2 else [d1, d2]
        moves = play_steps(action.play)
        errors = []
        for hops in hop_lists(moves, dice):
            for order in itertools.permutations(hops):
                saved, left = [list(s) for s in board.sides], list(dice)
                try:
                    for a, b, mark in order:
                        board.hop(action.player, a, b, left, mark if marked else None)
                    break
                except AssertionError as e:
                    board.sides = saved
                    errors.append(str(e))
            else:
                continue
            break
        else:
            raise AssertionError(f"cannot play {d1}{d2}: {action.play}: {errors[0] if errors else 'no cut'}")
        count += 1
    return count


def test_real_files_parse_round_trip_and_replay(shared_data: Path) -> None:
    files = sample_files(shared_data, galaxy=24, studio=6)
    games = plays = 0
    for path in files:
        rec = parse_mat(path.read_text(encoding="utf-8"))
        assert rec.games and all(g.winner is not None for g in rec.games), path
        assert parse_mat(write_mat(rec)) == rec, path
        marked = any("*" in a.play for g in rec.games for a in g.actions)
        for game in rec.games:
            plays += replay(game, marked)
        games += len(rec.games)
    assert len(files) == 30 and games > 60 and plays > 2000


def test_replay_catches_a_bad_play() -> None:
    game = GameRecord(
        (0, 0), (Action(0, "roll", (6, 5), "24/18 18/13"), Action(1, "roll", (3, 1), "24/21 21/20"))
    )
    assert replay(game) == 2
    blocked = GameRecord(
        (0, 0), (Action(0, "roll", (6, 1), "13/7 8/7"), Action(1, "roll", (5, 2), "24/19 24/22"))
    )
    with pytest.raises(AssertionError, match="blocked"):
        replay(
            blocked
        )  # the mover's 18-point is the other side's 7-point, made by 13/7 8/7? no: 7/6 left a blot
    # a checker that is not there
    with pytest.raises(AssertionError, match="no checker"):
        replay(GameRecord((0, 0), (Action(0, "roll", (2, 1), "3/1 2/1"),)))


def gnubg_import(gnubg: object, path: Path) -> list[list[tuple[object, ...]]]:
    with contextlib.redirect_stdout(io.StringIO()):
        gnubg.command(f'import mat "{path}"')
    match = gnubg.match()
    return [
        [(r.get("player"), r.get("action"), r.get("dice"), r.get("move")) for r in g["game"]]
        + [(g["info"]["winner"], g["info"]["points-won"])]
        for g in match["games"]
    ]


def test_gnubg_imports_what_we_write_as_the_original(shared_data: Path, tmp_path: Path) -> None:
    gnubg = pytest.importorskip("gnubg")
    for path in sample_files(shared_data, galaxy=4, studio=2):
        ours = tmp_path / "ours.mat"
        ours.write_text(write_mat(parse_mat(path.read_text(encoding="utf-8"))), encoding="utf-8")
        assert gnubg_import(gnubg, ours) == gnubg_import(gnubg, path), path
