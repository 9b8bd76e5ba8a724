"""The rendezvous over public Nostr relays: the host listens, a guest asks.

The host **listens**: on each relay it subscribes to the topics of its open invitations (the
same opaque hash of the invitation's key as the self-hosted rendezvous uses) and publishes
nothing until asked; revoking an invitation ends its subscription. A guest publishes its sealed
message (the existing AES-GCM envelope, unchanged) once on the invitation's topic on every relay
its link names, having subscribed first to the events addressed to its own key, which it made
for this page load (its envelope's `from` is that key, so the host's answer names it with a
`p` tag). So a join is four events per relay (the guest's question about the room and the
host's reply, its offer and the host's answer), and a host nobody joins sends none.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import aiohttp

from canvasrelay.net.nostr_event import Event, NostrKey, signal_event
from canvasrelay.net.nostr_relay import CONNECT_TIMEOUT_S, Published, RelayLink, to_query, topic_query

log = logging.getLogger(__name__)

T = TypeVar("T")
KNOWN_SENDERS = 4096
"""How many guests' keys (its replies to those go through the relays) and events (each handled
once) the host remembers: bounded sets, oldest forgotten first."""

Heard = Callable[[str, str, str], None]
"""`(invite id, sender's key, envelope)`: a signalling envelope that arrived on an invitation's topic."""


@dataclass
class RelayListening:
    """The host's side: one link per relay, one subscription per invitation on each."""

    session: aiohttp.ClientSession
    heard: Heard
    key: NostrKey = field(default_factory=NostrKey.fresh)
    """Made at each start, never stored: the host's events are signed with it."""
    links: dict[str, RelayLink] = field(default_factory=dict)
    topics: dict[str, str] = field(default_factory=dict)
    """The topic listened on, by invitation id."""
    published: Counter[str] = field(default_factory=Counter)
    """Events the host published, by relay: what a relay operator sees of the room."""
    _senders: OrderedDict[str, None] = field(default_factory=OrderedDict)
    _seen: OrderedDict[str, None] = field(default_factory=OrderedDict)
    """Events already handled: a guest publishes on every relay, so each arrives once per relay."""

    async def use(self, urls: list[str]) -> None:
        """Listen on these relays as well (those already in use are kept: links given out name them)."""
        for url in urls:
            if url not in self.links:
                link = RelayLink(url, self.session, self._on_event).start()
                self.links[url] = link
                for invite_id, topic in self.topics.items():
                    await link.subscribe(_sub(invite_id), topic_query(topic))

    async def listen(self, invite_id: str, topic: str) -> None:
        if self.topics.get(invite_id) == topic:
            return
        self.topics[invite_id] = topic
        for link in self.links.values():
            await link.subscribe(_sub(invite_id), topic_query(topic))

    async def stop_listening(self, invite_id: str) -> None:
        if self.topics.pop(invite_id, None) is not None:
            for link in self.links.values():
                await link.unsubscribe(_sub(invite_id))

    def came_through_relays(self, sender: str) -> bool:
        return sender in self._senders

    async def reply(self, envelope: str, to: str) -> list[Published]:
        """One event addressed to the guest's key, on every relay: the guest listens on all of its link's."""
        event = signal_event(self.key, envelope, to=to)
        results = await asyncio.gather(*(link.publish(event) for link in self.links.values()))
        for url, result in zip(self.links, results, strict=True):
            if result.accepted:
                self.published[url] += 1
            else:
                log.info("relay %s did not take an answer: %s", url, result.message)
        return list(results)

    async def close(self) -> None:
        await asyncio.gather(*(link.close() for link in self.links.values()))
        self.links.clear()

    def _on_event(self, sub_id: str, event: Event) -> None:
        invite_id = sub_id.removeprefix("invite-")
        if invite_id not in self.topics or event.tag("x") != self.topics[invite_id] or event.id in self._seen:
            return
        _remember(self._seen, event.id)
        _remember(self._senders, event.pubkey)
        self.heard(invite_id, event.pubkey, event.content)


def _remember(known: OrderedDict[str, None], item: str) -> None:
    known[item] = None
    known.move_to_end(item)
    while len(known) > KNOWN_SENDERS:
        known.popitem(last=False)


def _sub(invite_id: str) -> str:
    return f"invite-{invite_id}"


async def ask_over_relays(
    session: aiohttp.ClientSession,
    urls: list[str],
    key: NostrKey,
    topic: str,
    envelope: str,
    answer: Callable[[str], T | None],
    timeout: float,
) -> T:
    """The guest's side: publish `envelope` once on `topic` on each relay (after subscribing there
    to what is addressed to `key`), each relay on its own (a dead one holds up none), and return
    the first reply `answer` makes something of. Raises TimeoutError when none comes within
    `timeout`, ConnectionError when no relay could be reached or took the event."""
    replies: asyncio.Queue[str | None] = asyncio.Queue()
    event = signal_event(key, envelope, topic=topic)
    refusals: list[str] = []

    async def ask(link: RelayLink) -> None:
        if not await link.until_connected(CONNECT_TIMEOUT_S):
            refusals.append(f"{link.url}: not reachable")
        else:
            await link.subscribe("answers", to_query(key.public))
            result = await link.publish(event)
            if result.accepted:
                return
            refusals.append(f"{link.url}: {result.message}")
        if len(refusals) == len(links):
            replies.put_nowait(None)

    links = [RelayLink(url, session, lambda _sub, reply: replies.put_nowait(reply.content)).start() for url in urls]
    asking = [asyncio.ensure_future(ask(link)) for link in links]
    try:
        async with asyncio.timeout(timeout):
            while True:
                text = await replies.get()
                if text is None:
                    raise ConnectionError(f"no relay took the message ({'; '.join(refusals)})")
                found = answer(text)
                if found is not None:
                    return found
    finally:
        for task in asking:
            task.cancel()
        await asyncio.gather(*asking, return_exceptions=True)
        for link in links:
            with contextlib.suppress(Exception):
                await link.close()
