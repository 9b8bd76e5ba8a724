"""The Nostr events both sides sign and check, through one vector file Python signed
(`tests/vectors/nostr/events.json`, checked in the browser's code by
web/src/join/nostrEvent.test.ts): they verify here, regenerate byte for byte, and the tampered
ones are refused. Junk a stranger can send leaves the relay link that reads it standing."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from canvasrelay.net.nostr_event import SIGNAL_KIND, EventError, NostrKey, parse_event, signal_event
from canvasrelay.net.nostr_relay import RelayLink
from tests.vector_files import read, regenerates_identically


def vectors() -> dict[str, Any]:
    return read("nostr", "events.json")


def test_the_vectors_regenerate_identically() -> None:
    assert regenerates_identically("nostr", "events.json")


@pytest.mark.parametrize("vector", vectors()["signed"], ids=lambda v: v["name"])
def test_a_signed_vector_verifies_and_signs_the_same(vector: dict[str, Any]) -> None:
    event = vector["event"]
    parsed = parse_event(event)
    assert (parsed.id, parsed.pubkey, parsed.content) == (event["id"], event["pubkey"], event["content"])
    key = NostrKey(bytes.fromhex(vector["secret"]))
    again = key.sign(event["kind"], event["tags"], event["content"], event["created_at"], bytes.fromhex(vector["aux"]))
    assert again == event


@pytest.mark.parametrize("vector", vectors()["refused"], ids=lambda v: v["name"])
def test_a_tampered_vector_is_refused(vector: dict[str, Any]) -> None:
    with pytest.raises(EventError):
        parse_event(vector["event"])


async def test_junk_that_once_ended_a_relay_link_is_dropped() -> None:
    """A lone surrogate (no UTF-8 form, so no id), nesting past Python's recursion limit, and an id
    that is no string each raised out of the link's reader and ended it; now each is dropped."""
    heard: list[str] = []
    async with aiohttp.ClientSession() as session:
        link = RelayLink("ws://127.0.0.1:9", session, lambda sub, event: heard.append(event.content))
        link.subscriptions["answers"] = {"kinds": [SIGNAL_KIND]}
        surrogate = {**signal_event(NostrKey.fresh(), "x"), "content": "\ud800"}
        for junk in (
            json.dumps(["EVENT", "answers", surrogate]),
            "[" * 5000 + "]" * 5000,
            json.dumps(["EVENT", ["answers"], {}]),
            json.dumps(["CLOSED", {"answers": 1}]),
        ):
            link._receive(junk)
        link._receive(json.dumps(["EVENT", "answers", signal_event(NostrKey.fresh(), "good")]))
    assert heard == ["good"]
    assert sum(link.dropped.values()) == 4, link.dropped
