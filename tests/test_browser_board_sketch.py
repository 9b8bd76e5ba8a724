"""A big board seen from far away, in Chromium: drawn as one sketch with no item in the page, an
item picked there by a click comes back live, and at 100 % every item in view is live again; by
keyboard and screen reader its items in view are a list (Tab, Enter zooms to one) that axe passes;
its map is one canvas that moves the view."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.server.board.log import BOARD_LOG, write_log
from tests.bench.board_scale import seeded_board
from tests.browser_pages import FITTED_VIEW_KEPT, VIEW_CENTRE, serious_violations, view_centre
from tests.support import ServerThread
from tests.test_browser_board import open_board

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

WAIT_MS = 30_000
ITEMS = 600
# The seeded grid of 600 items: 450 boxes in 21 columns of 260 board units, the last 200 wide.
GRID_CENTRE = ((20 * 260 + 200) / 2, (21 * 260 + 200) / 2)


@pytest.fixture
def page(browser: Any, project: Path) -> Iterator[Any]:
    """The host's page on a served board of `ITEMS` items, zoomed to fit (it opens readable, on
    the item made last)."""
    ServerThread(project).start().stop()
    write_log(project / ".canvas" / BOARD_LOG, [seeded_board(ITEMS)])
    served = ServerThread(project).start()
    page = open_board(browser, served)
    try:
        page.get_by_test_id("board-note").first.wait_for(timeout=WAIT_MS)
        page.get_by_test_id("board-zoom-fit").click()
        # The view is kept once it stops moving: fitted, far out.
        page.wait_for_function(FITTED_VIEW_KEPT, timeout=WAIT_MS)
        yield page
    finally:
        page.close()
        served.stop()


def test_a_big_board_far_out_is_a_sketch_whose_items_come_back_live(page: Any) -> None:
    # Fitted: every item in view, far out.
    sketch = page.get_by_test_id("board-sketch")
    sketch.wait_for(timeout=WAIT_MS)
    assert f"{ITEMS} items" in (sketch.get_attribute("aria-label") or "")
    assert page.locator(".react-flow__node").count() == 0

    # The grid's first note lies at (0, 0), 200 by 200 board units: a click on its middle picks it.
    transform = page.locator(".react-flow__viewport").evaluate("el => el.style.transform")
    found = re.search(r"translate\(([-\d.e]+)px,\s*([-\d.e]+)px\)\s*scale\(([\d.e-]+)\)", transform)
    assert found, transform
    x, y, zoom = (float(n) for n in found.groups())
    board = page.get_by_test_id("board").bounding_box()
    page.mouse.click(board["x"] + x + 100 * zoom, board["y"] + y + 100 * zoom)
    picked = page.locator(".react-flow__node-note.selected")
    picked.wait_for(timeout=WAIT_MS)
    assert page.locator(".react-flow__node").count() == 1

    page.keyboard.press("Shift+0")
    sketch.wait_for(state="detached", timeout=WAIT_MS)
    page.get_by_test_id("board-note").first.wait_for(timeout=WAIT_MS)
    assert page.locator(".react-flow__node").count() > 1


def test_the_sketch_lists_its_items_in_view_for_the_keyboard_and_screen_readers(page: Any) -> None:
    page.get_by_test_id("board-sketch").wait_for(timeout=WAIT_MS)
    listed = page.get_by_test_id("board-sketch-items").get_by_role("button")
    listed.first.wait_for(state="attached", timeout=WAIT_MS)
    assert listed.count() >= 100, "the items in view are listed"
    assert serious_violations(page) == []

    # Tab from the board reaches the first item in reading order, named by its text, and shows it.
    page.get_by_test_id("board").focus()
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate("() => !!document.activeElement?.closest('[data-testid=board-sketch-items]')"):
            break
    first = page.locator("[data-testid=board-sketch-items] button:focus")
    assert first.inner_text().startswith("Sticky note: note 0"), first.inner_text()
    shown = first.bounding_box()
    board = page.get_by_test_id("board").bounding_box()
    assert shown["width"] > 50 and board["y"] <= shown["y"] <= board["y"] + board["height"], shown
    page.keyboard.press("Tab")
    assert ": shape 1 " in page.locator("[data-testid=board-sketch-items] button:focus").inner_text()

    # Enter zooms to it: the sketch gives way and the item, live, has the focus.
    page.keyboard.press("Shift+Tab")
    item_id = first.get_attribute("data-id")
    page.keyboard.press("Enter")
    page.get_by_test_id("board-sketch").wait_for(state="detached", timeout=WAIT_MS)
    page.wait_for_function(
        "id => document.activeElement?.matches(`.react-flow__node.selected[data-id='${id}']`)",
        arg=item_id,
        timeout=WAIT_MS,
    )
    assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") == "Sticky note: note 0"


def test_a_big_boards_map_is_one_canvas_and_a_click_on_it_moves_the_view(page: Any) -> None:
    page.get_by_test_id("board-sketch").wait_for(timeout=WAIT_MS)
    page.keyboard.press("Shift+0")
    page.get_by_test_id("board-sketch").wait_for(state="detached", timeout=WAIT_MS)
    # The zoom to 100 % is animated; the map is clicked once it has arrived.
    page.wait_for_function(f"() => ({VIEW_CENTRE})()[2] === 1", timeout=WAIT_MS)
    shown = page.get_by_test_id("board-map")
    assert shown.locator("canvas").count() == 1
    assert page.locator(".react-flow__minimap").count() == 0, "no SVG element per item"
    assert "600 items" in (shown.locator("canvas").get_attribute("aria-label") or "")

    area = shown.bounding_box()
    page.mouse.click(area["x"] + area["width"] / 2, area["y"] + area["height"] / 2)
    x, y, zoom = view_centre(page)
    assert zoom == 1
    assert abs(x - GRID_CENTRE[0]) < 300 and abs(y - GRID_CENTRE[1]) < 300, (x, y)
    # A drag on the map to its left edge takes the view to the board's left side.
    page.mouse.move(area["x"] + area["width"] / 2, area["y"] + area["height"] / 2)
    page.mouse.down()
    page.mouse.move(area["x"] + area["width"] * 0.3, area["y"] + area["height"] / 2, steps=5)
    page.mouse.up()
    assert view_centre(page)[0] < GRID_CENTRE[0] - 1000
