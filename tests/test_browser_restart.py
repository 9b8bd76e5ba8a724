"""Chromium: the host page while `canvas serve` restarts under a running turn says so, and after."""

import signal
from typing import Any

import pytest

from tests.browser_pages import start_agent
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(150)]


@pytest.mark.serve_subprocess
def test_the_host_page_shows_the_restart_and_the_interrupted_turn(browser: Any, server: ServerProcess) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(server.host_link)
        pill = page.get_by_test_id("connection-state")
        pill.filter(has_text="Connected").wait_for(timeout=15_000)
        start_agent(page)
        view = page.get_by_test_id("agent-view")
        view.get_by_test_id("agent-config-mode").wait_for(timeout=15_000)
        composer = view.get_by_test_id("agent-input")
        composer.fill("/slow 300")
        composer.press("Enter")
        status = view.get_by_test_id("agent-status")
        status.filter(has_text="running").wait_for(timeout=20_000)

        assert server.proc is not None
        port = server.base_url.rsplit(":", 1)[1]
        server.proc.send_signal(signal.SIGTERM)
        server.proc.wait(timeout=30)
        pill.filter(has_text="Host restarting — reconnecting").wait_for(timeout=10_000)
        status.filter(has_text="interrupted").wait_for(timeout=10_000)
        view.get_by_test_id("agent-turn-end").filter(has_text="Interrupted").wait_for(timeout=10_000)
        # The time since it said so, counted up while the host is away.
        page.wait_for_function(
            "() => /\\((\\d+) s\\)/.test(document.querySelector('[data-testid=connection-state]').textContent)"
        )

        server.start("--port", port)
        pill.filter(has_text="Connected").wait_for(timeout=30_000)
        assert status.inner_text() == "interrupted"
        view.get_by_test_id("agent-turn-end").filter(has_text="Interrupted").wait_for(timeout=10_000)
    finally:
        page.close()
