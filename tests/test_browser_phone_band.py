"""Chromium on a phone (390 px, touch), light and dark: what waits is a one-line band over the bottom
of the board, for the host and for a guest, which either opens into the list and folds again; shut
or open, it never lies over the selected frame's "Open the thread" or the zoom bar."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, add_agent, box, overlap
from tests.support import ServerProcess
from tests.test_browser_invites import join_with, shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def phone_page(browser: Any, link: str, scheme: str) -> Any:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, color_scheme=scheme
    )
    page = context.new_page()
    page.goto(link)
    return page


def clear_of(page: Any, what: Any, *controls: Any) -> None:
    for control in controls:
        assert not overlap(box(what), box(control)), f"what waits lies over {control}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_what_waits_is_a_band_that_opens_and_never_hides_the_frames_actions(
    browser: Any, server: ServerProcess, scheme: str
) -> None:
    host = phone_page(browser, server.host_link, scheme)
    host.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
    add_agent(host)
    askers = [join_with(browser, server.room_link, 1024, name=name) for name in ("Bo", "Cy")]
    for guest in askers:
        guest.get_by_test_id("access-banner").get_by_test_id("ask-edit").click()
    band = host.get_by_test_id("attention-band")
    band.filter(has_text="2 waiting").wait_for(timeout=WAIT_MS)
    section = host.get_by_test_id("attention")
    assert box(section)["height"] <= 60, "shut, what waits is one line"
    assert host.get_by_test_id("attention-entry").first.is_hidden()

    host.locator(".react-flow__node-frame .board-frame-title").first.click(position={"x": 30, "y": 10})
    opener = host.get_by_test_id("board-open-thread")
    zoom = host.get_by_test_id("board-zoom")
    opener.wait_for(timeout=WAIT_MS)
    clear_of(host, section, opener, zoom)
    shot(host, f"phone-band-{scheme}")

    band.click()
    assert band.get_attribute("aria-expanded") == "true"
    entry = host.get_by_test_id("attention-entry").filter(has_text="Bo asks for edit access")
    entry.wait_for(timeout=WAIT_MS)
    clear_of(host, section, opener, zoom)
    shot(host, f"phone-band-open-{scheme}")
    entry.get_by_test_id("approve").click()
    askers[0].locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)
    band.filter(has_text="1 waiting").wait_for(timeout=WAIT_MS)
    band.click()
    assert band.get_attribute("aria-expanded") == "false"
    assert host.get_by_test_id("attention-entry").first.is_hidden()

    # A guest's own request waits in the same band, and opens the same way.
    guest = phone_page(browser, server.room_link, scheme)
    guest.get_by_test_id("guest-name").fill("Di")
    guest.get_by_test_id("guest-join").click()
    guest.get_by_test_id("access-banner").get_by_test_id("ask-edit").click()
    own = guest.get_by_test_id("attention-band")
    own.filter(has_text="waiting for the host").wait_for(timeout=WAIT_MS)
    assert box(guest.get_by_test_id("attention"))["height"] <= 60
    own.click()
    guest.get_by_test_id("attention-entry").filter(has_text="waiting for the host").wait_for(timeout=WAIT_MS)
    shot(guest, f"phone-band-guest-{scheme}")
    for page in (host, guest, *askers):
        page.context.close()
