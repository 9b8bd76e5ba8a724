"""TURN credentials from a provider's API: Cloudflare's TURN keys.

With `--cloudflare-turn-key ID --cloudflare-turn-token-file FILE` the host asks Cloudflare for a
short-lived set of ICE servers for itself and for each guest (sealed in its reply about the room,
as with coturn's shared secret): the API token stays in this process and the guests get only
credentials that lapse. A provider that refuses or does not answer leaves the join to STUN, and
says why in the log once.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from canvasrelay.net.secret_file import read_secret
from canvasrelay.protocol.ice import MAX_TURN_SERVERS, IceServer

log = logging.getLogger(__name__)

CLOUDFLARE_API = "https://rtc.live.cloudflare.com/v1"
LIFETIME_S = 600
TIMEOUT_S = 3.0
MAX_REPLY_BYTES = 16 * 1024
MAX_FIELD_CHARS = 512


class TurnProviderError(ValueError):
    """A provider option that cannot work, or a provider's answer canvas cannot use, in words."""


@dataclass
class ProviderTurn:
    key_id: str
    token: str = field(repr=False)
    api: str = CLOUDFLARE_API
    lifetime: int = LIFETIME_S
    _said: str = field(default="", repr=False)

    @classmethod
    def load(cls, key_id: str, token_file: Path) -> ProviderTurn:
        token = read_secret(token_file, "TURN API token", TurnProviderError).decode("utf-8", "replace")
        if not key_id.strip() or any(c in key_id for c in "/?#"):
            raise TurnProviderError(f"not a TURN key id: {key_id!r}")
        return cls(key_id.strip(), token)

    @property
    def where(self) -> str:
        return f"Cloudflare's TURN (key {self.key_id})"

    async def credentials(self, session: aiohttp.ClientSession) -> list[IceServer]:
        """Fresh ICE servers for one peer, or none when the provider cannot give them (said once)."""
        url = f"{self.api}/turn/keys/{self.key_id}/credentials/generate-ice-servers"
        headers = {"Authorization": f"Bearer {self.token}"}
        try:
            async with session.post(
                url, json={"ttl": self.lifetime}, headers=headers, timeout=aiohttp.ClientTimeout(total=TIMEOUT_S)
            ) as response:
                body = await response.content.read(MAX_REPLY_BYTES + 1)
                if response.status not in (200, 201):
                    return self._without(f"it answered HTTP {response.status}")
            servers = parse_ice_servers(body)
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            return self._without("no answer in time" if isinstance(exc, TimeoutError) else type(exc).__name__)
        except TurnProviderError as exc:
            return self._without(str(exc))
        self._said = ""
        return servers

    def _without(self, why: str) -> list[IceServer]:
        if why != self._said:
            log.warning("%s gave no credentials (%s): guests join without TURN meanwhile", self.where, why)
            self._said = why
        return []


def parse_ice_servers(body: bytes) -> list[IceServer]:
    """`{"iceServers": [{"urls": …, "username": …, "credential": …}, …]}` (or one object), checked."""
    if len(body) > MAX_REPLY_BYTES:
        raise TurnProviderError("its answer is too long")
    try:
        found: Any = json.loads(body).get("iceServers")
    except (ValueError, AttributeError, RecursionError):
        raise TurnProviderError("its answer is not the JSON canvas expects") from None
    entries = [found] if isinstance(found, dict) else found if isinstance(found, list) else None
    if not entries:
        raise TurnProviderError("its answer names no ICE server")
    servers = []
    for entry in entries[:MAX_TURN_SERVERS]:
        urls = entry.get("urls") if isinstance(entry, dict) else None
        urls = [urls] if isinstance(urls, str) else urls
        if not isinstance(urls, list) or not urls:
            raise TurnProviderError("an ICE server in its answer has no URL")
        if not all(isinstance(u, str) and u.startswith(("stun:", "turn:", "turns:")) for u in urls):
            raise TurnProviderError("an ICE server in its answer is not a STUN or TURN URL")
        username, credential = entry.get("username"), entry.get("credential")
        texts = [*urls, *(t for t in (username, credential) if t is not None)]
        if not all(isinstance(t, str) and len(t) <= MAX_FIELD_CHARS for t in texts):
            raise TurnProviderError("an ICE server in its answer has a field canvas cannot use")
        servers.append(IceServer(tuple(urls), username=username, credential=credential))
    return servers
