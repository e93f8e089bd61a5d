"""The console's web application (Starlette): the page, its files, the JSON interface and the stream.

| route | what |
| --- | --- |
| ``GET /`` | the page (works on a phone) |
| ``GET /api/state`` | the table's state (:mod:`referee.console.state`), with this run's CSRF token |
| ``GET /api/events`` | server-sent events: ``say``, ``state``, ``frame`` (``?since=N``, ``Last-Event-ID``) |
| ``GET /api/history`` | the record (:mod:`referee.console.history`) |
| ``GET /board.svg``, ``GET /frame.jpg`` | the board as drawn, the latest rectified camera frame |
| ``GET /evidence/ID.png``, ``GET /match/ID.mat`` | a call's frame; a match for gnubg |
| ``POST /api/press`` | ``{"button": "double", "pin": "..."}``: a button of the table |
| ``POST /api/settings`` | ``{"pin": "...", "match_length": 5, "rules": {...}, "show_legal": true}`` |

Every action needs the table's PIN (403 without it or with a wrong one; 429 after too many wrong ones),
the CSRF token in ``X-CSRF-Token``, a JSON body and a request from this origin. Every answer carries
the security headers (a CSP with no inline script, no framing); a request naming another site as its
Host is refused (DNS rebinding). Actions run in the frame loop's thread between two frames.
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import json
import socket
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hardware.signals import Button
from referee.console.feed import FrameFeed
from referee.console.guard import Guard, Verdict
from referee.console.history import Replayed, history_json
from referee.console.hub import Hub
from referee.export import ExportError, write_match_mat
from referee.journal import Journal
from referee.match import MatchError
from referee.rules_options import RuleOptions, RuleOptionsError
from referee.session import Session
from referee.turns import Say

HERE = Path(__file__).resolve().parent
MAX_BODY = 4096  # bytes: an action is a few fields
HISTORY_FRESH = 5.0  # seconds the record's JSON is served again without a look at the record
ANSWER_WAIT = 5.0  # seconds an action waits for the frame loop to take it before answering 202
HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        b"base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]
NO_STORE = {"cache-control": "no-store"}

# Runs an action in the frame loop's thread before its next frame (``FrameLoop.submit``).
Submit = Callable[[Callable[[float], Sequence[Say]]], None]


@dataclasses.dataclass
class Context:
    """What the application serves from."""

    hub: Hub
    guard: Guard
    submit: Submit
    session: Session
    feed: FrameFeed | None = None
    record: Path | None = None
    hosts: frozenset[str] = frozenset()
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True)
    _journal: Journal | None = None
    history_cache: tuple[object, float, bytes] | None = None
    replayed: dict[int, Replayed] = dataclasses.field(default_factory=dict)  # each game's positions

    def journal(self) -> Journal | None:
        """The record, opened read-only on first use (None when the referee keeps none)."""
        if self._journal is None and self.record is not None and self.record.is_file():
            self._journal = Journal.reader(self.record, live=True)
        return self._journal

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None


def allowed_hosts(bound: str) -> frozenset[str]:
    """Host names a request may carry: this machine's names and the bound host (any IP address is
    allowed as such). A name from elsewhere is a page of another site that rebinds its name to us."""
    names = {"localhost", bound.lower(), socket.gethostname().lower()}
    names.add(f"{socket.gethostname().lower()}.local")
    names.add(socket.getfqdn().lower())
    return frozenset(names)


def _host_ok(host_header: str, hosts: frozenset[str]) -> bool:
    host = host_header.strip().lower()
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    try:
        ipaddress.ip_address(host)
        return True
    except ValueError:
        return host in hosts


class Guarded:
    """ASGI middleware: security headers on every answer; a foreign Host refused."""

    def __init__(self, app: ASGIApp, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
        if not _host_ok(host, self.hosts):
            response = PlainTextResponse("unknown host: open the console by this machine's address", 421)
            await response(scope, receive, self._with_headers(send))
            return
        await self.app(scope, receive, self._with_headers(send))

    @staticmethod
    def _with_headers(send: Send) -> Send:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + HEADERS
            await send(message)

        return sending


def create_app(ctx: Context) -> ASGIApp:
    templates = Environment(
        loader=FileSystemLoader(HERE / "templates"), autoescape=select_autoescape(["html"])
    )

    async def page(request: Request) -> Response:
        html = templates.get_template("index.html").render(
            csrf=ctx.guard.csrf,
            since=max(0, ctx.hub.said - 30),
            actions=ctx.guard.actions_allowed,
            buttons=[(b.value, b.value.replace("_", " ")) for b in Button],
        )
        return HTMLResponse(html, headers=NO_STORE)

    async def state(request: Request) -> Response:
        body = {**(ctx.hub.state or {}), "version": ctx.hub.state_version, "said": ctx.hub.said}
        body["csrf_token"] = ctx.guard.csrf
        body["actions"] = ctx.guard.actions_allowed
        return JSONResponse(body, headers=NO_STORE)

    async def events(request: Request) -> Response:
        # a reconnecting EventSource sends the last id it had, which wins over the page's first ?since=
        since = request.headers.get("last-event-id") or request.query_params.get("since")
        start = int(since) if since is not None and since.isdigit() else None
        headers = {**NO_STORE, "x-accel-buffering": "no"}
        return StreamingResponse(ctx.hub.stream(start), media_type="text/event-stream", headers=headers)

    async def board(request: Request) -> Response:
        svg = (ctx.hub.state or {}).get("board_svg", "")
        return Response(svg, media_type="image/svg+xml", headers=NO_STORE)

    async def frame(request: Request) -> Response:
        jpeg = ctx.feed.fetched() if ctx.feed is not None else None
        if jpeg is None:
            return PlainTextResponse("no camera frame yet", 404, headers=NO_STORE)
        return Response(jpeg, media_type="image/jpeg", headers=NO_STORE)

    async def history(request: Request) -> Response:
        # built once per change of the record (every new entry comes with a sentence), not per client
        view = ctx.hub.view
        key = (ctx.hub.said, len(view.history) if view else 0, view.record_game if view else None)
        cached = ctx.history_cache
        if cached is None or cached[0] != key or time.monotonic() - cached[1] > HISTORY_FRESH:
            body = json.dumps(history_json(ctx.journal(), view, ctx.replayed)).encode()
            cached = ctx.history_cache = (key, time.monotonic(), body)
        return Response(cached[2], media_type="application/json", headers=NO_STORE)

    async def evidence(request: Request) -> Response:
        journal = ctx.journal()
        png = journal.evidence(request.path_params["event"]) if journal is not None else None
        if png is None:
            return PlainTextResponse("no frame was kept for that event", 404)
        return Response(png, media_type="image/png")

    async def mat(request: Request) -> Response:
        journal = ctx.journal()
        match_id = request.path_params["match"]
        if journal is None:
            return PlainTextResponse("this referee keeps no record", 404)
        try:
            text = write_match_mat(journal, match_id)
        except (ExportError, MatchError) as e:
            return PlainTextResponse(str(e), 404)
        disposition = f'attachment; filename="referee-match-{match_id}.mat"'
        return PlainTextResponse(text, headers={"content-disposition": disposition})

    async def press(request: Request) -> Response:
        body, refused = await _action(request, ctx)
        if refused is not None:
            return refused
        try:
            button = Button(body.get("button"))
        except ValueError:
            names = ", ".join(b.value for b in Button)
            return _error(400, f"no button {body.get('button')!r}: the buttons are {names}")
        ctx.log(f"console: {button.value} pressed from {_client(request)}")
        session = ctx.session
        return await _run(ctx, lambda t: session.press(button, t), {"button": button.value})

    async def settings(request: Request) -> Response:
        body, refused = await _action(request, ctx)
        if refused is not None:
            return refused
        answer: dict[str, Any] = {}
        if "show_legal" in body:
            if not isinstance(body["show_legal"], bool):
                return _error(400, "show_legal must be true or false")
            ctx.hub.set_show_legal(body["show_legal"])
            answer["show_legal"] = body["show_legal"]
        if "match_length" not in body and "rules" not in body:
            return JSONResponse({"done": True, **answer})
        try:
            new = _settings(ctx.session, body)
        except (RuleOptionsError, ValueError) as e:
            return _error(400, str(e))
        length, rules = new
        session = ctx.session

        def configure(t: float) -> Sequence[Say]:
            options = dataclasses.replace(session.options, match_length=length or None, rules=rules)
            try:
                session.reconfigure(options)
            except ValueError as e:
                return [Say(None, f"settings not changed: {e}")]
            kind = f"a {length}-point match" if length else "money play"
            on = [k for k, v in rules.to_mapping().items() if v is True]
            return [Say(None, f"settings: {kind}" + (f"; {', '.join(on)}" if on else ""))]

        return await _run(ctx, configure, answer)

    routes = [
        Route("/", page),
        Route("/api/state", state),
        Route("/api/events", events),
        Route("/api/history", history),
        Route("/api/press", press, methods=["POST"]),
        Route("/api/settings", settings, methods=["POST"]),
        Route("/board.svg", board),
        Route("/frame.jpg", frame),
        Route("/evidence/{event:int}.png", evidence),
        Route("/match/{match:int}.mat", mat),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    return Guarded(Starlette(routes=routes), ctx.hosts)


def _error(status: int, text: str, **headers: str) -> JSONResponse:
    return JSONResponse({"error": text}, status, headers={**NO_STORE, **headers})


def _client(request: Request) -> str:
    return request.client.host if request.client is not None else "?"


async def _action(request: Request, ctx: Context) -> tuple[dict[str, Any], Response | None]:
    """The body of an action, or the refusal: origin, CSRF token, body, then the PIN."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return {}, _error(403, "actions come from the console's own page")
    origin = request.headers.get("origin")
    if origin is not None and origin.split("://")[-1] != request.headers.get("host", ""):
        return {}, _error(403, "actions come from the console's own page")
    if not ctx.guard.csrf_ok(request.headers.get("x-csrf-token")):
        return {}, _error(403, "missing or stale CSRF token: reload the page (programs: GET /api/state)")
    if "pin" in request.query_params:
        return {}, _error(400, "send the PIN in the JSON body, never in the address")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            return {}, _error(413, f"an action is at most {MAX_BODY} bytes")
    try:
        body = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        body = None
    if not isinstance(body, dict):
        return {}, _error(400, 'send a JSON object such as {"button": "double", "pin": "..."}')
    if not ctx.hub.refereeing:
        return {}, _error(
            409, "the referee has stopped refereeing (the demo's game is over): nothing can act"
        )
    client = _client(request)
    verdict = ctx.guard.check(body.get("pin"), client, time.monotonic())
    if verdict is Verdict.OK:
        return body, None
    if verdict is Verdict.NO_PIN_SET:
        return {}, _error(403, "actions are off: this table set no console PIN (console_pin in the config)")
    if verdict is Verdict.LIMITED:
        wait = max(1, round(ctx.guard.retry_after(client, time.monotonic())))
        return {}, _error(429, f"too many wrong PINs: try again in {wait} s", **{"retry-after": str(wait)})
    if verdict is Verdict.WRONG:
        ctx.log(f"console: a wrong PIN from {client}")
    return {}, _error(403, "this action needs the table's PIN" if verdict is Verdict.MISSING else "wrong PIN")


