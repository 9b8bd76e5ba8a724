"""Pieces for tests whose browser guests reach a server through Nostr relays: the server on an
event loop of its own beside Playwright's synchronous thread, and a guest page's join."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from canvasrelay.server.app import CanvasServer, ServeOptions

T = TypeVar("T")
WAIT_MS = 30_000


class Loop:
    """An event loop on a thread of its own, for the server (and stand-in relays) beside the
    synchronous Playwright of the test's thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="canvas serve", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@contextmanager
def serving_on(loop: Loop, root: Path, relay_urls: list[str], **options: Any) -> Iterator[CanvasServer]:
    """`canvas serve --relays …`: the room link names these relays, the served page may reach them."""

    async def start() -> CanvasServer:
        server = CanvasServer(ServeOptions(root=root, relays=relay_urls, **options))
        await server.start()
        assert await server.relays_chosen(10) == relay_urls
        return server

    server = loop.run(start())
    try:
        yield server
    finally:
        loop.run(server.stop())


def join(page: Any, link: str, name: str) -> None:
    page.goto(link)
    page.get_by_test_id("join-title").filter(has_text="Join project").wait_for(timeout=WAIT_MS)
    page.get_by_test_id("guest-name").fill(name)
    page.get_by_test_id("guest-join").click()
    page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
    page.get_by_test_id("board-toolbar").wait_for(timeout=WAIT_MS)
