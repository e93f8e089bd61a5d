"""The dice a table teaches the reader: a die the reader was not sure of, whose face the table then
confirms, is kept in the record cut out of the frame it lay in, with that face; ``referee taught``
writes them out as labelled photographs for ``tools/train_dice.py --taught``. Where the answer does
not say which die shows which face, nothing is kept."""

from __future__ import annotations

import csv
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from bgboard.layout import Board, Side
from referee.journal import Journal
from referee.loop import die_crops
from referee.rules_options import RuleOptions
from referee.session import Session, SessionOptions
from tests.test_session_fixtures import O, Table, after, die, signals
from vision.dice_model import TAUGHT_PX
from vision.reading import DieReading

START = Board.start()
REFEREE = [sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())"]


def frame() -> np.ndarray:
    """A 1280 x 720 frame whose every die position (``die``'s, at its shift) has a grey of its own:
    a crop's middle says which die it was cut from."""
    image = np.zeros((720, 1280, 3), np.uint8)
    for shift, grey in ((0, 60), (50, 120), (20, 180), (70, 240)):
        for x in (300.0, 900.0):
            cx, cy = int(x + shift), int(360 + shift / 2)
            image[cy - 12 : cy + 13, cx - 12 : cx + 13] = grey
    return image


def grey_of(png: bytes) -> int:
    crop = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert crop.shape == (TAUGHT_PX, TAUGHT_PX, 3)
    return int(crop[TAUGHT_PX // 2, TAUGHT_PX // 2, 0])


def unclear(value: int, half: str, shift: float = 0.0) -> DieReading:
    return replace(die(None, half, shift, unreadable=True), confidence=0.3, likeliest=value)


def dark_to_roll(journal: Journal) -> tuple[Table, Board]:
    image = frame()
    t = Table(Session(SessionOptions(O, RuleOptions()), journal), lambda dice: die_crops(image, dice))
    assert signals(t.see(START)) == ["READY"]
    assert signals(t.see(START, [die(3, "right"), die(1, "left")])) == ["ROLL_OK"]
    board = after(START, Side.LIGHT, (3, 1), "8/5 6/5")
    t.see(board)
    return t, board


def test_a_die_asked_about_and_confirmed_is_kept_with_its_face() -> None:
    journal = Journal(":memory:")
    t, board = dark_to_roll(journal)
    said = t.see(board, [unclear(4, "left"), die(2, "left", shift=50)])
    assert "Is it 4 and 2" in said[0].text
    assert journal.taught_dice() == []  # asked, not yet answered
    assert signals(t.press("ACCEPT")) == ["ROLL_OK"]
    (taught,) = journal.taught_dice()  # the 2 was read surely: only the 4 teaches anything
    assert taught.face == 4 and grey_of(taught.image) == 60
    assert journal.event(taught.event_id).kind == "confirmed"


def test_a_die_asked_about_with_a_wrong_face_is_kept_with_the_face_its_play_names() -> None:
    """Asked about 6-4, dark played 6-3: the die read unsurely as a 4 showed 3."""
    journal = Journal(":memory:")
    t, board = dark_to_roll(journal)
    asked = [die(6, "left"), unclear(4, "left", shift=50)]
    t.see(board, asked)
    played = after(board, Side.DARK, (6, 3), "24/18 13/10")
    t.see(played, asked)
    assert "fits 6-3 alone" in t.see(played)[0].text
    t.press("ACCEPT")
    (taught,) = journal.taught_dice()
    assert taught.face == 3 and grey_of(taught.image) == 120


def test_a_die_read_unsurely_is_kept_with_the_face_the_table_corrects_it_to() -> None:
    """Dark threw 6-3, the 3 read as a 2 below ``SURE_ROLL``: the roll was taken, the play fits 6-3, and
    the table, asked, says it threw 6-3. The die read sure of (the 6) teaches nothing."""
    journal = Journal(":memory:")
    t, board = dark_to_roll(journal)
    assert signals(t.see(board, [die(6, "left"), replace(die(2, "left", shift=50), confidence=0.8)])) == [
        "ROLL_OK"
    ]
    played = after(board, Side.DARK, (6, 3), "24/18 13/10")
    assert "Was it 6-3?" in t.see(played, frames=10)[0].text
    t.press("ACCEPT")
    (taught,) = journal.taught_dice()
    assert taught.face == 3 and grey_of(taught.image) == 120


def test_two_dice_not_read_and_a_play_of_two_numbers_teach_nothing() -> None:
    """Neither die read, the play fits 6-3 alone: which die showed the 6 only the pictures could say."""
    journal = Journal(":memory:")
    t, board = dark_to_roll(journal)
    waited = [replace(unclear(6, "left"), likeliest=None), replace(unclear(3, "left", 50), likeliest=None)]
    assert "cannot read" in t.see(board, waited)[0].text
    played = after(board, Side.DARK, (6, 3), "24/18 13/10")
    t.see(played, waited)
    assert "fits 6-3 alone" in t.see(played)[0].text
    t.press("ACCEPT")
    assert t.session.game.history[-2].dice == (6, 3) and journal.taught_dice() == []


def test_referee_taught_writes_the_dice_as_labelled_photographs(tmp_path: Path) -> None:
    record = tmp_path / "r.sqlite"
    with Journal(record) as journal:
        t, board = dark_to_roll(journal)
        t.see(board, [unclear(5, "left"), unclear(5, "left", shift=50)])  # 5-5, both asked about
        t.press("ACCEPT")
    before = record.read_bytes()
    out = tmp_path / "taught"
    run = subprocess.run([*REFEREE, "taught", str(record), str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "wrote 2 dice" in run.stdout and "2 showing 5" in run.stdout
    with (out / "labels.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["class"] for r in rows] == ["five", "five"]
    for r in rows:  # the format of ../shared/data/real-dice: the die's box in the middle of its crop
        image = cv2.imread(str(out / "images" / r["filename"]))
        assert image.shape[:2] == (int(r["height"]), int(r["width"])) == (TAUGHT_PX, TAUGHT_PX)
        box = [float(r[k]) for k in ("xmin", "ymin", "xmax", "ymax")]
        assert abs((box[0] + box[2]) / 2 - TAUGHT_PX / 2) < 0.01 and 30 < box[2] - box[0] < 40
    assert sorted(grey_of((out / "images" / r["filename"]).read_bytes()) for r in rows) == [60, 120]
    assert record.read_bytes() == before  # the record is only read
    again = subprocess.run([*REFEREE, "taught", str(record), str(out)], capture_output=True, text=True)
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert (
        again.stderr.strip()
        == f"referee taught: {out / 'labels.csv'} already exists: name a new folder, "
        + ("so that no labels are overwritten")
    )


def test_a_record_from_before_dice_were_kept_has_none_and_gets_their_table(tmp_path: Path) -> None:
    record = tmp_path / "old.sqlite"
    with Journal(record) as journal:
        dark_to_roll(journal)
    with sqlite3.connect(record) as db:  # as schema 2 left a record
        db.execute("DROP TABLE taught_dice")
        db.execute("PRAGMA user_version=2")
    db.close()
    run = subprocess.run(
        [*REFEREE, "taught", str(record), str(tmp_path / "out")], capture_output=True, text=True
    )
    assert run.returncode == 0 and "no dice taught yet" in run.stdout
    assert not (tmp_path / "out").exists()
    with Journal(record) as journal:  # opened to write: brought up to date, its events kept
        assert journal.taught_dice() == [] and len(journal.events(journal.games()[0].id)) > 0
    with sqlite3.connect(record) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
    db.close()
