"""Chromium: the board's Agent button opens the menu of agents on offer, each with its state in
words; the host starts one from it, and a guest with edit access asks for one through the same
approval as any other request."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import PROTOCOL_WORDS, WAIT_MS, edit_guest, open_host, waiting_list
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

SHOTS = os.environ.get("CANVAS_SCREENSHOTS")
"""A folder to save the menu's screenshots in, to look at them (light and dark, three widths)."""


def test_the_agent_button_offers_every_agent_in_words_and_starts_the_one_picked(
    browser: Any, server: ServerProcess
) -> None:
    host = open_host(browser, server)
    host.get_by_role("button", name="Add agent").click()
    menu = host.get_by_test_id("agent-menu")
    menu.wait_for(timeout=WAIT_MS)
    words = menu.inner_text()
    assert not PROTOCOL_WORDS.search(words)
    demo = menu.get_by_test_id("agent-offer-demo")
    assert "Ready." in demo.inner_text() and "Confined:" in demo.inner_text()
    # The real agents are not on this machine's PATH: each says so, and how to install it.
    claude = menu.get_by_test_id("agent-offer-claude")
    assert "Not installed." in claude.inner_text()
    assert "npm i -g @agentclientprotocol/claude-agent-acp" in claude.inner_text()
    assert menu.get_by_test_id("agent-start-claude").is_disabled()
    # The side panel lists the same menu.
    assert "Not installed." in host.get_by_test_id("side-panel").get_by_test_id("agent-offer-claude").inner_text()

    menu.get_by_test_id("agent-start-demo").click()
    menu.wait_for(state="detached", timeout=WAIT_MS)
    view = host.get_by_test_id("agent-view")
    view.get_by_test_id("agent-config-mode").wait_for(timeout=WAIT_MS)
    composer = view.get_by_test_id("agent-input")
    composer.fill("started from the menu")
    composer.press("Enter")
    view.get_by_test_id("agent-message").filter(has_text="You said: started from the menu").wait_for(timeout=WAIT_MS)
    host.context.close()


def test_an_edit_guest_asks_for_an_agent_and_the_host_approves(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    ada = edit_guest(browser, server, host, "Ada")
    ada.get_by_role("button", name="Add agent").click()
    menu = ada.get_by_test_id("agent-menu")
    assert "The host approves each agent you start." in menu.inner_text()
    # How to install an agent is the host's business: a guest is told only that it is missing.
    claude = menu.get_by_test_id("agent-offer-claude").inner_text()
    assert "Not installed on the host's machine." in claude and "npm" not in claude
    menu.get_by_role("button", name="Ask to start Demo agent").click()
    approval = waiting_list(host).locator('[data-testid="approval"][data-what="agent-create"]')
    approval.wait_for(timeout=WAIT_MS)
    approval.get_by_test_id("approve").click()
    for page in (ada, host):
        page.get_by_test_id("agent-view").get_by_test_id("agent-config-mode").wait_for(timeout=WAIT_MS)
    host.context.close()
    ada.context.close()


@pytest.mark.skipif(not SHOTS, reason="set CANVAS_SCREENSHOTS to a folder to take the menu's screenshots")
@pytest.mark.parametrize("width", [390, 1024, 1600])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_the_menu(browser: Any, server: ServerProcess, width: int, scheme: str) -> None:
    host = open_host(browser, server, width=width, height=844 if width == 390 else 800, scheme=scheme)
    host.get_by_role("button", name="Add agent").click()
    host.get_by_test_id("agent-menu").wait_for(timeout=WAIT_MS)
    host.screenshot(path=str(Path(str(SHOTS)) / f"agent-menu-{width}-{scheme}.png"))
    host.context.close()
