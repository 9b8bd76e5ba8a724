"""A listening site that keeps file descriptors for the room's own work, however many sockets arrive.

Each accepted socket holds a descriptor from the moment the kernel hands it over, before any handler
can refuse it; a burst of connections (one address opening a thousand sockets at once) could
otherwise take every descriptor the process may hold, and then the host's page, an agent's pipes or
the store's file fail with "Too many open files". Past `connection_cap()` open connections the site
answers 503 at once, without reading the request, and closes.
"""

from __future__ import annotations

import asyncio
import resource

from aiohttp import web

FILE_LIMIT_WANTED = 16384
"""Raised to at start where the hard limit allows: many systems start a process at a soft 1,024."""
FILE_RESERVE = 512
"""Descriptors kept for what is not a connection (agents' pipes, terminals, the store, files
opened for guests) and for the sockets accepted in one batch before the cap is checked."""
ACCEPT_BACKLOG = 128
FULL = (
    b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain\r\n"
    b"Content-Length: 20\r\n\r\nthe server is full.\n"
)


def raise_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FILE_LIMIT_WANTED if hard == resource.RLIM_INFINITY else min(hard, FILE_LIMIT_WANTED)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def connection_cap() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return FILE_LIMIT_WANTED
    return max(32, soft - FILE_RESERVE)


class _Full(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(FULL)
        transport.close()


class BoundedSite(web.BaseSite):
    __slots__ = ("_cap", "_host", "_port")

    def __init__(self, runner: web.BaseRunner, host: str, port: int, cap: int | None = None) -> None:
        super().__init__(runner, backlog=ACCEPT_BACKLOG)
        self._host = host
        self._port = port
        self._cap = cap

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        cap = self._cap or connection_cap()

        def accept() -> asyncio.BaseProtocol:
            return _Full() if len(server.connections) >= cap else server()

        self._server = await asyncio.get_running_loop().create_server(
            accept, self._host, self._port, backlog=self._backlog
        )
