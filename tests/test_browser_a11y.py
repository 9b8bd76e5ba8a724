"""Chromium by keyboard and through axe-core: the documented way out of a terminal (Esc, then Tab)
sends nothing to the shell, Tab inside goes to the shell; no serious or critical axe finding on
the host page, the join page or the guest page, in light and in dark."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, add_frame, box, join_as_guest, open_host, serious_violations
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def terminal_text(node: Any) -> str:
    return str(node.locator(".xterm-rows").inner_text())


def wait_focus_left(page: Any, node: Any) -> None:
    page.wait_for_function("el => !el.contains(document.activeElement)", arg=node.element_handle(), timeout=WAIT_MS)


def focus_is_in(page: Any, node: Any) -> bool:
    return bool(page.evaluate("el => el.contains(document.activeElement)", node.element_handle()))


def test_esc_then_tab_leaves_the_terminal_and_no_tab_reaches_the_shell(browser: Any, server: ServerProcess) -> None:
    page = open_host(browser, server)
    try:
        terminal = add_frame(page, "terminal").locator(".terminal-view")
        screen = terminal.locator(".xterm")
        screen.wait_for(timeout=WAIT_MS)
        # The shell's screen: the frame's bar above it (who has control, the host's size pin) is not the shell.
        shell = terminal.locator(".terminal-screen-area")
        screen.click()
        # cat -A shows every character it is given: a Tab as ^I, an Esc as ^[, a line's end as $.
        # Once "ready" shows, the shell runs the line and no longer reads keys: they wait for cat.
        page.keyboard.type("echo rea''dy; cat -A")
        page.keyboard.press("Enter")
        terminal.locator(".xterm-rows").filter(has_text="ready").wait_for(timeout=WAIT_MS)
        # Tab while the terminal has the focus is the shell's.
        page.keyboard.type("in")
        page.keyboard.press("Tab")
        page.keyboard.type("side")
        page.keyboard.press("Enter")
        terminal.locator(".xterm-rows").filter(has_text="in^Iside$").wait_for(timeout=WAIT_MS)

        page.keyboard.type("x")
        page.keyboard.press("Escape")
        page.keyboard.press("Tab")
        wait_focus_left(page, shell)
        assert page.evaluate("() => document.activeElement !== document.body")
        # Back in, the line goes on where it was: neither the Esc nor the Tab went to the shell.
        screen.click()
        assert focus_is_in(page, terminal)
        page.keyboard.type("y")
        page.keyboard.press("Enter")
        terminal.locator(".xterm-rows").filter(has_text="xy$").wait_for(timeout=WAIT_MS)
        assert "x^I" not in terminal_text(terminal) and "x^[" not in terminal_text(terminal)

        # Shift+Tab leaves backwards the same way; a lone Esc still reaches the shell.
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Tab")
        wait_focus_left(page, shell)
        screen.click()
        page.keyboard.press("Escape")
        page.keyboard.type("z")
        page.keyboard.press("Enter")
        terminal.locator(".xterm-rows").filter(has_text="^[z$").wait_for(timeout=WAIT_MS)
    finally:
        page.context.close()


def test_board_items_and_controls_show_the_keyboard_focus(browser: Any, server: ServerProcess) -> None:
    page = open_host(browser, server)
    try:
        add_frame(page, "agent").get_by_test_id("agent-input").wait_for(timeout=WAIT_MS)
        outline = "() => ((s) => [s.outlineStyle, s.outlineWidth])(getComputedStyle(document.activeElement))"
        page.get_by_test_id("board-tool-note").focus()
        # Tab moves on from the focused button, as a keyboard user goes along the toolbar.
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == "Text"
        assert page.evaluate(outline) == ["solid", "2px"]
        node = page.locator(".react-flow__node-frame")
        node.focus()
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Tab")
        assert page.evaluate("el => document.activeElement === el", node.element_handle())
        assert page.evaluate(outline) == ["solid", "2px"]
    finally:
        page.context.close()


def fill_board(host: Any, server: ServerProcess) -> None:
    """What a working room shows: an agent's answer, a terminal, a file, a note."""
    (server.root / "app.py").write_text("def main():\n    return 1\n")
    add_frame(host, "agent").get_by_test_id("agent-input").fill("hello")
    host.keyboard.press("Enter")
    host.get_by_test_id("agent-message").first.wait_for(timeout=WAIT_MS)
    add_frame(host, "terminal").locator(".xterm").wait_for(timeout=WAIT_MS)
    host.get_by_test_id("board-add-file").click()
    host.get_by_test_id("file-picker").locator('[data-path="app.py"]').click()
    host.get_by_test_id("file-app.py").locator(".hljs-keyword").first.wait_for(timeout=WAIT_MS)
    host.get_by_test_id("board-tool-note").click()
    board = box(host.get_by_test_id("board"))
    host.mouse.click(board["x"] + 120, board["y"] + board["height"] - 120)
    host.keyboard.type("a note")
    host.keyboard.press("Escape")


