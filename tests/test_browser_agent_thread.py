"""Chromium: a long agent thread stays windowed, and a change to an earlier turn redraws.

The thread is made by the real demo agent, prompted through a real host WebSocket (HostClient)
that runs on its own event loop thread: Playwright's sync API holds the main thread's loop.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

from tests.browser_pages import start_agent
from tests.support import HostClient, ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

TIMEOUT_MS = 20_000
TURNS = 300
BATCH = 20  # the server queues at most 20 prompts per session
T = TypeVar("T")


class Host:
    """A HostClient on a background loop, called from sync test code."""

    def __init__(self, server: ServerProcess) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.client: HostClient = self.run(HostClient.connect(server))

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 120.0) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.run(self.client.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)

    def session_id(self) -> str:
        sessions = self.client.welcome["sessions"]
        assert len(sessions) == 1
        return str(sessions[0]["id"])

    def prompt(self, session_id: str, texts: list[str]) -> list[dict[str, Any]]:
        """Sends the prompts at once (they queue) and returns every event up to the last turn-end."""
        return self.run(self._prompt(session_id, texts))

    async def _prompt(self, session_id: str, texts: list[str]) -> list[dict[str, Any]]:
        for text in texts:
            await self.client.send({"t": "agent-prompt", "sessionId": session_id, "text": text, "author": "host"})
        return await self.events_until(session_id, "turn-end", len(texts))

    async def events_until(self, session_id: str, kind: str, count: int = 1) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        async with asyncio.timeout(60):
            while count:
                frame = await self.client.next_frame(60)
                if frame.get("t") == "agent-event" and frame["sessionId"] == session_id:
                    events.append(frame["event"])
                    count -= frame["event"]["kind"] == kind
        return events


@pytest.fixture
def page(browser: Any, server: ServerProcess) -> Iterator[Any]:
    """Closed before the server stops: a connected page would hold its shutdown up."""
    page = browser.new_page()
    yield page
    page.close()


def add_agent(page: Any, server: ServerProcess) -> Any:
    page.goto(server.host_link)
    page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    start_agent(page)
    view = page.get_by_test_id("agent-view")
    view.get_by_test_id("agent-config-mode").wait_for(timeout=TIMEOUT_MS)
    return view


def rows(view: Any) -> int:
    return int(view.locator(".agent-row").count())


def test_a_long_thread_draws_a_window_and_scrolls_to_older_turns(page: Any, server: ServerProcess) -> None:
    view = add_agent(page, server)
    host = Host(server)
    try:
        session_id = host.session_id()
        for start in range(0, TURNS, BATCH):
            host.prompt(session_id, [f"turn {n}" for n in range(start, start + BATCH)])
        thread = view.get_by_test_id("agent-thread")
        last = view.get_by_test_id("agent-message").filter(has_text=f"You said: turn {TURNS - 1}")

        # Streamed live: each turn is a user row, a plan and a message, but only a window is drawn,
        # and the view followed the stream to the bottom.
        last.wait_for(timeout=TIMEOUT_MS)
        assert rows(view) < 100, rows(view)
        assert thread.evaluate("e => e.scrollHeight - e.scrollTop - e.clientHeight") <= 8

        # Scrolled to the top, the first turns are drawn and the window is still bounded.
        thread.evaluate("e => { e.scrollTop = 0; }")
        view.get_by_test_id("agent-message").filter(has_text="You said: turn 0").wait_for(timeout=TIMEOUT_MS)
        assert rows(view) < 100, rows(view)
        assert not last.is_visible()

        # A new turn while the reader is up there grows the list below without moving them.
        height = thread.evaluate("e => e.scrollHeight")
        host.prompt(session_id, ["one more"])
        page.wait_for_function("([e, h]) => e.scrollHeight > h", arg=[thread.element_handle(), height])
        assert thread.evaluate("e => e.scrollTop") == 0
        assert view.get_by_test_id("agent-message").filter(has_text="You said: turn 0").is_visible()

        # Reloaded, the thread opens at its end with the newest page, still windowed; older turns
        # come page by page as the reader keeps scrolling up.
        page.reload()
        view.get_by_test_id("agent-message").filter(has_text="You said: one more").wait_for(timeout=TIMEOUT_MS)
        assert rows(view) < 100, rows(view)
        middle = f"You said: turn {TURNS // 2}"
        assert not view.get_by_test_id("agent-message").filter(has_text=middle).count()
        page.wait_for_function(
            """([thread, text]) => {
              thread.scrollTop = 0;
              return [...thread.querySelectorAll(".agent-message")].some((e) => e.textContent.includes(text));
            }""",
            arg=[thread.element_handle(), middle],
            timeout=TIMEOUT_MS,
        )
        assert rows(view) < 100, rows(view)
    finally:
        host.close()


def test_a_permission_of_an_earlier_turn_redraws_when_caught_up(page: Any, server: ServerProcess) -> None:
    """The page misses a turn's end and the next turn (its connection drops), then catches up in
    one history batch that changes items of an earlier turn: those rows must redraw."""
    sockets: dict[str, Any] = {"offline": False, "page": None}

    def route(ws: Any) -> None:
        if sockets["offline"]:
            ws.close()
            return
        sockets["page"], sockets["server"] = ws, ws.connect_to_server()

    page.route_web_socket("**/ws", route)
    view = add_agent(page, server)
    host = Host(server)
    try:
        session_id = host.session_id()
        host.run(host.client.send({"t": "agent-prompt", "sessionId": session_id, "text": "/write late.txt caught up"}))
        asked = host.run(host.events_until(session_id, "permission"))[-1]
        permission = view.get_by_test_id("agent-permission")
        permission.get_by_role("button", name="Allow").wait_for(timeout=TIMEOUT_MS)
        assert view.get_by_test_id("agent-tool").get_attribute("class") == "agent-tool agent-tool-pending"

        sockets["offline"] = True
        sockets["server"].close()
        sockets["page"].close()
        page.get_by_test_id("connection-state").filter(has_text="Reconnecting").wait_for(timeout=TIMEOUT_MS)
        answer = {"t": "agent-permission", "sessionId": session_id, "requestId": asked["requestId"]}
        host.run(host.client.send({**answer, "answer": "once", "by": "host"}))
        host.run(host.events_until(session_id, "turn-end"))
        host.prompt(session_id, ["after the gap"])
        assert (server.root / "late.txt").read_text() == "caught up"

        sockets["offline"] = False
        page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
        view.get_by_test_id("agent-message").filter(has_text="You said: after the gap").wait_for(timeout=TIMEOUT_MS)
        view.locator(".agent-tool-completed").wait_for(timeout=TIMEOUT_MS)
        assert permission.get_by_role("button").count() == 0
        assert "by host" in permission.inner_text()
    finally:
        host.close()
