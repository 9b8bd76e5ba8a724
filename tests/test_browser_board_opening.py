"""The view a board opens at, in Chromium: on a phone a board too big to read whole opens at a
readable zoom on the note made last, clear of the toolbar and the zoom bar, for the host and a
guest alike; a small board on a wide screen opens fitted; a view the person chose stays put as
items arrive."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pycrdt import Map, Text

from canvasrelay.core.board import Board
from canvasrelay.server.board.log import BOARD_LOG, write_log
from tests.browser_pages import FITTED_VIEW_KEPT, join_as_guest, open_host, pan_away
from tests.support import ServerThread

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

WAIT_MS = 20_000
COLUMNS = 8
SPACING = 260
READABLE_PX = 11
"""The smallest a note's text may be drawn on screen (its font size times the zoom) and still read."""

VIEWPORT = """() => {
  const m = /translate\\(([-\\d.e]+)px,\\s*([-\\d.e]+)px\\)\\s*scale\\(([\\d.e-]+)\\)/.exec(
    document.querySelector('.react-flow__viewport').style.transform);
  return { x: +m[1], y: +m[2], zoom: +m[3] };
}"""
FONT_PX = "el => parseFloat(getComputedStyle(el).fontSize)"


def seeded(project: Path, count: int) -> list[str]:
    """Writes a board of `count` notes in rows of `COLUMNS`, made in reading order (each `z` one
    more than the last). Returns their ids in that order."""
    ServerThread(project).start().stop()
    board = Board()
    ids = [secrets.token_hex(6) for _ in range(count)]
    with board.change():
        for index, item_id in enumerate(ids):
            board.items[item_id] = Map(
                {
                    "kind": "note",
                    "x": float((index % COLUMNS) * SPACING),
                    "y": float((index // COLUMNS) * SPACING),
                    "w": 200.0,
                    "h": 200.0,
                    "color": "#ffd43b",
                    "text": Text(f"note {index}: what we agreed"),
                    "z": float(index),
                }
            )
    write_log(project / ".canvas" / BOARD_LOG, [board.checkpoint()])
    return ids


@pytest.fixture
def serve(project: Path) -> Iterator[Callable[[int], tuple[ServerThread, list[str]]]]:
    """Serves a board of n seeded notes; stops the server after the test."""
    started: list[ServerThread] = []

    def start(count: int) -> tuple[ServerThread, list[str]]:
        ids = seeded(project, count)
        started.append(ServerThread(project).start())
        return started[-1], ids

    yield start
    for server in started:
        server.stop()


def note(page: Any, item_id: str) -> Any:
    node = page.locator(f'.react-flow__node[data-id="{item_id}"]')
    node.get_by_test_id("board-note").wait_for(timeout=WAIT_MS)
    return node


def clear_area(page: Any) -> dict[str, float]:
    """The part of the board no floating control covers: below the toolbar, above the zoom bar
    and the map."""
    board = page.get_by_test_id("board").bounding_box()
    top = page.get_by_test_id("board-toolbar").bounding_box()
    bottom = page.get_by_test_id("board-zoom").bounding_box()["y"]
    minimap = page.locator(".react-flow__minimap")
    if minimap.count() and minimap.is_visible():
        bottom = min(bottom, minimap.bounding_box()["y"])
    return {"left": board["x"], "right": board["x"] + board["width"], "top": top["y"] + top["height"], "bottom": bottom}


def assert_clear(page: Any, locator: Any) -> None:
    rect, area = locator.bounding_box(), clear_area(page)
    assert area["left"] <= rect["x"] and rect["x"] + rect["width"] <= area["right"], (rect, area)
    assert area["top"] <= rect["y"] and rect["y"] + rect["height"] <= area["bottom"], (rect, area)


def zoom_shown(page: Any) -> str:
    return page.get_by_test_id("board-zoom-level").inner_text()


def opened_view(page: Any, last: str) -> dict[str, float]:
    """Waits for the board to open on `last` and returns its view."""
    note(page, last)
    return page.evaluate(VIEWPORT)


@pytest.mark.parametrize("who", ["host", "guest"])
def test_a_phone_opens_a_big_board_readable_on_the_note_made_last(browser: Any, serve: Any, who: str) -> None:
    server, ids = serve(40)
    page = open_host(browser, server, 390, 844) if who == "host" else join_as_guest(browser, server, "Ada", 390, 844)
    try:
        last = note(page, ids[-1])
        view = page.evaluate(VIEWPORT)
        text = last.locator(".board-note-text")
        assert text.inner_text().startswith("note 39")
        font = text.evaluate(FONT_PX)
        assert font * view["zoom"] >= READABLE_PX, f"a note's text is {font * view['zoom']:.1f} px on screen"
        assert_clear(page, last)
        # The zoom bar tells the zoom drawn; "fit" still shows all 40 notes, at a zoom too small to read.
        assert zoom_shown(page) == f"{round(view['zoom'] * 100)} %"
        page.get_by_test_id("board-zoom-fit").click()
        # Once the fit has stopped moving: an item's box read mid-flight is somewhere on the way.
        page.wait_for_function(FITTED_VIEW_KEPT, timeout=WAIT_MS)
        page.wait_for_function(
            f"() => document.querySelector('[data-testid=board-zoom-level]').textContent"
            f" === Math.round(({VIEWPORT})().zoom * 100) + ' %'",
            timeout=WAIT_MS,
        )
        first = note(page, ids[0])
        assert_clear(page, first)
    finally:
        page.context.close()


def test_a_wide_screen_opens_a_small_board_fitted(browser: Any, serve: Any) -> None:
    server, ids = serve(4)
    page = open_host(browser, server, 1440, 900)
    try:
        view = opened_view(page, ids[-1])
        for item_id in ids:
            assert_clear(page, note(page, item_id))
        assert view["zoom"] == pytest.approx(1)
        assert zoom_shown(page) == "100 %"
    finally:
        page.context.close()


def test_a_view_the_phone_chose_stays_as_notes_arrive(browser: Any, serve: Any) -> None:
    server, ids = serve(40)
    phone = open_host(browser, server, 390, 844)
    desk = open_host(browser, server, 1440, 900)
    try:
        opened = opened_view(phone, ids[-1])
        pan_away(phone)
        phone.wait_for_function(f"() => ({VIEWPORT})().x !== {opened['x']}", timeout=WAIT_MS)
        chosen = phone.evaluate(VIEWPORT)

        note(desk, ids[-1])
        desk.get_by_test_id("board-tool-note").click()
        board = desk.get_by_test_id("board").bounding_box()
        desk.mouse.click(board["x"] + board["width"] - 300, board["y"] + 200)
        desk.get_by_test_id("board-text-editor").wait_for(timeout=WAIT_MS)
        # The phone's map (hidden on a phone, drawn all the same) counts the note that came.
        phone.wait_for_function(
            f"() => document.querySelectorAll('.react-flow__minimap-node').length === {len(ids) + 1}", timeout=WAIT_MS
        )
        assert phone.evaluate(VIEWPORT) == chosen
    finally:
        phone.context.close()
        desk.context.close()
