"""The console page in a real headless browser (Debian's chromium driven by playwright's Python package):
the board of a known position, the buttons with and without the PIN, a demo game followed live.

Skipped, with the reason, where chromium or playwright is missing (`.ci/run` installs both where it can).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bgboard.layout import Board, Side
from tests.console_fixtures import ORIENTATION, LiveTable, ctrl_c_reaches_it
from tests.test_console import random_position

PIN = "2468"
REFEREE = [sys.executable, "-c", "import sys; from referee.cli import main; sys.exit(main())"]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# as a sandboxed root user on a machine with no network: no sandbox, no GPU, no calls home
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# the checkers of each cell as the page's SVG draws them (the circles, or the count on a tall stack)
COUNT_JS = """() => {
  const out = {};
  for (const g of document.querySelectorAll('#board svg g[data-cell]')) {
    const circles = [...g.querySelectorAll('circle')].filter(c => c.classList.contains('checker'));
    const label = g.querySelector('text.count');
    const n = label ? Number(label.textContent) : circles.length;
    const dark = circles.some(c => c.classList.contains('dark'));
    const cell = g.dataset.cell;
    out[cell] = cell.startsWith('bar') ? n : (dark ? -n : n);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip(
            "chromium is not installed (apt-get install chromium): the page is not checked in a browser"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright's Python package is not installed (pip install playwright)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def expect(locator: Any) -> Any:
    """playwright's assertions (they wait, and need no script evaluated against the page's CSP)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def test_the_page_shows_the_board_of_a_known_position(browser: Any) -> None:
    board = Board.from_position(random_position(11), Side.LIGHT)
    with LiveTable(PIN, match_length=3) as table:
        table.set_position(board, Side.LIGHT)
        page = browser.new_page(viewport={"width": 412, "height": 915})  # a phone
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"http://127.0.0.1:{table.port}/")
        page.wait_for_selector("#board svg g[data-cell]")
        expect(page.locator("#link")).to_have_text("live")
        shown = page.evaluate(COUNT_JS)
        expected = {str(cell): n for cell, n in board.layout(ORIENTATION).cells().items()}
        assert shown == expected
        state = table.get_json("/api/state")[1]
        assert page.inner_text("#position-id") == state["position_id"]
        assert page.inner_text("#match-id") == state["match_id"]
        assert "light to roll" in page.inner_text("#status")
        # it fits the phone: nothing wider than the screen
        assert page.evaluate("document.documentElement.scrollWidth") <= 412
        assert errors == []  # the CSP let everything the page needs through, and nothing broke
        page.close()


def test_a_button_without_the_pin_is_refused_and_with_it_the_session_acts(browser: Any) -> None:
    with LiveTable(PIN) as table:
        table.set_position(Board.start(), Side.LIGHT)
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{table.port}/")
        expect(page.locator("#link")).to_have_text("live")
        page.click("button[data-button=double]")
        expect(page.locator("#answer")).to_contain_text("refused")
        assert "needs the table's PIN" in page.inner_text("#answer")
        page.fill("#pin", "1111")
        page.click("button[data-button=double]")
        expect(page.locator("#answer")).to_contain_text("wrong PIN")
        assert table.in_loop(lambda s, t: s.stage.value) == "roll"
        page.fill("#pin", PIN)
        page.click("button[data-button=double]")
        expect(page.locator("#status")).to_contain_text("take or drop")
        assert table.in_loop(lambda s, t: s.stage.value) == "doubled"
        assert "light doubles" in page.inner_text("#says")
        assert PIN not in page.content()
        page.close()


def test_the_page_follows_a_demo_game_live(browser: Any, tmp_path: Path) -> None:
    # the demo's own record goes to a temporary folder: this test's, not the machine's
    env = {**os.environ, "REFEREE_CONSOLE_PIN": PIN, "TMPDIR": str(tmp_path)}
    demo = subprocess.Popen(
        [*REFEREE, "demo", "--turns", "3", "--console", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=ctrl_c_reaches_it,
    )
    try:
        lines: list[str] = []
        assert demo.stdout is not None
        for line in demo.stdout:
            lines.append(line)
            if line.startswith("console: "):
                break
        url = lines[-1].split()[1].rstrip(";")
        done = threading.Event()

        def rest() -> None:
            assert demo.stdout is not None
            for line in demo.stdout:
                lines.append(line)
                if "keeps serving" in line:
                    done.set()

        threading.Thread(target=rest, daemon=True).start()
        page = browser.new_page()
        page.goto(url)
        expect(page.locator("#link")).to_have_text("live")
        assert done.wait(120), "".join(lines)
        expect(page.locator("#status")).to_contain_text("referee has stopped")
        said = [line.strip() for line in lines if line.startswith("  ") and "no .mat" not in line]
        shown = page.eval_on_selector_all(
            "#says li", "items => items.map(li => [Number(li.dataset.id), li.textContent])"
        )
        shown.sort()
        ids = [i for i, _ in shown]
        assert ids == list(range(ids[0], ids[0] + len(ids))) and ids[-1] == len(said)
        assert [text for _, text in shown] == said[ids[0] - 1 :]
        assert len(shown) >= min(len(said), 30)  # the page joined late: it still shows the last 30
        # the page loads the history 0.8 s after the last sentence it heard: wait for it
        expect(page.locator("#history")).to_contain_text("game 1")
        expect(page.locator("#history")).to_contain_text("download .mat")
        page.close()
    finally:
        demo.send_signal(signal.SIGINT)
        out, _ = demo.communicate(timeout=30)
    assert demo.returncode == 0, out
