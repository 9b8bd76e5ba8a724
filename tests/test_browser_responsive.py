"""Chromium at a small laptop's, a laptop's, a wide screen's and a phone's size: every toolbar button
can be seen and clicked, the side panel becomes a drawer (a bottom sheet on the phone) or, wide, hides
at its button, which counts the people at every width; the page never grows past the window."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import (
    WAIT_MS,
    add_agent,
    add_frame,
    box,
    edit_guest,
    join_as_guest,
    open_host,
    open_thread_sheet,
    prompt,
    wait_waiting,
    waiting_list,
)
from tests.support import ServerProcess
from tests.test_browser_invites import shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

TAP = 44


def wait_until_inside(page: Any, locator: Any, right: float, bottom: float) -> dict[str, float]:
    """Waits for the drawer or sheet to finish sliding in: whole left of `right` and above `bottom`."""
    page.wait_for_function(
        "([el, right, bottom]) => { const r = el.getBoundingClientRect();"
        " return r.right <= right && r.bottom <= bottom; }",
        arg=[locator.element_handle(), right, bottom],
        timeout=WAIT_MS,
    )
    return box(locator)


def add_note(page: Any) -> None:
    """A note, selected, so the toolbar's selection buttons are live too."""
    page.get_by_test_id("board-tool-note").click()
    board = box(page.get_by_test_id("board"))
    page.mouse.click(board["x"] + board["width"] / 2, board["y"] + board["height"] * 0.6)
    page.get_by_test_id("board-text-editor").wait_for(timeout=WAIT_MS)
    page.keyboard.press("Escape")


def check_toolbar(page: Any, min_size: float = 0) -> int:
    """Every toolbar button shows whole on screen (scrolled to, where the bar scrolls), above
    anything else, and would take a click there; returns how many there are."""
    viewport = page.viewport_size
    bar = page.get_by_test_id("board-toolbar")
    more = page.get_by_test_id("board-more")
    if more.is_visible():
        # A phone shows the first tools; "More" opens the rest on rows of their own, not sideways.
        first_row = bar.locator(":scope > button:visible, :scope > .board-colour:visible > button").count()
        assert first_row >= 6
        more.click()
        bar.locator(".board-secondary").first.wait_for(timeout=WAIT_MS)
    buttons = bar.locator(":scope > button:visible, :scope > .board-colour:visible > button").all()
    assert len(buttons) >= 19
    for button in buttons:
        button.scroll_into_view_if_needed()
        found = box(button)
        name = button.get_attribute("aria-label")
        assert found["x"] >= 0 and found["y"] >= 0, name
        assert (
            found["x"] + found["width"] <= viewport["width"] and found["y"] + found["height"] <= viewport["height"]
        ), name
        within = box(bar)
        assert found["x"] >= within["x"] - 1 and found["x"] + found["width"] <= within["x"] + within["width"] + 1, name
        assert found["width"] >= min_size and found["height"] >= min_size, (name, found)
        # Playwright's checks for a real click (visible, enabled, and the target under the pointer), without clicking.
        # (Group waits for a second item: disabled, it is still shown where it will be clicked.)
        if button.get_attribute("data-testid") != "board-group":
            button.click(trial=True, timeout=5_000)
    if more.get_attribute("aria-expanded") == "true":
        more.click()
    return len(buttons)


def test_a_small_laptop_gets_the_whole_toolbar_and_the_panel_as_a_drawer(browser: Any, server: ServerProcess) -> None:
    page = open_host(browser, server, 1024, 768)
    try:
        assert not page.get_by_test_id("side-panel").is_visible()
        assert box(page.get_by_test_id("board"))["width"] >= 1000
        add_note(page)
        check_toolbar(page)
        toggle = page.get_by_test_id("side-toggle")
        assert toggle.get_attribute("aria-expanded") == "false"
        toggle.click()
        page.get_by_test_id("room-link").wait_for(timeout=WAIT_MS)
        assert toggle.get_attribute("aria-expanded") == "true"
        panel = wait_until_inside(page, page.get_by_test_id("side-panel"), 1024, 768)
        assert panel["width"] >= 300
        # The drawer lies over the board's right side; the toolbar keeps left of it, every tool clickable.
        toolbar = box(page.get_by_test_id("board-toolbar"))
        assert toolbar["x"] + toolbar["width"] <= panel["x"], (toolbar, panel)
        check_toolbar(page)
        page.get_by_test_id("room-link").press("Escape")
        page.get_by_test_id("side-panel").wait_for(state="hidden", timeout=WAIT_MS)
    finally:
        page.context.close()


