"""Chromium: a host page and two guest pages; an edit guest prompts the demo agent, the host approves."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import waiting_list
from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS, host_with_an_agent_and_an_edit_guest, open_guest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def test_an_edit_guest_prompts_the_host_approves_both_guests_watch(browser: Any, server: ServerProcess) -> None:
    host, ada = host_with_an_agent_and_an_edit_guest(browser, server, "Ada")
    bob = open_guest(browser, server, "Bob")

    # Both guests see the host's agent frame on their board; only the edit guest may prompt.
    ada_view, bob_view = ada.get_by_test_id("agent-view"), bob.get_by_test_id("agent-view")
    bob_view.get_by_test_id("agent-composer-off").wait_for(timeout=TIMEOUT_MS)
    composer = ada_view.get_by_test_id("agent-input")
    composer.fill("hello from ada's browser")
    composer.press("Enter")
    ada_view.get_by_test_id("request-waiting").filter(has_text="prompt to Demo agent is waiting for the host").wait_for(
        timeout=TIMEOUT_MS
    )

    approval = waiting_list(host).locator('[data-testid="approval"][data-what="agent-prompt"]')
    approval.filter(has_text="hello from ada's browser").wait_for(timeout=TIMEOUT_MS)
    approval.get_by_test_id("approve").click()

    for view in (ada_view, bob_view, host.get_by_test_id("agent-view")):
        named = "You said: Ada (guest, edit): hello from ada's browser"
        view.get_by_test_id("agent-message").filter(has_text=named).wait_for(timeout=TIMEOUT_MS)
    ada_view.get_by_test_id("request-waiting").wait_for(state="detached", timeout=TIMEOUT_MS)
    assert ada_view.get_by_test_id("agent-status").inner_text() == "idle"
    # What each may do shows: the edit guest edits the board and browses files, the view guest neither.
    ada.get_by_test_id("file-tree").wait_for(timeout=TIMEOUT_MS)
    assert ada.get_by_role("button", name="Add agent").count() == 1
    assert bob.get_by_test_id("board-toolbar").inner_text() == "View only"
    assert bob.get_by_test_id("file-tree").count() == 0 and bob.get_by_test_id("new-terminal").count() == 0

    # A tool permission is the host's alone: the guests see the question, never its buttons.
    host_composer = host.get_by_test_id("agent-view").get_by_test_id("agent-input")
    host_composer.fill("/write from-host.txt asked in front of guests")
    host_composer.press("Enter")
    for page in (ada, bob):
        page.get_by_test_id("agent-permission").wait_for(timeout=TIMEOUT_MS)
        assert page.get_by_test_id("agent-permission").get_by_role("button").count() == 0
    host.get_by_test_id("agent-permission").get_by_role("button", name="Reject").click(timeout=TIMEOUT_MS)
    ada.get_by_test_id("agent-message").filter(has_text="Permission denied").wait_for(timeout=TIMEOUT_MS)
    assert not (server.root / "from-host.txt").exists()
    for page in (host, ada, bob):
        page.context.close()
