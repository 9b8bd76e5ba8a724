"""Chromium: after the server restarts, a view guest's page asks for nothing its access cannot have,
so nobody is told about refusals of things they never asked for; every notice can be put away."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import assert_plain, open_host
from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS, open_guest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


@pytest.mark.serve_subprocess
def test_a_view_guest_hears_nothing_it_did_not_ask_for_after_a_restart(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    host.get_by_role("button", name="Add file").click()
    picker = host.get_by_test_id("file-picker")
    picker.get_by_label("File path").fill("README.md")
    picker.get_by_label("File path").press("Enter")
    picker.wait_for(state="detached", timeout=TIMEOUT_MS)
    host.get_by_role("button", name="Add terminal").click()
    host.locator(".board-frame .terminal-view .xterm").wait_for(timeout=TIMEOUT_MS)
    bob = open_guest(browser, server, "Bob")
    on_board = bob.locator(".board-frame").get_by_test_id("file-README.md")
    on_board.filter(has_text="a project").wait_for(timeout=TIMEOUT_MS)
    bob.locator(".board-frame .terminal-view .xterm").wait_for(timeout=TIMEOUT_MS)

    port = server.base_url.rsplit(":", 1)[1]
    assert server.stop() == 0
    server.start("--port", port)
    # The shell went with the old server: once the pages are back, the frame says so, and offers
    # a view guest nothing to press.
    none = bob.locator(".board-frame").get_by_test_id("terminal-none")
    none.wait_for(timeout=60_000)
    host.locator(".board-frame").get_by_test_id("terminal-none").wait_for(timeout=60_000)
    assert none.get_by_role("button").count() == 0
    # The file is shown again once the host's page, which may open files, has opened it.
    on_board.filter(has_text="a project").wait_for(timeout=TIMEOUT_MS)

    # A change made after the reconnect reaches the guest after anything the server said to it before.
    host.get_by_role("button", name="Sticky note").click()
    board = host.get_by_test_id("board").bounding_box()
    host.mouse.click(board["x"] + 120, board["y"] + board["height"] - 120)
    host.keyboard.type("after the restart")
    host.keyboard.press("Escape")
    host.get_by_test_id("board-note").filter(has_text="after the restart").wait_for(timeout=TIMEOUT_MS)
    bob.get_by_test_id("board-note").filter(has_text="after the restart").wait_for(timeout=TIMEOUT_MS)
    assert bob.get_by_test_id("notice").count() == 0, bob.get_by_test_id("notices").inner_text()
    assert_plain(host, bob)
    for page in (host, bob):
        page.context.close()
