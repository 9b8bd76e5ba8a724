"""The rendezvous's Nostr parts against a real relay (PyPI `nostr-relay`, which checks every
event's id and signature itself) and relays that misbehave as public ones do: events signed and
checked, published and heard, relays that are dead, silent, rate-limiting, dropping or sending
junk told apart from those that work, and the choice of relays made from that."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest

from canvasrelay.net import public_relays
from canvasrelay.net.nostr_event import EventError, NostrKey, parse_event, signal_event
from canvasrelay.net.nostr_relay import RelayLink, probe, to_query, topic_query
from tests.bad_relays import BadRelay, Mode
from tests.services import NostrRelay, free_port

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as opened:
        yield opened


@pytest.fixture
async def bad() -> AsyncIterator[dict[Mode, BadRelay]]:
    relays: dict[Mode, BadRelay] = {}
    for mode in ("rate-limited", "silent", "dropping", "junk"):
        relays[mode] = await BadRelay(mode).start()
    yield relays
    for each in relays.values():
        await each.stop()


def test_an_event_is_checked_before_anything_reads_it() -> None:
    key = NostrKey.fresh()
    event = signal_event(key, "sealed envelope", topic="t" * 64)
    parsed = parse_event(event)
    assert parsed.pubkey == key.public and parsed.content == "sealed envelope" and parsed.tag("x") == "t" * 64
    refusals = {
        "the id is not the hash of the event": {**event, "content": "changed"},
        "the signature does not match": {**event, "sig": signal_event(key, "other")["sig"]},
        "pubkey must be 64 hex digits": {**event, "pubkey": "npub1"},
        "content must be text": {**event, "content": "x" * 70_000},
        "tags must be a list of at most 8": {**event, "tags": [["x", "t"]] * 9},
        "an event must be an object": "not an event",
    }
    for words, bad_event in refusals.items():
        with pytest.raises(EventError, match=words):
            parse_event(bad_event)


async def test_a_real_relay_takes_our_events_and_passes_them_on(
    relay: NostrRelay, session: aiohttp.ClientSession
) -> None:
    heard: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
    listener = RelayLink(relay.url, session, lambda sub, event: heard.put_nowait((sub, event.content))).start()
    speaker = RelayLink(relay.url, session, lambda sub, event: None).start()
    try:
        assert await listener.until_connected(5) and await speaker.until_connected(5)
        guest = NostrKey.fresh()
        await listener.subscribe("offers", topic_query("a-topic"))
        await listener.subscribe("answers", to_query(guest.public))
        published = await speaker.publish(signal_event(NostrKey.fresh(), "an offer", topic="a-topic"))
        assert published.accepted, published
        assert await asyncio.wait_for(heard.get(), 5) == ("offers", "an offer")
        assert (await speaker.publish(signal_event(NostrKey.fresh(), "an answer", to=guest.public))).accepted
        assert await asyncio.wait_for(heard.get(), 5) == ("answers", "an answer")
    finally:
        await listener.close()
        await speaker.close()


async def test_a_probe_tells_working_relays_from_the_rest(
    relay: NostrRelay, session: aiohttp.ClientSession, bad: dict[Mode, BadRelay]
) -> None:
    assert await probe(relay.url, session, 2.0) is not None
    assert await probe(f"ws://127.0.0.1:{free_port()}", session, 2.0) is None  # nobody there
    for mode in ("rate-limited", "silent", "dropping"):
        assert await probe(bad[mode].url, session, 2.0) is None, mode


async def test_the_first_relays_that_work_are_chosen(
    relay: NostrRelay, session: aiohttp.ClientSession, bad: dict[Mode, BadRelay]
) -> None:
    urls = [bad["silent"].url, f"ws://127.0.0.1:{free_port()}", relay.url, bad["rate-limited"].url]
    assert await public_relays.choose(urls, session) == [relay.url]


async def test_what_a_relay_held_from_before_a_subscription_never_reaches_it(
    relay: NostrRelay, session: aiohttp.ClientSession
) -> None:
    """A relay may keep ephemeral events a while and send them to a new subscription despite
    `limit 0`: a restarted host would answer the last run's offers. Only what comes after the
    relay's `EOSE` is heard."""
    heard: asyncio.Queue[str] = asyncio.Queue()
    earlier = RelayLink(relay.url, session, lambda sub, event: None).start()
    assert await earlier.until_connected(5)
    assert (await earlier.publish(signal_event(NostrKey.fresh(), "from the last run", topic="held"))).accepted
    link = RelayLink(relay.url, session, lambda sub, event: heard.put_nowait(event.content)).start()
    try:
        assert await link.until_connected(5)
        await link.subscribe("offers", topic_query("held"))
        # Sent on the subscription's own connection, so the relay reads it after the subscription.
        assert (await link.publish(signal_event(NostrKey.fresh(), "now", topic="held"))).accepted
        assert await asyncio.wait_for(heard.get(), 5) == "now"
        assert heard.empty()
    finally:
        await link.close()
        await earlier.close()


async def test_junk_on_a_topic_is_dropped_and_counted(
    session: aiohttp.ClientSession, bad: dict[Mode, BadRelay]
) -> None:
    """Only well-formed, correctly signed events get through (what they say is the signalling
    envelope's to check); everything else is counted by why."""
    heard: asyncio.Queue[str] = asyncio.Queue()
    link = RelayLink(bad["junk"].url, session, lambda sub, event: heard.put_nowait(event.content)).start()
    try:
        assert await link.until_connected(5)
        await link.subscribe("offers", topic_query("flooded"))
        assert await asyncio.wait_for(heard.get(), 5) == "a stranger's words"
        assert heard.empty()
        assert dict(link.dropped) == {
            "an event must be an object": 1,
            "pubkey must be 64 hex digits": 1,
            "the signature does not match": 1,
            "the id is not the hash of the event": 1,
        }
    finally:
        await link.close()


def test_the_default_relays_each_say_why() -> None:
    assert len(public_relays.DEFAULT_RELAYS) >= 2 * public_relays.WANTED
    for entry in public_relays.DEFAULT_RELAYS:
        assert entry.url.startswith("wss://") and len(entry.why) > 20
