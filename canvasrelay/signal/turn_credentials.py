"""Short-lived TURN credentials for room-link holders, in the TURN REST scheme coturn checks (`use-auth-secret`).

The username is `<expiry>:<random>` and the password base64(HMAC-SHA1(secret, username)), so coturn can
check a credential without asking anyone, and refuses it once the expiry has passed. The rendezvous
hands them out only to whoever presents the proof a room's host registered for its topic (see
`signal_crypto.turn_proof`), and only so fast per topic and per source address. The secret itself
never leaves this process.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from canvasrelay.core.rate_limit import InboundGate
from canvasrelay.net.secret_file import read_secret
from canvasrelay.protocol.base import FrameError, load_bounded
from canvasrelay.protocol.encoding import b64url
from canvasrelay.protocol.signal_crypto import topic_of_verifier, turn_verifier
from canvasrelay.signal.client_address import client_address
from canvasrelay.signal.metrics import RendezvousMetrics

LIFETIME_SECONDS = 600
MAX_REQUEST_BYTES = 1024
PER_TOPIC_RATE, PER_TOPIC_BURST = 2.0, 120.0
"""A room's guests all joining at once, each asking once, and the hub once per guest."""
PER_SOURCE_RATE, PER_SOURCE_BURST = 1.0, 20.0
MAX_TRACKED = 10_000
"""Buckets kept per kind; the least recently used go first, so the table cannot grow without bound."""
TOPIC_CHARS = 43

HoldsVerifier = Callable[[str, str], Awaitable[bool]]
"""(topic, verifier) -> is it registered by a live host socket on any instance?"""


class TurnConfigError(ValueError):
    """A TURN option that cannot work, said in words the operator can act on."""


@dataclass(frozen=True)
class TurnConfig:
    secret: bytes
    urls: tuple[str, ...]
    lifetime: int = LIFETIME_SECONDS

    @classmethod
    def load(cls, secret_file: Path, urls: list[str]) -> TurnConfig:
        secret = read_secret(secret_file, "TURN secret", TurnConfigError)
        if not urls:
            raise TurnConfigError("--turn-secret-file needs at least one --turn-url (turn:host:3478)")
        bad = [url for url in urls if not url.startswith(("turn:", "turns:"))]
        if bad:
            raise TurnConfigError(f"not a TURN URL: {bad[0]} (expected turn:host:port or turns:host:port)")
        return cls(secret, tuple(urls))


def mint(secret: bytes, lifetime: float, now: float | None = None) -> tuple[str, str]:
    """A (username, password) pair coturn accepts until `now + lifetime`."""
    expiry = int((time.time() if now is None else now) + lifetime)
    username = f"{expiry}:{b64url(secrets.token_bytes(9))}"
    password = base64.b64encode(hmac.new(secret, username.encode("ascii"), hashlib.sha1).digest()).decode("ascii")
    return username, password


class _Buckets:
    """One token bucket per key, the least recently used forgotten first."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.gates: OrderedDict[str, InboundGate] = OrderedDict()

    def admit(self, key: str) -> bool:
        gate = self.gates.pop(key, None) or InboundGate(self.rate, self.burst)
        self.gates[key] = gate
        while len(self.gates) > MAX_TRACKED:
            self.gates.popitem(last=False)
        return gate.admit()


class TurnIssuer:
    """`POST /turn` with `{"topic", "proof"}` answers `{"iceServers": [...], "ttl": seconds}`."""

    def __init__(
        self,
        config: TurnConfig | None,
        holds: HoldsVerifier,
        metrics: RendezvousMetrics,
        forwarded_for: bool = False,
    ) -> None:
        self.config = config
        self.holds = holds
        self.metrics = metrics
        self.forwarded_for = forwarded_for
        self.per_topic = _Buckets(PER_TOPIC_RATE, PER_TOPIC_BURST)
        self.per_source = _Buckets(PER_SOURCE_RATE, PER_SOURCE_BURST)

    async def handler(self, request: web.Request) -> web.Response:
        if request.method == "OPTIONS":
            return _answer(204, None)
        if self.config is None:
            # No relay here: say so plainly, so clients carry on with what they have.
            return _answer(200, {"iceServers": [], "ttl": 0})
        body = await request.content.read(MAX_REQUEST_BYTES + 1)
        topic, proof = _parse(body)
        if topic is None or proof is None:
            return self._refuse(400, "expected a JSON body with the room's topic and proof")
        if not self.per_source.admit(client_address(request, self.forwarded_for)):
            return self._throttle()
        try:
            verifier = turn_verifier(proof)
        except ValueError:
            return self._refuse(403, "this proof does not open TURN credentials here")
        # Only for the topic the proof derives (a room's own), and only once its host registered it.
        if topic != topic_of_verifier(verifier) or not await self.holds(topic, verifier):
            return self._refuse(403, "this proof does not open TURN credentials here")
        # Counted only for proven requests, so strangers who know a topic cannot spend its budget.
        if not self.per_topic.admit(topic):
            return self._throttle()
        username, password = mint(self.config.secret, self.config.lifetime)
        self.metrics.turn.labels("issued").inc()
        server = {"urls": list(self.config.urls), "username": username, "credential": password}
        return _answer(200, {"iceServers": [server], "ttl": self.config.lifetime})

    def _throttle(self) -> web.Response:
        self.metrics.turn.labels("throttled").inc()
        return _answer(429, {"error": "too many TURN credential requests; try again shortly"})

    def _refuse(self, status: int, message: str) -> web.Response:
        self.metrics.turn.labels("refused").inc()
        return _answer(status, {"error": message})


def _parse(body: bytes) -> tuple[str | None, str | None]:
    if len(body) > MAX_REQUEST_BYTES:
        return None, None
    try:
        data = load_bounded(body)
    except FrameError:
        return None, None
    if not isinstance(data, dict):
        return None, None
    topic, proof = data.get("topic"), data.get("proof")
    if not (isinstance(topic, str) and len(topic) == TOPIC_CHARS and isinstance(proof, str) and len(proof) < 64):
        return None, None
    return topic, proof


def _answer(status: int, body: dict[str, object] | None) -> web.Response:
    # Any page may ask: what guards the credentials is the proof, not the origin, and no cookie is involved.
    headers = {
        "Access-Control-Allow-Origin": "*",
        "Access-Control-Allow-Methods": "POST",
        "Access-Control-Allow-Headers": "Content-Type",
        "Cache-Control": "no-store",
    }
    if body is None:
        return web.Response(status=status, headers=headers)
    return web.json_response(body, status=status, headers=headers)
