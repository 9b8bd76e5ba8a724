"""The hub: one aiortc peer connection per guest, reached only through the encrypted rendezvous.

The hub listens on the room's topic. An envelope it cannot open is ignored, so a peer without the
room key never gets an answer. For an offer it answers; when the guest's data channel opens it
proves the host key (signing the guest's nonce and both DTLS fingerprints), waits for
`guest-join`, and then connects the guest to the runtime as an ordinary Room peer through a
`GuestStream`, which outlives the channel so a guest that drops can resume after its last `seq`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiortc import RTCDataChannel, RTCPeerConnection, RTCSessionDescription

from canvasrelay.core.guests import Guests, peer_id_of
from canvasrelay.core.rate_limit import InboundGate
from canvasrelay.core.room import Peer
from canvasrelay.protocol import FrameError, encode, parse_client_frame, signal_crypto
from canvasrelay.protocol.core import ErrorFrame
from canvasrelay.protocol.encoding import b64url, b64url_decode
from canvasrelay.protocol.framing import Reassembler
from canvasrelay.protocol.guests import Bye, GuestJoin, HubProof, StreamGap
from canvasrelay.protocol.ice import rtc_configuration
from canvasrelay.server.room_secrets import RoomSecrets
from canvasrelay.server.runtime import Runtime
from canvasrelay.server.transport_datachannel import GuestStream, cancel

log = logging.getLogger(__name__)

JOIN_TIMEOUT = 10.0
RESUME_GRACE = 30.0
"""How long a dropped guest stays in the room, its frames kept for it, before it is let go."""
MAX_HANDSHAKES = 16
MAX_GUESTS = 64
INBOUND_QUEUE = 64
LATENCY_EVERY = 5.0
SIGNAL_RETRY_MAX = 10.0
SDP_MAX = 32 * 1024


@dataclass
class _Guest:
    guest_id: str
    peer: Peer
    stream: GuestStream
    pc: RTCPeerConnection | None = None
    grace: asyncio.TimerHandle | None = None


@dataclass
class Hub:
    runtime: Runtime
    guests: Guests
    secrets: RoomSecrets
    signal_url: str
    ice_urls: list[str] = field(default_factory=list)
    live: dict[str, _Guest] = field(default_factory=dict)
    handshakes: set[RTCPeerConnection] = field(default_factory=set)
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    _ws: aiohttp.ClientWebSocketResponse | None = None
    _session: aiohttp.ClientSession | None = None
    _connected: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self.key = signal_crypto.signal_key(self.secrets.room_key)
        self.topic = signal_crypto.topic(self.secrets.room_id)

    async def start(self) -> None:
        self._session = aiohttp.ClientSession()
        self._spawn(self._listen())
        self._spawn(self._tick())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._connected.wait(), 10.0)

    async def stop(self) -> None:
        for task in list(self._tasks):
            await cancel(task)
        for guest in list(self.live.values()):
            if guest.pc is not None:
                await guest.pc.close()
        for pc in list(self.handshakes):
            await pc.close()
        if self._ws is not None:
            await self._ws.close()
        if self._session is not None:
            await self._session.close()

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- signalling ---------------------------------------------------------------------------

    async def _listen(self) -> None:
        assert self._session is not None
        attempt = 0
        url = f"{self.signal_url}?topic={self.topic}"
        while True:
            try:
                async with self._session.ws_connect(url, heartbeat=20.0) as ws:
                    self._ws = ws
                    self._connected.set()
                    attempt = 0
                    async for msg in ws:
                        if msg.type is aiohttp.WSMsgType.TEXT:
                            self._on_envelope(msg.data)
            except (aiohttp.ClientError, OSError) as exc:
                log.warning("rendezvous unreachable (%s); retrying", type(exc).__name__)
            self._ws = None
            attempt += 1
            await asyncio.sleep(min(SIGNAL_RETRY_MAX, 0.25 * 2**attempt))

    def _on_envelope(self, envelope: str) -> None:
        try:
            message = signal_crypto.open_envelope(self.key, envelope)
        except signal_crypto.SignalError:
            return
        if message.get("kind") == "about":
            self._spawn(self._tell_about(message.get("from")))
            return
        if message.get("kind") != "offer":
            return
        conn, sdp, nonce = message.get("from"), message.get("sdp"), message.get("nonce")
        if not (isinstance(conn, str) and len(conn) <= 64 and isinstance(sdp, str) and len(sdp) <= SDP_MAX):
            return
        if not isinstance(nonce, str):
            return
        try:
            nonce_bytes = b64url_decode(nonce)
        except ValueError:
            return
        if len(nonce_bytes) != signal_crypto.GUEST_NONCE_BYTES:
            return
        if len(self.handshakes) >= MAX_HANDSHAKES or len(self.live) >= MAX_GUESTS:
            log.warning("refusing an offer: too many guests or handshakes")
            return
        self._spawn(self._answer(conn, sdp, nonce_bytes))

    async def _tell_about(self, conn: object) -> None:
        """The join page asks, before joining, what room this is: the project, whose, what access."""
        if isinstance(conn, str) and len(conn) <= 64:
            await self._send_envelope({"kind": "about", "to": conn, **self.guests.about()})

    async def _send_envelope(self, message: dict[str, Any]) -> None:
        if self._ws is not None and not self._ws.closed:
            await self._ws.send_str(signal_crypto.seal(self.key, message))

    # -- one guest ----------------------------------------------------------------------------

    async def _answer(self, conn: str, offer_sdp: str, nonce: bytes) -> None:
        try:
            guest_fp = signal_crypto.sdp_fingerprint(offer_sdp)
        except signal_crypto.SignalError:
            return
        pc = RTCPeerConnection(rtc_configuration(self.ice_urls))
        self.handshakes.add(pc)
        opened: asyncio.Future[RTCDataChannel] = asyncio.get_running_loop().create_future()

        @pc.on("datachannel")
        def _on_channel(channel: RTCDataChannel) -> None:
            if not opened.done():
                opened.set_result(channel)

        try:
            await pc.setRemoteDescription(RTCSessionDescription(offer_sdp, "offer"))
            await pc.setLocalDescription(await pc.createAnswer())
            answer = pc.localDescription.sdp
            await self._send_envelope({"kind": "answer", "to": conn, "sdp": answer})
            channel = await asyncio.wait_for(opened, JOIN_TIMEOUT)
            proof = signal_crypto.sign_proof(
                self.secrets.host_private_key,
                signal_crypto.proof_message(nonce, guest_fp, signal_crypto.sdp_fingerprint(answer)),
            )
            channel.send(encode(HubProof(signature=b64url(proof))))
            join = await self._await_join(channel)
        except (TimeoutError, ValueError, signal_crypto.SignalError) as exc:
            log.info("guest handshake failed: %s", type(exc).__name__)
            join = None
        finally:
            self.handshakes.discard(pc)
        if join is None:
            await pc.close()
            return
        await self._admit(pc, channel, join)

    async def _await_join(self, channel: RTCDataChannel) -> GuestJoin | None:
        first: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        @channel.on("message")
        def _first(message: str | bytes) -> None:
            if not first.done():
                first.set_result(message if isinstance(message, str) else "")

        raw = await asyncio.wait_for(first, JOIN_TIMEOUT)
        channel.remove_all_listeners("message")
        try:
            frame = parse_client_frame(raw, max_bytes=4096)
        except FrameError as exc:
            channel.send(encode(ErrorFrame(message=str(exc), ref="guest-join")))
            return None
        if not isinstance(frame, GuestJoin):
            channel.send(encode(ErrorFrame(message="the first frame must be guest-join", ref=frame.t)))
            return None
        return frame

    async def _admit(self, pc: RTCPeerConnection, channel: RTCDataChannel, join: GuestJoin) -> None:
        admitted = self.guests.admit(join)
        if isinstance(admitted, str):
            channel.send(encode(ErrorFrame(message=admitted, ref="guest-join")))
            await asyncio.sleep(0.2)  # let the refusal leave before the close tears the channel down
            await pc.close()
            return
        guest = self.live.get(join.guest_id)
        if guest is not None:
            if guest.grace is not None:
                guest.grace.cancel()
            old_pc, guest.pc = guest.pc, pc
            if old_pc is not None and old_pc is not pc:
                self._spawn(old_pc.close())
        self._wire(pc, channel, join.guest_id)
        resumable = guest is not None and join.last_seq is not None and guest.stream.can_resume_after(join.last_seq)
        if guest is not None and resumable:
            guest.stream.attach(channel, after=join.last_seq)
            return
        if guest is not None:
            await self.runtime.disconnect(guest.peer.id)
        guest = _Guest(join.guest_id, admitted, self._stream(join.guest_id), pc)
        self.live[join.guest_id] = guest
        guest.stream.attach(channel)
        if join.last_seq is not None:
            guest.stream.send(encode(StreamGap(after=join.last_seq, reason="the hub no longer holds those frames")))
        await self.runtime.connect(admitted, guest.stream)

    def _stream(self, guest_id: str) -> GuestStream:
        def overflow(stream: GuestStream) -> None:
            self._spawn(self._skip_ahead(guest_id, stream))

        stream = GuestStream(overflow)

        async def close(code: int, reason: str) -> None:
            await self._drop(guest_id, Bye(code=code, reason=reason))

        stream.closer = close
        return stream

    def _wire(self, pc: RTCPeerConnection, channel: RTCDataChannel, guest_id: str) -> None:
        gate = InboundGate()
        reassembler = Reassembler()
        queue: asyncio.Queue[str] = asyncio.Queue(INBOUND_QUEUE)
        peer_id = peer_id_of(guest_id)
        channel.bufferedAmountLowThreshold = 256 * 1024

        def reply(message: str) -> None:
            channel.send(encode(ErrorFrame(message=message)))

        @channel.on("message")
        def _on_message(message: str | bytes) -> None:
            if not gate.admit():
                if gate.should_warn():
                    reply("throttled: you are sending too fast; frames were dropped")
                return
            try:
                whole = reassembler.feed(message if isinstance(message, str) else message.decode("utf-8"))
            except (ValueError, UnicodeDecodeError) as exc:
                reply(str(exc))
                return
            if whole is None:
                return
            try:
                queue.put_nowait(whole)
            except asyncio.QueueFull:
                if gate.should_warn():
                    reply("throttled: too many frames waiting; frames were dropped")

        @channel.on("bufferedamountlow")
        def _low() -> None:
            guest = self.live.get(guest_id)
            if guest is not None:
                guest.stream.buffer_low()

        async def pump() -> None:
            while True:
                raw = await queue.get()
                if self.live.get(guest_id) is None or self.live[guest_id].pc is not pc:
                    return
                await self.runtime.receive(peer_id, raw)

        reader = self._spawn(pump())

        @pc.on("connectionstatechange")
        async def _state() -> None:
            if pc.connectionState in ("failed", "closed"):
                reader.cancel()
                self._lost(guest_id, pc)

        @channel.on("close")
        def _closed() -> None:
            reader.cancel()
            self._lost(guest_id, pc)

    def _lost(self, guest_id: str, pc: RTCPeerConnection) -> None:
        """The channel dropped: keep the guest in the room for a while so it can resume."""
        guest = self.live.get(guest_id)
        if guest is None or guest.pc is not pc:
            return
        guest.stream.detach()
        guest.pc = None
        self._spawn(pc.close())
        loop = asyncio.get_running_loop()
        guest.grace = loop.call_later(RESUME_GRACE, lambda: self._spawn(self._drop(guest_id, None)))

    async def _drop(self, guest_id: str, farewell: Bye | None) -> None:
        guest = self.live.pop(guest_id, None)
        if guest is None:
            return
        if guest.grace is not None:
            guest.grace.cancel()
        channel = guest.stream.channel
        guest.stream.detach()
        if farewell is not None and channel is not None:
            with contextlib.suppress(Exception):
                channel.send(encode(farewell))
            await asyncio.sleep(0.2)  # let the farewell leave before the close tears the channel down
        await self.runtime.disconnect(guest.peer.id)
        if guest.pc is not None:
            await guest.pc.close()

    async def _skip_ahead(self, guest_id: str, stream: GuestStream) -> None:
        """A guest too far behind: a `gap`, then the full state, rather than a growing backlog."""
        guest = self.live.get(guest_id)
        if guest is None or guest.stream is not stream:
            return
        channel = stream.channel
        stream.detach()
        await self.runtime.disconnect(guest.peer.id)
        guest.stream = self._stream(guest_id)
        if channel is not None:
            guest.stream.attach(channel)
        guest.stream.send(encode(StreamGap(after=stream.last_seq, reason="you fell behind; here is the full state")))
        await self.runtime.connect(guest.peer, guest.stream)

    async def _tick(self) -> None:
        """Expire approvals and refresh the hosts' latency figures."""
        beats = 0
        while True:
            await asyncio.sleep(1.0)
            await self.runtime.run(self.guests.expire())
            beats += 1
            if beats % int(LATENCY_EVERY) == 0 and self.live:
                for guest in self.live.values():
                    self.guests.set_latency(guest.guest_id, _latency_ms(guest.pc))
                await self.runtime.run([self.guests.to_hosts()])


def _latency_ms(pc: RTCPeerConnection | None) -> float | None:
    # aiortc measures the SCTP round trip but keeps it private; a missing figure is shown as unknown.
    srtt = getattr(pc.sctp, "_srtt", None) if pc is not None and pc.sctp is not None else None
    return round(srtt * 1000, 1) if isinstance(srtt, float) else None
