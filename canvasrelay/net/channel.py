"""One guest's data channel and the peer connection under it, whichever WebRTC library carries it.

The hub's per-guest stream, its inbound wiring and the Python guest speak `Channel`; only the
offer/answer handshake knows the library. aiortc carries every channel today (ADR 0019 has the
figures that kept it); a native library is one more class with these members.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    # Only named here: canvas imports aiortc after start-up, and this module before.
    from aiortc import RTCDataChannel, RTCPeerConnection


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
        """From now on every message goes to `handler` (and no longer to the previous one)."""

    def on_buffer_low(self, threshold: int, handler: Callable[[], None]) -> None:
        """Call `handler` when `buffered` falls to `threshold` or below."""

    def on_lost(self, handler: Callable[[], None]) -> None:
        """Call `handler` once the channel closed or its connection failed."""

    def round_trip_ms(self) -> float | None:
        """The transport's own measure of the round trip, when it has one."""

    def close(self) -> Awaitable[None]:
        """Close the channel and its connection."""


class AiortcChannel:
    """`Channel` over aiortc's `RTCDataChannel` and its `RTCPeerConnection`."""

    def __init__(self, pc: RTCPeerConnection, channel: RTCDataChannel) -> None:
        self.pc = pc
        self.channel = channel
        self._lost: list[Callable[[], None]] = []
        channel.on("close", self._fire_lost)

        @pc.on("connectionstatechange")
        def _state() -> None:
            if pc.connectionState in ("failed", "closed"):
                self._fire_lost()

    @property
    def buffered(self) -> int:
        return int(self.channel.bufferedAmount)

    @property
    def is_open(self) -> bool:
        return bool(self.channel.readyState == "open")

    def send(self, message: str | bytes) -> None:
        self.channel.send(message)

    def on_message(self, handler: Callable[[str | bytes], None]) -> None:
        self.channel.remove_all_listeners("message")
        self.channel.on("message", handler)

    def on_buffer_low(self, threshold: int, handler: Callable[[], None]) -> None:
        self.channel.bufferedAmountLowThreshold = threshold
        self.channel.on("bufferedamountlow", handler)

    def on_lost(self, handler: Callable[[], None]) -> None:
        self._lost.append(handler)

    def round_trip_ms(self) -> float | None:
        # aiortc measures the SCTP round trip but keeps it private; a missing figure is shown as unknown.
        srtt = getattr(self.pc.sctp, "_srtt", None) if self.pc.sctp is not None else None
        return round(srtt * 1000, 1) if isinstance(srtt, float) else None

    async def close(self) -> None:
        await self.pc.close()

    def _fire_lost(self) -> None:
        handlers, self._lost = self._lost, []
        for handler in handlers:
            handler()
