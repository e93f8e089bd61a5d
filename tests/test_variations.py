"""The house variations and tournament policies at the session, fed readings built from boards."""

from __future__ import annotations

import contextlib
import io
import random
import re
from pathlib import Path
from typing import Any

import pytest
from test_session_fixtures import O, Table, after, die, moved, signals

from bgboard.layout import Board, Side
from hardware.signals import Signal
from referee.cli import main
from referee.config import RefereeConfigError, load_config
from referee.export import write_match_mat
from referee.journal import Journal
from referee.notation.matfile import parse_mat
from referee.rules_options import MovesRule, RuleOptions, RuleOptionsError
from referee.session import Session, SessionOptions, Stage
from referee.variations import PairsFormat, TableSetup, TableSetupError, Variation
from synthetic.players import choose

START = Board.start()
ILLEGAL = moved(START, Side.LIGHT, "13/9 8/7")  # 13/9 needs two steps of a 3-1: not legal
PAIRS = TableSetup(Variation.PAIRS, ("Ann", "Bo"), ("Cy", "Di"))
STANDARD = TableSetup()


def table(table_setup: TableSetup = STANDARD, journal: Journal | None = None, **rules: Any) -> Table:
    length, options = table_setup.settle(None, RuleOptions(**rules))
    session_options = SessionOptions(O, options, match_length=length, table=table_setup)
    return Table(Session(session_options, journal or Journal(":memory:")))


def opened(t: Table) -> None:
    """Setup and light's opening 3-1 (light's die right, dark's left)."""
    assert signals(t.see(START)) == ["READY"]
    assert signals(t.see(START, [die(3, "right"), die(1, "left")])) == ["ROLL_OK"]


def texts(says: list[Any]) -> str:
    return "\n".join(s.text for s in says)


# ---- tournament policies --------------------------------------------------------------------------------


def test_legal_moves_is_the_policy_when_none_is_named_and_the_play_is_corrected() -> None:
    t = table(tournament_mode=True)
    opened(t)
    said = t.see(ILLEGAL, frames=3)
    assert signals(said) == ["ILLEGAL"] and "restore the position before the roll" in said[0].text
    assert t.session.stage is Stage.RESTORE
    assert "nothing to accept" in texts(t.press("ACCEPT"))  # Legal Moves: it cannot be accepted


def test_without_a_monitor_an_illegal_play_is_recorded_and_told_only_when_asked() -> None:
    journal = Journal(":memory:")
    t = table(journal=journal, tournament_mode=True, monitor=False)
    opened(t)
    said = t.see(ILLEGAL, frames=3)
    # the table hears what it hears after any play: whose roll it is
    assert [(s.signal, s.text) for s in said] == [(Signal.READY, "dark to roll (or double)")]
    game_id = journal.games()[0].id
    illegal = [e for e in journal.events(game_id) if e.kind == "illegal"]
    assert len(illegal) == 1 and journal.evidence(illegal[0].id) == b"png"
    assert "not pointed out: no monitor was agreed" in illegal[0].text
    said = t.press("CHECK")  # dark asks before rolling: the play must be corrected (Legal Moves)
    assert signals(said) == ["ILLEGAL"] and "light 9-point back to 0" in said[0].text
    assert t.session.stage is Stage.RESTORE and t.session.board == START
    assert signals(t.see(START)) == ["ROLL_OK"]
    assert signals(t.see(after(START, Side.LIGHT, (3, 1), "8/5 6/5"))) == ["READY"]


def test_without_a_monitor_the_next_roll_makes_the_illegal_play_stand() -> None:
    t = table(tournament_mode=True, monitor=False)
    opened(t)
    t.see(ILLEGAL, frames=3)
    assert signals(t.see(ILLEGAL, [die(6, "left"), die(2, "left", shift=40)])) == ["ROLL_OK"]
    assert t.session.board == ILLEGAL and t.session.game.dice == (6, 2)
    said = t.press("CHECK")
    assert not signals(said) and "illegal play stands: the next roll was thrown" in said[0].text


def test_without_a_monitor_a_legal_play_sounds_like_any_other() -> None:
    t = table(tournament_mode=True, monitor=False)
    opened(t)
    said = t.see(after(START, Side.LIGHT, (3, 1), "8/5 6/5"))
    assert [(s.signal, s.text) for s in said] == [(Signal.READY, "dark to roll (or double)")]
    assert "light's play 8/5 6/5 was legal" in texts(t.press("CHECK"))


