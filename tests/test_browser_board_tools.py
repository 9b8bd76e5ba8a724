"""Chromium: the board's tools by their letters (note, arrow, rectangle, empty frame), the palette,
the `?` sheet, the empty board's hint, the minimap that moves the view, and the view kept on reload."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, box, open_host
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

VIEWPORT = "() => document.querySelector('.react-flow__viewport').style.transform"
# The view kept in local storage is the one shown, and it is no longer `before`. The style shows six
# significant digits, so "the same" allows for that rounding and no more: a frame of the animation
# a few thousandths of a pixel from the kept view is not yet at rest.
SAVED_IS_SHOWN = r"""before => {
    const key = Object.keys(localStorage).find(k => k.startsWith('canvas.view.'));
    if (!key) return false;
    const { x, y, zoom } = JSON.parse(localStorage.getItem(key));
    const transform = document.querySelector('.react-flow__viewport').style.transform;
    if (transform === before) return false;
    const shown = transform.match(/-?[\d.]+(?:e-?\d+)?/g).map(Number);
    return [x, y, zoom].every((n, i) => Math.abs(n - shown[i]) <= 1e-5 * Math.max(1, Math.abs(n)));
}"""


def at(page: Any, x: float, y: float) -> tuple[float, float]:
    board = box(page.get_by_test_id("board"))
    return board["x"] + x, board["y"] + y


def middle(locator: Any) -> tuple[float, float]:
    found = box(locator)
    return found["x"] + found["width"] / 2, found["y"] + found["height"] / 2


def note(page: Any, x: float, y: float, text: str) -> Any:
    page.keyboard.press("n")
    page.mouse.click(*at(page, x, y))
    page.get_by_test_id("board-text-editor").press_sequentially(text)
    page.keyboard.press("Escape")
    return page.locator(".react-flow__node-note").filter(has_text=text)


def test_tools_by_letter_palette_help_hint_minimap_and_kept_view(browser: Any, server: ServerProcess) -> None:
    page = open_host(browser, server)
    try:
        page.get_by_test_id("board-hint").wait_for(timeout=WAIT_MS)
        page.mouse.click(*at(page, 200, 650))
        page.keyboard.press("?")
        sheet = page.get_by_test_id("board-help-sheet")
        sheet.get_by_text("Leave a terminal").wait_for(timeout=WAIT_MS)
        # Every line reads whole: nothing is cut at the sheet's edge, no description squeezed to a few letters.
        cut = sheet.evaluate(
            """el => [...el.querySelectorAll('td')].filter(td =>
              td.getBoundingClientRect().right > el.getBoundingClientRect().right + 1 || td.clientWidth < 120
            ).map(td => td.textContent)"""
        )
        assert cut == [], cut
        page.keyboard.press("Escape")
        sheet.wait_for(state="detached", timeout=WAIT_MS)

        one = note(page, 150, 250, "one")
        page.get_by_test_id("board-hint").wait_for(state="detached", timeout=WAIT_MS)
        two = note(page, 550, 250, "two")

        page.keyboard.press("a")
        assert page.get_by_test_id("board-tool-arrow").get_attribute("aria-pressed") == "true"
        # With the arrow tool a click on an item picks it (the tool's layer takes the pointer).
        page.mouse.click(*middle(one))
        page.mouse.click(*middle(two))
        page.get_by_test_id("board-arrow").wait_for(state="attached", timeout=WAIT_MS)
        assert page.get_by_test_id("board-tool-select").get_attribute("aria-pressed") == "true"

        one.click()
        page.get_by_test_id("board-colour").click()
        page.get_by_test_id("board-fill-#a5d8ff").click()
        page.wait_for_function(
            "el => getComputedStyle(el.querySelector('.board-note')).backgroundColor === 'rgb(165, 216, 255)'",
            arg=one.element_handle(),
            timeout=WAIT_MS,
        )
        # The colour chosen is the next shape's too.
        page.get_by_test_id("board-stroke-#e03131").click()
        page.keyboard.press("Escape")
        page.mouse.click(*at(page, 820, 120))
        page.keyboard.press("r")
        page.mouse.click(*at(page, 350, 500))
        rect = page.locator(".react-flow__node-shape rect")
        rect.wait_for(timeout=WAIT_MS)
        assert rect.get_attribute("stroke") == "#e03131" and rect.get_attribute("fill") == "#a5d8ff"

        # An empty frame goes behind what is already there.
        page.mouse.click(*at(page, 820, 120))
        page.keyboard.press("f")
        page.mouse.click(*at(page, 350, 350))
        frame = page.locator(".react-flow__node-frame")
        frame.wait_for(timeout=WAIT_MS)
        assert frame.get_by_test_id("board-frame").get_attribute("data-holds") is None
        z = "el => Number(getComputedStyle(el).zIndex)"
        page.mouse.click(*at(page, 820, 120))
        assert frame.evaluate(z) < one.evaluate(z)

        # A click on the minimap moves the view there; the view is the same after a reload.
        before = page.evaluate(VIEWPORT)
        minimap = box(page.locator(".react-flow__minimap"))
        page.mouse.click(minimap["x"] + 10, minimap["y"] + 10)
        page.wait_for_function(f"before => ({VIEWPORT})() !== before", arg=before, timeout=WAIT_MS)
        # Kept once the view comes to rest (the move is animated).
        page.wait_for_function(SAVED_IS_SHOWN, arg=before, timeout=WAIT_MS)
        moved = page.evaluate(VIEWPORT)
        page.reload()
        page.get_by_test_id("board-toolbar").wait_for(timeout=WAIT_MS)
        one.wait_for(timeout=WAIT_MS)
        assert page.evaluate(VIEWPORT) == moved
    finally:
        page.context.close()
