"""A relay that fails after the start: new links name a working one in its place, the hosts are told,
and the host keeps listening on the one it named before, so links given out earlier still work.
Real relays (PyPI `nostr-relay`), four candidates of which three are chosen; one of those is killed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from canvasrelay.client.guest import Guest, RoomLink
from canvasrelay.protocol.base import ServerFrame
from canvasrelay.protocol.people import InviteList
from tests.agent_support import serving
from tests.services import NostrRelay, free_port

pytestmark = [pytest.mark.services, pytest.mark.timeout(90)]


@pytest.fixture
def candidates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[NostrRelay]]:
    running = [NostrRelay(workdir=tmp_path_factory.mktemp(f"relay{i}")).start() for i in range(4)]
    yield running
    for relay in running:
        relay.stop()


def elsewhere(link: str) -> RoomLink:
    """The link as a guest on another network holds it: the host's own address reaches nothing."""
    parsed = RoomLink.parse(link)
    nowhere = f"ws://127.0.0.1:{free_port()}/signal"
    return RoomLink(parsed.base, parsed.room_id, parsed.key, parsed.host_key, nowhere, [], parsed.relay, parsed.relays)


async def joins(link: str) -> None:
    guest = await Guest(elsewhere(link), reconnect=False).connect()
    await guest.expect("welcome")
    await guest.close()


async def test_a_relay_down_is_replaced_for_new_links_and_still_listened_on(
    project: Path, candidates: list[NostrRelay]
) -> None:
    urls = [relay.url for relay in candidates]
    options = {"relays": None, "relay_candidates": urls, "relay_check_s": 0.2, "relay_down_s": 0.5}
    async with serving(project, **options) as served:
        server = served.server
        chosen = await server.relays_chosen(10)
        assert len(chosen) == 3 and set(chosen) <= set(urls)
        told: asyncio.Queue[InviteList] = asyncio.Queue()

        def heard(frame: ServerFrame) -> None:
            if isinstance(frame, InviteList):
                told.put_nowait(frame)

        server.runtime.on_broadcast(heard)
        before = server.room_link
        failing = next(relay for relay in candidates if relay.url == chosen[0])
        spare = next(url for url in urls if url not in chosen)
        failing.kill()
        async with asyncio.timeout(30):
            reach = (await told.get()).reach
        assert reach is not None and failing.url not in reach.relays and spare in reach.relays, reach
        after = server.room_link
        assert failing.url not in after and spare in after
        assert server.hub is not None and server.hub.relays is not None
        assert failing.url in server.hub.relays.links, "the host still listens where earlier links send guests"
        await joins(before)
        await joins(after)
