"""The hub: one peer connection per guest (wrtc, or aiortc where wrtc cannot load), reached only
through the encrypted rendezvous.

The hub listens on the room's topic. An envelope it cannot open is ignored, so a peer without the
room key never gets an answer. It answers an offer; when the guest's data channel opens it proves
the host key (signing the guest's nonce and both DTLS fingerprints), waits for `guest-join`, and
then connects the guest to the runtime as an ordinary Room peer through a `GuestStream`, which
outlives the channel so a guest that drops can resume after its last `seq`.

An offer is answered once: a copy (replayed by the relay, or by anyone on the topic) is ignored;
handshakes are bounded per source and in total; offers and each identity's joins are paced; and
a guest in its resume grace gives way to a new one. So neither a flood of copies nor a guest
churning in and out can lock the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import aiohttp

from canvasrelay.core.guest_admission import GuestAdmission, Handshake
from canvasrelay.core.guest_identity import CHALLENGE_BYTES, guest_id_of, proven_guest
from canvasrelay.core.guests import Guests, peer_id_of
from canvasrelay.core.invites import Invite
from canvasrelay.core.peer import Peer
from canvasrelay.core.rate_limit import InboundGate
from canvasrelay.net.channel import Channel, PeerLink
from canvasrelay.net.nostr_rendezvous import RelayListening
from canvasrelay.net.peer_connection import WebRtcLibrary, chosen
from canvasrelay.net.tasks import cancelled
from canvasrelay.net.turn_client import TurnClient
from canvasrelay.net.turn_provider import ProviderTurn
from canvasrelay.protocol import FrameError, encode, parse_client_frame, signal_crypto
from canvasrelay.protocol.core import ErrorFrame
from canvasrelay.protocol.encoding import b64url, b64url_decode
from canvasrelay.protocol.framing import Reassembler
from canvasrelay.protocol.guests import Bye, GuestJoin, HubProof, StreamGap
from canvasrelay.protocol.ice import IceServer, servers_to_use, signal_urls
from canvasrelay.protocol.signal_messages import HubAnswer, RoomAbout, SignalMessage, Withdrawn
from canvasrelay.server.deferred_imports import DeferredImports
from canvasrelay.server.occupancy import Periodic
from canvasrelay.server.room_secrets import RoomSecrets
from canvasrelay.server.runtime import Runtime
from canvasrelay.server.transports.datachannel import GuestStream
from canvasrelay.signal.turn_credentials import TurnConfig, mint

log = logging.getLogger(__name__)

JOIN_TIMEOUT = 10.0
RESUME_GRACE = 30.0
"""How long a dropped guest stays in the room, its frames kept for it, before it is let go
(sooner when a new guest needs its place: the oldest grace gives way first)."""
INBOUND_QUEUE = 64
LATENCY_EVERY = 5.0
SIGNAL_RETRY_MAX = 10.0
SDP_MAX = 32 * 1024
MAX_ABOUT_KEY = 128
"""The longest identity key an about may name (a P-256 point is 87 characters of base64url)."""
BUFFER_LOW = 256 * 1024
"""The stream writes again once a guest's send buffer is down to this."""
LAST_WORD_S = 0.5
"""How long a stopping hub waits for the guests' last frames to leave."""
REFUSALS_PER_SECOND = 2.0
REFUSAL_BURST = 10.0


@dataclass
class _Guest:
    guest_id: str
    peer: Peer
    stream: GuestStream
    pc: PeerLink | None = None
    grace: asyncio.TimerHandle | None = None


class _Offer(NamedTuple):
    conn: str
    sdp: str
    nonce: bytes
    fingerprint: str
    invite_id: str


@dataclass
class _Listener:
    """The hub's socket on one invite's topic: its own key, so one invite's holders never reach another's."""

    invite: Invite
    key: bytes
    turn: TurnClient
    task: asyncio.Task[None] | None = None
    ws: aiohttp.ClientWebSocketResponse | None = None