def test_responsible_moves_without_a_monitor_lets_the_opponent_accept_once_asked() -> None:
    t = table(tournament_mode=True, moves=MovesRule.RESPONSIBLE, monitor=False)
    opened(t)
    assert signals(t.see(ILLEGAL, frames=3)) == ["READY"]
    said = t.press("CHECK")
    assert signals(said) == ["ILLEGAL"] and "dark may accept the play" in said[0].text
    assert signals(t.press("ACCEPT")) == ["READY"]
    assert t.session.board == ILLEGAL and t.session.on_roll is Side.DARK


def test_check_with_nothing_to_check() -> None:
    t = table()
    t.see(START)
    assert "no play has been made yet" in texts(t.press("CHECK"))


def test_tournament_policies_need_tournament_rules() -> None:
    with pytest.raises(RuleOptionsError, match="tournament policies: set tournament_mode = true"):
        RuleOptions(monitor=False)
    with pytest.raises(RuleOptionsError, match='moves must be "legal", "responsible"'):
        RuleOptions.from_mapping({"tournament_mode": True, "moves": "lenient"})


# ---- pairs --------------------------------------------------------------------------------------------


def play_game(t: Table, rng: random.Random) -> list[Any]:
    """A whole game at the session from the starting position: throws into the right halves, greedy
    plays. Returns everything said."""
    said = t.see(START)
    assert signals(said) == ["READY"], texts(said)
    while True:
        a, b = rng.randint(1, 6), rng.randint(1, 6)
        if a != b:
            break
        t.see(START, [die(a, "right"), die(b, "left")])
        t.moving()
    said += t.see(START, [die(a, "right"), die(b, "left")])
    game = t.session.game
    while game.result is None:
        mover, dice, board = game.on_roll, game.dice, t.session.board
        half = "right" if mover is Side.LIGHT else "left"
        if dice is None:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            t.moving()
            said += t.see(board, [die(dice[0], half, shift=5), die(dice[1], half, shift=60)])
            if game.dice is None:  # no legal move: the turn passed; the dice are lifted
                said += t.see(board)
                continue
        play = choose(board, mover, game.dice)
        said += t.see(Board.from_position(play.result, mover))
    return said


def test_pairs_name_the_movers_swap_them_and_carry_the_names(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "pairs.sqlite")
    t = table(PAIRS, journal)
    rng = random.Random(4)
    said = play_game(t, rng)
    assert "game 1: " in said[
        0
    ].text and "Ann moves for light (Ann & Bo), Cy moves for dark (Cy & Di)" in texts(said)
    over = next(s for s in said if s.signal is Signal.GAME_OVER)
    assert "match score: Ann & Bo" in over.text and "(to 3)" in over.text
    assert over.text.endswith("next game: Bo moves for light (Ann & Bo), Di moves for dark (Cy & Di)")
    games = 1
    while t.session.stage is not Stage.MATCH_OVER:
        said = play_game(t, rng)
        games += 1
        movers = "Bo moves for light" if games % 2 == 0 else "Ann moves for light"
        assert movers in texts(said)
    assert games >= 2 and max(t.session.score) >= 3 and t.session.game.options.cubeless
    match = journal.matches()[0]
    assert (match.light_name, match.dark_name, match.variation) == ("Ann & Bo", "Cy & Di", "pairs")
    record = parse_mat(write_mat := write_match_mat(journal, match.id))
    assert record.players == ("Ann & Bo", "Cy & Di") and record.length == 3
    assert [g.score for g in record.games] == [g.score for g in t.session.match.to_record().games]
    gnubg = pytest.importorskip("gnubg", reason="gnubg (the test extra) reads the .mat as gnubg itself")
    path = tmp_path / "pairs.mat"
    path.write_text(write_mat)
    with contextlib.redirect_stdout(io.StringIO()):
        gnubg.command(f'import mat "{path}"')
    imported = gnubg.match()
    assert (
        imported["match-info"]["X"]["name"] == "Ann & Bo" and imported["match-info"]["O"]["name"] == "Cy & Di"
    )
    assert imported["match-info"]["match-length"] == 3
    ours = t.session.match.games
    assert len(imported["games"]) == len(ours) == games
    for mine, theirs in zip(ours, imported["games"], strict=True):
        info = theirs["info"]
        assert (info["score-X"], info["score-O"]) == mine.score
        assert info["winner"] == ("X" if mine.result.winner is Side.LIGHT else "O")
        assert info["points-won"] == mine.result.points


