"""Chromium: a running session's frame stays on the board unless the host takes it off (and undo puts
it back); the host's room list lists every session and brings back one whose frame is gone, and the
Room sheet lists each session and terminal once."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import add_agent, assert_plain, edit_guest, open_host
from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def delete_frame(page: Any) -> None:
    page.locator(".board-frame-title").first.click()
    page.get_by_test_id("board-delete").click()


def test_a_live_sessions_frame_needs_the_host_and_comes_back(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    add_agent(host)
    ada = edit_guest(browser, server, host, "Ada")
    ada.get_by_test_id("board-frame").wait_for(timeout=TIMEOUT_MS)

    delete_frame(ada)
    ada.get_by_test_id("notice").filter(has_text="only the host can take its frame off the board").wait_for(
        timeout=TIMEOUT_MS
    )
    ada.get_by_test_id("notice").get_by_role("button", name="Dismiss").click()
    ada.get_by_test_id("notice").wait_for(state="detached", timeout=TIMEOUT_MS)
    for page in (host, ada):
        assert page.get_by_test_id("board-frame").count() == 1

    asked: list[str] = []

    def accept(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    host.on("dialog", accept)
    delete_frame(host)
    for page in (host, ada):
        page.get_by_test_id("board-frame").wait_for(state="detached", timeout=TIMEOUT_MS)
    assert asked and "keeps running" in asked[0] and "Demo agent" in asked[0]
    entry = host.get_by_test_id("room-entry").filter(has_text="Demo agent")
    entry.filter(has_text="not on the board").wait_for(timeout=TIMEOUT_MS)
    host.get_by_test_id("board-undo").click()
    for page in (host, ada):
        page.get_by_test_id("board-frame").wait_for(timeout=TIMEOUT_MS)

    delete_frame(host)
    ada.get_by_test_id("board-frame").wait_for(state="detached", timeout=TIMEOUT_MS)
    entry.get_by_test_id("show-on-board").filter(has_text="Show on board").click()
    for page in (host, ada):
        page.get_by_test_id("agent-view").wait_for(timeout=TIMEOUT_MS)
    assert host.get_by_test_id("agent-view").get_by_test_id("agent-status").inner_text() == "idle"

    host.get_by_test_id("new-terminal").click()
    side = host.get_by_test_id("side-panel")
    entries = side.locator('[data-testid="room-entry"], [data-testid="terminal-entry"]')
    entries.filter(has_text="Terminal 1").filter(has_text="running").first.wait_for(timeout=TIMEOUT_MS)
    assert entries.filter(has_text="Terminal 1").count() == 1, side.inner_text()
    assert entries.filter(has_text="Demo agent").count() == 1, side.inner_text()
    assert side.get_by_role("region", name="Agent sessions").get_by_text("Terminal 1").count() == 0
    assert_plain(host, ada)
    for page in (host, ada):
        page.context.close()
