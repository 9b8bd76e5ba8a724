"""Chromium: a 5,000-event thread opens at its end and loads older pages as the reader scrolls up.

The session is written into a real store before `canvas serve` starts (tests/long_sessions.py);
the page is the real host page, its frames the real WebSocket's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.core.agent_sessions import HISTORY_PAGE
from tests.long_sessions import session_events, write_sessions
from tests.support import ServerProcess, thread_of

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

EVENTS = 5_000
TIMEOUT_MS = 30_000
TURN = re.compile(r"^turn (\d+)$")

# Scrolls the thread to `top`, waits two frames for React to draw, and returns the turns of the
# user rows drawn, in the order they are on the page.
DRAWN_TURNS = """async ([thread, top]) => {
  if (top !== null) thread.scrollTop = top;
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return [...thread.querySelectorAll(".agent-user > div")].map((e) => e.textContent);
}"""


@pytest.fixture
def long_server(project: Path) -> Iterator[ServerProcess]:
    (project / ".canvas").mkdir(mode=0o700)
    write_sessions(project, 1, EVENTS)
    server = ServerProcess(project).start()
    yield server
    server.stop()


@pytest.fixture
def page(browser: Any, long_server: ServerProcess) -> Iterator[Any]:
    page = browser.new_page(viewport={"width": 1024, "height": 800})
    yield page
    page.close()


def turns_of(texts: list[str]) -> list[int]:
    return [int(m.group(1)) for t in texts if (m := TURN.match(t))]


def test_scrolling_up_loads_older_pages_and_shows_the_whole_thread_in_order(
    page: Any, long_server: ServerProcess
) -> None:
    expected = thread_of(session_events(EVENTS))
    prompts = turns_of([i["text"] for i in expected["items"] if i["type"] == "user"])
    assert prompts == list(range(len(prompts)))
    sent: list[dict[str, Any]] = []
    pages: list[dict[str, Any]] = []

    def watch(ws: Any) -> None:
        ws.on("framesent", lambda payload: sent.append(json.loads(payload)))

        def received(payload: str) -> None:
            frame = json.loads(payload)
            if frame.get("t") == "agent-history":
                pages.append(frame)

        ws.on("framereceived", received)

    page.on("websocket", watch)
    page.goto(long_server.host_link)
    view = page.get_by_test_id("agent-view")
    thread = view.get_by_test_id("agent-thread")
    last = prompts[-1]
    view.get_by_test_id("agent-message").filter(has_text=f"You said: turn {last}.").wait_for(timeout=TIMEOUT_MS)
    handle = thread.element_handle()

    # It opened at the end, with the newest page: the first turns are not there yet. (The server
    # sends it after the welcome; a view drawn after the welcome may ask for it too.)
    drawn = turns_of(page.evaluate(DRAWN_TURNS, [handle, None]))
    assert drawn and drawn[-1] == last and 0 not in drawn
    view.get_by_test_id("agent-load-older").wait_for(timeout=TIMEOUT_MS)
    newest = [p for p in pages if p["through"] == EVENTS]
    assert 1 <= len(newest) <= 2 and len(pages) == len(newest)
    assert all(p["events"] == newest[0]["events"] and p["after"] > 0 for p in newest)

    # Up to the top, again and again: each time an older page comes and its turns are drawn above.
    # The reader keeps scrolling up while a page is on its way, as people do: a page that adds
    # rows but no turn of its own leaves them a screen below the top, and they scroll on.
    tops = [drawn[0]]
    while tops[-1] != 0:
        page.wait_for_function(
            """([thread, above]) => {
              thread.scrollTop = 0;
              const first = thread.querySelector(".agent-user > div");
              const turn = first && /^turn (\\d+)$/.exec(first.textContent);
              return turn && Number(turn[1]) < above;
            }""",
            arg=[handle, tops[-1]],
            polling=100,
            timeout=TIMEOUT_MS,
        )
        tops.append(turns_of(page.evaluate(DRAWN_TURNS, [handle, 0]))[0])
        assert view.locator(".agent-row").count() < 100
    assert tops == sorted(tops, reverse=True) and len(tops) > 5
    assert view.get_by_test_id("agent-load-older").count() == 0

    # One page per request, each bounded, each asked for once the one before it came.
    older = [f for f in sent if f.get("t") == "agent-history-request" and f.get("before") is not None]
    assert all(len(p["events"]) <= HISTORY_PAGE for p in pages)
    assert len(older) == len(pages) - len(newest)
    assert [f["before"] for f in older] == [p["after"] + 1 for p in pages[len(newest) - 1 : -1]]
    assert pages[-1]["after"] == 0

    # Down the whole thread: every turn, in order, once.
    seen: list[int] = []
    height = thread.evaluate("e => e.clientHeight")
    top = 0
    while True:
        for turn in turns_of(page.evaluate(DRAWN_TURNS, [handle, top])):
            if not seen or turn > seen[-1]:
                seen.append(turn)
        if thread.evaluate("e => e.scrollTop + e.clientHeight >= e.scrollHeight - 1"):
            break
        top += height // 2
    assert seen == prompts
