"""The guest library: join a room from its link exactly as the browser does.

Same keys, same proof, same frames: signalling goes through the rendezvous in sealed envelopes,
the hub's proof is checked against the host key in the link before anything is sent, and the
guest reconnects by itself with backoff, resuming after its last `seq`. `canvas join` and the
tests use it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import parse_qs

import aiohttp
from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import ValidationError

from canvasrelay.client.identity import public_key, sign_join
from canvasrelay.core.guest_identity import guest_id_of
from canvasrelay.net.channel import Channel, PeerLink
from canvasrelay.net.nostr_event import NostrKey
from canvasrelay.net.nostr_rendezvous import ask_over_relays
from canvasrelay.net.peer_connection import WebRtcLibrary, chosen
from canvasrelay.net.tasks import cancelled
from canvasrelay.net.turn_client import TurnClient
from canvasrelay.protocol import signal_crypto, words
from canvasrelay.protocol.board_parts import BoardAssembly
from canvasrelay.protocol.encoding import b64url, b64url_decode
from canvasrelay.protocol.framing import Reassembler, chunks, inflated_message, parse_stream_message
from canvasrelay.protocol.ice import IceServer, parse_turn_servers, servers_to_use, signal_url_for, signal_urls
from canvasrelay.protocol.signal_messages import (
    AboutAsk,
    GuestMessage,
    GuestOffer,
    HubAnswer,
    RoomAbout,
    Withdrawn,
)

log = logging.getLogger(__name__)
Reply = TypeVar("Reply", HubAnswer, RoomAbout)

HANDSHAKE_TIMEOUT = 15.0
ANSWER_TIMEOUT = 3.0
"""The first attempt's wait for the hub's answer (it comes in well under a second when nothing is lost);
each retry waits half as long again, up to HANDSHAKE_TIMEOUT."""
JOIN_DEADLINE = 30.0
"""How long a first join keeps retrying lost signalling before it gives up."""
FRAME_TIMEOUT = 10.0
MAX_BACKOFF = 10.0
LEAVE_WAIT_S = 1.0
"""How long leaving waits for its word to go out before the connection closes regardless."""


WRONG_KEY = "the room key in this link does not match the room"


class HubRefused(Exception):
    """The hub failed to prove the host key, or the room would not have us. Not retried."""


class NetworksDidNotMeet(Exception):
    """The hub answered, but no path between the two networks opened: a fresh offer from the same
    networks meets the same routers, so a first join says so rather than trying again."""

    def __init__(self, through_turn: bool) -> None:
        super().__init__(words.NETWORKS_DID_NOT_MEET_THROUGH_TURN if through_turn else words.NETWORKS_DID_NOT_MEET)


@dataclass(frozen=True)
class RoomLink:
    base: str
    room_id: str
    key: str
    host_key: str
    signal: str
    """One rendezvous URL, or several separated by commas, tried in turn."""
    ice: list[str] = field(default_factory=list)
    relay: bool = False
    relays: list[str] = field(default_factory=list)
    """The public Nostr relays the host listens on: where a guest on another network finds it."""

    @classmethod
    def parse(cls, link: str) -> RoomLink:
        base, _, fragment = link.partition("#")
        params = {k: v[0] for k, v in parse_qs(fragment).items()}
        missing = [name for name in ("room", "key", "host") if not params.get(name)]
        if missing:
            raise ValueError(f"not a room link: missing {', '.join(missing)}")
        ice = [url for url in params.get("ice", "").split(",") if url]
        signal = params.get("signal") or signal_url_for(base)
        relays = [url for url in params.get("nostr", "").split(",") if url.startswith(("wss://", "ws://"))]
        relay = params.get("relay") == "1"
        return cls(base, params["room"], params["key"], params["host"], signal, ice, relay, relays)


def _backoff(attempt: int) -> float:
    base = min(MAX_BACKOFF, 0.25 * 2 ** min(attempt, 10))
    return base / 2 + random.random() * base / 2


class Guest:
    def __init__(
        self,
        link: RoomLink | str,
        name: str = "guest",
        color: str = "#8a8a8a",
        identity: ec.EllipticCurvePrivateKey | None = None,
        reconnect: bool = True,
        record: bool = True,
        relay_only: bool | None = None,
        local_address: str | None = None,
        webrtc: WebRtcLibrary | None = None,
    ) -> None:
        self.link = link if isinstance(link, RoomLink) else RoomLink.parse(link)
        self.relay_only = self.link.relay if relay_only is None else relay_only
        self.local_address = local_address
        """The address to reach the rendezvous from (one of this machine's), if not the default."""
        self.library = webrtc or chosen()
        """What carries the channel: this process's WebRTC library, unless a test or a benchmark names one."""
        self.rendezvous = signal_urls(self.link.signal)
        self._using = 0
        self.turn = TurnClient(self.link.room_id, self.link.key)
        self.name = name
        self.color = color
        self.identity = identity or ec.generate_private_key(ec.SECP256R1())
        """Who this guest is: proven at each join, so the room restores the same person with the same access."""
        self.reconnect = reconnect
        self.record = record
        """Keep every frame in `seen` and `frames` (for a script that reads them); without it, only
        the listeners hear them, and a long-running guest holds nothing."""
        self.key = signal_crypto.signal_key(self.link.key)
        self.nostr_key = NostrKey.fresh()
        """This guest's key on the relays, made afresh for each guest: the host's answers name it."""
        self.state = "idle"
        self.last_seq: int | None = None
        self.welcome: dict[str, Any] = {}
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.seen: list[dict[str, Any]] = []
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self.board = BoardAssembly()
        """The board's state as the welcome and its parts bring it (`board.complete` once whole)."""
        self.board_loaded = asyncio.Event()
        self.pc: PeerLink | None = None
        self.channel: Channel | None = None
        self.connections = 0
        self._closing = False
        self._dropped = asyncio.Event()
        self._supervisor: asyncio.Task[None] | None = None

    # -- public ---------------------------------------------------------------------------------

    @property
    def guest_id(self) -> str:
        return guest_id_of(public_key(self.identity))

    async def connect(self) -> Guest:
        """Join, or raise: HubRefused for a hub that fails its proof or a room that refuses us, ConnectionError
        when no rendezvous can be reached, TimeoutError when signalling kept getting lost until JOIN_DEADLINE."""
        self.state = "connecting"
        await self._join(time.monotonic() + JOIN_DEADLINE)
        if self.reconnect:
            self._supervisor = asyncio.get_running_loop().create_task(self._supervise())
        return self

    @property
    def signal_url(self) -> str:
        """The rendezvous in use (the link may name several)."""
        return self.rendezvous[self._using]

    async def send(self, frame: dict[str, Any] | str) -> None:
        if self.channel is None or not self.channel.is_open:
            raise ConnectionError("not connected")
        text = frame if isinstance(frame, str) else json.dumps(frame, separators=(",", ":"))
        for message in chunks(text, random.getrandbits(31)):
            self.channel.send(message)

    async def next_frame(self, timeout: float = FRAME_TIMEOUT) -> dict[str, Any]:
        return await asyncio.wait_for(self.frames.get(), timeout)

    async def expect(self, t: str, timeout: float = FRAME_TIMEOUT, **match: Any) -> dict[str, Any]:
        """The next frame of type `t` whose fields equal `match`; the others stay in `seen`."""
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.frames.get()
                if frame.get("t") == t and all(frame.get(k) == v for k, v in match.items()):
                    return frame

    async def drop(self) -> None:
        """Lose the connection without leaving, as a network failure would: the guest reconnects."""
        if self.pc is not None:
            await self.pc.close()

    async def close(self) -> None:
        """Leave the room: the hub takes this guest out now rather than keeping its place."""
        await self._say_leaving()
        self._closing = True
        self.state = "closed"
        await cancelled(self._supervisor)
        if self.pc is not None:
            await self.pc.close()

    async def _say_leaving(self) -> None:
        channel = self.channel
        if channel is None or not channel.is_open or self.state != "connected":
            return
        sent = asyncio.Event()
        channel.on_buffer_low(0, sent.set)
        await self.send({"t": "guest-leave"})
        # The words leave before the connection closes (the library sends them from a thread or task of its own).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(sent.wait(), LEAVE_WAIT_S)

    # -- connecting -----------------------------------------------------------------------------

    async def _supervise(self) -> None:
        while not self._closing:
            await self._dropped.wait()
            self.state = "reconnecting"
            await asyncio.sleep(_backoff(0))
            try:
                await self._join(None)
            except HubRefused:
                self.state = "refused"
                return

    async def _join(self, deadline: float | None) -> None:
        """Attempt after attempt until joined. A first join (with a deadline) gives up once every rendezvous
        failed to connect in a row, or at the deadline; a reconnect (no deadline) tries until closed."""
        attempt = unreachable = 0
        while not self._closing:
            try:
                await self._connect_once(attempt)
                return
            except NetworksDidNotMeet:
                if deadline is not None:
                    raise
            except TimeoutError as exc:
                # Signalling got lost on the way (a rendezvous or its Redis restarting): a fresh offer may not.
                unreachable = 0
                if deadline is not None and time.monotonic() + _backoff(attempt) >= deadline:
                    raise
                log.info("join attempt failed: %s", type(exc).__name__)
            except (aiohttp.ClientError, OSError) as exc:
                # This rendezvous cannot help: the next one may.
                self._using = (self._using + 1) % len(self.rendezvous)
                unreachable += 1
                if deadline is not None and unreachable >= len(self.rendezvous):
                    raise
                log.info("join attempt failed: %s", type(exc).__name__)
            await asyncio.sleep(_backoff(attempt))
            attempt += 1

    async def _connect_once(self, attempt: int = 0) -> None:
        self._dropped.clear()
        signal_url = self.rendezvous[self._using]
        connector = aiohttp.TCPConnector(local_addr=(self.local_address, 0)) if self.local_address else None
        async with aiohttp.ClientSession(connector=connector) as session:
            servers = servers_to_use(self.link.ice, await self._turn(session, signal_url), self.relay_only)
            if self.relay_only and not servers:
                raise ConnectionError("relay-only, but the rendezvous offers no TURN relay and the link names none")
            through_turn = any(url.startswith("turn") for server in servers for url in server.urls)
            peer = self.library.peer(servers, self.relay_only)
            await self._handshake(peer, session, signal_url, attempt, through_turn)

    async def _handshake(
        self, pc: PeerLink, session: aiohttp.ClientSession, signal_url: str, attempt: int, through_turn: bool
    ) -> None:
        raw: asyncio.Queue[str | bytes] = asyncio.Queue()
        try:
            offer = await pc.offer()
            nonce = secrets.token_bytes(signal_crypto.GUEST_NONCE_BYTES)
            # A lost offer or answer shows as silence: give up on this one soon and send a fresh offer. Not
            # through relays, which lose nothing but answer slowly when the hub is busy (its WebRTC library
            # still loading after a restart): a fresh offer would meet the hub still holding this one's
            # handshake (one at a time from one key), and be turned away.
            soon = ANSWER_TIMEOUT * 1.5**attempt
            wait = HANDSHAKE_TIMEOUT if self.link.relays else min(HANDSHAKE_TIMEOUT, soon)
            answer = await asyncio.wait_for(self._signal(session, signal_url, offer, nonce), wait)
            await pc.accept(answer)
            try:
                channel = await asyncio.wait_for(pc.opened(), HANDSHAKE_TIMEOUT)
            except TimeoutError:
                raise NetworksDidNotMeet(through_turn) from None
            async with asyncio.timeout(HANDSHAKE_TIMEOUT):
                channel.on_message(raw.put_nowait)
                challenge = self._check_proof(await raw.get(), nonce, offer, answer)
                channel.send(self.join_frame(challenge, offer, answer))
                first = await raw.get()
        except BaseException:
            await pc.close()
            raise
        self.pc, self.channel = pc, channel
        self.connections += 1
        reassembler = Reassembler(limit=64 << 20)
        self._deliver(reassembler, first)
        if self.state == "refused":
            await pc.close()
            raise HubRefused(self._refusal)
        self.state = "connected"
        channel.on_message(lambda m: self._deliver(reassembler, m))
        while not raw.empty():
            self._deliver(reassembler, raw.get_nowait())
        channel.on_lost(lambda: self._lost(pc))

    def _board_step(self, more: dict[str, Any] | None) -> None:
        if more is not None and self.channel is not None and self.channel.is_open:
            self.channel.send(json.dumps(more))
        if self.board.complete:
            self.board_loaded.set()
        else:
            self.board_loaded.clear()

    def join_frame(self, challenge: bytes, offer: str, answer: str) -> str | bytes:
        """The first frame on a new channel: who this guest is (its key, proven over the hub's
        challenge and both ends' fingerprints), and where its stream left off."""
        join = {
            "t": "guest-join",
            "key": public_key(self.identity),
            "signature": sign_join(self.identity, challenge, offer, answer),
            "name": self.name,
            "color": self.color,
            "lastSeq": self.last_seq,
        }
        return json.dumps(join)

    def _lost(self, pc: PeerLink) -> None:
        if pc is self.pc and not self._closing and self.state == "connected":
            self.state = "reconnecting"
            self._dropped.set()

    async def _signal(self, session: aiohttp.ClientSession, signal_url: str, offer: str, nonce: bytes) -> str:
        """Send the offer through the rendezvous and wait for the hub's answer to it."""
        message = GuestOffer(from_=self._conn(), sdp=offer, nonce=b64url(nonce))
        return (await self._ask(session, signal_url, message, HubAnswer)).sdp

    async def about(self) -> RoomAbout:
        """What the room is, before joining it: its project, host and the access this guest would get."""
        message = AboutAsk(from_=self._conn(), key=public_key(self.identity))
        async with asyncio.timeout(HANDSHAKE_TIMEOUT), aiohttp.ClientSession() as session:
            return await self._ask(session, self.rendezvous[self._using], message, RoomAbout)

    async def _turn(self, session: aiohttp.ClientSession, signal_url: str) -> list[IceServer]:
        """TURN credentials: through public relays, those the host minted and sealed in its reply
        about the room (the question comes first there); else the rendezvous's."""
        if not self.link.relays:
            return await self.turn.fetch(session, signal_url)
        about = await self._ask(session, signal_url, AboutAsk(from_=self._conn()), RoomAbout)
        return parse_turn_servers({"iceServers": about.ice_servers})

    def _conn(self) -> str:
        """The tag the hub's reply is addressed to: through relays, this guest's key there."""
        return self.nostr_key.public if self.link.relays else b64url(secrets.token_bytes(9))

    async def _ask(
        self, session: aiohttp.ClientSession, signal_url: str, message: GuestMessage, reply: type[Reply]
    ) -> Reply:
        """Seal `message` to the hub through the relays the link names, or else the rendezvous at
        `signal_url`; its `reply` to us."""
        sealed = signal_crypto.seal(self.key, message.model_dump(by_alias=True))
        if self.link.relays:
            topic = signal_crypto.topic(self.link.key)
            return await ask_over_relays(
                session,
                self.link.relays,
                self.nostr_key,
                topic,
                sealed,
                lambda text: self._reply_of(text, sealed, message, reply),
                HANDSHAKE_TIMEOUT,
            )
        url = f"{signal_url}?topic={signal_crypto.topic(self.link.key)}"
        async with session.ws_connect(url) as ws:
            await ws.send_str(sealed)
            async for msg in ws:
                if msg.type is aiohttp.WSMsgType.TEXT and (found := self._reply_of(msg.data, sealed, message, reply)):
                    return found
        raise ConnectionError("the rendezvous closed before the hub answered")

    def _reply_of(self, text: str, sealed: str, message: GuestMessage, reply: type[Reply]) -> Reply | None:
        """The hub's `reply` to `message` if `text` is it; raises HubRefused for a refusal."""
        if signal_crypto.refuses(self.link.host_key, text, sealed):
            raise HubRefused(WRONG_KEY)
        try:
            opened = signal_crypto.open_envelope(self.key, text)
        except signal_crypto.SignalError:
            return None
        if opened.get("to") != message.from_:
            return None
        try:
            if opened.get("kind") == "withdrawn":
                raise HubRefused(Withdrawn.model_validate(opened).reason or "this invitation was withdrawn")
            if opened.get("kind") == reply.model_fields["kind"].default:
                return reply.model_validate(opened)
        except ValidationError:
            raise ConnectionError(f"the hub's {opened.get('kind')} was not one canvas understands") from None
        return None

    def _check_proof(self, message: str | bytes, nonce: bytes, offer: str, answer: str) -> bytes:
        """Check the hub's proof of the host key; the challenge it sent for our own key to sign."""
        try:
            frame = json.loads(message)
            signature = b64url_decode(frame["signature"]) if frame.get("t") == "proof" else b""
            challenge = b64url_decode(frame["challenge"])
        except (ValueError, KeyError, TypeError, AttributeError):
            signature = challenge = b""
        proof = signal_crypto.proof_message(
            nonce, signal_crypto.sdp_fingerprint(offer), signal_crypto.sdp_fingerprint(answer)
        )
        if not signal_crypto.verify_proof(self.link.host_key, proof, signature):
            raise HubRefused("the hub could not prove it holds this room's host key: refusing it")
        return challenge

    # -- receiving ------------------------------------------------------------------------------

    _refusal = ""

    def _deliver(self, reassembler: Reassembler, message: str | bytes) -> None:
        try:
            if isinstance(message, bytes):
                # Frames sent deflated: never a piece of a chunked message, so the reassembler need not see them.
                whole: str | None = inflated_message(message, reassembler.limit)
            else:
                whole = reassembler.feed(message)
            if whole is None:
                return
            seq, frames = parse_stream_message(whole)
        except ValueError as exc:
            log.warning("bad message from the hub: %s", exc)
            return
        for index, frame in enumerate(frames):
            if seq is not None:
                if frame.get("t") == "gap":
                    # A new stream starts here: its numbers may restart below what we saw.
                    self.last_seq = None
                number = seq + index
                if self.last_seq is not None and number <= self.last_seq:
                    continue
                self.last_seq = number
            self._frame(frame)

    def _frame(self, frame: dict[str, Any]) -> None:
        kind = frame.get("t")
        if kind == "welcome":
            self.welcome = frame
            self._board_step(self.board.welcome(frame))
        elif kind == "board-part":
            self._board_step(self.board.part(frame))
        elif kind == "bye" or (kind == "error" and frame.get("ref") == "guest-join"):
            self.state = "refused"
            self._refusal = str(frame.get("reason") or frame.get("message"))
            self._closing = True
        if self.record:
            self.seen.append(frame)
            self.frames.put_nowait(frame)
        for listener in self.listeners:
            listener(frame)