def test_a_laptop_shows_the_panel_beside_a_toolbar_that_fits_the_board(browser: Any, server: ServerProcess) -> None:
    page = open_host(browser, server, 1280, 800)
    try:
        add_note(page)
        check_toolbar(page)
        board, panel = box(page.get_by_test_id("board")), box(page.get_by_test_id("side-panel"))
        assert board["x"] + board["width"] <= panel["x"] + 1
        toolbar = box(page.get_by_test_id("board-toolbar"))
        assert toolbar["x"] >= board["x"] and toolbar["x"] + toolbar["width"] <= board["x"] + board["width"]
        # Its button hides the column, so the board takes the window's width, and brings it back.
        toggle = page.get_by_test_id("side-toggle")
        assert toggle.inner_text() == "Hide room" and toggle.get_attribute("aria-expanded") == "true"
        toggle.click()
        page.get_by_test_id("side-panel").wait_for(state="hidden", timeout=WAIT_MS)
        page.wait_for_function(
            "() => document.querySelector('[data-testid=board]').getBoundingClientRect().width >= 1270",
            timeout=WAIT_MS,
        )
        assert toggle.get_attribute("aria-expanded") == "false"
        toggle.click()
        page.get_by_test_id("room-link").wait_for(timeout=WAIT_MS)
    finally:
        page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_wide_a_long_waiting_list_scrolls_in_its_popover_and_the_room_button_counts_people(
    browser: Any, server: ServerProcess, scheme: str
) -> None:
    host = open_host(browser, server, 1440, 900, scheme)
    add_agent(host)
    ada = edit_guest(browser, server, host, "Ada")
    host.get_by_test_id("people-count").filter(has_text="2").wait_for(timeout=WAIT_MS)
    assert host.get_by_test_id("people-count").is_visible(), "the count shows at 1,440 px too"
    for n in range(6):
        prompt(ada.get_by_test_id("agent-view"), f"look at file number {n} and say what it does")
    wait_waiting(host, 6)
    window = host.evaluate(
        "() => [document.scrollingElement.scrollHeight, innerHeight, document.scrollingElement.scrollWidth, innerWidth]"
    )
    assert window[0] <= window[1] and window[2] <= window[3], f"the page scrolls: {window}"
    board = box(host.get_by_test_id("board"))
    listed = waiting_list(host)
    assert listed.evaluate("e => e.scrollHeight > e.clientHeight"), "what waits scrolls inside its own list"
    assert box(listed)["y"] + box(listed)["height"] <= 900, "the list ends inside the window"
    assert box(host.get_by_test_id("board")) == board, "the board keeps its place"
    shot(host, f"waiting-1440-{scheme}")
    for page in (host, ada):
        page.context.close()


def test_on_a_phone_the_guest_page_is_the_board_with_a_bottom_sheet(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    try:
        page = phone.new_page()
        page.goto(server.room_link)
        join = box(page.get_by_test_id("guest-join"))
        assert join["width"] >= TAP and join["height"] >= TAP, join
        page.close()
        guest = join_as_guest(browser, server, "Ada", 390, 844)
        phone.close()
        phone = guest.context
        host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="guest-access"]').select_option("edit")
        guest.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)

        assert box(guest.get_by_test_id("board"))["width"] >= 0.9 * 390
        add_note(guest)
        check_toolbar(guest, min_size=TAP)
        sheet = guest.get_by_test_id("side-toggle")
        assert box(sheet)["height"] >= TAP
        sheet.click()
        guest.get_by_test_id("file-tree").wait_for(timeout=WAIT_MS)
        panel = wait_until_inside(guest, guest.get_by_test_id("side-panel"), 390, box(sheet)["y"] + 1)
        assert panel["width"] >= 0.9 * 390 and panel["height"] >= 300
        sheet.click()

        # An agent's frame is too small to read on the phone: its thread opens in a sheet.
        agent = add_frame(host, "agent")
        agent.get_by_test_id("agent-input").wait_for(timeout=WAIT_MS)
        thread = open_thread_sheet(guest)
        thread.get_by_test_id("agent-input").wait_for(timeout=WAIT_MS)
        assert box(thread)["width"] >= 0.9 * 390
        assert box(thread.get_by_test_id("agent-view"))["width"] >= 0.85 * 390
    finally:
        phone.close()
        host.context.close()
