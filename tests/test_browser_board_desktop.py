"""The board on a laptop (1,024 and 1,440 px): a request that arrives leaves the board where it
was, for the host who answers it and the guest who waits on it; the host opens it from the top
bar's line and answers by keyboard; Esc on the board closes the Room drawer."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import add_agent, box, join_as_guest, open_host, prompt, wait_waiting
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

WAIT_MS = 20_000
VIEWPORT = "() => document.querySelector('.react-flow__viewport').style.transform"
FOCUSED_TEST_ID = "() => document.activeElement?.dataset.testid ?? ''"


def board_place(page: Any) -> tuple[dict[str, float], str]:
    """Where the board lies on the page, and where its view is."""
    return box(page.get_by_test_id("board")), page.evaluate(VIEWPORT)


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
        host_before, guest_before = board_place(host), board_place(guest)

        prompt(guest.get_by_test_id("agent-view"), "please look at the tests")
        wait_waiting(host, 1)
        wait_waiting(guest, 1)
        line = host.get_by_test_id("attention-line")
        assert "Ada asks to send a prompt" in line.inner_text()
        assert board_place(host) == host_before
        assert board_place(guest) == guest_before
        # Nothing lies over the board until the host asks for the list.
        assert not host.get_by_test_id("attention").is_visible()

        # By keyboard: Enter on the line opens the list and puts the focus in it; Esc closes it
        # and gives the focus back to the line.
        line.focus()
        host.keyboard.press("Enter")
        listed = host.get_by_test_id("attention")
        listed.wait_for(timeout=WAIT_MS)
        assert line.get_attribute("aria-expanded") == "true"
        assert host.evaluate(FOCUSED_TEST_ID) == "attention"
        shown = box(listed)
        assert shown["x"] >= 0 and shown["x"] + shown["width"] <= width and shown["y"] >= box(line)["y"], shown
        assert board_place(host) == host_before
        host.keyboard.press("Escape")
        listed.wait_for(state="hidden", timeout=WAIT_MS)
        assert host.evaluate(FOCUSED_TEST_ID) == "attention-line"

        host.keyboard.press("Enter")
        listed.wait_for(timeout=WAIT_MS)
        for _ in range(12):
            host.keyboard.press("Tab")
            if host.evaluate(FOCUSED_TEST_ID) == "approve":
                break
        assert host.evaluate(FOCUSED_TEST_ID) == "approve"
        host.keyboard.press("Enter")
        wait_waiting(host, 0)
        listed.wait_for(state="hidden", timeout=WAIT_MS)
        guest.get_by_test_id("attention-line").filter(has_text="the host approved it").wait_for(timeout=WAIT_MS)
        assert board_place(host) == host_before
        assert board_place(guest) == guest_before
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
