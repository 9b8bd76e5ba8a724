"""Chromium: an edit guest watches a terminal until the host grants it control, then types into it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS, open_guest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def type_line(page: Any, text: str) -> None:
    page.locator(".terminal-view .xterm").first.click()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def test_terminal_control_is_granted_and_revoked_per_terminal(browser: Any, server: ServerProcess) -> None:
    host = browser.new_context().new_page()
    host.goto(server.host_link)
    host.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    host.get_by_test_id("new-terminal").click()
    host.locator(".terminal-view .xterm").wait_for(timeout=TIMEOUT_MS)
    host_rows = host.locator(".terminal-view .xterm-rows")

    ada = open_guest(browser, server, "Ada")
    host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="guest-access"]').select_option("edit")
    ada.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=TIMEOUT_MS)
    ada.locator(".terminal-view .xterm").wait_for(timeout=TIMEOUT_MS)
    ada.get_by_test_id("terminal-watching").wait_for(timeout=TIMEOUT_MS)

    # Without a grant, what the guest types goes nowhere; the host's own line proves the screen is live.
    type_line(ada, "echo ungranted$((6*7))")
    type_line(host, "echo host-was-here")
    host_rows.filter(has_text="host-was-here").last.wait_for(timeout=TIMEOUT_MS)
    assert "ungranted42" not in host_rows.inner_text()

    grant = host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="terminal-grant"]')
    # The box follows the server's guest list, so it is clicked, not `check()`ed.
    grant.click()
    ada.get_by_test_id("terminal-watching").wait_for(state="detached", timeout=TIMEOUT_MS)
    type_line(ada, "echo granted$((6*7))")
    host_rows.filter(has_text="granted42").wait_for(timeout=TIMEOUT_MS)

    grant.click()
    ada.get_by_test_id("terminal-watching").wait_for(timeout=TIMEOUT_MS)
    for page in (host, ada):
        page.context.close()
