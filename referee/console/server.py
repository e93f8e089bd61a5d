"""The console's server: uvicorn on a thread of its own, serving :mod:`referee.console.app` on a socket
bound before refereeing starts.

    console = Console.open(parse_address("8080"), session, loop.submit, pin=None, record=path, warp=warp)
    loop.watchers.append(console.hub)
    console.start()          # returns once it listens
    ...
    console.stop()           # ends the streams, stops the server, joins its thread

The frame loop only ever calls :meth:`~referee.console.hub.Hub.stepped`; everything else runs in the
server's thread (its asyncio loop) and the frame feed's thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from referee.console.address import ConsoleAddress, Listener, listen
from referee.console.app import Context, Submit, allowed_hosts, create_app
from referee.console.feed import FrameFeed
from referee.console.guard import Guard
from referee.console.hub import Hub
from referee.session import Session

START_WAIT = 10.0  # seconds for the server to come up
MAX_CONNECTIONS = 100  # a table's phones and a club's screens; past it, 503 rather than a Pi run dry


class ConsoleError(RuntimeError):
    """The console could not start."""


class Console:
    """The running console (see the module doc)."""

    def __init__(self, listener: Listener, ctx: Context) -> None:
        self.listener = listener
        self.ctx = ctx
        self.hub = ctx.hub
        self._app = create_app(ctx)
        config = uvicorn.Config(
            _Lifespan(self._app, self._started, self._stopping),
            log_config=None,
            log_level="warning",
            access_log=False,  # frames and states every second would fill a Pi's log; actions are logged
            proxy_headers=False,  # no proxy stands in front: the peer's address is the client
            server_header=False,
            limit_concurrency=MAX_CONNECTIONS,
            timeout_graceful_shutdown=2,
            lifespan="on",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="console", daemon=True)
        self._up = threading.Event()
        self._failed: BaseException | None = None

    @classmethod
    def open(
        cls,
        address: ConsoleAddress,
        session: Session,
        submit: Submit,
        *,
        pin: str | None,
        record: Path | None,
        warp: Callable[[Any], Any] | None = None,
    ) -> Console:
        """Binds the socket now (a port in use is a clear error before refereeing starts)."""
        listener = listen(address)
        hub = Hub(session)
        feed = FrameFeed(warp, watching=lambda: hub.subscribers > 0)
        hub.frames = feed
        hosts = allowed_hosts(address.host)
        ctx = Context(hub, Guard(pin), submit, session, feed, record, hosts)
        return cls(listener, ctx)

    @property
    def url(self) -> str:
        return self.listener.url

    def start(self) -> None:
        """Serves from now on; returns once the server listens."""
        self.hub.prime()
        feed = self.ctx.feed
        if feed is not None:
            feed.start()
        self._thread.start()
        if not self._up.wait(START_WAIT) or self._failed is not None:
            self.stop()
            raise ConsoleError(f"the console did not start: {self._failed or 'no answer'}")

    def stop(self) -> None:
        """Ends every stream, stops the server and joins its threads. Safe to call twice."""
        if self.ctx.feed is not None:
            self.ctx.feed.stop()  # first: it hands frames to the server's event loop
        self.hub.close()
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10.0)
        self.ctx.close()
        self.listener.close()

    def _serve(self) -> None:
        try:
            self._server.run(sockets=[self.listener.sock])
        except BaseException as e:  # reported by start(); the referee goes on without its console
            self._failed = e
            self._up.set()

    def _started(self) -> None:
        loop = asyncio.get_running_loop()
        self.hub.attach(loop)
        feed = self.ctx.feed
        if feed is not None:

            def on_new(number: int) -> None:
                with contextlib.suppress(RuntimeError):  # the server has just stopped
                    loop.call_soon_threadsafe(self.hub.frame_ready, number)

            feed.on_new = on_new
        self._up.set()

    def _stopping(self) -> None:
        self.hub.close()


class _Lifespan:
    """The ASGI lifespan: the hub learns the server's event loop once it runs."""

    def __init__(self, app: ASGIApp, started: Callable[[], None], stopping: Callable[[], None]) -> None:
        self.app = app
        self.started = started
        self.stopping = stopping

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.started()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.stopping()
                await send({"type": "lifespan.shutdown.complete"})
                return
