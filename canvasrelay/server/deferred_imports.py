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


_LOCKS: dict[tuple[str, ...], threading.Lock] = {}
"""One lock per list of modules: two threads importing the same package at once (two servers in
one process) can meet a module of it half initialised, an ImportError in one of them."""


class DeferredImports:
    def __init__(self, modules: Sequence[str]) -> None:
        self.modules = tuple(modules)
        self._lock = _LOCKS.setdefault(self.modules, threading.Lock())
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
        with self._lock:
            for name in self.modules:
                importlib.import_module(name)