@dataclass
class Hub:
    runtime: Runtime
    guests: Guests
    secrets: RoomSecrets
    signal_url: str
    webrtc: DeferredImports
    """The WebRTC library's modules, imported after start-up: the hub listens from the start, and
    answers offers once they are in."""
    library: WebRtcLibrary = field(default_factory=chosen)
    ice_urls: list[str] = field(default_factory=list)
    relay_only: bool = False
    admission: GuestAdmission = field(default_factory=GuestAdmission)
    """Which offers get a handshake and which guests a place: decided there."""
    live: dict[str, _Guest] = field(default_factory=dict)
    _answering: set[PeerLink] = field(default_factory=set)
    """Each handshake under way, with its sources."""
    refusals: Counter[str] = field(default_factory=Counter)
    """Offers and joins turned away, by reason: what an operator (or a test) looks at in a flood."""
    _tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    listeners: dict[str, _Listener] = field(default_factory=dict)
    """One per invite the hub answers on, by invite id."""
    _session: aiohttp.ClientSession | None = None
    _connected: asyncio.Event = field(default_factory=asyncio.Event)
    turn_config: TurnConfig | None = None
    """The host's own TURN server and secret: credentials minted here, for the hub and each guest."""
    turn_provider: ProviderTurn | None = None
    """Or a provider's TURN (its API token stays here): credentials it makes, for the hub and each guest."""
    relays: RelayListening | None = None
    """The public Nostr relays the hub listens on as well, once chosen (none with `--lan-only`)."""
    _refusals: InboundGate = field(default_factory=lambda: InboundGate(REFUSALS_PER_SECOND, REFUSAL_BURST))
    """Envelopes sealed with another key are answered with a signed refusal, this often at most."""

    def __post_init__(self) -> None:
        self._rendezvous = signal_urls(self.signal_url)
        """`--signal` may name several; the hub uses one until it fails, then the next."""
        self._using = self._rendezvous[0]
        self._periodic = (Periodic("guest latency", LATENCY_EVERY, self._measure),)

    async def start(self) -> None:
        self._session = aiohttp.ClientSession()
        self.guests.invites.listeners.append(self.sync_invites)
        self.sync_invites()
        # Latency figures refresh only while someone is in the room.
        for periodic in self._periodic:
            periodic.while_occupied(self.runtime.occupancy)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._connected.wait(), 10.0)

    async def stop(self) -> None:
        for task in list(self._tasks):
            await cancelled(task)
        for periodic in self._periodic:
            await periodic.close()
        guests = list(self.live.values())
        for guest in guests:
            # Stopping is no farewell: the guests reconnect to the host once it is back.
            guest.stream.closer = None
        # The last frames (the host is restarting) leave before the channels close, briefly.
        writing = [asyncio.ensure_future(guest.stream.written()) for guest in guests]
        if writing:
            await asyncio.wait(writing, timeout=LAST_WORD_S)
        await asyncio.gather(
            *(guest.pc.close() for guest in guests if guest.pc is not None),
            *(pc.close() for pc in list(self._answering)),
            return_exceptions=True,
        )
        for guest in guests:
            # The record says each guest left; once the host is back, each that comes back joins anew.
            await self.runtime.disconnect(guest.peer.id)
        for listener in self.listeners.values():
            if listener.ws is not None:
                await listener.ws.close()
        if self.relays is not None:
            await self.relays.close()
        if self._session is not None:
            await self._session.close()

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # -- signalling ---------------------------------------------------------------------------

    def sync_invites(self) -> None:
        """Listen on each invite's topic (a revoked one only to say so); stop for those gone or rotated."""
        wanted = {invite.id: invite for invite in self.guests.invites.listening()}
        for invite_id, listener in list(self.listeners.items()):
            invite = wanted.get(invite_id)
            if invite is None or invite.secret != listener.invite.secret:
                del self.listeners[invite_id]
                if listener.task is not None:
                    listener.task.cancel()
            else:
                listener.invite = invite
        for invite_id, invite in wanted.items():
            if invite_id not in self.listeners:
                listener = _Listener(
                    invite, signal_crypto.signal_key(invite.secret), TurnClient(invite.room, invite.secret)
                )
                self.listeners[invite_id] = listener
                listener.task = self._spawn(self._listen(listener))
        if self.relays is not None:
            self._spawn(self._sync_relays(self.relays))

    async def use_relays(self, relays: RelayListening) -> None:
        """Listen on public relays too, from now on, for every invite."""
        self.relays = relays
        await self._sync_relays(relays)

    async def _sync_relays(self, relays: RelayListening) -> None:
        for invite_id in [i for i in relays.topics if i not in self.listeners]:
            await relays.stop_listening(invite_id)
        for invite_id, listener in list(self.listeners.items()):
            await relays.listen(invite_id, signal_crypto.topic(listener.invite.secret))

    def heard_on_relays(self, invite_id: str, sender: str, envelope: str) -> None:
        """An envelope from a relay: the relay's sender is the event's key, whose share it spends."""
        listener = self.listeners.get(invite_id)
        if listener is not None:
            self._on_envelope(f"{sender} {envelope}", listener)

    async def _listen(self, listener: _Listener) -> None:
        assert self._session is not None
        attempt = 0
        invite = listener.invite
        # The verifier lets the rendezvous hand TURN credentials to this invite's holders, and no one else.
        verifier = signal_crypto.turn_verifier(signal_crypto.turn_proof(invite.secret))
        while True:
            self._using = self._rendezvous[attempt % len(self._rendezvous)]
            url = f"{self._using}?topic={signal_crypto.topic(invite.secret)}&turn={verifier}"
            try:
                async with self._session.ws_connect(url, heartbeat=20.0) as ws:
                    listener.ws = ws
                    self._connected.set()
                    attempt = 0
                    async for msg in ws:
                        if msg.type is aiohttp.WSMsgType.TEXT:
                            self._on_envelope(msg.data, listener)
            except (aiohttp.ClientError, OSError) as exc:
                log.warning("rendezvous unreachable (%s); retrying", type(exc).__name__)
            listener.ws = None
            attempt += 1
            await asyncio.sleep(min(SIGNAL_RETRY_MAX, 0.25 * 2**attempt))

    def _on_envelope(self, text: str, listener: _Listener) -> None:
        # The rendezvous puts its sender's tag in front (an address's, blind): each spends its own share.
        sender, _, envelope = text.rpartition(" ")
        offer = self._offer_of(envelope, sender, listener)
        if offer is None:
            return
        handshake = Handshake(offer.invite_id, (offer.fingerprint, f"conn:{offer.conn}"), sender)
        refusal = self.admission.offer_refusal(offer.nonce, handshake)
        if refusal is not None:
            self._refused(refusal)
            return
        # Registered before any await, so the next envelope already sees this handshake.
        self.admission.handshakes[offer] = handshake
        self._spawn(self._answer(offer, listener))

    def _offer_of(self, envelope: str, sender: str, listener: _Listener) -> _Offer | None:
        try:
            message = signal_crypto.open_envelope(listener.key, envelope)
        except signal_crypto.SealedForAnotherKey:
            if self._refusals.admit():
                refusal = signal_crypto.refusal(self.secrets.host_private_key, envelope)
                self._spawn(self._send_text(listener, refusal, sender))
            return None
        except signal_crypto.SignalError:
            return None
        standing = listener.invite.stands(self.guests.invites.clock())
        if message.get("kind") == "about" or (message.get("kind") == "offer" and not standing):
            if self.admission.may_ask_about(sender, listener.invite.id):
                self._spawn(self._tell_about(listener, message.get("from"), message.get("key")))
            return None
        if message.get("kind") != "offer":
            return None
        conn, sdp, nonce = message.get("from"), message.get("sdp"), message.get("nonce")
        if not (isinstance(conn, str) and len(conn) <= 64 and isinstance(sdp, str) and len(sdp) <= SDP_MAX):
            return None
        if not isinstance(nonce, str):
            return None
        try:
            nonce_bytes = b64url_decode(nonce)
            fingerprint = signal_crypto.sdp_fingerprint(sdp)
        except (ValueError, signal_crypto.SignalError):
            return None
        if len(nonce_bytes) != signal_crypto.GUEST_NONCE_BYTES:
            return None
        return _Offer(conn, sdp, nonce_bytes, fingerprint, listener.invite.id)

    def _refused(self, reason: str) -> None:
        self.refusals[reason] += 1
        # One line per reason the first time and then every hundredth: a flood must not flood the log.
        if self.refusals[reason] % 100 == 1:
            log.warning("turned away %d so far: %s", self.refusals[reason], reason)

    async def _tell_about(self, listener: _Listener, conn: object, key: object) -> None:
        """The join page asks, before joining, what room this is: the project, whose, the access its
        person (the identity key it names, when it does) would join with; or it hears that its
        invitation was withdrawn, or that the host removed that person."""
        if not (isinstance(conn, str) and len(conn) <= 64):
            return
        said = self.guests.about_for(_asking_guest(key), listener.invite)
        refusal = listener.invite.refusal(self.guests.invites.clock())
        if refusal is not None or isinstance(said, str):
            await self._send_envelope(listener, Withdrawn(to=conn, reason=refusal or str(said)))
            return
        about: dict[str, Any] = {"to": conn, **said}
        about["iceServers"] = [
            {"urls": list(server.urls), "username": server.username, "credential": server.credential}
            for server in await self._own_turn()
        ]
        await self._send_envelope(listener, RoomAbout.model_validate(about))

    async def _own_turn(self) -> list[IceServer]:
        """Fresh credentials for the host's own TURN server, or its provider's (none without one)."""
        if self.turn_config is not None:
            username, password = mint(self.turn_config.secret, self.turn_config.lifetime)
            return [IceServer(self.turn_config.urls, username=username, credential=password)]
        if self.turn_provider is not None and self._session is not None:
            return await self.turn_provider.credentials(self._session)
        return []

    async def _send_envelope(self, listener: _Listener, message: SignalMessage) -> None:
        sealed = signal_crypto.seal(listener.key, message.model_dump(by_alias=True))
        await self._send_text(listener, sealed, getattr(message, "to", None))

    async def _send_text(self, listener: _Listener, text: str, to: str | None) -> None:
        """To the guest `to`, the way it came: through the relays, or the rendezvous's socket."""
        if self.relays is not None and to is not None and self.relays.came_through_relays(to):
            await self.relays.reply(text, to)
            return
        if listener.ws is not None and not listener.ws.closed:
            await listener.ws.send_str(text)

    # -- one guest ----------------------------------------------------------------------------

    async def _answer(self, offer: _Offer, listener: _Listener) -> None:
        try:
            assert self._session is not None
            turn = await self._own_turn() or await listener.turn.fetch(self._session, self._using)
            servers = servers_to_use(self.ice_urls, turn, self.relay_only)
            if self.relay_only and not servers:
                log.warning("relay-only, but no TURN relay is configured or offered: no guest can connect")
                return
            await self.webrtc.ready()
            await self._handshake(self.library.peer(servers, self.relay_only), offer, listener)
        finally:
            self.admission.handshakes.pop(offer, None)

    async def _handshake(self, pc: PeerLink, offer: _Offer, listener: _Listener) -> None:
        self._answering.add(pc)
        join: GuestJoin | str | None
        try:
            answer = await pc.answer(offer.sdp)
            await self._send_envelope(listener, HubAnswer(to=offer.conn, sdp=answer))
            channel = await asyncio.wait_for(pc.opened(), JOIN_TIMEOUT)
            hub_fingerprint = signal_crypto.sdp_fingerprint(answer)
            proof = signal_crypto.sign_proof(
                self.secrets.host_private_key,
                signal_crypto.proof_message(offer.nonce, offer.fingerprint, hub_fingerprint),
            )
            challenge = os.urandom(CHALLENGE_BYTES)
            channel.send(encode(HubProof(signature=b64url(proof), challenge=b64url(challenge))))
            join = await self._await_join(channel)
        except (TimeoutError, ValueError, ConnectionError, signal_crypto.SignalError) as exc:
            log.info("guest handshake failed: %s", type(exc).__name__)
            join = None
        except Exception:
            # A bug here must not leave the peer connection open outside the handshake slots.
            log.exception("guest handshake failed")
            join = None
        finally:
            self._answering.discard(pc)
        if join is None:
            await pc.close()
        elif isinstance(join, str):
            await self._refuse(pc, channel, join)
        else:
            guest_id = proven_guest(join, challenge, offer.fingerprint, hub_fingerprint)
            if guest_id is None:
                self._refused("a join whose signature does not match its key")
                await self._refuse(pc, channel, "this join's signature does not match its key")
                return
            await self._admit(pc, channel, join, guest_id, offer.invite_id)

    async def _await_join(self, channel: Channel) -> GuestJoin | str:
        """The guest's `guest-join`, or why its first frame is refused (its connection then closes).
        Until the guest is wired, what it sends after that is dropped: it waits for our answer."""
        first: asyncio.Future[str | bytes] = asyncio.get_running_loop().create_future()

        def _first(message: str | bytes) -> None:
            if not first.done():
                first.set_result(message)

        channel.on_message(_first)
        raw = await asyncio.wait_for(first, JOIN_TIMEOUT)
        try:
            frame = parse_client_frame(raw, max_bytes=4096)
        except FrameError as exc:
            return str(exc)
        if not isinstance(frame, GuestJoin):
            return "the first frame must be guest-join"
        return frame

    async def _admit(self, pc: PeerLink, channel: Channel, join: GuestJoin, guest_id: str, invite_id: str) -> None:
        arriving = guest_id not in self.live
        full = self.admission.room_refusal(arriving, len(self.live))
        if full is not None:
            self._refused("the room is full")
            await self._refuse(pc, channel, full)
            return
        admitted = self.guests.admit(join, guest_id, invite_id)
        if isinstance(admitted, str):
            await self._refuse(pc, channel, admitted)
            return
        if not self.admission.may_join_now(guest_id):
            self._refused("joining too often")
            await self._refuse(pc, channel, "you are joining too often: wait a few seconds, then join again")
            return
        leaving = self.admission.gives_way(arriving, len(self.live))
        if leaving is not None:
            await self._drop(leaving, None)
        guest = self.live.get(guest_id)
        if guest is not None:
            self.admission.returned(guest_id)
            if guest.grace is not None:
                guest.grace.cancel()
                guest.grace = None
            old_pc, guest.pc = guest.pc, pc
            if old_pc is not None and old_pc is not pc:
                self._spawn(old_pc.close())
        self._wire(pc, channel, guest_id)
        resumable = guest is not None and join.last_seq is not None and guest.stream.can_resume_after(join.last_seq)
        if guest is not None and resumable:
            guest.stream.attach(channel, after=join.last_seq)
            await self.runtime.run(self.guests.back(guest_id))
            return
        if guest is not None:
            await self.runtime.disconnect(guest.peer.id)
        guest = _Guest(guest_id, admitted, self._stream(guest_id), pc)
        self.live[guest_id] = guest
        guest.stream.attach(channel)
        if join.last_seq is not None:
            guest.stream.send(encode(StreamGap(after=join.last_seq, reason="the hub no longer holds those frames")))
        await self.runtime.connect(admitted, guest.stream)

    async def _refuse(self, pc: PeerLink, channel: Channel, reason: str) -> None:
        channel.send(encode(ErrorFrame(message=reason, ref="guest-join")))
        await asyncio.sleep(0.2)  # let the refusal leave before the close tears the channel down
        await pc.close()

    def _stream(self, guest_id: str) -> GuestStream:
        def overflow(stream: GuestStream) -> None:
            self._spawn(self._skip_ahead(guest_id, stream))

        stream = GuestStream(overflow)

        async def close(code: int, reason: str) -> None:
            await self._drop(guest_id, Bye(code=code, reason=reason))

        stream.closer = close
        return stream

    def _wire(self, pc: PeerLink, channel: Channel, guest_id: str) -> None:
        """The guest's frames to the runtime, in order and bounded, until its channel is lost."""
        gate = InboundGate.for_guest()
        reassembler = Reassembler()
        queue: asyncio.Queue[str | None] = asyncio.Queue(INBOUND_QUEUE)
        """The guest's frames in order, then None once its channel closed."""
        peer_id = peer_id_of(guest_id)

        def reply(message: str) -> None:
            channel.send(encode(ErrorFrame(message=message)))

        def _on_message(message: str | bytes) -> None:
            try:
                text = message if isinstance(message, str) else message.decode("utf-8")
            except UnicodeDecodeError:
                reply("a message is not UTF-8 text")
                return
            if not gate.admit(len(message) if isinstance(message, bytes) else len(text.encode("utf-8", "replace"))):
                reassembler.discard(text)
                if gate.should_warn():
                    reply("throttled: you are sending too fast; frames were dropped")
                return
            try:
                whole = reassembler.feed(text)
            except ValueError as exc:
                reply(str(exc))
                return
            if whole is None:
                return
            try:
                queue.put_nowait(whole)
            except asyncio.QueueFull:
                if gate.should_warn():
                    reply("throttled: too many frames waiting; frames were dropped")

        def _low() -> None:
            guest = self.live.get(guest_id)
            if guest is not None:
                guest.stream.buffer_low()

        channel.on_message(_on_message)
        channel.on_buffer_low(BUFFER_LOW, _low)

        async def pump() -> None:
            while True:
                raw = await queue.get()
                if raw is None:
                    self._lost(guest_id, pc)
                    return
                if self.live.get(guest_id) is None or self.live[guest_id].pc is not pc:
                    return
                await self.runtime.receive(peer_id, raw)

        reader = self._spawn(pump())

        def _closed() -> None:
            # What came before the close is handled first: a closing page's last word is that it leaves.
            try:
                queue.put_nowait(None)
            except asyncio.QueueFull:
                reader.cancel()
                self._lost(guest_id, pc)

        channel.on_lost(_closed)

    def _lost(self, guest_id: str, pc: PeerLink) -> None:
        """The channel dropped: keep the guest in the room for a while so it can resume."""
        guest = self.live.get(guest_id)
        if guest is None or guest.pc is not pc:
            return
        guest.stream.detach()
        guest.pc = None
        self._spawn(pc.close())
        self.admission.went_away(guest_id)
        loop = asyncio.get_running_loop()
        guest.grace = loop.call_later(RESUME_GRACE, lambda: self._spawn(self._drop(guest_id, None)))
        # Counted out now: the people list says who is in the room, not whose place is kept.
        self._spawn(self.runtime.run(self.guests.away(guest_id)))

    async def _drop(self, guest_id: str, farewell: Bye | None) -> None:
        guest = self.live.pop(guest_id, None)
        if guest is None:
            return
        self.admission.returned(guest_id)
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

    async def _measure(self) -> None:
        """Refresh the hosts' latency figures."""
        if not self.live:
            return
        # Comprehensions, not a loop: a loop's variable would keep the last guest (its stream
        # and ring) alive in this coroutine long after the guest was let go.
        channels = {guest_id: guest.stream.channel for guest_id, guest in self.live.items()}
        measured = await asyncio.gather(*(_round_trip_ms(channel) for channel in channels.values()))
        for guest_id, latency in zip(channels, measured, strict=True):
            if guest_id in self.live:
                self.guests.set_latency(guest_id, latency)
        await self.runtime.run([self.guests.to_hosts()])


async def _round_trip_ms(channel: Channel | None) -> float | None:
    return await channel.round_trip_ms() if channel is not None else None


def _asking_guest(key: object) -> str | None:
    """The guest an about names by its public key (unproven: it only chooses what the page is told,
    which that person's own join would show), or None when it names none or not a key."""
    if not (isinstance(key, str) and 0 < len(key) <= MAX_ABOUT_KEY):
        return None
    try:
        return guest_id_of(key)
    except ValueError:
        return None
