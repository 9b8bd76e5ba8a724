"""Relays that fail after the start are replaced for new links; the host keeps listening on them.

Links already given out name the relays of their day, and their guests try only those: so the
host never stops listening on a relay it named (its link reopens with backoff), but once one has
been down for `down_s`, new links name a working one in its place, chosen from the spare
candidates as at the start (published to and read back). With nothing better to be had, the links
keep naming what they named.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import aiohttp

from canvasrelay.net import public_relays
from canvasrelay.net.nostr_rendezvous import RelayListening

log = logging.getLogger(__name__)

CHECK_S = 15.0
DOWN_S = 60.0
"""How long a relay is down before new links stop naming it: longer than a relay's restart."""


@dataclass
class RelayUpkeep:
    listening: RelayListening
    session: aiohttp.ClientSession
    in_use: list[str]
    """The relays new links name."""
    candidates: list[str]
    changed: Callable[[list[str]], Awaitable[None]]
    """Told the relays new links name, whenever they change."""
    check_s: float = CHECK_S
    down_s: float = DOWN_S

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.check_s)
            await self.check()

    async def check(self) -> None:
        links = self.listening.links
        failed = [url for url in self.in_use if url in links and links[url].down_for() >= self.down_s]
        if not failed:
            return
        spare = [url for url in self.candidates if url not in links]
        fresh = await public_relays.choose(spare, self.session, wanted=len(failed)) if spare else []
        if not fresh:
            log.info("relays %s are down and no spare one answers: links keep naming them", ", ".join(failed))
            return
        replaced = failed[: len(fresh)]
        log.info("new links name %s in place of %s", ", ".join(fresh), ", ".join(replaced))
        await self.listening.use(fresh)
        self.in_use = [url for url in self.in_use if url not in replaced] + fresh
        await self.changed(list(self.in_use))
