"""The tournament policies (and, later, the house variations) at the session, fed readings built from
boards."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from test_session_fixtures import O, Table, after, die, moved, signals

from bgboard.layout import Board, Side
from hardware.signals import Signal
from referee.cli import main
from referee.config import RefereeConfigError, load_config
from referee.journal import Journal
from referee.rules_options import MovesRule, RuleOptions, RuleOptionsError
from referee.session import Session, SessionOptions, Stage

START = Board.start()
ILLEGAL = moved(START, Side.LIGHT, "13/9 8/7")  # 13/9 needs two steps of a 3-1: not legal


def table(journal: Journal | None = None, **rules: Any) -> Table:
    return Table(Session(SessionOptions(O, RuleOptions(**rules)), journal or Journal(":memory:")))


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
    t = table(journal, tournament_mode=True, monitor=False)
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


# ---- the config -------------------------------------------------------------------------------------------

REFEREE = '[referee]\nprofile = "p.json"\nrecord = "r.sqlite"\n'


@pytest.mark.parametrize(
    ("tables", "words"),
    [
        ("[rules]\nmonitor = false\n", "set tournament_mode = true"),
        ('[rules]\ntournament_mode = true\nmoves = "kind"\n', 'moves must be "legal", "responsible"'),
    ],
)
def test_a_bad_policy_in_the_config_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tables: str, words: str
) -> None:
    path = tmp_path / "referee.toml"
    path.write_text(REFEREE + tables)
    with pytest.raises(RefereeConfigError, match=re.escape(words)):
        load_config(path)
    assert main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_the_example_config_documents_the_policies(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "referee.toml"
    text = example.read_text()
    assert "moves =" in text and "monitor =" in text and "# check =" in text
    on = (
        text.replace("tournament_mode = false", "tournament_mode = true")
        .replace('moves = "legal"', 'moves = "responsible"')
        .replace("monitor = true", "monitor = false")
        .replace("# check =", "check =")
    )
    path = tmp_path / "referee.toml"
    path.write_text(on)
    cfg = load_config(path)
    assert cfg.rules.moves is MovesRule.RESPONSIBLE and not cfg.rules.monitor
    assert {b.value for b in cfg.hardware.signals.buttons} >= {"check"}
