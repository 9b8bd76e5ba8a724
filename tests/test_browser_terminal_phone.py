"""Chromium at a phone's 390x844: a terminal opens at the screen's width with a readable font and a
bar of the keys a phone keyboard lacks; who typed is named on the frames of everyone watching; and
where tmux is missing the board says once that the shells end with canvas."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, add_frame, assert_plain, box, open_host
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    across = a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
    return across and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


def test_a_phone_opens_a_terminal_full_width_and_types_what_its_keyboard_lacks(
    browser: Any, server: ServerProcess, tmp_path: Path
) -> None:
    phone = open_host(browser, server, width=390, height=844)
    desk = open_host(browser, server, width=1280, height=800, scheme="dark")
    try:
        add_frame(phone, "terminal")
        # The pick closed "More tools": the board is in view again.
        assert phone.get_by_test_id("board-more").get_attribute("aria-expanded") == "false"
        assert not phone.get_by_test_id("board-add-terminal").is_visible()
        frame = phone.locator(".react-flow__node-frame")
        frame.locator(".terminal-view .xterm").wait_for(timeout=WAIT_MS)
        frame.locator(".board-frame-title").click(position={"x": 30, "y": 10})
        # The frame on the board has no key bar: only the opened terminal does.
        assert frame.get_by_test_id("terminal-keybar").count() == 0
        opener = phone.get_by_test_id("board-open-terminal")
        zoom = phone.get_by_test_id("board-zoom")
        assert not overlap(box(opener), box(zoom)), "Open the terminal covers the zoom bar"
        phone.screenshot(path=str(tmp_path / "terminal-phone-selected-390.png"))
        opener.click()
        sheet = phone.get_by_test_id("thread-sheet")
        screen = sheet.locator(".xterm")
        screen.wait_for(timeout=WAIT_MS)
        # Opened, the terminal has the focus: a phone brings up its keyboard.
        phone.wait_for_function(
            "() => document.activeElement?.matches('[data-testid=thread-sheet] .xterm-helper-textarea')",
            timeout=WAIT_MS,
        )
        hint = sheet.locator(".terminal-hint")
        controller = sheet.get_by_test_id("terminal-controller")
        assert not (hint.is_visible() and overlap(box(hint), box(controller))), "the hint covers who has control"
        assert box(sheet)["width"] >= 0.9 * 390
        assert box(sheet.locator(".terminal-view"))["width"] >= 0.85 * 390
        font = sheet.locator(".xterm-rows").evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert font >= 15
        bar = sheet.get_by_test_id("terminal-keybar")
        for name in ("Escape", "Tab", "Left arrow", "Up arrow", "Down arrow", "Right arrow"):
            key = bar.get_by_role("button", name=name)
            assert box(key)["height"] >= 40, name
        rows = sheet.locator(".xterm-rows")

        # Ctrl on the bar, then c: an interrupt ends `cat`, and the shell reads the next line.
        phone.keyboard.type("sh -c 'echo rea\"\"dy; exec cat'")
        phone.keyboard.press("Enter")
        rows.filter(has_text="ready").wait_for(timeout=WAIT_MS)
        bar.get_by_role("button", name="Control: the next key is pressed with Ctrl").click()
        phone.keyboard.type("c")
        # As in any terminal, what is typed before the interrupt takes effect may be flushed with it.
        rows.filter(has_text=re.compile(r"ready[\s\S]*\^C[\s\S]*[#$]")).wait_for(timeout=WAIT_MS)
        phone.keyboard.type("echo ctrl-$((1+1))")
        phone.keyboard.press("Enter")
        rows.filter(has_text="ctrl-2").wait_for(timeout=WAIT_MS)
        # Tab completes; the left arrow moves back along the line.
        phone.keyboard.type("ech")
        bar.get_by_role("button", name="Tab").click()
        phone.keyboard.type("tab-$((2+1))x")
        bar.get_by_role("button", name="Left arrow").click()
        phone.keyboard.type("y")
        phone.keyboard.press("Enter")
        rows.filter(has_text="tab-3yx").wait_for(timeout=WAIT_MS)
        phone.screenshot(path=str(tmp_path / "terminal-phone-390.png"))
        phone.emulate_media(color_scheme="dark")
        phone.screenshot(path=str(tmp_path / "terminal-phone-390-dark.png"))
        assert_plain(phone)

        # The page on the desk watches the same terminal and is told who typed.
        desk.locator(".react-flow__node-frame .terminal-view .xterm").wait_for(timeout=WAIT_MS)
        phone.keyboard.type("echo again")
        desk.get_by_test_id("terminal-typist").filter(has_text="Host typed").wait_for(timeout=WAIT_MS)
        typist = sheet.get_by_test_id("terminal-typist")
        typist.wait_for(timeout=WAIT_MS)
        assert box(typist)["y"] + box(typist)["height"] <= box(bar)["y"], "the name covers the key bar"
        phone.screenshot(path=str(tmp_path / "terminal-phone-typist-390.png"))
        desk.screenshot(path=str(tmp_path / "terminal-typist-1280-dark.png"))
    finally:
        phone.context.close()
        desk.context.close()


def test_without_tmux_the_board_says_once_that_shells_end_with_canvas(
    browser: Any, server: ServerProcess, tmp_path: Path
) -> None:
    page = open_host(browser, server, width=1280, height=800)
    try:
        note = page.get_by_test_id("no-tmux-note")
        note.wait_for(timeout=WAIT_MS)
        assert "end when canvas stops" in note.inner_text() and "apt install tmux" in note.inner_text()
        page.screenshot(path=str(tmp_path / "no-tmux-note-1280.png"))
        note.get_by_role("button", name="Got it").click()
        note.wait_for(state="detached", timeout=WAIT_MS)
        page.reload()
        page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
        page.get_by_test_id("terminal-list").wait_for(state="attached", timeout=WAIT_MS)
        assert page.get_by_test_id("no-tmux-note").count() == 0
    finally:
        page.context.close()
