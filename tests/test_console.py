"""The table console over real HTTP on 127.0.0.1: the real frame loop, session and server (uvicorn), a
reader that reads the board the test sets (the readers are tested elsewhere)."""

from __future__ import annotations

import random
import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given

from bgboard.layout import Board, Cell, ImageLayout, Orientation, Side
from bgboard.position import Position
from hardware.signals import Button
from referee.console.address import ConsoleAddressError, parse_address
from referee.console.board_svg import board_svg, picture_of_board, picture_of_reading
from referee.console.guard import IN_ALL, PER_CLIENT, Guard, Verdict
from referee.notation.match_id import encode_match_id
from referee.notation.position_id import encode_position_id
from referee.observe import reading_of
from referee.rules_options import RuleOptions
from tests.console_fixtures import ORIENTATION, LiveTable, read_events
from tests.strategies import positions

PIN = "2468"
SVG = "{http://www.w3.org/2000/svg}"


def svg_counts(svg: str) -> dict[str, int]:
    """Each cell's checkers as the drawing shows them: the circles, or the count on a taller stack;
    positive light, negative dark (bar cells unsigned)."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(f"{SVG}g"):
        cell = g.get("data-cell")
        if cell is None:
            continue
        circles = [c for c in g.iter(f"{SVG}circle") if "checker" in (c.get("class") or "")]
        label = [t for t in g.iter(f"{SVG}text") if "count" in (t.get("class") or "").split()]
        n = int(label[0].text or 0) if label else len(circles)
        dark = any("dark" in (c.get("class") or "") for c in circles)
        out[cell] = n if cell.startswith("bar") else (-n if dark else n)
    return out


def board_from_svg(svg: str) -> Board:
    counts = svg_counts(svg)
    cells = {Cell.parse(k): v for k, v in counts.items()}
    return Board.from_layout(ImageLayout.from_cells(cells), ORIENTATION)


@given(positions())
def test_the_svg_draws_every_checker_of_any_position(position) -> None:
    board = Board.from_position(position, Side.LIGHT)
    for orientation in Orientation:
        svg = board_svg(picture_of_board(board, orientation))
        cells = {Cell.parse(k): v for k, v in svg_counts(svg).items()}
        assert Board.from_layout(ImageLayout.from_cells(cells), orientation) == board
        root = ET.fromstring(svg)
        off = {
            g.get("data-side"): int(g.get("data-count")) for g in root.iter(f"{SVG}g") if g.get("data-side")
        }
        assert off == {"light": board.off(Side.LIGHT), "dark": board.off(Side.DARK)}


def test_the_svg_marks_the_cells_the_reader_is_unsure_of() -> None:
    hidden = (Cell.parse("top-3"), Cell.parse("bar-dark"))
    reading = reading_of(Board.start(), ORIENTATION, hidden)
    svg = board_svg(picture_of_reading(reading, ORIENTATION))
    root = ET.fromstring(svg)
    covered = [
        g.get("data-cell") for g in root.iter(f"{SVG}g") if g.find(f"{SVG}rect[@class='covered']") is not None
    ]
    assert sorted(covered) == ["bar-dark", "top-3"]
    assert svg_counts(board_svg(picture_of_reading(reading_of(Board.start(), ORIENTATION), ORIENTATION))) == (
        svg_counts(board_svg(picture_of_board(Board.start(), ORIENTATION)))
    )


def test_addresses_are_local_unless_a_host_is_given() -> None:
    assert parse_address("8080").host == "127.0.0.1"
    assert parse_address(" 0.0.0.0:9000 ").port == 9000
    assert parse_address("[::1]:80").host == "::1"
    for bad in ("", "http://x", "host:", ":80", "99999", "a b:80"):
        with pytest.raises(ConsoleAddressError):
            parse_address(bad)


def test_the_guard_limits_wrong_pins_and_then_refuses_even_the_right_one() -> None:
    guard = Guard(PIN)
    for _ in range(PER_CLIENT):
        assert guard.check("0000", "10.0.0.1", now=0.0) is Verdict.WRONG
    assert guard.check(PIN, "10.0.0.1", now=1.0) is Verdict.LIMITED
    assert guard.check(PIN, "10.0.0.2", now=1.0) is Verdict.OK  # another phone is not locked out
    assert guard.check(PIN, "10.0.0.1", now=61.0) is Verdict.OK  # the window has passed
    many = Guard(PIN)
    for k in range(IN_ALL):
        many.check("0000", f"10.0.1.{k}", now=0.0)
    assert many.check(PIN, "10.0.2.1", now=1.0) is Verdict.LIMITED  # guessing from many addresses
    assert Guard(None).check(PIN, "10.0.0.1", now=0.0) is Verdict.NO_PIN_SET


def test_the_state_shows_a_known_position_and_its_notations() -> None:
    board = Board.from_position(random_position(7), Side.LIGHT)
    with LiveTable(PIN, match_length=5) as table:
        table.set_position(board, Side.DARK)
        status, state = table.get_json("/api/state")
        assert status == 200
        assert state["position_id"] == encode_position_id(board.position(Side.DARK))
        match = table.in_loop(lambda s, t: s.match.match_state(s.game))
        assert state["match_id"] == encode_match_id(match)
        assert state["xgid"].startswith("XGID=")
        assert (state["stage"], state["on_roll"], state["dice"]) == ("roll", "dark", None)
        assert state["score"] == {"light": 0, "dark": 0} and state["match_length"] == 5
        assert state["last_verdict"] is None
        assert board_from_svg(state["board_svg"]) == board
        status, headers, svg = table.request("GET", "/board.svg")
        assert headers["content-type"].startswith("image/svg+xml")
        assert board_from_svg(svg.decode()) == board
        # every button of the table, the variations' too (HINT, VOID, PAUSE, CHECK)
        assert state["buttons"] == [b.value for b in Button]
        assert {"double", "take", "drop", "accept", "new_game", "hint"} <= set(state["buttons"])


def random_position(seed: int):
    from referee.moves import legal_plays

    rng = random.Random(seed)
    position = Board.start().position(Side.LIGHT)
    for _ in range(12):
        plays = legal_plays(position, (rng.randint(1, 6), rng.randint(1, 6)))
        position = rng.choice(plays).result.swap()
    assert isinstance(position, Position)
    return position


def test_an_action_without_the_pin_is_refused_and_with_it_the_session_acts() -> None:
    with LiveTable(PIN) as table:
        table.set_position(Board.start(), Side.LIGHT)
        assert table.act("/api/press", {"button": "double"})[0] == 403
        assert table.act("/api/press", {"button": "double", "pin": "1357"})[0] == 403
        assert table.act("/api/press", {"button": "double", "pin": PIN}, csrf=None)[0] == 403
        assert table.act("/api/press", {"button": "double", "pin": PIN}, csrf="forged")[0] == 403
        assert table.get_json("/api/state")[1]["stage"] == "roll"  # nothing happened
        status, answer = table.act("/api/press", {"button": "double", "pin": PIN})
        assert status == 200 and answer["done"], answer
        assert any("doubles" in line for line in answer["said"])
        state = table.wait_for(lambda st: st["stage"] == "doubled")
        assert state["stage_words"] == "waiting for dark to take or drop"
        assert table.act("/api/press", {"button": "take", "pin": PIN})[0] == 200
        state = table.wait_for(lambda st: st["stage"] == "roll")
        assert state["cube"] == {"value": 2, "owner": "dark", "in_play": True, "why_not": None}
        assert table.act("/api/press", {"button": "fold", "pin": PIN})[0] == 400
        # refused and wrong PINs are logged by address; the PIN itself never is
        assert any("wrong PIN from 127.0.0.1" in line for line in table.logged)
        assert all(PIN not in line for line in table.logged)


def test_actions_are_post_only_from_this_origin_with_a_json_body() -> None:
    with LiveTable(PIN) as table:
        csrf = table.csrf()
        assert table.request("GET", "/api/press")[0] == 405
        assert table.request("PUT", "/api/press", {"button": "double", "pin": PIN})[0] == 405
        foreign = {"X-CSRF-Token": csrf, "Origin": "http://evil.example"}
        assert table.request("POST", "/api/press", {"button": "double", "pin": PIN}, foreign)[0] == 403
        cross = {"X-CSRF-Token": csrf, "Sec-Fetch-Site": "cross-site"}
        assert table.request("POST", "/api/press", {"button": "double", "pin": PIN}, cross)[0] == 403
        assert (
            table.request("POST", f"/api/press?pin={PIN}", {"button": "double"}, {"X-CSRF-Token": csrf})[0]
            == 400
        )
        assert table.request("POST", "/api/press", b"not json", {"X-CSRF-Token": csrf})[0] == 400
        big = {"button": "double", "pin": PIN, "pad": "x" * 5000}
        assert table.request("POST", "/api/press", big, {"X-CSRF-Token": csrf})[0] == 413
        # another site's name for this address (DNS rebinding) is refused
        assert table.request("GET", "/api/state", headers={"Host": "evil.example"})[0] == 421


def test_wrong_pins_are_rate_limited() -> None:
    with LiveTable(PIN) as table:
        table.set_position(Board.start(), Side.LIGHT)
        for _ in range(PER_CLIENT):
            assert table.act("/api/press", {"button": "double", "pin": "0000"})[0] == 403
        status, headers, _ = table.request(
            "POST", "/api/press", {"button": "double", "pin": PIN}, {"X-CSRF-Token": table.csrf()}
        )
        assert status == 429 and int(headers["retry-after"]) > 0
        assert table.get_json("/api/state")[1]["stage"] == "roll"


def test_with_no_pin_set_every_action_is_refused() -> None:
    with LiveTable(None) as table:
        status, answer = table.act("/api/press", {"button": "new_game", "pin": PIN})
        assert status == 403 and "no console PIN" in answer["error"]
        assert table.get_json("/api/state")[1]["actions"] is False


def test_every_answer_carries_the_security_headers_and_the_page_no_inline_script() -> None:
    with LiveTable(PIN) as table:
        for path in ("/", "/api/state", "/static/console.js", "/board.svg", "/nowhere"):
            _, headers, _ = table.request("GET", path)
            csp = headers["content-security-policy"]
            assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe" not in csp
            assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"] == "nosniff"
        _, _, page = table.request("GET", "/")
        html = page.decode()
        assert re.findall(r"<script[^>]*>", html) == ['<script src="/static/console.js" defer>']
        assert not re.search(r"\son[a-z]+=", html)  # no inline handlers
        assert PIN not in html and PIN not in table.request("GET", "/api/state")[2].decode()


def test_settings_change_before_a_match_and_not_after_it_began() -> None:
    with LiveTable(PIN, match_length=None) as table:
        assert table.get_json("/api/state")[1]["legal_shown"] is True  # money play: the teacher's view
        status, answer = table.act(
            "/api/settings", {"pin": PIN, "match_length": 5, "rules": {"tournament_mode": True}}
        )
        assert status == 200 and "5-point match" in answer["said"][0], answer
        state = table.wait_for(lambda st: st["settings"]["match_length"] == 5)
        assert state["settings"]["rules"]["tournament_mode"] is True
        assert state["legal_shown"] is False  # off by default during a match
        options = table.in_loop(lambda s, t: s.options)
        assert options.match_length == 5 and options.rules.tournament_mode
        assert table.act("/api/settings", {"pin": PIN, "rules": {"nonsense": 1}})[0] == 400
        assert table.act("/api/settings", {"pin": PIN, "match_length": -1})[0] == 400
        table.set_position(Board.start(), Side.LIGHT)
        status, answer = table.act("/api/settings", {"pin": PIN, "match_length": 7})
        assert "settings not changed" in answer["said"][0]
        assert table.in_loop(lambda s, t: s.options.match_length) == 5
        # the teacher's switch shows the legal plays of the roll
        assert table.act("/api/settings", {"pin": PIN, "show_legal": True})[0] == 200
        table.in_loop(lambda s, t: s.game.roll(3, 1))
        state = table.wait_for(lambda st: st["dice"] == [3, 1])
        assert state["legal_shown"] and len(state["legal_plays"]) == 16  # an opening 3-1


def test_the_stream_sends_every_sentence_in_order_and_resumes_after_a_break() -> None:
    with LiveTable(PIN) as table:
        got: list[tuple[str, int, dict]] = []

        def follow() -> None:
            got.extend(read_events(table.port, 0, lambda seen: sum(e == "say" for e, _ in seen) >= 3))

        reader = threading.Thread(target=follow)
        reader.start()
        table.set_position(Board.start(), Side.LIGHT)
        for button in ("double", "take"):
            table.act("/api/press", {"button": button, "pin": PIN})
        reader.join(timeout=20)
        says = [(i, d["text"]) for e, i, d in got if e == "say"]
        assert [i for i, _ in says] == list(range(1, len(says) + 1))
        assert "position set" in says[0][1] and "double" in says[1][1]
        assert any(e == "state" for e, _, _ in got)
        # a client that was away asks for what it missed after the last id it had
        again = list(read_events(table.port, None, lambda seen: any(e == "say" for e, _ in seen), last_id=1))
        first = next(d for e, _, d in again if e == "say")
        assert first["id"] == 2 and first["text"] == says[1][1]


def test_the_record_history_and_match_file_are_served_read_only(tmp_path: Path) -> None:
    record = tmp_path / "record.sqlite"
    with LiveTable(PIN, record=record) as table:
        table.set_position(Board.start(), Side.LIGHT)
        table.in_loop(lambda s, t: s.press(Button.DOUBLE, t))
        table.in_loop(lambda s, t: s.press(Button.DROP, t))
        table.wait_for(lambda st: st["score"]["light"] == 1)  # dark dropped (the next game may begin)
        status, history = table.get_json("/api/history")
        assert status == 200
        game = history["matches"][0]["games"][-1]
        assert game["finished"] and game["winner"] == "light"
        assert [c["kind"] for c in game["calls"]][-1] == "result"
        status, headers, mat = table.request("GET", history["matches"][0]["mat"])
        assert status == 200 and "attachment" in headers["content-disposition"]
        assert "Wins 1 point" in mat.decode()
        assert table.request("GET", "/match/99.mat")[0] == 404
        assert table.request("GET", "/evidence/99999.png")[0] == 404
        assert PIN.encode() not in record.read_bytes()


def test_the_console_sees_what_the_referee_writes_after_it_opened_the_record(tmp_path: Path) -> None:
    """The console may open the record while nobody writes it yet (no write-ahead log beside it): a
    record read as it lies would never show the games written later."""
    from referee.journal import Journal

    path = tmp_path / "record.sqlite"
    Journal(path).close()  # what `referee demo` does first: checks the record can be made
    reader = Journal.reader(path, live=True)
    assert reader.matches() == []
    with Journal(path) as writer:
        writer.start_match(3, {})
        assert [m.length for m in reader.matches()] == [3]
    reader.close()


def test_the_console_reads_the_record_without_ever_writing_it(tmp_path: Path) -> None:
    from referee.journal import Journal, JournalError

    path = tmp_path / "record.sqlite"
    with Journal(path) as writer:
        writer.start_match(3, {})
    before = path.read_bytes()
    reader = Journal(path, readonly=True)
    assert [m.length for m in reader.matches()] == [3]
    with pytest.raises(Exception, match="read-only|readonly"):
        reader.start_match(5, {})
    reader.close()
    assert path.read_bytes() == before
    with pytest.raises(JournalError, match="does not exist"):
        Journal(tmp_path / "none.sqlite", readonly=True)
    (tmp_path / "junk.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(JournalError, match="not a referee record"):
        Journal(tmp_path / "junk.sqlite", readonly=True)


def test_the_frame_loop_never_waits_for_the_console() -> None:
    """With the console's thread stuck for two seconds (a slow client, a long request), the loop goes on
    judging frames and taking presses, and the console catches up afterwards with nothing lost."""
    import time

    judged: list[float] = []

    class Count:
        def stepped(self, *args: object) -> None:
            judged.append(time.monotonic())

    with LiveTable(PIN) as table:
        table.set_position(Board.start(), Side.LIGHT)
        table.loop.watchers.append(Count())
        loop = table.console.hub._loop
        assert loop is not None
        loop.call_soon_threadsafe(time.sleep, 2.0)  # the web thread's event loop is stuck
        time.sleep(0.1)
        began = time.monotonic()
        said = table.in_loop(lambda s, t: s.press(Button.DOUBLE, t))
        said += table.in_loop(lambda s, t: s.press(Button.TAKE, t))
        time.sleep(1.0)
        during = [t for t in judged if began <= t < began + 1.0]
        assert time.monotonic() - began < 1.9  # all of this while the console was stuck
        assert len(during) >= 10  # frames went on being judged (25 a second nominal)
        assert any("doubles" in s.text for s in said)
        state = table.wait_for(lambda st: st["cube"]["value"] == 2)
        assert state["stage"] == "roll"


def test_a_games_positions_replayed_bit_by_bit_are_those_replayed_at_once() -> None:
    from referee.console.history import Replayed
    from referee.console.history import positions as replayed_positions
    from referee.game import Game
    from tests.strategies import play_out

    game = Game()
    play_out(game, random.Random(5))
    events = list(game.history)
    whole = replayed_positions(events, 0, RuleOptions(), False, (0, 0))
    replay = Replayed(0, RuleOptions(), False, (0, 0))
    for end in range(0, len(events) + 1, 7):
        replay.extend(events[:end])
    assert replay.extend(events) == whole and len(whole) == len(events)
    plays = [row for row, e in zip(whole, events, strict=True) if e.kind.value == "play"]
    assert plays and all(row["xgid"].startswith("XGID=") for row in plays[:-1])
    assert whole[-1]["xgid"] is None  # the game is over: an XGID describes a game in progress
    with pytest.raises(ValueError):
        replay.extend(events[1:])  # another game