def test_pairs_one_game_is_money_play_and_the_rematch_swaps_the_movers() -> None:
    setup = TableSetup(Variation.PAIRS, ("Ann", "Bo"), ("Cy", "Di"), PairsFormat.GAME)
    t = table(setup)
    assert t.session.options.match_length is None and t.session.options.rules.cubeless
    said = play_game(t, random.Random(9))
    over = next(s for s in said if s.signal is Signal.GAME_OVER)
    assert "next game (the rematch): Bo moves for light" in over.text and over.points in (1, 2, 3)


def test_table_setups_that_cannot_be_played_are_refused() -> None:
    with pytest.raises(TableSetupError, match="pairs need two players for dark"):
        TableSetup(Variation.PAIRS, ("Ann", "Bo"), ("Cy",))
    with pytest.raises(TableSetupError, match="without : "):
        TableSetup(light=("Ann: the great",))
    with pytest.raises(TableSetupError, match="leave \\[referee\\] match_length out"):
        PAIRS.settle(5, RuleOptions())
    with pytest.raises(TableSetupError, match="format is for pairs"):
        TableSetup.from_toml({"variation": "coaching", "format": "game"})
    with pytest.raises(TableSetupError, match="variation must be"):
        TableSetup.from_toml({"variation": "chouette"})


# ---- the open coaching game ------------------------------------------------------------------------------


def test_a_hint_tells_what_the_roll_allows_and_what_the_play_shown_leaves() -> None:
    t = table(TableSetup(Variation.COACHING))
    opened(t)
    said = texts(t.press("HINT"))
    assert "3-1: both dice can be played; 16 different plays" in said and "make a play on the board" in said
    dice = [die(3, "right"), die(1, "left")]
    pointed = after(START, Side.LIGHT, (3, 1), "24/21 6/5")
    t.see(pointed, dice)  # the play on the board, the dice still down
    said = texts(t.press("HINT"))
    assert "after 24/21 6/5 you have blots on your 24-, 21- and 5-points" in said
    # dark hits the 24-point blot from its 6-point, the 21-point one from its 6- or 8-point, the 5-point
    # one from its 24-point (light's 1-point)
    assert "the 24-point blot with a 5, the 21-point blot with a 2 or 4 and the 5-point blot with a 4" in said
    # the hint changes nothing: the play is still judged once the dice are lifted
    played = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    assert signals(t.see(played)) == ["READY"] and t.session.board == played


def test_a_hint_is_only_for_the_coaching_game_and_after_the_roll() -> None:
    t = table()
    opened(t)
    assert "hints are for the open coaching game" in texts(t.press("HINT"))
    coached = table(TableSetup(Variation.COACHING))
    coached.see(START)
    assert "after the roll is read" in texts(coached.press("HINT"))


def test_a_coaching_game_is_recorded_as_practice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "coach.sqlite"
    journal = Journal(path)
    t = table(TableSetup(Variation.COACHING, ("Teacher",), ("Pupil",)), journal)
    said = play_game(t, random.Random(2))
    over = next(s for s in said if s.signal is Signal.GAME_OVER)
    assert over.text.startswith("dark (Pupil) wins") or over.text.startswith("light (Teacher) wins")
    assert "practice: counted in no match score" in over.text and "match score:" not in over.text
    text = write_match_mat(journal, journal.matches()[0].id)
    assert '; [Event "practice: coaching"]' in text and "Teacher" in text
    journal.close()
    assert main(["history", str(path)]) == 0
    assert "practice (coaching)" in capsys.readouterr().out


# ---- a position that cannot be restored, and the pause ------------------------------------------------


