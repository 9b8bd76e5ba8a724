"""Chromium: a host starts a real agent (Claude Code, against the fake model API) from the board's
Agent menu, prompts it, and reads its answer: no API call, no "Show" needed."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agent_support import config
from tests.agents.fake_models import FakeModels
from tests.agents.real_agents import lacking, setup
from tests.browser_pages import WAIT_MS, open_host, start_agent
from tests.support import ServerProcess, missing

pytestmark = [pytest.mark.browser, pytest.mark.interop, pytest.mark.timeout(600)]

AGENT = "claude"
AGENT_MS = 180_000
"""A real agent's first answer includes its start-up."""


@pytest.fixture
def fake_models() -> Iterator[FakeModels]:
    """The fake model API on a loop of its own: Playwright's sync API holds the main thread's."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    fake = asyncio.run_coroutine_threadsafe(FakeModels().start(), loop).result(30)
    try:
        yield fake
    finally:
        asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def test_a_host_starts_a_real_agent_from_the_menu(browser: Any, fake_models: FakeModels, tmp_path: Path) -> None:
    lacks = lacking(AGENT)
    if lacks is not None:
        missing(*lacks)
    root = tmp_path / "project"
    root.mkdir()
    config(root, setup(AGENT, fake_models.url, tmp_path / "home", root))
    server = ServerProcess(root).start()
    try:
        host = open_host(browser, server)
        host.get_by_role("button", name="Add agent").click()
        offer = host.get_by_test_id("agent-menu").get_by_test_id(f"agent-offer-{AGENT}")
        assert "Ready." in offer.inner_text() and "Confined:" in offer.inner_text()
        host.get_by_test_id("agent-menu").get_by_role("button", name="Close").click()
        start_agent(host, AGENT)
        view = host.get_by_test_id("agent-view")
        composer = view.get_by_test_id("agent-input")
        composer.wait_for(timeout=WAIT_MS)
        composer.fill("hello from the page")
        composer.press("Enter")
        view.get_by_test_id("agent-message").filter(has_text="Fake model says: hello from the page").wait_for(
            timeout=AGENT_MS
        )
        host.context.close()
    finally:
        assert server.stop(timeout=60) == 0
