"""An edit guest on a phone (390 x 844) with a request waiting: the board starts near the top,
the access line folds to one row, and every toolbar control is reachable through "More"."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import add_agent, join_as_guest, open_host
from tests.support import ServerProcess
from tests.test_browser_responsive import check_toolbar

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

WAIT_MS = 20_000
TAP = 24


def test_a_phone_guest_with_a_request_waiting_gets_the_board_near_the_top(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    guest = join_as_guest(browser, server, "Ada", 390, 844)
    try:
        add_agent(host)
        host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="guest-access"]').select_option("edit")
        guest.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)

        # Ada prompts the agent from its thread sheet: the prompt waits for the host.
        guest.locator(".react-flow__node-frame .board-frame-title").click(position={"x": 30, "y": 10})
        guest.get_by_test_id("board-open-thread").click()
        sheet = guest.get_by_test_id("thread-sheet")
        composer = sheet.get_by_test_id("agent-input")
        composer.fill("please look at the tests")
        composer.press("Enter")
        host.get_by_test_id("attention-count").wait_for(timeout=WAIT_MS)
        guest.keyboard.press("Escape")
        sheet.wait_for(state="hidden", timeout=WAIT_MS)

        board = guest.get_by_test_id("board").bounding_box()
        assert board["y"] <= 80, board
        banner = guest.get_by_test_id("access-banner")
        folded = banner.bounding_box()["height"]
        banner.get_by_role("button").click()
        assert banner.bounding_box()["height"] > folded
        banner.get_by_role("button").click()

        toolbar = guest.get_by_test_id("board-toolbar").bounding_box()
        assert toolbar["x"] >= 0 and toolbar["x"] + toolbar["width"] <= 390
        assert check_toolbar(guest, min_size=TAP) >= 19
    finally:
        guest.context.close()
        host.context.close()
