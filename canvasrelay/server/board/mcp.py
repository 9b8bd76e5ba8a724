"""Board tools for agents: an MCP server (streamable HTTP) on the canvas server's own port.

Each agent session gets its own secret, sent as a Bearer token in the `session/new` entry;
a request without a known secret never reaches the MCP server. The tools edit the server's
board through `BoardTools`, so every change is stored and sent to every client at once.

The MCP SDK serves ASGI; `_asgi` bridges one aiohttp request to it, so no second port opens.
The server itself (`board/mcp_server.py`) is built on the first authorised request, once the
deferred imports are in.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import secrets
from typing import TYPE_CHECKING, Any

from aiohttp import web

from canvasrelay.server.deferred_imports import DeferredImports

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from canvasrelay.server.board.host import BoardTools

PATH = "/mcp/board"
MAX_BODY = 1 << 20
SERVER_NAME = "canvas-board"


class BoardMcp:
    def __init__(self, tools: BoardTools, deferred: DeferredImports) -> None:
        self.tools = tools
        self.deferred = deferred
        self._secrets: dict[str, str] = {}
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self._asgi: Any = None
        self._building = asyncio.Lock()

    def secret_for(self, session_id: str) -> str:
        for secret, owner in self._secrets.items():
            if owner == session_id:
                return secret
        secret = secrets.token_urlsafe(32)
        self._secrets[secret] = session_id
        return secret

    def forget(self, session_id: str) -> None:
        self._secrets = {s: o for s, o in self._secrets.items() if o != session_id}

    def entry(self, base_url: str, session_id: str) -> dict[str, Any]:
        """The ACP `mcpServers` entry for one session."""
        return {
            "type": "http",
            "name": SERVER_NAME,
            "url": base_url.rstrip("/") + PATH,
            "headers": [{"name": "Authorization", "value": f"Bearer {self.secret_for(session_id)}"}],
        }

    def _caller(self, ctx: Context) -> str | None:
        """The session whose secret the tool call came with (it passed `_authorised`)."""
        request = ctx.request_context.request
        header = request.headers.get("authorization", "") if request is not None else ""
        return self._secrets.get(header.partition(" ")[2].strip())

    def _authorised(self, request: web.Request) -> bool:
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            return False
        return any(hmac.compare_digest(token.strip(), secret) for secret in list(self._secrets))

    async def _app(self) -> Any:
        """The MCP server's ASGI app, built and started the first time it is asked for."""
        async with self._building:
            if self._asgi is None:
                await self.deferred.ready()
                from canvasrelay.server.board.mcp_server import asgi_app

                asgi = asgi_app(self.tools, self._caller, SERVER_NAME, PATH)
                self._runner = asyncio.create_task(self._lifespan(asgi))
                await self._ready.wait()
                self._asgi = asgi
        return self._asgi

    async def stop(self) -> None:
        self._stop.set()
        if self._runner is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner

    async def _lifespan(self, asgi: Any) -> None:
        # The SDK's task group must be entered and left by one task: this one.
        async with asgi.router.lifespan_context(asgi):
            self._ready.set()
            await self._stop.wait()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if not self._authorised(request):
            return web.json_response({"error": "send the session's board secret as a Bearer token"}, status=401)
        if request.content_length is not None and request.content_length > MAX_BODY:
            return web.json_response({"error": "request too large"}, status=413)
        body = await request.content.read(MAX_BODY + 1)
        if len(body) > MAX_BODY:
            return web.json_response({"error": "request too large"}, status=413)
        return await _asgi(await self._app(), request, body)

    def install(self, app: web.Application) -> None:
        app.router.add_route("*", PATH, self.handle)


DISCONNECT_POLL_S = 1.0
"""aiohttp tells a handler nothing when its client goes; a stream waiting to send looks this often."""


def _gone(request: web.Request) -> bool:
    return request.transport is None or request.transport.is_closing()


async def _asgi(asgi: Any, request: web.Request, body: bytes) -> web.StreamResponse:
    """Run one request through an ASGI app, streaming its answer back. A client that goes away
    (an agent closing its event stream) is an `http.disconnect` for the app, as ASGI servers say,
    not an error: what the app still sends goes nowhere."""
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    host, port = sockname[:2] if sockname else ("127.0.0.1", 0)
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": "http",
        "path": request.path,
        "raw_path": request.raw_path.split("?", 1)[0].encode(),
        "query_string": request.query_string.encode(),
        "root_path": "",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in request.headers.items()],
        "client": (request.remote or "", 0),
        "server": (host, port),
    }
    sent_body = False
    finished = asyncio.Event()
    response: web.StreamResponse | None = None

    async def receive() -> dict[str, Any]:
        nonlocal sent_body
        if not sent_body:
            sent_body = True
            return {"type": "http.request", "body": body, "more_body": False}
        while not finished.is_set() and not _gone(request):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(finished.wait(), DISCONNECT_POLL_S)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal response
        if finished.is_set():
            return
        try:
            if message["type"] == "http.response.start":
                response = web.StreamResponse(status=message["status"])
                for key, value in message.get("headers", []):
                    name = key.decode("latin-1")
                    if name.lower() != "content-length":
                        response.headers.add(name, value.decode("latin-1"))
                await response.prepare(request)
            elif message["type"] == "http.response.body" and response is not None:
                await response.write(message.get("body", b""))
                if not message.get("more_body"):
                    await response.write_eof()
                    finished.set()
        except ConnectionResetError:
            finished.set()

    try:
        await asgi(scope, receive, send)
    finally:
        finished.set()
    if response is None:
        return web.json_response({"error": "the board tools gave no answer"}, status=500)
    return response
