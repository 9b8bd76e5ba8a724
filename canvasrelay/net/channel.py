"""One guest's data channel and the peer connection under it, whichever WebRTC library carries it.

The hub's per-guest stream, its inbound wiring and the Python guest speak `Channel`, and the
offer/answer handshake speaks `PeerLink`; only `rtc_wrtc` and `rtc_aiortc` know a library.
wrtc (libwebrtc, Chrome's engine) carries them wherever it loads, aiortc elsewhere
(`peer_connection.chosen`; ADR 0027 has the figures that chose it).
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Callable
from typing import Generic, NamedTuple, Protocol, TypeVar

HELD_MESSAGES = 64
"""Messages kept for a channel nobody listens to yet (between the handshake and the guest's wiring);
past these a peer's flood is dropped, as the inbound queue drops it once wired."""

_CANDIDATE_TYPE = re.compile(r"^a=candidate:.* typ (\w+)", re.MULTILINE)


class Route(NamedTuple):
    """The candidate types of the pair that carries a connection: host, srflx, prflx or relay."""

    local: str
    remote: str

    @property
    def relayed(self) -> bool:
        return "relay" in self


class Channel(Protocol):
    @property
    def buffered(self) -> int:
        """Bytes sent and not yet handed to the network: how far this peer is behind."""
        ...

    @property
    def is_open(self) -> bool: ...

    def send(self, message: str | bytes) -> None:
        """A text message, or a binary one (frames sent deflated)."""

    def on_message(self, handler: Callable[[str | bytes], None]) -> None:
        """From now on every message goes to `handler` (and no longer to the previous one); messages
        that came while nobody listened go to it first, in order."""

    def on_buffer_low(self, threshold: int, handler: Callable[[], None]) -> None:
        """Call `handler` when `buffered` falls to `threshold` or below."""

    def on_lost(self, handler: Callable[[], None]) -> None:
        """Call `handler` once the channel closed, its connection failed or it was closed here
        (at once if that happened already)."""

    async def round_trip_ms(self) -> float | None:
        """The transport's own measure of the round trip, when it has one."""

    async def close(self) -> None:
        """Close the channel and its connection."""


class PeerLink(Protocol):
    """One peer connection, from the offer/answer handshake to its one data channel."""

    async def offer(self) -> str:
        """Open a channel of ours and describe the connection, its candidates gathered: the SDP to send."""
        ...

    async def answer(self, offer: str) -> str:
        """Take the other peer's offer; the answer to send back, its candidates gathered."""
        ...

    async def accept(self, answer: str) -> None:
        """Take the other peer's answer to our offer."""

    async def opened(self) -> Channel:
        """The channel once it is open: ours, or the first one the offering peer opened."""
        ...

    async def route(self) -> Route | None:
        """The candidate pair the connection runs on, once connected (None when the library does not say)."""
        ...

    async def close(self) -> None:
        """Close the connection for good; its channel's `on_lost` handlers run."""


def candidate_types(sdp: str) -> set[str]:
    """The types of the candidates a description offers (a relay-only peer offers `relay` alone)."""
    return set(_CANDIDATE_TYPE.findall(sdp))


class ChannelEvents:
    """What a channel does alike on every library: it holds messages until someone listens, and
    says it is lost once, whether it closed, failed or was closed here."""

    def __init__(self) -> None:
        self._handler: Callable[[str | bytes], None] | None = None
        self._held: deque[str | bytes] = deque()
        self._lost: list[Callable[[], None]] | None = []

    def on_message(self, handler: Callable[[str | bytes], None]) -> None:
        self._handler = handler
        while self._held and self._handler is handler:
            handler(self._held.popleft())

    def on_lost(self, handler: Callable[[], None]) -> None:
        if self._lost is None:
            handler()
        else:
            self._lost.append(handler)

    @property
    def lost(self) -> bool:
        return self._lost is None

    def _message(self, message: str | bytes) -> None:
        if self._handler is None:
            if len(self._held) < HELD_MESSAGES:
                self._held.append(message)
        else:
            self._handler(message)

    def end(self) -> None:
        """The channel is lost: its `on_lost` handlers run, once."""
        handlers, self._lost = self._lost, None
        for handler in handlers or []:
            handler()


Opened = TypeVar("Opened", bound=ChannelEvents)


class Opening(Generic[Opened]):
    """A peer connection's one channel, from created (or announced by the offering peer) to open."""

    def __init__(self) -> None:
        self.channel: Opened | None = None
        self._open: asyncio.Future[Opened] = asyncio.get_running_loop().create_future()
        # Closed before it opened, nobody may be waiting: the refusal is taken here, not warned of.
        self._open.add_done_callback(lambda opening: opening.cancelled() or opening.exception())

    def adopt(self, channel: Opened, is_open: bool) -> None:
        self.channel = channel
        if is_open:
            self.ready()

    def ready(self) -> None:
        if self.channel is not None and not self._open.done():
            self._open.set_result(self.channel)

    async def wait(self) -> Opened:
        return await asyncio.shield(self._open)

    def failed(self) -> None:
        if self.channel is not None:
            self.channel.end()

    def closed(self) -> None:
        if not self._open.done():
            self._open.set_exception(ConnectionError("the connection was closed before its channel opened"))
        self.failed()
