"""Chromium: the agent is told who writes. A guest's prompt is approved as the agent will get it
(`Ada (guest, edit): …`); the thread shows the guest's own words, and the host what the agent got;
the host switches naming off for the session in its frame. Screenshots go to CANVAS_SHOTS when set."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import add_agent, assert_plain, open_host, prompt, waiting_list
from tests.support import ServerProcess
from tests.test_browser_invites import WAIT_MS, api_invite, join_with, shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def approve(host: Any, text: str) -> None:
    approval = waiting_list(host).locator('[data-testid="approval"][data-what="agent-prompt"]')
    approval.get_by_test_id("approval-text").filter(has_text=text).wait_for(timeout=WAIT_MS)
    assert approval.get_by_test_id("approval-text").inner_text() == text, "approved exactly as the agent gets it"
    approval.get_by_test_id("approve").click()


@pytest.mark.parametrize(("width", "scheme"), [(390, "light"), (1024, "dark")])
def test_a_guests_prompt_is_named_to_the_agent_until_the_host_switches_it_off(
    browser: Any, server: ServerProcess, width: int, scheme: str
) -> None:
    host = open_host(browser, server, width=1440, scheme=scheme)
    host_view = add_agent(host)
    switch = host_view.get_by_test_id("agent-named-prompts")
    assert switch.is_checked(), "on by default"
    ada = join_with(browser, api_invite(server, "Ada", "edit")["link"], width, scheme=scheme, name="Ada")
    ada.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)
    ada_view = ada.get_by_test_id("agent-view")
    assert ada_view.get_by_test_id("agent-named-prompts").count() == 0, "the host's switch alone"

    prompt(ada_view, "list the files")
    approve(host, "Ada (guest, edit): list the files")
    shot(host, f"named-host-1440-{scheme}-approved")
    for view in (ada_view, host_view):
        view.get_by_test_id("agent-message").filter(has_text="You said: Ada (guest, edit): list the files").wait_for(
            timeout=WAIT_MS
        )
        assert view.get_by_test_id("agent-user-text").last.inner_text() == "list the files"
    assert ada_view.get_by_test_id("agent-got").count() == 0
    got = host_view.get_by_test_id("agent-got").last
    got.locator("summary").click()
    assert "Ada (guest, edit): list the files" in got.inner_text()
    shot(host, f"named-host-1440-{scheme}-thread")
    shot(ada, f"named-guest-{width}-{scheme}-thread")

    switch.click()
    host_view.locator('[data-testid="agent-named-prompts"]:not(:checked)').wait_for(timeout=WAIT_MS)
    prompt(ada_view, "as I wrote it")
    approve(host, "as I wrote it")
    ada_view.get_by_test_id("agent-message").filter(has_text="You said: as I wrote it").wait_for(timeout=WAIT_MS)
    assert ada_view.get_by_test_id("agent-user-text").last.inner_text() == "as I wrote it"
    shot(host, f"named-host-1440-{scheme}-off")

    host.reload()
    host.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
    host.locator('[data-testid="agent-named-prompts"]:not(:checked)').wait_for(timeout=WAIT_MS)
    assert_plain(host, ada)
    for page in (host, ada):
        page.context.close()


def test_the_thread_names_the_host_you_on_its_page_and_by_its_name_on_a_guests(
    browser: Any, server: ServerProcess
) -> None:
    host = open_host(browser, server, width=1440)
    host.get_by_test_id("host-name").fill("Maria")
    host.get_by_test_id("host-name").press("Enter")
    host_view = add_agent(host)
    title = host.locator(".react-flow__node-frame .board-frame-title")
    assert title.inner_text().split() == ["Agent", "Demo", "agent"], "no stray number"
    assert "Demo agent" not in host_view.locator(".agent-head").inner_text(), "named once, by its frame"
    ada = join_with(browser, api_invite(server, "Ada", "edit")["link"], 1024, name="Ada")
    ada.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)
    ada_view = ada.get_by_test_id("agent-view")

    prompt(host_view, "from the host")
    for view in (host_view, ada_view):
        view.get_by_test_id("agent-message").filter(has_text="You said: from the host").wait_for(timeout=WAIT_MS)
    assert host_view.get_by_test_id("agent-user-author").last.inner_text() == "You"
    assert ada_view.get_by_test_id("agent-user-author").last.inner_text() == "Maria"
    prompt(ada_view, "from Ada")
    approve(host, "Ada (guest, edit): from Ada")
    host_view.get_by_test_id("agent-message").filter(has_text="You said: Ada (guest, edit): from Ada").wait_for(
        timeout=WAIT_MS
    )
    assert host_view.get_by_test_id("agent-user-author").all_inner_texts() == ["You", "Ada"]
    ada_view.get_by_test_id("agent-user-author").nth(1).wait_for(timeout=WAIT_MS)
    assert ada_view.get_by_test_id("agent-user-author").all_inner_texts() == ["Maria", "Ada"]
    for text in (host.locator("body").inner_text(), ada.locator("body").inner_text()):
        assert "offline" not in text and "Demo agent 1" not in text
    shot(host, "authors-host-1440")
    shot(ada, "authors-guest-1024")
    for page in (host, ada):
        page.context.close()