def test_both_players_void_a_game_whose_position_cannot_be_restored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "void.sqlite"
    journal = Journal(path)
    t = table(journal=journal)
    opened(t)
    assert signals(t.see(ILLEGAL, frames=3)) == ["ILLEGAL"]
    said = t.press("VOID")
    assert not signals(said) and "the other player presses VOID too" in said[0].text
    t.see(ILLEGAL, frames=20)  # two seconds later the other player agrees
    said = t.press("VOID")
    assert signals(said) == ["OFF"] and "the game is void" in said[0].text
    assert "before light's 3-1 could not be restored" in said[0].text
    assert t.session.stage is Stage.SETUP and t.session.game is None and t.session.score == [0, 0]
    assert signals(t.see(START)) == ["READY"] and t.session.game_number == 2
    games = journal.games()
    assert games[0].void and not games[1].void
    void = [e for e in journal.events(games[0].id) if e.kind == "void"]
    assert void and "could not be restored" in void[0].reason
    journal.close()
    assert main(["history", str(path)]) == 0
    assert "void: no points" in capsys.readouterr().out


def test_void_needs_both_presses_in_time_and_a_position_to_restore() -> None:
    t = table()
    opened(t)
    assert "only a position that cannot be restored" in texts(t.press("VOID"))
    t.see(ILLEGAL, frames=3)
    t.press("VOID")
    t.see(ILLEGAL, frames=120)  # twelve seconds: the first press has lapsed
    assert "presses VOID too" in texts(t.press("VOID")) and t.session.stage is Stage.RESTORE
    tournament = table(tournament_mode=True)
    opened(tournament)
    tournament.see(ILLEGAL, frames=3)
    assert "call the director" in texts(tournament.press("VOID"))


def test_a_pause_stops_the_clock_of_the_wait_and_changes_nothing() -> None:
    t = table()
    opened(t)
    played = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    doubtful = {"bottom-6": (5, 0.6, (5,))}  # light's 6-point in doubt: the play is unclear
    assert t.see(played, doubtful=doubtful, frames=10) == []  # one second of the two it waits
    assert "paused for a rule look-up" in texts(t.press("PAUSE"))
    assert t.see(played, doubtful=doubtful, frames=50) == []  # five seconds paused: nothing read
    assert t.session.stage is Stage.PLAY and t.session.board == START
    assert "play on: light to play 3-1" in texts(t.press("PAUSE"))
    assert t.see(played, doubtful=doubtful, frames=8) == []  # 1.8 s of waiting in all
    assert signals(t.see(played, doubtful=doubtful, frames=4)) == ["CANNOT_SEE"]


# ---- the config -------------------------------------------------------------------------------------------

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "referee.toml"
REFEREE = '[referee]\nprofile = "p.json"\nrecord = "r.sqlite"\n'


def test_the_example_config_documents_every_new_key_and_they_load(tmp_path: Path) -> None:
    text = EXAMPLE.read_text()
    for key in (
        "moves =",
        "monitor =",
        "variation =",
        "# format =",
        "# light =",
        "# hint =",
        "# void =",
        "# pause =",
        "# check =",
    ):
        assert key in text, key
    # the commented keys, switched on: a pairs match with its names and every button
    pairs = (
        text.replace('variation = "standard"', 'variation = "pairs"')
        .replace("# format =", "format =")
        .replace('# light = "Ann"', 'light = ["Ann", "Bo"]')
        .replace('# dark = "Cy"', 'dark = ["Cy", "Di"]')
        .replace("match_length = 0 ", "# match_length = 0 ")
        .replace("cubeless = false", "# cubeless = false")
        .replace("tournament_mode = false", "tournament_mode = true")
        .replace("monitor = true", "monitor = false")
    )
    for button in ("hint", "void", "pause", "check"):
        pairs = pairs.replace(f"# {button} =", f"{button} =")
    path = tmp_path / "pairs.toml"
    path.write_text(pairs)
    cfg = load_config(path)
    assert cfg.table.names == ("Ann & Bo", "Cy & Di") and cfg.match_length == 3 and cfg.rules.cubeless
    assert cfg.rules.tournament_mode and not cfg.rules.monitor and cfg.rules.moves is MovesRule.LEGAL
    assert {b.value for b in cfg.hardware.signals.buttons} >= {"hint", "void", "pause", "check"}


