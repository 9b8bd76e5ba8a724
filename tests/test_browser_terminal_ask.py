"""Chromium: a view guest asks for a terminal from its bar; the host answers in "What waits for you";
denied, the guest reads why; approved, the guest types into the host's shell. Screenshots go to
CANVAS_SHOTS when it is set."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import assert_plain, open_host, waiting_list
from tests.support import ServerProcess
from tests.test_browser_invites import WAIT_MS, join_with, shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

ASKS = "Ada asks to take control of Terminal 1"
IN_TERMINAL = ".terminal-view .xterm-helper-textarea"


def type_line(page: Any, text: str) -> None:
    page.locator(".terminal-view .xterm").first.click()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def answer(host: Any, button: str) -> None:
    entry = waiting_list(host).get_by_test_id("attention-entry").filter(has_text=ASKS)
    entry.wait_for(timeout=WAIT_MS)
    entry.get_by_test_id(button).click()
    entry.wait_for(state="detached", timeout=WAIT_MS)


@pytest.mark.parametrize(("width", "scheme"), [(1024, "light"), (390, "dark")])
def test_a_view_guest_asks_for_a_terminal_and_types_once_the_host_approves(
    browser: Any, server: ServerProcess, width: int, scheme: str
) -> None:
    host = open_host(browser, server, width=1440, scheme=scheme)
    host.get_by_test_id("new-terminal").click()
    host.locator(".terminal-view .xterm").wait_for(timeout=WAIT_MS)
    host_rows = host.locator(".terminal-view .xterm-rows")

    ada = join_with(browser, server.room_link, width, scheme=scheme, name="Ada")
    ada.locator('[data-testid="access-banner"][data-access="view"]').wait_for(timeout=WAIT_MS)
    ada.locator(".terminal-view .xterm").wait_for(timeout=WAIT_MS)
    ask = ada.get_by_test_id("ask-control")

    # Watching, Tab alone moves on: the terminal never holds a keyboard user's focus.
    ada.locator(".terminal-view .xterm").first.click()
    ada.wait_for_function(f"() => document.activeElement?.matches('{IN_TERMINAL}')", timeout=WAIT_MS)
    assert ada.locator(".terminal-hint").inner_text() == "Tab leaves the terminal"
    ada.keyboard.press("Tab")
    ada.wait_for_function(f"() => !document.activeElement?.matches('{IN_TERMINAL}')", timeout=WAIT_MS)

    ask.click()
    ask.filter(has_text="Asked the host").wait_for(timeout=WAIT_MS)
    shot(ada, f"terminal-ask-{width}-{scheme}-asked")
    waiting_list(host).get_by_test_id("attention-entry").filter(has_text=ASKS).wait_for(timeout=WAIT_MS)
    shot(host, f"terminal-ask-host-1440-{scheme}-waiting")
    answer(host, "deny")
    ada.get_by_test_id("control-refused").filter(has_text="the host said no").wait_for(timeout=WAIT_MS)
    shot(ada, f"terminal-ask-{width}-{scheme}-denied")

    ask.click()
    answer(host, "approve")
    ada.get_by_test_id("terminal-control").filter(has_text="You have control").wait_for(timeout=WAIT_MS)
    ada.get_by_test_id("terminal-watching").wait_for(state="detached", timeout=WAIT_MS)
    host.get_by_test_id("terminal-controller").filter(has_text="Ada has control").wait_for(timeout=WAIT_MS)
    type_line(ada, "echo asked$((6*7))")
    host_rows.filter(has_text="asked42").wait_for(timeout=WAIT_MS)
    shot(ada, f"terminal-ask-{width}-{scheme}-typing")
    assert_plain(host, ada)

    host.get_by_test_id("take-back-control").click()
    ada.get_by_test_id("terminal-watching").wait_for(timeout=WAIT_MS)
    ask.wait_for(timeout=WAIT_MS)
    for page in (host, ada):
        page.context.close()
