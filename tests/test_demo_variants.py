"""`referee demo --variant`: each variation at the virtual table, rendered and read by the real readers."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from referee.cli import main
from referee.journal import Journal


def demo(tmp_path: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, Journal]:
    record = tmp_path / "demo.sqlite"
    assert main(["demo", "--record", str(record), *argv]) == 0, capsys.readouterr().out[-3000:]
    out = capsys.readouterr().out
    assert "every expected signal was given" in out
    return out, Journal.reader(record)


def test_pairs_name_the_movers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, journal = demo(tmp_path, capsys, "--variant", "pairs", "--turns", "2")
    assert "Ann moves for light (Ann & Bo), Cy moves for dark (Cy & Di)" in out
    match = journal.matches()[0]
    assert (match.light_name, match.dark_name, match.variation, match.length) == (
        "Ann & Bo",
        "Cy & Di",
        "pairs",
        3,
    )


def test_coaching_hints_at_the_virtual_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, journal = demo(tmp_path, capsys, "--variant", "coaching", "--turns", "2")
    assert "hint for light: 6-4: both dice can be played; 14 different plays" in out
    assert "after 24/14 you have blots on your 24- and 14-points" in out
    assert journal.matches()[0].practice


def test_monitor_keeps_the_illegal_play_until_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, journal = demo(tmp_path, capsys, "--variant", "monitor", "--turns", "5")
    quiet, asked = out.index("nothing is said"), out.index("asks before throwing (CHECK)")
    assert "[red steady]" not in out[:asked] and "[red steady]" in out[asked:]
    assert "illegal play by dark (5-3)" in out[asked:] and quiet < asked
    events = journal.events(journal.games()[0].id)
    illegal = next(e for e in events if e.kind == "illegal")
    assert "not pointed out" in illegal.text and journal.evidence(illegal.id)
    assert [e.kind for e in events].count("check") == 1


def test_teach_replays_and_sets_up_a_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = demo(tmp_path, capsys, "--variant", "teach")
    assert "step 2 is not made: light bar has 0, expected 1; to make it: light bar to 1" in out
    assert "the lesson stops after play 4. The lesson is over" in out
    assert "set up the position: light 21-point has 0, expected 1" in out
    assert "light plays 6-6: 21/9 20/8" in out


def test_teach_takes_no_turns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the demo's own record would go
    assert main(["demo", "--variant", "teach", "--turns", "3"]) == 2
    assert "the teaching demo is a lesson of its own" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # a command line refused leaves no folder behind
