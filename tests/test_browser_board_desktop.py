"""The board on a laptop (1,024 and 1,440 px): a request that arrives lies over the board without
moving it, for the host who answers it and the guest who waits on it; Esc on the board closes the
Room drawer."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import add_agent, box, join_as_guest, open_host, overlap, prompt
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

WAIT_MS = 20_000


@pytest.mark.parametrize("width", [1024, 1440])
def test_a_request_that_arrives_does_not_move_the_board(browser: Any, server: ServerProcess, width: int) -> None:
    host = open_host(browser, server, width, 800)
    guest = join_as_guest(browser, server, "Ada", width, 800)
    try:
        add_agent(host)
        # At 1,024 px the guests are in the Room drawer; at 1,440 px in the panel beside the board.
        drawer = not host.get_by_test_id("side-panel").is_visible()
        if drawer:
            host.get_by_test_id("side-toggle").click()
        host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="guest-access"]').select_option("edit")
        if drawer:
            host.get_by_test_id("side-toggle").click()
            host.get_by_test_id("side-panel").wait_for(state="hidden", timeout=WAIT_MS)
        guest.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)
        host_board = box(host.get_by_test_id("board"))
        guest_board = box(guest.get_by_test_id("board"))

        prompt(guest.get_by_test_id("agent-view"), "please look at the tests")
        request = host.get_by_test_id("attention-entry").filter(has_text="Ada asks")
        request.wait_for(timeout=WAIT_MS)
        guest.get_by_test_id("attention-entry").filter(has_text="waiting for the host").wait_for(timeout=WAIT_MS)

        assert box(host.get_by_test_id("board")) == host_board
        assert box(guest.get_by_test_id("board")) == guest_board
        # The request is answerable where it lies, over the board, clear of its toolbar.
        panel = box(host.locator(".attention-panel"))
        for control in ("board-toolbar", "board-zoom"):
            assert not overlap(panel, box(host.get_by_test_id(control))), control
        assert not overlap(panel, box(host.locator(".react-flow__minimap")))
        assert panel["x"] >= 0 and panel["x"] + panel["width"] <= width
        request.get_by_role("button", name="Approve").first.click()
        request.wait_for(state="detached", timeout=WAIT_MS)
        assert box(host.get_by_test_id("board")) == host_board
    finally:
        guest.context.close()
        host.context.close()


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
