"""`referee legal`, as a user and as other programs call it."""

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import main
from referee.cli.legal import run_batch

START_ID = "4HPwATDgc/ABMA"


def test_batch_answers_each_line_and_survives_bad_ones():
    lines = [
        json.dumps({"position_id": START_ID, "dice": [3, 1]}),
        "not json",
        json.dumps({"position_id": START_ID, "dice": [7, 1]}),
        json.dumps({"dice": [3, 1]}),
        json.dumps({"position_id": "!!!", "dice": [3, 1]}),
        json.dumps({"position_id": START_ID, "dice": [6, 6]}),
    ]
    out = io.StringIO()
    run_batch(io.StringIO("\n".join(lines) + "\n"), out)
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == 6
    assert len(answers[0]["plays"]) == 16
    assert all("error" in a for a in answers[1:5])
    assert "dice" in answers[2]["error"] and "position_id" in answers[3]["error"]
    assert len(answers[5]["plays"]) == 11


def test_result_is_the_position_with_the_opponent_on_roll():
    from bgboard.position import START
    from referee.moves import apply_moves, parse_moves
    from referee.notation.position_id import decode_position_id, encode_position_id

    out = io.StringIO()
    run_batch(io.StringIO(json.dumps({"position_id": START_ID, "dice": [3, 1]})), out)
    plays = {p["move"]: p["result"] for p in json.loads(out.getvalue())["plays"]}
    after = apply_moves(START, parse_moves("8/5 6/5"))
    assert plays["8/5 6/5"] == encode_position_id(after.swap())
    assert decode_position_id(plays["8/5 6/5"]).opponent == after.player


def test_no_legal_play_gives_one_empty_entry():
    from bgboard.position import Position
    from referee.notation.position_id import encode_position_id

    closed = Position.from_points({25: 1, 6: 14}, {k: 2 for k in range(1, 7)})
    pid = encode_position_id(closed)
    out = io.StringIO()
    run_batch(io.StringIO(json.dumps({"position_id": pid, "dice": [4, 3]})), out)
    assert json.loads(out.getvalue()) == {
        "plays": [{"move": "", "result": encode_position_id(closed.swap())}]
    }


def test_single_query_prints_plays(capsys):
    assert main(["legal", START_ID, "3-1"]) == 0
    assert "8/5 6/5" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["legal", START_ID, "71"], ["legal", "xyz", "31"], ["legal"]])
def test_nonsense_gets_one_clear_error(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("referee legal:")


def test_console_command_is_installed():
    referee = Path(sys.executable).with_name("referee")
    r = subprocess.run([str(referee), "legal", START_ID, "21"], capture_output=True, text=True)
    assert r.returncode == 0 and "13/11 6/5" in r.stdout


@pytest.mark.parametrize("command", ["history", "dice", "legal"])
def test_piping_into_head_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    """The reader of the pipe goes away (`| head -1`): no BrokenPipeError, exit as SIGPIPE would."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    stdout = os.fdopen(os.dup(1), "w")
    saved = os.dup(1)
    os.dup2(write_end, 1)
    try:
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(os.fdopen(1, "wb", closefd=False)))
        if command == "legal":
            line = json.dumps({"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]})
            monkeypatch.setattr(sys, "stdin", io.StringIO((line + "\n") * 200))
            argv = ["legal", "--batch"]
        elif command == "dice":
            import cv2
            import numpy as np

            image = tmp_path / "table.png"
            cv2.imwrite(str(image), np.full((240, 320, 3), 128, np.uint8))
            argv = ["dice", str(image), "--json"]
        else:
            from test_session_cli import finished_record

            finished_record(tmp_path / "record.sqlite")
            argv = ["history", str(tmp_path / "record.sqlite"), "--game", "1"]
        assert main(argv) == 141
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(write_end)
        stdout.close()


def test_batch_answers_every_line_in_words() -> None:
    lines = [
        '{"position_id": 12345, "dice": [3, 1]}',
        '{"position_id": null, "dice": [3, 1]}',
        '{"position_id": ["4HPwATDgc/ABMA"], "dice": [3, 1]}',
        '{"position_id": "4HPwATDgc/ABMA", "dice": [true, 1]}',
        "",
        "[1, 2]",
        '{"position_id": "4HPwATDgc/ABMA", "dice": [3, 1]}',
    ]
    out = io.StringIO()
    run_batch(io.StringIO("\n".join(lines) + "\n"), out)
    answers = [json.loads(a) for a in out.getvalue().splitlines()]
    assert len(answers) == len(lines)  # every line answered, the last one too
    errors = [a["error"] for a in answers[:-1]]
    assert "position_id must be a string, not 12345" in errors[0] and "not null" in errors[1]
    assert "dice must be two whole numbers 1..6, not [true, 1]" in errors[3]
    assert "the line is empty" in errors[4] and "not an object" in errors[5]
    assert not any(word in e for e in errors for word in ("Traceback", "unpack", "attribute", "indices"))
    assert len(answers[-1]["plays"]) == 16
