"""Libraries that take seconds to import, imported in a worker thread once the server is up.

The ACP SDK's schema and the MCP SDK are thousands of pydantic models: importing them took 3 of
the 4.4 s before `canvas serve` printed its links, and nothing needs them until an agent starts or
calls a board tool. The WebRTC library's Python side (wrtc's bindings, a third of a second; aiortc
with PyAV, half) is not needed until a guest's offer is answered (`canvasrelay.net.peer_connection`
names its modules). The server starts the import when it is up; whoever needs one of these modules
awaits `ready()` first, so the event loop never waits on the import lock.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import Sequence

AGENT_MODULES = ("canvasrelay.server.agents.process", "canvasrelay.server.board.mcp_server")


_IMPORT_LOCK = threading.Lock()
"""One import at a time, whatever the list: two threads importing one package at once (two servers
in one process) can meet a module of it half initialised, and two compiling at once break Python
3.11's parser (pydantic reads field docstrings with `ast`; with the WebRTC library's import beside
the agents' it raised "AST constructor recursion depth mismatch" and the agent never started)."""


class DeferredImports:
    def __init__(self, modules: Sequence[str]) -> None:
        self.modules = tuple(modules)
        self._done: asyncio.Future[None] | None = None

    def start(self) -> None:
        """Begin importing, once (later calls do nothing)."""
        if self._done is None:
            self._done = asyncio.ensure_future(asyncio.to_thread(self._import_all))

    async def ready(self) -> None:
        """Until every module is imported (an import that failed raises here, each time)."""
        self.start()
        assert self._done is not None
        await asyncio.shield(self._done)

    def _import_all(self) -> None:
        with _IMPORT_LOCK:
            for name in self.modules:
                importlib.import_module(name)
