"""A Chromium guest page served by rendezvous instance B joins a hub listening on instance A; and,
relay-only, meets a relay-only hub through a real coturn."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from canvasrelay.client.guest import RoomLink
from tests.conftest import Cluster
from tests.services import Coturn, SignalInstance
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.services]

TIMEOUT_MS = 20_000


def page_link(served: ServerProcess, instance: SignalInstance) -> str:
    """The guest page on `instance`, signalling through it, for the room `served` holds."""
    link = RoomLink.parse(served.room_link)
    tail = "&relay=1" if link.relay else ""
    fragment = f"room={link.room_id}&key={link.key}&host={link.host_key}&signal={quote(instance.url, safe=':/')}"
    return f"{instance.http}/#{fragment}{tail}"


def join(browser: Any, url: str, name: str) -> Any:
    page = browser.new_context().new_page()
    page.goto(url)
    page.get_by_test_id("guest-name").fill(name)
    page.get_by_test_id("guest-join").click()
    page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    return page


def test_a_guest_page_on_b_joins_a_hub_on_a(browser: Any, cluster: Cluster, project: Any) -> None:
    served = ServerProcess(project).start("--signal", cluster.a.url, "--base-url", cluster.b.http)
    try:
        page = join(browser, page_link(served, cluster.b), "Paige")
        assert page.get_by_test_id("access-banner").get_attribute("data-access") == "view"
        page.context.close()
    finally:
        served.stop()


def test_a_relay_only_guest_page_joins_through_coturn(
    browser: Any, turn_cluster: Cluster, coturn: Coturn, project: Any
) -> None:
    served = ServerProcess(project).start(
        "--signal", turn_cluster.a.url, "--base-url", turn_cluster.b.http, "--relay-only"
    )
    try:
        before = coturn.allocations()
        page = join(browser, page_link(served, turn_cluster.b), "Private Pat")
        assert coturn.allocations() >= before + 2, "the page and the hub each took a relay"
        page.context.close()
    finally:
        served.stop()
