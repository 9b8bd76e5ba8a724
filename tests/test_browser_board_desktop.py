"""The board on a laptop: Esc on the board closes the Room drawer."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import box, open_host
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

WAIT_MS = 20_000


def test_esc_on_the_board_closes_the_room_drawer(browser: Any, server: ServerProcess) -> None:
    page = open_host(browser, server, 1024, 768)
    try:
        panel = page.get_by_test_id("side-panel")
        page.get_by_test_id("side-toggle").click()
        panel.wait_for(state="visible", timeout=WAIT_MS)
        board = box(page.get_by_test_id("board"))
        # A click on the board's empty canvas, left of the drawer, puts the focus on the board.
        page.mouse.click(board["x"] + 120, board["y"] + board["height"] / 2)
        page.keyboard.press("Escape")
        panel.wait_for(state="hidden", timeout=WAIT_MS)
        assert page.get_by_test_id("side-toggle").get_attribute("aria-expanded") == "false"
    finally:
        page.context.close()
