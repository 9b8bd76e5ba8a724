"""Board tools for agents: an MCP server (streamable HTTP) on the canvas server's own port.

Each agent session gets its own secret, sent as a Bearer token in the `session/new` entry;
a request without a known secret never reaches the MCP server. The tools edit the server's
board through `BoardTools`, so every change is stored and sent to every client at once.

The MCP SDK serves ASGI; `_asgi` bridges one aiohttp request to it, so no second port opens.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from canvasrelay.core.board_edits import BoardApiError, UnknownItemError, spot_beside

if TYPE_CHECKING:
    from canvasrelay.server.board_host import BoardTools

PATH = "/mcp/board"
MAX_BODY = 1 << 20
SERVER_NAME = "canvas-board"


class BoardMcp:
    def __init__(self, tools: BoardTools) -> None:
        self.tools = tools
        self._secrets: dict[str, str] = {}
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._runner: asyncio.Task[None] | None = None
        self.mcp = _server(tools, self._caller)
        self.asgi = self.mcp.streamable_http_app(
            streamable_http_path=PATH,
            json_response=True,
            stateless_http=True,
            # The secret is checked before a request gets here; the host check would refuse
            # agents that reach the server by another of its names.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )

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

    async def start(self) -> None:
        self._runner = asyncio.create_task(self._lifespan())
        await self._ready.wait()

    async def stop(self) -> None:
        self._stop.set()
        if self._runner is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._runner

    async def _lifespan(self) -> None:
        # The SDK's task group must be entered and left by one task: this one.
        async with self.asgi.router.lifespan_context(self.asgi):
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
        return await _asgi(self.asgi, request, body)

    def install(self, app: web.Application) -> None:
        app.router.add_route("*", PATH, self.handle)


async def _asgi(asgi: Any, request: web.Request, body: bytes) -> web.StreamResponse:
    """Run one request through an ASGI app, streaming its answer back."""
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
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal response
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
                finished.set()

    try:
        await asgi(scope, receive, send)
    finally:
        finished.set()
    if response is None:
        return web.json_response({"error": "the board tools gave no answer"}, status=500)
    await response.write_eof()
    return response


def _server(tools: BoardTools, caller: Callable[[Context], str | None]) -> MCPServer:
    # WARNING: the SDK configures the root logger at this level (INFO would echo every request).
    mcp = MCPServer(
        SERVER_NAME,
        instructions="Read and edit the shared canvas board that everyone in the room sees.",
        log_level="WARNING",
    )

    def out(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    async def edit(call: Any) -> str:
        try:
            result = await call
        except (BoardApiError, UnknownItemError) as exc:
            raise ValueError(str(exc)) from None
        return out({"id": result.id, "removed": list(result.removed)})

    @mcp.tool()
    def list_items() -> str:
        """Every item on the board (notes, text, shapes, arrows, strokes, frames), back to front, as JSON."""
        return out(tools.list_items())

    @mcp.tool()
    def read_item(item_id: str) -> str:
        """One board item by id, as JSON."""
        try:
            return out(tools.read_item(item_id))
        except UnknownItemError as exc:
            raise ValueError(str(exc)) from None

    @mcp.tool()
    async def add_note(
        ctx: Context, text: str, x: float | None = None, y: float | None = None, color: str | None = None
    ) -> str:
        """Add a sticky note; without x and y it goes beside your own frame, or right of everything. Returns its id."""
        session = caller(ctx)
        if x is None and y is None and session is not None:
            x, y = spot_beside(tools.board, session) or (None, None)
        return await edit(tools.add_note(text, x, y, color))

    @mcp.tool()
    async def add_text(text: str, x: float | None = None, y: float | None = None, color: str | None = None) -> str:
        """Add a free text label. Returns its id."""
        return await edit(tools.add_text(text, x, y, color))

    @mcp.tool()
    async def add_shape(
        shape: str = "rect",
        text: str = "",
        x: float | None = None,
        y: float | None = None,
        w: float | None = None,
        h: float | None = None,
        color: str | None = None,
    ) -> str:
        """Add a shape ("rect" or "ellipse") with optional text. Returns its id."""
        return await edit(tools.add_shape(shape, text, x, y, w, h, color))

    @mcp.tool()
    async def add_arrow(from_id: str, to_id: str, color: str | None = None) -> str:
        """Connect two items with an arrow. Returns its id."""
        return await edit(tools.connect(from_id, to_id, color))

    @mcp.tool()
    async def move_item(item_id: str, x: float, y: float) -> str:
        """Move an item so its top-left corner is at (x, y)."""
        return await edit(tools.move(item_id, x, y))

    @mcp.tool()
    async def delete_item(item_id: str) -> str:
        """Delete an item (and the arrows attached to it)."""
        return await edit(tools.delete(item_id))

    return mcp
