"""Two Chromium pages on the host link draw on one board: a typed note and a moving cursor cross over."""

from typing import Any

import pytest

from tests.support import ServerProcess

pytestmark = pytest.mark.browser


def open_board(browser: Any, server: ServerProcess) -> Any:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(server.host_link)
    page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=15_000)
    page.get_by_test_id("board-toolbar").wait_for(timeout=15_000)
    return page


def test_a_note_typed_in_one_page_appears_in_the_other_and_a_cursor_moves(browser: Any, server: ServerProcess) -> None:
    one, two = open_board(browser, server), open_board(browser, server)
    try:
        one.get_by_role("button", name="Sticky note").click()
        box = one.get_by_test_id("board").bounding_box()
        one.mouse.click(box["x"] + 300, box["y"] + 300)
        editor = one.get_by_test_id("board-text-editor")
        editor.wait_for(timeout=5_000)
        editor.press_sequentially("hello from one 😀", delay=10)
        two.get_by_test_id("board-note").filter(has_text="hello from one 😀").wait_for(timeout=10_000)

        one.mouse.move(box["x"] + 500, box["y"] + 200)
        cursor = two.get_by_test_id("board-cursor")
        cursor.wait_for(timeout=10_000)
        before = cursor.get_attribute("style")
        one.mouse.move(box["x"] + 650, box["y"] + 420, steps=5)
        two.wait_for_function(
            "before => document.querySelector('[data-testid=board-cursor]').getAttribute('style') !== before",
            arg=before,
            timeout=10_000,
        )
        # Typing in the other page reaches the first one too.
        one.keyboard.press("Escape")
        note = two.get_by_test_id("board-note").filter(has_text="hello from one")
        note.dblclick()
        two.get_by_test_id("board-text-editor").press("End")
        two.get_by_test_id("board-text-editor").press_sequentially(" and two", delay=10)
        one.get_by_test_id("board-note").filter(has_text="hello from one 😀 and two").wait_for(timeout=10_000)
    finally:
        one.close()
        two.close()


def test_keys_typed_before_a_new_notes_editor_shows_are_its_first_words(browser: Any, server: ServerProcess) -> None:
    page = open_board(browser, server)
    try:
        page.get_by_role("button", name="Sticky note").click()
        # Keys pressed the moment the note is placed, before the board has drawn it (a fast typist,
        # or a busy machine): the page sends them from the same event as the click that placed it.
        page.evaluate(
            """() => window.addEventListener("pointerup", () => {
                for (const key of ["h", "i", "x", "Backspace", "!"]) {
                    document.activeElement.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
                }
            }, { once: true })"""
        )
        box = page.get_by_test_id("board").bounding_box()
        page.mouse.click(box["x"] + 300, box["y"] + 300)
        page.get_by_test_id("board-note").filter(has_text="hi!").wait_for(timeout=10_000)
        page.get_by_test_id("board-text-editor").press_sequentially(" there", delay=10)
        page.get_by_test_id("board-note").filter(has_text="hi! there").wait_for(timeout=10_000)
    finally:
        page.close()
