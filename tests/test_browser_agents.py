"""Chromium: put a demo agent on the board, prompt it, watch the answer stream in, approve a write."""

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser_pages import start_agent
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


def test_prompt_the_demo_agent_and_approve_a_write(browser: Any, server: ServerProcess) -> None:
    page = browser.new_page()
    try:
        page.goto(server.host_link)
        page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=15_000)
        start_agent(page)
        view = page.get_by_test_id("agent-view")
        view.wait_for(timeout=15_000)
        view.get_by_test_id("agent-config-mode").wait_for(timeout=15_000)
        composer = view.get_by_test_id("agent-input")
        composer.fill("hello from **chromium**")
        composer.press("Enter")
        view.get_by_test_id("agent-message").filter(has_text="You said: hello from chromium").wait_for(timeout=20_000)
        assert view.locator(".agent-message strong").first.inner_text() == "chromium"
        # The answer shows before its turn ends: wait for the end rather than read the status at once.
        expect(view.get_by_test_id("agent-status")).to_have_text("idle", timeout=20_000)

        composer.fill("/write from-browser.txt approved in chromium")
        composer.press("Enter")
        view.get_by_test_id("agent-permission").get_by_role("button", name="Allow").click(timeout=20_000)
        view.get_by_test_id("agent-message").filter(has_text="Wrote").wait_for(timeout=20_000)
        assert (server.root / "from-browser.txt").read_text() == "approved in chromium"

        page.reload()
        page.get_by_test_id("agent-message").filter(has_text="You said: hello from chromium").wait_for(timeout=20_000)
    finally:
        page.close()
