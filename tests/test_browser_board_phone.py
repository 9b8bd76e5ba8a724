"""An edit guest on a phone (390 x 844) with a request waiting: the board starts near the top,
the access line folds to one row, and every toolbar control is reachable through "More"."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import add_agent, join_as_guest, open_host, open_thread_sheet, prompt, waiting_list
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
        sheet = open_thread_sheet(guest)
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


# Whether the shown choice of a <select> fits in it: its text's width, in the select's font, plus
# room for the drop-down arrow.
CHOICE_FITS = """el => {
  const probe = document.createElement("span");
  probe.style.font = getComputedStyle(el).font;
  probe.style.whiteSpace = "pre";
  probe.textContent = el.selectedOptions[0].textContent;
  document.body.append(probe);
  const width = probe.getBoundingClientRect().width;
  probe.remove();
  return width + 20 <= el.clientWidth;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_top_bar_keeps_the_theme_picker_readable_and_clear_of_the_room_button(
    browser: Any, server: ServerProcess, scheme: str
) -> None:
    for width, height in ((390, 844), (1024, 768)):
        page = open_host(browser, server, width, height, scheme)
        try:
            picker = page.get_by_test_id("theme-choice")
            assert picker.evaluate(CHOICE_FITS), f"the theme's name is cut at {width} px"
            toggle = page.get_by_test_id("side-toggle")
            if width == 1024:
                toggle.click()
                page.get_by_test_id("side-panel").get_by_role("heading").first.wait_for(timeout=WAIT_MS)
                a, b = picker.bounding_box(), toggle.bounding_box()
                assert a["x"] + a["width"] <= b["x"] or b["y"] >= a["y"] + a["height"], (a, b)
                # Esc closes the drawer from the button that opened it, as from inside it.
                toggle.press("Escape")
                page.wait_for_function(
                    "() => document.querySelector('[data-testid=side-toggle]')"
                    ".getAttribute('aria-expanded') === 'false'",
                    timeout=WAIT_MS,
                )
                page.get_by_test_id("side-panel").wait_for(state="hidden", timeout=WAIT_MS)
        finally:
            page.context.close()


def test_a_permission_waiting_on_a_phone_lies_over_the_board_without_moving_it(
    browser: Any, server: ServerProcess
) -> None:
    (server.root / "notes.txt").write_text("one\n")
    host = open_host(browser, server, 390, 844)
    try:
        view = add_agent(host)
        host.get_by_test_id("board-toolbar").wait_for(timeout=WAIT_MS)
        board = host.get_by_test_id("board")
        before = board.bounding_box()
        prompt(view, "/write notes.txt ONE")
        host.get_by_test_id("attention-band").filter(has_text="asks your permission").wait_for(timeout=WAIT_MS)
        assert board.bounding_box() == before
        # Opened from its band, the list still leaves the board where it was.
        entry = waiting_list(host).get_by_test_id("attention-entry").filter(has_text="asks your permission")
        entry.wait_for(timeout=WAIT_MS)
        assert board.bounding_box() == before
        # The request is on screen and answerable, below the toolbar, which stays free to use.
        banner = host.get_by_test_id("attention").bounding_box()
        toolbar = host.get_by_test_id("board-toolbar").bounding_box()
        assert banner["y"] >= toolbar["y"] + toolbar["height"] and banner["y"] + banner["height"] <= 844, banner
        entry.get_by_role("button").first.wait_for(timeout=WAIT_MS)
        host.get_by_test_id("board-tool-note").click()
    finally:
        host.context.close()


# A thread's text as high as the screen shows it: its font size times the board's zoom.
THREAD_TEXT_PX = """() => {
  const view = document.querySelector('[data-testid=agent-view]');
  const zoom = new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a;
  return parseFloat(getComputedStyle(view).fontSize) * zoom;
}"""


def test_a_new_agent_frame_on_a_phone_opens_where_its_text_reads(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server, 390, 844)
    try:
        view = add_agent(host)
        frame = host.locator(".react-flow__node-frame.selected")
        frame.wait_for(timeout=WAIT_MS)
        # Once the view has settled on the new frame, its text is at least 12 px high on screen.
        host.wait_for_function(f"() => ({THREAD_TEXT_PX})() >= 12", timeout=WAIT_MS)
        shown = frame.bounding_box()
        assert shown["x"] >= 0 and shown["x"] + shown["width"] <= 390, shown
        prompt(view, "hello from a phone")
        view.get_by_test_id("agent-message").filter(has_text="hello from a phone").first.wait_for(timeout=WAIT_MS)
    finally:
        host.context.close()
