"""A big board seen from far away, in Chromium: drawn as one sketch with no item in the page, an
item picked there by a click comes back live, and at 100 % every item in view is live again."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.server.board.log import BOARD_LOG, write_log
from tests.bench.board_scale import seeded_board
from tests.support import ServerThread
from tests.test_browser_board import open_board

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

WAIT_MS = 30_000
ITEMS = 600


def test_a_big_board_far_out_is_a_sketch_whose_items_come_back_live(browser: Any, project: Path) -> None:
    ServerThread(project).start().stop()
    write_log(project / ".canvas" / BOARD_LOG, [seeded_board(ITEMS)])
    served = ServerThread(project).start()
    page = open_board(browser, served)
    try:
        # The page opens fitted: every item in view, far out.
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
    finally:
        page.close()
        served.stop()
