"""The peer connection and its data channel on wrtc: libwebrtc, Chrome's own engine, bound for Python.

ICE, DTLS and SCTP run on libwebrtc's threads, in C++; wrtc delivers each event on the asyncio
loop that registered its handler, so nothing here hops threads. libwebrtc trickles candidates,
while canvas's signalling carries one description each way: a description leaves once gathering
is complete, or after `GATHER_S` with what it has (a STUN or TURN server that does not answer
must not hold every join for libwebrtc's own 40 seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import cast

import webrtc

from canvasrelay.net.channel import Channel, ChannelEvents, Opening, Route
from canvasrelay.protocol.ice import IceServer

GATHER_S = 3.0
LABEL = "canvas"


def configuration(servers: list[IceServer], relay_only: bool) -> webrtc.RTCConfiguration:
    return webrtc.RTCConfiguration(
        ice_servers=[
            webrtc.RTCIceServer(urls=list(server.urls), username=server.username, credential=server.credential)
            for server in servers
        ],
        ice_transport_policy=webrtc.RTCIceTransportPolicy.relay if relay_only else webrtc.RTCIceTransportPolicy.all,
    )


class WrtcChannel(ChannelEvents):
    """`Channel` over wrtc's `RTCDataChannel`."""

    def __init__(self, peer: WrtcPeer, channel: webrtc.RTCDataChannel) -> None:
        super().__init__()
        self._peer = peer
        self.channel = channel
        channel.on("message", self._arrived)
        channel.on("close", lambda _event: self.end())

    def _arrived(self, event: webrtc.MessageEvent) -> None:
        # Binary messages arrive as bytes: the channel's binary type stays "arraybuffer".
        self._message(cast("str | bytes", event.data))

    @property
    def buffered(self) -> int:
        return self.channel.buffered_amount

    @property
    def is_open(self) -> bool:
        return not self.lost and self.channel.ready_state == webrtc.RTCDataChannelState.open

    def send(self, message: str | bytes) -> None:
        self.channel.send(message)

    def on_buffer_low(self, threshold: int, handler: Callable[[], None]) -> None:
        self.channel.buffered_amount_low_threshold = threshold
        self.channel.on("bufferedamountlow", lambda _event: handler())

    async def round_trip_ms(self) -> float | None:
        pair = await self._peer.selected_pair()
        seconds = pair.current_round_trip_time if pair is not None else None
        return round(seconds * 1000, 1) if seconds is not None else None

    async def close(self) -> None:
        await self._peer.close()


class WrtcPeer:
    """`PeerLink` over wrtc's `RTCPeerConnection`."""

    def __init__(self, servers: list[IceServer], relay_only: bool) -> None:
        self.pc = webrtc.RTCPeerConnection(configuration(servers, relay_only))
        self._opening: Opening[WrtcChannel] = Opening()
        self._gathered = asyncio.Event()
        self.pc.on("icegatheringstatechange", self._gathering)
        self.pc.on("datachannel", lambda event: self._adopt(event.channel))
        self.pc.on("connectionstatechange", self._state)

    async def offer(self) -> str:
        self._adopt(self.pc.create_data_channel(LABEL, webrtc.RTCDataChannelInit(ordered=True)))
        await self.pc.set_local_description(await self.pc.create_offer())
        return await self._description()

    async def answer(self, offer: str) -> str:
        await self._remote(webrtc.RTCSdpType.offer, offer)
        await self.pc.set_local_description(await self.pc.create_answer())
        return await self._description()

    async def accept(self, answer: str) -> None:
        await self._remote(webrtc.RTCSdpType.answer, answer)

    async def opened(self) -> Channel:
        return await self._opening.wait()

    async def route(self) -> Route | None:
        pair = await self.selected_pair()
        if pair is None:
            return None
        report = await self.pc.get_stats()
        local, remote = report.get(pair.local_candidate_id), report.get(pair.remote_candidate_id)
        if not (isinstance(local, webrtc.RTCIceCandidateStats) and isinstance(remote, webrtc.RTCIceCandidateStats)):
            return None
        return Route(str(local.candidate_type), str(remote.candidate_type))

    async def selected_pair(self) -> webrtc.RTCIceCandidatePairStats | None:
        report = await self.pc.get_stats()
        for stats in report.values():
            if isinstance(stats, webrtc.RTCTransportStats) and stats.selected_candidate_pair_id:
                pair = report.get(stats.selected_candidate_pair_id)
                return pair if isinstance(pair, webrtc.RTCIceCandidatePairStats) else None
        return None

    async def close(self) -> None:
        # libwebrtc's close fires no event of its own, so the channel is said lost here.
        self.pc.close()
        self._opening.closed()

    async def _remote(self, kind: webrtc.RTCSdpType, sdp: str) -> None:
        try:
            await self.pc.set_remote_description(webrtc.RTCSessionDescriptionInit(type=kind, sdp=sdp))
        except webrtc.RTCException as exc:
            raise ValueError(f"a description libwebrtc refuses: {exc.message}") from None

    def _adopt(self, channel: webrtc.RTCDataChannel) -> None:
        if self._opening.channel is None:
            channel.on("open", lambda _event: self._opening.ready())
            self._opening.adopt(WrtcChannel(self, channel), channel.ready_state == webrtc.RTCDataChannelState.open)

    def _gathering(self, _event: webrtc.Event) -> None:
        if self.pc.ice_gathering_state == webrtc.RTCIceGatheringState.complete:
            self._gathered.set()

    def _state(self, _event: webrtc.Event) -> None:
        if self.pc.connection_state == webrtc.RTCPeerConnectionState.failed:
            self._opening.failed()

    async def _description(self) -> str:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._gathered.wait(), GATHER_S)
        description = self.pc.local_description
        assert description is not None
        return description.sdp


def peer(servers: list[IceServer], relay_only: bool) -> WrtcPeer:
    return WrtcPeer(servers, relay_only)
