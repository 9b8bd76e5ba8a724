"""Chromium: an edit guest asks for control of a terminal from its frame, the host hands it over and
takes it back; a guest's new terminal, once the host approves it, is the guest's to type in. The
frame says who has control all along."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import assert_plain, edit_guest, open_host, text_contrast, wait_waiting, waiting_list
from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def terminal(page: Any, name: str) -> Any:
    frame = page.locator(".react-flow__node-frame").filter(has=page.locator(".board-frame-title", has_text=name))
    return frame.locator(".terminal-view")


def type_line(page: Any, name: str, text: str) -> None:
    terminal(page, name).locator(".xterm").click()
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def controller(page: Any, name: str, says: str) -> None:
    terminal(page, name).get_by_test_id("terminal-controller").filter(has_text=says).wait_for(timeout=TIMEOUT_MS)


def test_a_guest_asks_for_control_gets_it_and_the_host_takes_it_back(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    host.get_by_test_id("new-terminal").click()
    terminal(host, "Terminal 1").locator(".xterm").wait_for(timeout=TIMEOUT_MS)
    ada = edit_guest(browser, server, host, "Ada")
    for page in (host, ada):
        controller(page, "Terminal 1", "The host has control")
    # The control bar is dark in both themes: its button must read on it.
    for scheme in ("light", "dark"):
        ada.emulate_media(color_scheme=scheme)
        ada.wait_for_function("s => document.documentElement.dataset.theme === s", arg=scheme, timeout=TIMEOUT_MS)
        assert text_contrast(terminal(ada, "Terminal 1").get_by_test_id("ask-control")) >= 4.5, scheme

    terminal(ada, "Terminal 1").get_by_test_id("ask-control").click()
    terminal(ada, "Terminal 1").get_by_test_id("ask-control").filter(has_text="Asked the host").wait_for(
        timeout=TIMEOUT_MS
    )
    entry = (
        waiting_list(host).get_by_test_id("attention-entry").filter(has_text="Ada asks to take control of Terminal 1")
    )
    entry.wait_for(timeout=TIMEOUT_MS)
    assert_plain(host, ada)
    entry.get_by_test_id("approve").click()
    for page in (host, ada):
        controller(page, "Terminal 1", "Ada has control")
    host_rows = terminal(host, "Terminal 1").locator(".xterm-rows")
    type_line(ada, "Terminal 1", "echo granted$((6*7))")
    host_rows.filter(has_text="granted42").wait_for(timeout=TIMEOUT_MS)

    terminal(host, "Terminal 1").get_by_test_id("take-back-control").click()
    for page in (host, ada):
        controller(page, "Terminal 1", "The host has control")
    terminal(ada, "Terminal 1").get_by_test_id("terminal-watching").wait_for(timeout=TIMEOUT_MS)
    type_line(ada, "Terminal 1", "echo after$((6*7))")
    type_line(host, "Terminal 1", "echo host-again")
    host_rows.filter(has_text="host-again").last.wait_for(timeout=TIMEOUT_MS)
    assert "after42" not in host_rows.inner_text()

    # A new terminal the guest asked for, once approved, is the guest's to type in.
    ada.get_by_test_id("new-terminal").click()
    opened = waiting_list(host).get_by_test_id("attention-entry").filter(has_text="Ada asks to open a new terminal")
    opened.wait_for(timeout=TIMEOUT_MS)
    wait_waiting(host, 1)
    opened.get_by_test_id("approve").click()
    for page in (host, ada):
        controller(page, "Terminal 2", "Ada has control")
    type_line(ada, "Terminal 2", "echo mine$((6*7))")
    # xterm draws only what is on screen: bring the host's copy into view to read it.
    terminal(host, "Terminal 2").scroll_into_view_if_needed()
    terminal(host, "Terminal 2").locator(".xterm-rows").filter(has_text="mine42").wait_for(timeout=TIMEOUT_MS)
    assert_plain(host, ada)
    for page in (host, ada):
        page.context.close()