def test_every_key_the_config_reads_is_documented_in_the_example() -> None:
    """Each key of [referee], [rules], [table] and [signals.buttons] has its line in the example, with a
    comment saying what it does (a commented-out key is an option shown with its form)."""
    from dataclasses import fields

    from hardware.signals import Button
    from referee.config import REFEREE_KEYS

    keys = (
        REFEREE_KEYS
        | {f.name for f in fields(RuleOptions)}
        | {"variation", "format", "light", "dark"}
        | {b.value for b in Button}
    )
    lines = EXAMPLE.read_text().splitlines()
    for key in sorted(keys):
        documented = [
            line for line in lines if re.match(rf"#?\s*{key}\s*=", line) and "#" in line.lstrip("# ")
        ]
        assert documented, f"{key} has no documented line in {EXAMPLE.name}"


@pytest.mark.parametrize(
    ("tables", "words"),
    [
        ('[table]\nvariation = "pairs"\nlight = "Ann"\ndark = ["Cy", "Di"]\n', "pairs need two players"),
        ('[table]\nvariation = "pairs"\nformat = "best of five"\n', "format must be 'match' or 'game'"),
        ('[table]\nvariation = "coaching"\n[rules]\ncubeless = false\n', "leave [rules] cubeless out"),
        ('[table]\nvariation = "coaching"\nseats = 2\n', "unknown key(s) in [table]: seats"),
        ("[rules]\nmonitor = false\n", "set tournament_mode = true"),
        ('[rules]\ntournament_mode = true\nmoves = "kind"\n', 'moves must be "legal", "responsible"'),
    ],
)
def test_a_bad_table_or_policy_in_the_config_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tables: str, words: str
) -> None:
    path = tmp_path / "referee.toml"
    path.write_text(REFEREE + tables)
    with pytest.raises(RefereeConfigError, match=re.escape(words)):
        load_config(path)
    assert main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_pairs_with_a_match_length_of_their_own_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "referee.toml"
    path.write_text(
        REFEREE + 'match_length = 5\n[table]\nvariation = "pairs"\nlight = ["A", "B"]\ndark = ["C", "D"]\n'
    )
    with pytest.raises(RefereeConfigError, match="three-point cubeless match: leave"):
        load_config(path)


def test_without_a_monitor_a_throw_before_the_dice_are_lifted_is_still_void() -> None:
    t = table(tournament_mode=True, monitor=False)
    opened(t)
    # dark throws while light's dice still lie in light's half, after the miscount
    t.see(ILLEGAL, [die(3, "right"), die(1, "right", shift=40), die(5, "left"), die(2, "left", shift=40)])
    said = t.see(ILLEGAL, [die(5, "left"), die(2, "left", shift=40)])
    assert signals(said) == ["READY", "REROLL"] and "before light lifted the dice" in said[1].text
    t.moving()
    assert signals(t.see(ILLEGAL, [die(6, "left", shift=5), die(1, "left", shift=70)])) == ["ROLL_OK"]
    assert t.session.board == ILLEGAL  # the roll that counts makes the illegal play stand


def test_a_restart_keeps_the_pairs_their_movers_and_a_void_game(tmp_path: Path) -> None:
    path = tmp_path / "pairs.sqlite"
    t = table(PAIRS, Journal(path))
    play_game(t, random.Random(4))  # game 1: Ann and Cy moved
    opened(t)
    t.see(ILLEGAL, frames=3)
    t.press("VOID")
    t.press("VOID")
    t.session.journal.close()
    options = t.session.options
    resumed = Table(Session.resume(options, Journal(path)))
    assert resumed.session.stage is Stage.SETUP and resumed.session.score == t.session.score
    assert resumed.session.match.players == ("Ann & Bo", "Cy & Di")
    said = resumed.see(START)
    assert "game 3" in said[0].text and "Bo moves for light (Ann & Bo), Di moves for dark" in said[0].text


