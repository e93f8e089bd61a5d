"""`--console` and `console = "..."`: the console beside `referee run` and `referee demo`, and every
wrong way to ask for it answered with one clear line."""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli.demo import run_demo
from referee.config import RefereeConfig, RefereeConfigError
from synthetic.demo_game import demo_game

REFEREE = [sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())"]
BASE = {"profile": "p.json", "record": "r.sqlite"}


def referee(*args: str, pin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"REFEREE_CONSOLE_PIN": pin} if pin is not None else {})}
    return subprocess.run([*REFEREE, *args], capture_output=True, text=True, timeout=300, env=env)


def test_the_config_names_the_console_and_its_pin_and_never_repeats_the_pin() -> None:
    cfg = RefereeConfig.from_toml({"referee": {**BASE, "console": "0.0.0.0:8080", "console_pin": "4711"}})
    assert cfg.console is not None and (cfg.console.host, cfg.console.port) == ("0.0.0.0", 8080)
    assert cfg.console_pin == "4711" and "4711" not in repr(cfg)
    assert RefereeConfig.from_toml({"referee": BASE}).console is None  # off unless asked
    with pytest.raises(RefereeConfigError, match=r"\[referee\] console address 'nowhere'"):
        RefereeConfig.from_toml({"referee": {**BASE, "console": "nowhere"}})
    with pytest.raises(RefereeConfigError, match="must be a string"):
        RefereeConfig.from_toml({"referee": {**BASE, "console": 8080}})
    for bad in ("98", 4711, "47 11"):
        with pytest.raises(RefereeConfigError, match="console_pin") as e:
            RefereeConfig.from_toml({"referee": {**BASE, "console_pin": bad}})
        assert str(bad) not in str(e.value)


def test_a_console_that_cannot_start_is_one_clear_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = referee(
            "demo", "--turns", "1", "--console", f"127.0.0.1:{port}", "--record", str(tmp_path / "a")
        )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip() == (
        f"referee demo: cannot listen on 127.0.0.1:{port}: Address already in use; "
        "give another port with --console"
    )
    result = referee("demo", "--console", "localhost:http")
    assert result.returncode == 2 and "give [HOST:]PORT" in result.stderr and "Traceback" not in result.stderr
    result = referee("demo", "--console", "0", "--record", str(tmp_path / "b"), pin="12")
    assert result.returncode == 2 and "REFEREE_CONSOLE_PIN: the console PIN must be" in result.stderr
    assert "12" not in result.stderr.replace("referee", "")


def test_run_serves_the_console_named_in_the_config_and_decides_as_without_it(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    demo = run_demo(tmp_path / "demo.sqlite", shots=demo_game(turns=2), out=io.StringIO(), save_frames=saved)
    config = (saved / "replay.toml").read_text()
    config = config.replace("[referee]\n", '[referee]\nconsole = "127.0.0.1:0"\nconsole_pin = "4711"\n')
    (saved / "console.toml").write_text(config)
    result = referee("run", "--config", str(saved / "console.toml"), "--no-keys")
    assert result.returncode == 0, result.stderr
    assert "console: http://127.0.0.1:" in result.stdout and "actions need the table's PIN" in result.stdout
    assert "4711" not in result.stdout + result.stderr
    said = [line.strip() for line in result.stdout.splitlines() if line.startswith("  ")]
    assert said == [s.text for s in demo.says]
