"""The room link that works for a guest elsewhere: the host listens on Nostr relays (real ones,
PyPI `nostr-relay`, one process each) and a guest (the library `canvas join` runs) finds it
there, with one relay of three dead, through a flood of strangers' events, and not once its
invitation is revoked. The relays see few events: none from a host nobody joins, at most four per
join per relay."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from canvasrelay.client.guest import Guest, HubRefused, RoomLink
from canvasrelay.net.nostr_event import NostrKey, signal_event
from canvasrelay.net.nostr_relay import RelayLink
from canvasrelay.protocol import signal_crypto
from canvasrelay.signal.turn_credentials import TurnConfig
from tests.agent_support import serving
from tests.services import Coturn, NostrRelay, free_port
from tests.support import InProcessServer, ServerProcess

pytestmark = [pytest.mark.services, pytest.mark.timeout(120)]

EVENTS_PER_JOIN = 4


@pytest.fixture(scope="module")
def relays(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[NostrRelay]]:
    running = [NostrRelay(workdir=tmp_path_factory.mktemp(f"relay{i}")).start() for i in range(2)]
    yield running
    for relay in running:
        relay.stop()


@asynccontextmanager
async def serving_on(root: Path, relay_urls: list[str], **options: Any) -> AsyncIterator[InProcessServer]:
    """A server listening on `relay_urls`, once it does."""
    async with serving(root, relays=relay_urls, **options) as served:
        assert await served.server.relays_chosen(10) == relay_urls
        yield served


def elsewhere(link: str) -> RoomLink:
    """The link as a guest on another network holds it: the host's own address reaches nothing."""
    parsed = RoomLink.parse(link)
    nowhere = f"ws://127.0.0.1:{free_port()}/signal"
    return RoomLink(parsed.base, parsed.room_id, parsed.key, parsed.host_key, nowhere, [], parsed.relay, parsed.relays)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def test_a_guest_elsewhere_joins_through_the_relays(project: Path, relays: list[NostrRelay]) -> None:
    dead = f"ws://127.0.0.1:{free_port()}"
    urls = [relays[0].url, dead, relays[1].url]
    async with serving_on(project, urls) as served:
        hub = served.server.hub
        link = elsewhere(served.room_link)
        assert link.relays == urls
        assert sum(hub.relays.published.values()) == 0  # nobody joining: the host says nothing
        guest = await Guest(link, name="Ada", reconnect=False).connect()
        welcome = await guest.expect("welcome")
        assert welcome["access"] in ("view", "edit")
        for url in (relays[0].url, relays[1].url):
            assert 1 <= hub.relays.published[url] <= EVENTS_PER_JOIN // 2
        assert hub.relays.published[dead] == 0
        about = await Guest(link, reconnect=False).about()
        assert about.project == "project"
        await guest.close()


async def test_strangers_flooding_the_topic_keep_no_one_out(project: Path, relays: list[NostrRelay]) -> None:
    async with serving_on(project, [relays[0].url]) as served, aiohttp.ClientSession() as session:
        link = elsewhere(served.room_link)
        topic = signal_crypto.topic(link.key)
        stranger = RelayLink(relays[0].url, session, lambda sub, event: None).start()
        assert await stranger.until_connected(5)
        for n in range(50):
            junk = signal_event(NostrKey.fresh(), f"not an envelope {n}", topic=topic)
            assert (await stranger.publish(junk)).accepted
        guest = await Guest(link, reconnect=False).connect()
        await guest.expect("welcome")
        assert served.server.hub.relays.published[relays[0].url] <= EVENTS_PER_JOIN // 2
        await guest.close()
        await stranger.close()


async def test_a_revoked_invitation_over_relays_is_told_so(project: Path, relays: list[NostrRelay]) -> None:
    async with serving_on(project, [relays[0].url]) as served:
        invites = served.server.invites
        ada = invites.create("Ada", "edit")
        link = elsewhere(served.server.invite_link(ada))
        assert (await Guest(link, reconnect=False).about()).access == "edit"
        invites.revoke(ada.id)
        with pytest.raises(HubRefused, match="withdrawn"):
            await Guest(link, reconnect=False).connect()


async def test_behind_nats_only_turn_crosses_the_host_mints_each_guest_its_credentials(
    project: Path, relays: list[NostrRelay], coturn: Coturn
) -> None:
    """Relay-only on both sides, through the host's own coturn: the guest holds no secret, only
    the short-lived credentials the host sealed in its reply, and both ends allocate a relay."""
    turn = TurnConfig(coturn.secret.encode(), (coturn.url,))
    before = coturn.allocations()
    async with serving_on(project, [relays[0].url], turn=turn, relay_only=True) as served:
        link = elsewhere(served.room_link)
        assert link.relay and coturn.secret not in served.room_link
        guest = await Guest(link, reconnect=False).connect()
        await guest.expect("welcome")
        assert coturn.allocations() >= before + 2
        await guest.close()


def test_canvas_serve_says_who_is_contacted(project: Path, relays: list[NostrRelay]) -> None:
    server = ServerProcess(project, extra_args=["--relays", relays[0].url]).start()
    try:
        printed = "".join(server.output)
        assert f"nostr={relays[0].url}" in server.room_link.replace("%2C", ",")
        assert "Guests anywhere find the room through 1 Nostr relays: 127.0.0.1" in printed
        assert "never the offer, the answer or the room's key" in printed
    finally:
        assert server.stop(timeout=60) == 0
    lan = ServerProcess(project, extra_args=["--lan-only", "--ice-server", "stun:127.0.0.1:3478"]).start()
    try:
        assert "nostr=" not in lan.room_link
        printed = "".join(lan.output)
        assert "Guests find the room on this network only" in printed
        assert "Each side asks its public address of 127.0.0.1 (STUN" in printed
    finally:
        assert lan.stop(timeout=60) == 0


async def test_guests_come_back_through_the_relays_when_the_host_restarts(
    project: Path, relays: list[NostrRelay]
) -> None:
    """A restart makes the host a new relay key and new subscriptions: a guest that was in asks
    again on the same topic, and is back in, with nothing but the relays between them."""
    async with serving_on(project, [relays[0].url]) as served:
        link = elsewhere(served.room_link)
        guest = await Guest(link).connect()
        await guest.expect("welcome")
    async with serving_on(project, [relays[0].url]) as again:
        await guest.expect("welcome", timeout=30)
        assert guest.state == "connected" and guest.connections == 2
        assert again.server.hub.relays.published[relays[0].url] <= EVENTS_PER_JOIN // 2
        await guest.close()
