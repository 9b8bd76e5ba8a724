"""A browser guest elsewhere finds the host through public Nostr relays, as `canvas join` does:
Chromium opens the room link, whose `signal=` reaches nothing, and joins through a real relay
(PyPI `nostr-relay`) with a second relay of the link dead, with the built page's own policy
narrowed to the link's relays; the host publishes at most two events per relay for the join. A
page whose relays never answer says in words that it could not reach the host, and asks again
only after a pause that doubles."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.signal.turn_credentials import TurnConfig
from tests.bad_relays import BadRelay
from tests.browser_pages import PROTOCOL_WORDS
from tests.relay_pages import WAIT_MS, Loop, join, serving_on
from tests.services import Coturn, NostrRelay, free_port

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.timeout(180)]

EVENTS_PER_JOIN = 4
"""About and its reply, offer and its answer: half of them the host's."""
NOSTR_WORDS = re.compile(r"\bREQ\b|\bEVENT\b|\bOK\b|25050|\"kind\"|\bsig\b|pubkey")
"""What a person must not read of the relays' protocol either."""


def elsewhere(room_link: str) -> str:
    """The room link as a guest on another network holds it: its rendezvous reaches nothing."""
    return f"{room_link}&signal=ws://127.0.0.1:{free_port()}/signal"


def sockets_of(page: Any) -> list[str]:
    opened: list[str] = []
    page.on("websocket", lambda socket: opened.append(socket.url))
    return opened


def test_a_guest_page_elsewhere_joins_through_a_relay(
    browser: Any, loop: Loop, relay: NostrRelay, project: Path
) -> None:
    dead = f"ws://127.0.0.1:{free_port()}"
    with serving_on(loop, project, [relay.url, dead]) as server:
        assert server.hub is not None and server.hub.relays is not None
        published = server.hub.relays.published
        link = elsewhere(server.room_link)
        assert "nostr=" in link
        page = browser.new_context().new_page()
        opened = sockets_of(page)
        response = page.goto(link)
        # The served page may reach the relays; its own policy then narrows to them (the join needs both).
        connect = next(part for part in response.headers["content-security-policy"].split(";") if "connect-src" in part)
        assert relay.url in connect.split() and dead in connect.split(), connect
        # The page asked what room this is through the relay, and the host answered there.
        page.get_by_test_id("join-title").filter(has_text="Join project").wait_for(timeout=WAIT_MS)
        page.get_by_test_id("guest-name").fill("Ada")
        page.get_by_test_id("guest-join").click()
        page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
        page.get_by_test_id("board-toolbar").wait_for(timeout=WAIT_MS)
        assert page.get_by_test_id("project").inner_text() == "project"
        assert 1 <= published[relay.url] <= EVENTS_PER_JOIN // 2, published
        assert published[dead] == 0
        # Only the relays: neither the link's rendezvous nor the page's own /signal was what worked.
        assert opened, "the page opened no socket"
        assert all(url.startswith((relay.url, dead)) for url in opened), opened
        assert not page.get_by_test_id("join-trouble").is_visible()
        page.context.close()


def test_a_relay_only_guest_page_crosses_with_the_credentials_the_host_minted(
    browser: Any, loop: Loop, relay: NostrRelay, coturn: Coturn, project: Path
) -> None:
    """Relay-only on both sides through the host's own coturn: the page holds no secret, only the
    short-lived credentials sealed in the host's reply about the room, which it asked through the relay."""
    turn = TurnConfig(coturn.secret.encode(), (coturn.url,))
    before = coturn.allocations()
    with serving_on(loop, project, [relay.url], turn=turn, relay_only=True) as server:
        assert server.hub is not None and server.hub.relays is not None
        link = elsewhere(server.room_link)
        assert "relay=1" in link and coturn.secret not in link
        page = browser.new_context().new_page()
        join(page, link, "Ada")
        assert coturn.allocations() >= before + 2, "the page and the hub each took a relay"
        assert server.hub.relays.published[relay.url] <= EVENTS_PER_JOIN // 2
        page.context.close()


def test_a_guest_page_whose_relays_never_answer_says_so(browser: Any, loop: Loop, project: Path) -> None:
    silent = loop.run(BadRelay("silent").start())
    throttling = loop.run(BadRelay("rate-limited").start())
    dead = f"ws://127.0.0.1:{free_port()}"
    try:
        with serving_on(loop, project, [silent.url, throttling.url, dead]) as server:
            page = browser.new_context().new_page()
            page.goto(elsewhere(server.room_link))
            page.get_by_test_id("guest-name").fill("Ada")
            page.get_by_test_id("guest-join").click()
            trouble = page.get_by_test_id("join-trouble")
            # The pause, read from the line rather than its countdown, which a slow page may show a second on.
            page.locator('[data-testid="join-trouble"][data-pause-s="3"]').wait_for(timeout=WAIT_MS)
            words = trouble.inner_text()
            assert words.startswith("Could not reach the host: no relay took the message"), words
            assert re.search(r"Trying again (in [1-3] s\.|now…)$", words), words
            port = silent.url.rsplit(":", 1)[1]
            assert f"127.0.0.1:{port} did not say within 5 s whether it took the message" in words, words
            assert "refused it (“rate-limited: slow down”)" in words, words
            # Then it asks once more, and after that waits twice as long.
            page.locator('[data-testid="join-trouble"][data-pause-s="6"]').wait_for(timeout=WAIT_MS)
            events = [frame for frame in silent.received if isinstance(frame, list) and frame[0] == "EVENT"]
            assert len(events) == 3, events  # one ask as the page loads, one per attempt: nothing in between
            for text in (trouble.inner_text(), page.locator("body").inner_text()):
                assert not PROTOCOL_WORDS.search(text) and not NOSTR_WORDS.search(text), text
            assert page.get_by_test_id("connection-state").inner_text() == "Reconnecting…"
            page.context.close()
    finally:
        loop.run(silent.stop())
        loop.run(throttling.stop())
