"""Chromium: the people button counts who is in the room now, at every width. A guest who closes its
page leaves at once: no longer counted, listed as having left, its cursor gone from the board and a
"left" line in the room's record. Screenshots go to CANVAS_SHOTS when set."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest

from tests.browser_pages import open_host
from tests.support import ServerProcess
from tests.test_browser_invites import WAIT_MS, join_with, open_room_panel, shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

LEFT_WITHIN_MS = 10_000
"""The room's resume grace is 30 s: a guest still counted after this was waited out, not seen leaving."""


def record(server: ServerProcess) -> list[tuple[str, str]]:
    """The room's record through its API, as (name, action)."""
    request = urllib.request.Request(
        server.base_url + "/api/audit?limit=100", headers={"Authorization": f"Bearer {server.token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return [(entry["name"], entry["action"]) for entry in json.loads(response.read())["entries"]]


@pytest.mark.parametrize(("width", "scheme"), [(1440, "light"), (1024, "dark"), (390, "light")])
def test_a_guest_who_closes_its_page_leaves_the_room(
    browser: Any, server: ServerProcess, width: int, scheme: str
) -> None:
    host = open_host(browser, server, width=width, scheme=scheme)
    ada = join_with(browser, server.room_link, 1024, name="Ada")
    count = host.get_by_test_id("people-count")
    count.filter(has_text="2").wait_for(timeout=WAIT_MS)
    # Ada's pointer over her board shows as her cursor on the host's.
    board = ada.get_by_test_id("board").bounding_box()
    ada.mouse.move(board["x"] + board["width"] / 2, board["y"] + board["height"] / 2, steps=4)
    cursor = host.get_by_test_id("board-cursor").filter(has_text="Ada")
    cursor.wait_for(timeout=WAIT_MS)

    started = time.monotonic()
    # As a person closes the tab: the page's own pagehide runs (closing the whole context would not).
    ada.close()
    # The count shows from two people up: the host alone is no count.
    count.wait_for(state="detached", timeout=LEFT_WITHIN_MS)
    print(f"\n{width} px: counted out {time.monotonic() - started:.2f} s after the page closed")
    host.get_by_test_id("arrival").filter(has_text="Ada left").wait_for(timeout=WAIT_MS)
    assert ("Ada", "left") in record(server), record(server)
    cursor.wait_for(state="detached", timeout=LEFT_WITHIN_MS)
    open_room_panel(host)
    row = host.locator('[data-testid="guest"][data-name="Ada"]')
    row.filter(has_text="left the room").wait_for(timeout=WAIT_MS)
    shot(host, f"left-host-{width}-{scheme}")
    for page in (host, ada):
        page.context.close()