def test_referee_run_names_the_pairs_from_its_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee run` over recorded frames of the starting position, with a pairs table in its config."""
    import cv2

    from calibration.learn import calibrate
    from synthetic.table import Shot, VirtualTable

    virtual = VirtualTable()
    start = virtual.calibration_frame()
    profile = calibrate(start.image, [(float(x), float(y)) for x, y in start.field_quad], start=True)
    profile.save(tmp_path / "profile.json")
    folder = tmp_path / "frames"
    folder.mkdir()
    image = virtual.frame(Shot(START), 0, 0, 0).image
    for i in range(5):
        cv2.imwrite(str(folder / f"frame_{i}.png"), image)
    (folder / "timestamps.txt").write_text("".join(f"{i / 10}\n" for i in range(5)))
    config = tmp_path / "referee.toml"
    config.write_text(
        f'[camera]\nsource = "replay:{folder}"\n[signals]\noutput = "console"\n'
        '[referee]\nprofile = "profile.json"\nrecord = "club.sqlite"\nsettle_frames = 2\n'
        '[table]\nvariation = "pairs"\nlight = ["Ann", "Bo"]\ndark = ["Cy", "Di"]\n'
    )
    assert main(["run", "--config", str(config), "--no-keys"]) == 0
    assert "Ann moves for light (Ann & Bo), Cy moves for dark (Cy & Di)" in capsys.readouterr().out
    with Journal.reader(tmp_path / "club.sqlite") as journal:
        match = journal.matches()[0]
    assert (match.light_name, match.dark_name, match.length) == ("Ann & Bo", "Cy & Di", 3)


def test_referee_run_voids_a_game_both_players_agree_on_after_a_pause(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`referee run` over rendered frames of a miscounted opening 3-1 whose position is never put back,
    with the buttons pressed at the table recorded beside them: a pause for a rule look-up, then VOID
    from both players; the table then sets up the starting position for game 2."""
    import cv2

    from calibration.learn import calibrate
    from hardware.signals import Button
    from referee.loop import BUTTONS_FILE
    from synthetic.demo_game import Script, half_of
    from synthetic.table import HandAt, VirtualTable

    virtual = VirtualTable()
    start = virtual.calibration_frame()
    profile = calibrate(start.image, [(float(x), float(y)) for x, y in start.field_quad], start=True)
    profile.save(tmp_path / "profile.json")
    s = Script(rng=random.Random(3))
    s.add(START, frames=5)
    dice = s.dice_in(half_of(Side.LIGHT), (3,)) + s.dice_in(half_of(Side.DARK), (1,))
    s.add(START, hands=(HandAt(0.5, 0.5),), frames=1)
    s.add(START, dice=dice, frames=5)
    s.add(ILLEGAL, dice=dice, hands=(HandAt(0.5, 0.7),), frames=2)
    s.add(ILLEGAL, frames=30)  # the dice lifted; the position before the roll is never put back
    s.add(START, frames=6)  # the game voided, the table sets up afresh
    folder = tmp_path / "frames"
    folder.mkdir()
    index = 0
    for i, shot in enumerate(s.shots):
        for k in range(shot.frames):
            cv2.imwrite(str(folder / f"frame_{index:04d}.png"), virtual.frame(shot, k, i, index).image)
            index += 1
    (folder / "timestamps.txt").write_text("".join(f"{i / 10:.1f}\n" for i in range(index)))
    illegal_at = sum(shot.frames for shot in s.shots[:4]) / 10  # the first frame of the still board
    presses = [(1.0, Button.PAUSE), (1.5, Button.PAUSE), (2.0, Button.VOID), (2.5, Button.VOID)]
    (folder / BUTTONS_FILE).write_text(
        "".join(f"{illegal_at + dt:.1f} {button.name}\n" for dt, button in presses)
    )
    config = tmp_path / "referee.toml"
    config.write_text(
        f'[camera]\nsource = "replay:{folder}"\n[signals]\noutput = "console"\n'
        '[referee]\nprofile = "profile.json"\nrecord = "house.sqlite"\nsettle_frames = 2\n'
    )
    assert main(["run", "--config", str(config), "--no-keys"]) == 0
    out = capsys.readouterr().out
    told = [
        out.index(words) for words in ("illegal", "paused for a rule look-up", "play on", "the game is void")
    ]
    assert told == sorted(told), out
    assert "before light's 3-1 could not be restored; both players agreed" in out
    assert "game 2" in out[told[-1] :]
    with Journal.reader(tmp_path / "house.sqlite") as journal:
        games = journal.games()
        assert games[0].void and games[0].points is None and len(games) == 2
        kinds = [e.kind for e in journal.events(games[0].id)]
    assert kinds.count("pause") == 2 and "void" in kinds
