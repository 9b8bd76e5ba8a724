"""canvas's `PeerLink` and `Channel` on both WebRTC libraries, and each with the other: two real
peers in this process on loopback (and through a real coturn, relay-only)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import NamedTuple

import pytest

from canvasrelay.net.channel import HELD_MESSAGES, Channel, ChannelEvents, PeerLink, candidate_types
from canvasrelay.net.peer_connection import library
from canvasrelay.protocol.framing import MAX_MESSAGE_BYTES
from canvasrelay.protocol.ice import IceServer
from canvasrelay.signal.turn_credentials import mint
from tests.services import Coturn

LIBRARIES = ("wrtc", "aiortc")
PAIRS = [(offering, answering) for offering in LIBRARIES for answering in LIBRARIES]
WITHIN_S = 20.0


class Pair(NamedTuple):
    offering: PeerLink
    answering: PeerLink
    ours: Channel
    theirs: Channel
    offer: str


async def connect(offering: str, answering: str, servers: list[IceServer] | None = None) -> Pair:
    relay_only = servers is not None
    a = library(offering).peer(servers or [], relay_only)
    b = library(answering).peer(servers or [], relay_only)
    offer = await a.offer()
    await a.accept(await b.answer(offer))
    async with asyncio.timeout(WITHIN_S):
        return Pair(a, b, await a.opened(), await b.opened(), offer)


@pytest.fixture(params=PAIRS, ids=[f"{a}-to-{b}" for a, b in PAIRS])
async def pair(request: pytest.FixtureRequest) -> AsyncIterator[Pair]:
    connected = await connect(*request.param)
    yield connected
    await connected.offering.close()
    await connected.answering.close()


def inbox(channel: Channel) -> asyncio.Queue[str | bytes]:
    received: asyncio.Queue[str | bytes] = asyncio.Queue()
    channel.on_message(received.put_nowait)
    return received


async def test_text_binary_and_a_message_at_the_cap_cross_both_ways(pair: Pair) -> None:
    at_the_cap = "é" * (MAX_MESSAGE_BYTES // 2)
    for sender, receiver in ((pair.ours, pair.theirs), (pair.theirs, pair.ours)):
        received = inbox(receiver)
        for message in ("a line", b"\x00deflated\xff", at_the_cap):
            sender.send(message)
        async with asyncio.timeout(WITHIN_S):
            assert [await received.get() for _ in range(3)] == ["a line", b"\x00deflated\xff", at_the_cap]


async def test_the_send_buffer_fills_and_says_when_it_has_drained(pair: Pair) -> None:
    drained = asyncio.Event()
    pair.ours.on_buffer_low(256 * 1024, drained.set)
    inbox(pair.theirs)
    for _ in range(40):
        pair.ours.send(b"x" * 64 * 1024)
    assert pair.ours.buffered > 256 * 1024, "two and a half megabytes cannot all have left at once"
    await asyncio.wait_for(drained.wait(), WITHIN_S)
    assert pair.ours.buffered <= 256 * 1024


async def test_both_sides_hear_a_close_and_the_closer_too(pair: Pair) -> None:
    here, there = asyncio.Event(), asyncio.Event()
    pair.ours.on_lost(here.set)
    pair.theirs.on_lost(there.set)
    await pair.offering.close()
    async with asyncio.timeout(WITHIN_S):
        await here.wait()
        await there.wait()
    assert not pair.ours.is_open and not pair.theirs.is_open
    late = asyncio.Event()
    pair.ours.on_lost(late.set)
    assert late.is_set(), "a handler added once the channel is lost runs at once"


async def test_the_round_trip_the_hosts_list_shows_is_measured(pair: Pair) -> None:
    received = inbox(pair.theirs)
    pair.ours.send("a message the other side acknowledges")
    await asyncio.wait_for(received.get(), WITHIN_S)
    round_trip = await pair.ours.round_trip_ms()
    assert round_trip is not None and 0 <= round_trip < 1000


async def test_the_route_names_the_pair_it_runs_on(pair: Pair) -> None:
    route = await pair.offering.route()
    assert route is not None and not route.relayed, "two peers on one machine meet without a relay"
    assert {"host", "prflx"} >= set(route)


@pytest.mark.parametrize("name", LIBRARIES)
async def test_a_connection_closed_before_its_channel_opens_says_so(name: str) -> None:
    peer = library(name).peer([], False)
    await peer.offer()
    await peer.close()
    with pytest.raises(ConnectionError):
        await asyncio.wait_for(peer.opened(), WITHIN_S)


def test_messages_wait_for_a_listener_in_order_and_a_flood_is_bounded() -> None:
    events = ChannelEvents()
    for n in range(HELD_MESSAGES + 10):
        events._message(str(n))
    heard: list[str | bytes] = []
    events.on_message(heard.append)
    assert heard == [str(n) for n in range(HELD_MESSAGES)], "the first ones, in order; past the bound, dropped"
    events._message("then")
    assert heard[-1] == "then"


@pytest.mark.services
@pytest.mark.parametrize(("offering", "answering"), PAIRS, ids=[f"{a}-to-{b}" for a, b in PAIRS])
async def test_relay_only_peers_offer_no_address_and_meet_through_coturn(
    coturn: Coturn, offering: str, answering: str
) -> None:
    username, password = mint(coturn.secret.encode(), lifetime=600)
    servers = [IceServer((coturn.url,), username=username, credential=password)]
    connected = await connect(offering, answering, servers)
    try:
        assert candidate_types(connected.offer) == {"relay"}, "the offer names the relay's address alone"
        received = inbox(connected.theirs)
        connected.ours.send("through the relay")
        assert await asyncio.wait_for(received.get(), WITHIN_S) == "through the relay"
        route = await connected.offering.route()
        assert route is not None and route.relayed
    finally:
        await connected.offering.close()
        await connected.answering.close()
