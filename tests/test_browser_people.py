"""Chromium, a host and two guests: everyone sees who is here, with colour and access; a guest
follows the host's view; the join page says whose room it is and what access one gets."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import BOARD_POINT, assert_plain, open_host, pan_away
from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS, open_guest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

CLEAR_CENTRE = f"""() => {{
  const board = document.querySelector('[data-testid="board"]').getBoundingClientRect();
  const top = document.querySelector('[data-testid="board-toolbar"]').getBoundingClientRect().bottom;
  const below = [...document.querySelectorAll('[data-testid="board-zoom"], .react-flow__minimap')];
  const bottom = Math.min(...below.map(e => e.getBoundingClientRect().top));
  return ({BOARD_POINT})(board.width / 2, (top + bottom) / 2 - board.top).slice(0, 2);
}}"""
"""The board coordinates at the middle of the part of the page's board between its toolbar and its
zoom bar and map: a follower is shown what the followed person sees there, in the same part."""


def clear_centre(page: Any) -> tuple[float, float]:
    x, y = page.evaluate(CLEAR_CENTRE)
    return x, y


def wait_centred_on(page: Any, centre: tuple[float, float]) -> None:
    """Until the page's board shows `centre` (board coordinates) in the middle of its clear part."""
    page.wait_for_function(
        f"([x, y]) => {{ const [cx, cy] = ({CLEAR_CENTRE})(); return Math.abs(cx - x) < 5 && Math.abs(cy - y) < 5; }}",
        arg=list(centre),
        timeout=TIMEOUT_MS,
    )


def person(page: Any, name: str) -> Any:
    return page.get_by_test_id("people").locator(f'[data-name="{name}"]')


def test_everyone_sees_who_is_here_and_a_guest_follows_the_hosts_view(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    host.get_by_test_id("host-name").fill("Hana")
    host.get_by_test_id("host-name").press("Enter")

    # Before joining, the page says whose room, which project, and the access a guest gets.
    visitor = browser.new_context().new_page()
    visitor.goto(server.room_link)
    about = visitor.get_by_test_id("join-about").filter(has_text="Hana's room for the project project")
    about.wait_for(timeout=TIMEOUT_MS)
    assert "You will join with view access" in about.inner_text()
    visitor.context.close()

    ada = open_guest(browser, server, "Ada")
    bob = open_guest(browser, server, "Bob")
    for page in (host, ada, bob):
        for name in ("Hana", "Ada", "Bob"):
            person(page, name).wait_for(timeout=TIMEOUT_MS)
    assert person(ada, "Bob").get_attribute("data-access") == "view"
    assert person(ada, "Hana").get_attribute("data-access") == "host"
    assert "(you)" in person(ada, "Ada").inner_text() and "(you)" not in person(ada, "Bob").inner_text()
    assert_plain(host, ada, bob)

    person(ada, "Hana").get_by_test_id("follow").click()
    wait_centred_on(ada, clear_centre(host))
    pan_away(host)
    moved = clear_centre(host)
    wait_centred_on(ada, moved)
    assert person(ada, "Hana").get_by_test_id("follow").get_attribute("aria-pressed") == "true"

    # A pan of one's own ends following.
    pan_away(ada)
    person(ada, "Hana").locator('[data-testid="follow"][aria-pressed="false"]').wait_for(timeout=TIMEOUT_MS)
    for page in (host, ada, bob):
        page.context.close()
