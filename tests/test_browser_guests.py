"""Chromium pages against a real `canvas serve`: a host page and two guest pages over WebRTC."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import ServerProcess

pytestmark = pytest.mark.browser

TIMEOUT_MS = 20_000


def open_guest(browser: Any, server: ServerProcess, name: str) -> Any:
    page = browser.new_context().new_page()
    page.goto(server.room_link)
    page.get_by_test_id("guest-name").fill(name)
    page.get_by_test_id("guest-join").click()
    page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    return page


def host_with_an_agent_and_an_edit_guest(browser: Any, server: ServerProcess, name: str) -> tuple[Any, Any]:
    """A host page with an agent frame on its board, and a guest page the host raised to edit."""
    host = browser.new_context().new_page()
    host.goto(server.host_link)
    host.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    host.get_by_role("button", name="Add agent").click()
    host.get_by_test_id("agent-menu").get_by_test_id("agent-start-demo").click()
    host.get_by_test_id("agent-view").get_by_test_id("agent-config-mode").wait_for(timeout=TIMEOUT_MS)
    guest = open_guest(browser, server, name)
    host.locator(f'[data-testid="guest"][data-name="{name}"] [data-testid="guest-access"]').select_option("edit")
    guest.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=TIMEOUT_MS)
    return host, guest


def test_host_page_and_two_guest_pages(browser: Any, server: ServerProcess) -> None:
    host = browser.new_context().new_page()
    host.goto(server.host_link)
    host.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    ada = open_guest(browser, server, "Ada")
    bob = open_guest(browser, server, "Bob")
    assert ada.get_by_test_id("access-banner").get_attribute("data-access") == "view"
    host.locator('[data-testid="guest"][data-name="Ada"]').wait_for(timeout=TIMEOUT_MS)
    host.locator('[data-testid="guest"][data-name="Bob"]').wait_for(timeout=TIMEOUT_MS)

    # The host's second tab is not a second person of the same name.
    second_tab = host.context.new_page()
    second_tab.goto(server.host_link)
    for page, first in ((host, "Host (you)"), (ada, "Host")):
        hosts = page.locator('[data-testid="person"][data-access="host"] [data-testid="person-name"]')
        hosts.filter(has_text="another tab").wait_for(timeout=TIMEOUT_MS)
        assert sorted(hosts.all_inner_texts()) == sorted([first, "Host (another tab)"]), hosts.all_inner_texts()
    second_tab.close()

    host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="guest-access"]').select_option("edit")
    ada.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=TIMEOUT_MS)
    assert bob.get_by_test_id("access-banner").get_attribute("data-access") == "view"
    host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="guest-access"]').select_option("")
    ada.locator('[data-testid="access-banner"][data-access="view"]').wait_for(timeout=TIMEOUT_MS)

    host.locator('[data-testid="guest"][data-name="Bob"] [data-testid="kick"]').click()
    confirm = host.locator('[data-testid="guest"][data-name="Bob"] [data-testid="kick-confirm"]')
    assert "blocks Bob's browser" in confirm.inner_text(), "removing says what it does"
    confirm.get_by_test_id("kick-yes").click()
    host.get_by_test_id("removed-note").filter(has_text="open room link").wait_for(timeout=TIMEOUT_MS)
    bob.get_by_test_id("refusal").filter(has_text="removed").wait_for(timeout=TIMEOUT_MS)
    for page in (host, ada, bob):
        page.context.close()
