"""Chromium: a terminal is one shell for everyone. A 390 px page opening a terminal while a 1,440 px
page watches never shrinks the shell: it keeps the wide page's size, and a long line is drawn whole
on both. Tab through the host page stops once at a terminal and never lands in its shell, whose
keyboard Enter gives and Esc-then-Tab takes back. A terminal handed to a guest stays the guest's
through a restart (tmux keeps the shell)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, add_frame, open_host
from tests.support import ServerProcess
from tests.test_browser_invites import join_with, shot
from tests.test_terminals_tmux import WITH_TMUX, kept

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]
__all__ = ["kept"]

ROW_TEXTS = """root => [...root.querySelectorAll('.xterm-rows > div')]
  .map(row => row.textContent.replace(/\\u00a0/g, ' ').trimEnd())"""
"""Each row of an xterm as drawn, one string per row."""
IN_SHELL = "() => document.activeElement?.classList.contains('xterm-helper-textarea') ?? false"


def rows_of(view: Any) -> list[str]:
    return list(view.locator(".xterm").evaluate(ROW_TEXTS))


def size_in(page: Any, view: Any) -> tuple[int, int]:
    """What the shell says its size is (`stty size`: rows, then columns), typed in `view`."""
    view.locator(".xterm").click()
    page.keyboard.type("echo size=$(stty size | tr ' ' x)=")
    page.keyboard.press("Enter")
    said = view.locator(".xterm-rows").filter(has_text=re.compile(r"size=\d+x\d+="))
    said.wait_for(timeout=WAIT_MS)
    found = re.search(r"size=(\d+)x(\d+)=", said.inner_text())
    assert found is not None
    return int(found.group(2)), int(found.group(1))


def test_a_phone_opening_a_terminal_never_shrinks_the_shell_a_wide_page_watches(
    browser: Any, server: ServerProcess, tmp_path: Path
) -> None:
    desk = open_host(browser, server, width=1440, height=900)
    phone = open_host(browser, server, width=390, height=844)
    desk_view = add_frame(desk, "terminal").locator(".terminal-view")
    desk_view.locator(".xterm").wait_for(timeout=WAIT_MS)
    desk_cols, desk_rows = size_in(desk, desk_view)

    # The phone brings the desk's terminal into its view from the room's list, and opens it.
    phone.get_by_test_id("side-toggle").click()
    phone.get_by_test_id("terminal-entry").get_by_test_id("show-on-board").click()
    if phone.get_by_test_id("side-toggle").get_attribute("aria-expanded") == "true":
        phone.get_by_test_id("side-toggle").click()
    frame = phone.locator(".react-flow__node-frame")
    frame.locator(".board-frame-title").click(position={"x": 30, "y": 10})
    phone.get_by_test_id("board-open-terminal").click()
    sheet = phone.get_by_test_id("thread-sheet")
    sheet.locator(".xterm").wait_for(timeout=WAIT_MS)
    assert size_in(phone, sheet) == (desk_cols, desk_rows), "the phone resized the shell for everyone"
    assert desk_cols > 60, desk_cols

    line = "w" * (desk_cols - 4) + "END"
    phone.keyboard.type(f"printf 'w%.0s' $(seq {desk_cols - 4}); echo END")
    phone.keyboard.press("Enter")
    for page, view in ((desk, desk_view), (phone, sheet)):
        view.locator(".xterm-rows").filter(has_text=line).wait_for(timeout=WAIT_MS)
        assert line in rows_of(view), f"the long line is not drawn whole on one row at {page.viewport_size}"
    # The phone's copy is scrolled sideways, not wrapped: its rows are the shell's width.
    screen = sheet.get_by_test_id("terminal-screen")
    assert screen.evaluate("e => e.scrollWidth > e.clientWidth")
    phone.screenshot(path=str(tmp_path / "shared-terminal-390.png"))
    desk.screenshot(path=str(tmp_path / "shared-terminal-1440.png"))
    shot(phone, "shared-terminal-390")
    shot(desk, "shared-terminal-1440")
    for page in (desk, phone):
        page.context.close()


def test_tab_through_the_host_page_never_reaches_a_shells_input(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server, width=1280, height=800)
    view = add_frame(host, "terminal").locator(".terminal-view")
    view.locator(".xterm").wait_for(timeout=WAIT_MS)
    host.locator("body").focus()
    host.evaluate("() => document.activeElement?.blur()")
    stops: list[str] = []
    for _ in range(120):
        host.keyboard.press("Tab")
        assert not host.evaluate(IN_SHELL), f"Tab landed in the shell after {stops[-3:]}"
        stops.append(host.evaluate("() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName"))
        if stops[-1] == "terminal-screen":
            break
    assert stops[-1] == "terminal-screen", "the terminal is not a Tab stop"

    host.keyboard.press("Enter")
    host.wait_for_function(IN_SHELL, timeout=WAIT_MS)
    host.keyboard.type("echo in-$((1+1))")
    host.keyboard.press("Enter")
    view.locator(".xterm-rows").filter(has_text="in-2").wait_for(timeout=WAIT_MS)
    host.keyboard.press("Tab")
    assert host.evaluate(IN_SHELL), "inside, Tab is the shell's"
    host.keyboard.press("Escape")
    host.keyboard.press("Tab")
    host.wait_for_function(f"() => !({IN_SHELL})()", timeout=WAIT_MS)
    host.context.close()


@pytest.mark.serve_subprocess
def test_a_terminal_handed_to_a_guest_stays_its_own_across_a_restart(browser: Any, kept: Path) -> None:
    server = ServerProcess(kept, env=WITH_TMUX).start()
    try:
        host = open_host(browser, server, width=1440, height=900)
        host_view = add_frame(host, "terminal").locator(".terminal-view")
        host_view.locator(".xterm").wait_for(timeout=WAIT_MS)
        ada = join_with(browser, server.room_link, 1024, name="Ada")
        host_view.get_by_test_id("give-control").select_option(label="Ada")
        ada_view = ada.locator(".react-flow__node-frame .terminal-view")
        ada_view.get_by_text("You have control").wait_for(timeout=WAIT_MS)

        port = server.base_url.rsplit(":", 1)[1]
        assert server.proc is not None
        server.proc.terminate()
        server.proc.wait(timeout=30)
        server.stop()
        server.start("--port", port)
        for page in (host, ada):
            page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=60_000)

        host_view.get_by_test_id("terminal-controller").filter(has_text="Ada has control").wait_for(timeout=WAIT_MS)
        ada_view.get_by_text("You have control").wait_for(timeout=WAIT_MS)
        ada_view.locator(".xterm").click()
        ada.keyboard.type("echo kept-$((40+2))")
        ada.keyboard.press("Enter")
        host_view.locator(".xterm-rows").filter(has_text="kept-42").wait_for(timeout=WAIT_MS)
        shot(host, "grant-after-restart-1440")

        host.get_by_test_id("audit-open").click()
        host.get_by_test_id("audit-entry").filter(has_text="started again").wait_for(timeout=WAIT_MS)
        for page in (host, ada):
            page.context.close()
    finally:
        server.stop()