def scheme_is(page: Any, scheme: str) -> None:
    """Switches the system setting, and waits for the page to follow it."""
    page.emulate_media(color_scheme=scheme)
    page.wait_for_function("s => document.documentElement.dataset.theme === s", arg=scheme, timeout=WAIT_MS)


def test_axe_finds_nothing_serious_on_the_host_join_and_guest_pages(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    contexts = [host.context]
    try:
        assert serious_violations(host) == [], "host page, empty board"
        fill_board(host, server)
        join = browser.new_context()
        contexts.append(join)
        join_page = join.new_page()
        join_page.goto(server.room_link)
        join_page.get_by_test_id("guest-name").wait_for(timeout=WAIT_MS)
        guest = join_as_guest(browser, server, "Ada")
        contexts.append(guest.context)
        # The board opens readable on the note made last: the guest fits it to see every frame.
        guest.get_by_test_id("board-note").first.wait_for(timeout=WAIT_MS)
        guest.get_by_test_id("board-zoom-fit").click()
        guest.get_by_test_id("agent-message").first.wait_for(timeout=WAIT_MS)
        guest.get_by_test_id("file-app.py").locator(".hljs-keyword").first.wait_for(timeout=WAIT_MS)

        for scheme in ("light", "dark"):
            for page in (host, join_page, guest):
                scheme_is(page, scheme)
            assert serious_violations(host) == [], f"host page, {scheme}"
            host.get_by_test_id("board-colour").click()
            assert serious_violations(host) == [], f"host page, palette open, {scheme}"
            host.get_by_test_id("board-help").click()
            assert serious_violations(host) == [], f"host page, shortcut sheet open, {scheme}"
            host.keyboard.press("Escape")
            assert serious_violations(join_page) == [], f"join page, {scheme}"
            assert serious_violations(guest) == [], f"guest page, {scheme}"
    finally:
        for context in contexts:
            context.close()


def test_the_theme_follows_the_system_until_chosen_and_reaches_xterm(browser: Any, server: ServerProcess) -> None:
    page = open_host(browser, server, scheme="dark")
    try:
        terminal = add_frame(page, "terminal")
        terminal.locator(".xterm").wait_for(timeout=WAIT_MS)
        background = "el => getComputedStyle(el.querySelector('.xterm-scrollable-element')).backgroundColor"
        dark = terminal.evaluate(background)
        page.get_by_test_id("theme-choice").select_option("light")
        assert page.evaluate("() => document.documentElement.dataset.theme") == "light"
        page.wait_for_function(f"([el, dark]) => ({background})(el) !== dark", arg=[terminal.element_handle(), dark])
        # The choice outlives a reload; "System theme" follows the system again.
        page.reload()
        page.get_by_test_id("board-toolbar").wait_for(timeout=WAIT_MS)
        assert page.evaluate("() => document.documentElement.dataset.theme") == "light"
        page.get_by_test_id("theme-choice").select_option("system")
        assert page.evaluate("() => document.documentElement.dataset.theme") == "dark"
    finally:
        page.context.close()
