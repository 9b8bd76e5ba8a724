"""The peer connection and its data channel on aiortc: where wrtc has no wheel.

aiortc's ICE, DTLS and SCTP are Python on the event loop, about seven times wrtc's CPU per byte
(ADR 0027). Its `setLocalDescription` waits for gathering to end, so its descriptions carry every
candidate already.
"""

from __future__ import annotations

from collections.abc import Callable

from aiortc import (
    RTCConfiguration,
    RTCDataChannel,
    RTCIceServer,
    RTCIceTransportPolicy,
    RTCPeerConnection,
    RTCSessionDescription,
)

from canvasrelay.net.channel import Channel, ChannelEvents, Opening, Route
from canvasrelay.protocol.ice import IceServer

LABEL = "canvas"


def rtc_configuration(servers: list[IceServer], relay_only: bool) -> RTCConfiguration:
    ice = [RTCIceServer(list(s.urls), username=s.username, credential=s.credential) for s in servers]
    if not relay_only:
        # An empty list, not None: aiortc's default is a public STUN server, which we must not call unasked.
        return RTCConfiguration(iceServers=ice)
    return RTCConfiguration(iceServers=ice, iceTransportPolicy=RTCIceTransportPolicy.RELAY)


class AiortcChannel(ChannelEvents):
    """`Channel` over aiortc's `RTCDataChannel` and its `RTCPeerConnection`."""

    def __init__(self, peer: AiortcPeer, channel: RTCDataChannel) -> None:
        super().__init__()
        self._peer = peer
        self.channel = channel
        channel.on("message", self._message)
        channel.on("close", self.end)

    @property
    def buffered(self) -> int:
        return int(self.channel.bufferedAmount)

    @property
    def is_open(self) -> bool:
        return not self.lost and self.channel.readyState == "open"

    def send(self, message: str | bytes) -> None:
        self.channel.send(message)

    def on_buffer_low(self, threshold: int, handler: Callable[[], None]) -> None:
        self.channel.bufferedAmountLowThreshold = threshold
        self.channel.on("bufferedamountlow", handler)

    async def round_trip_ms(self) -> float | None:
        # aiortc measures the SCTP round trip but keeps it private; a missing figure is shown as unknown.
        sctp = self._peer.pc.sctp
        srtt = getattr(sctp, "_srtt", None) if sctp is not None else None
        return round(srtt * 1000, 1) if isinstance(srtt, float) else None

    async def close(self) -> None:
        await self._peer.close()


class AiortcPeer:
    """`PeerLink` over aiortc's `RTCPeerConnection`."""

    def __init__(self, servers: list[IceServer], relay_only: bool) -> None:
        self.pc = RTCPeerConnection(rtc_configuration(servers, relay_only))
        self._opening: Opening[AiortcChannel] = Opening()
        self.pc.on("datachannel", self._adopt)
        self.pc.on("connectionstatechange", self._state)

    async def offer(self) -> str:
        self._adopt(self.pc.createDataChannel(LABEL, ordered=True))
        await self.pc.setLocalDescription(await self.pc.createOffer())
        return str(self.pc.localDescription.sdp)

    async def answer(self, offer: str) -> str:
        await self.pc.setRemoteDescription(RTCSessionDescription(offer, "offer"))
        await self.pc.setLocalDescription(await self.pc.createAnswer())
        return str(self.pc.localDescription.sdp)

    async def accept(self, answer: str) -> None:
        await self.pc.setRemoteDescription(RTCSessionDescription(answer, "answer"))

    async def opened(self) -> Channel:
        return await self._opening.wait()

    async def route(self) -> Route | None:
        # aioice keeps the nominated pair private; a missing one is shown as unknown.
        sctp = self.pc.sctp
        connection = getattr(sctp.transport.transport, "_connection", None) if sctp is not None else None
        pair = getattr(connection, "_nominated", {}).get(1)
        if pair is None:
            return None
        return Route(pair.local_candidate.type, pair.remote_candidate.type)

    async def close(self) -> None:
        await self.pc.close()
        self._opening.closed()

    def _adopt(self, channel: RTCDataChannel) -> None:
        if self._opening.channel is None:
            channel.on("open", self._opening.ready)
            self._opening.adopt(AiortcChannel(self, channel), channel.readyState == "open")

    def _state(self) -> None:
        if self.pc.connectionState == "failed":
            self._opening.failed()


def peer(servers: list[IceServer], relay_only: bool) -> AiortcPeer:
    return AiortcPeer(servers, relay_only)