def _settings(session: Session, body: dict[str, Any]) -> tuple[int, RuleOptions]:
    """The match length and rules an action asks for (the current ones where it names none)."""
    length = body.get("match_length", session.options.match_length or 0)
    if type(length) is not int or not 0 <= length <= 63:
        raise ValueError("match_length must be a whole number of points, 0 (money play) to 63")
    rules = body.get("rules", {})
    if not isinstance(rules, dict):
        raise ValueError("rules must be an object of rule options, as GET /api/state lists them")
    merged = {**session.options.rules.to_mapping(), **rules}
    return length, RuleOptions.from_mapping(merged)


async def _run(ctx: Context, action: Callable[[float], Sequence[Say]], answer: dict[str, Any]) -> Response:
    """Hands ``action`` to the frame loop and answers with what the table was told (202 if the loop
    has not taken it in :data:`ANSWER_WAIT` seconds: no frame came)."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[list[str]] = loop.create_future()

    def deliver(texts: list[str]) -> None:
        if not done.done():
            done.set_result(texts)

    def in_frame_loop(t: float) -> Sequence[Say]:
        says = list(action(t))
        loop.call_soon_threadsafe(deliver, [s.text for s in says])
        return says

    ctx.submit(in_frame_loop)
    try:
        said = await asyncio.wait_for(asyncio.shield(done), ANSWER_WAIT)
    except TimeoutError:
        return JSONResponse({**answer, "queued": True, "said": []}, 202, headers=NO_STORE)
    return JSONResponse({**answer, "done": True, "said": said}, headers=NO_STORE)
