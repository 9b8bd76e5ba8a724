"""Who may start a handshake with the hub, and who may take a place in the room: the hub's
decisions, with no I/O (the hub holds the peer connections and asks here).

An offer is refused, cheapest check first, when it was seen before (a replay), when a handshake
from the same source (its DTLS fingerprint or its connection) or too many from its sender (an
address, as the rendezvous tags it) are under way, when the hub's or its invitation's handshake
slots are full, or when its sender or its invitation offers too fast. A proven guest joins when
there is a place: the room holds `max_guests`, and a guest whose channel dropped keeps its place
for a grace, until a new guest needs it (the one away longest gives way first).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field

from canvasrelay.core.rate_limit import BucketPerKey, Clock, SeenOnce
from canvasrelay.protocol import signal_crypto
from canvasrelay.protocol.people import MAX_INVITES

MAX_GUESTS = 64
MAX_HANDSHAKES = 16
HANDSHAKES_PER_SOURCE = 1
"""A source is an offer's DTLS fingerprint, or the connection it names: every copy of one offer,
even sealed anew by someone holding the room key, holds one handshake slot at most."""
HANDSHAKES_PER_INVITE = MAX_HANDSHAKES - 4
"""One invite's holders leave 4 handshake slots for the others' guests."""
HANDSHAKES_PER_SENDER = 6
"""Handshakes under way from one sender: ten guests behind one address join in two rounds."""
SEEN_WINDOW = 2 * signal_crypto.MAX_AGE_SECONDS
"""An envelope opens for MAX_AGE either side of its timestamp, so its nonce is kept this long."""
SEEN_MAX = 16_384
OFFER_RATE, OFFER_BURST = 10.0, 20.0
"""New handshakes a second the hub starts per invite (copies of an offer do not count)."""
OFFER_KEYS = 2 * MAX_INVITES
ABOUT_RATE, ABOUT_BURST = 5.0, 10.0
"""Answers a second, per invite, to join pages asking what room this is."""
SENDER_OFFER_RATE, SENDER_OFFER_BURST = 3.0, 10.0
"""Offers a second from one sender: a flood from one link holder spends its own share, and the
rest of `OFFER_RATE` is left to everyone else."""
SENDER_ABOUT_RATE, SENDER_ABOUT_BURST = 1.0, 10.0
JOIN_RATE, JOIN_BURST = 0.5, 6.0
"""Joins a second one guest identity may make, and at once: a reconnecting guest never notices."""
JOIN_IDENTITIES_MAX = 4096


@dataclass(frozen=True)
class Handshake:
    invite_id: str
    sources: tuple[str, ...]
    """Its offer's fingerprint and connection: every copy of the offer names the same."""
    sender: str


@dataclass
class GuestAdmission:
    max_guests: int = MAX_GUESTS
    clock: Clock = time.monotonic
    handshakes: dict[Hashable, Handshake] = field(default_factory=dict)
    """The handshakes under way, by offer."""
    away: dict[str, float] = field(default_factory=dict)
    """Guests whose channel dropped and whose place is kept, with when they went."""

    def __post_init__(self) -> None:
        self._seen = SeenOnce(SEEN_WINDOW, SEEN_MAX, self.clock)
        self._offers = BucketPerKey(OFFER_RATE, OFFER_BURST, OFFER_KEYS, self.clock)
        """Per invite: one invite's holders flooding cannot spend another's."""
        self._abouts = BucketPerKey(ABOUT_RATE, ABOUT_BURST, OFFER_KEYS, self.clock)
        self._sender_offers = BucketPerKey(SENDER_OFFER_RATE, SENDER_OFFER_BURST, JOIN_IDENTITIES_MAX, self.clock)
        self._sender_abouts = BucketPerKey(SENDER_ABOUT_RATE, SENDER_ABOUT_BURST, JOIN_IDENTITIES_MAX, self.clock)
        self._joins = BucketPerKey(JOIN_RATE, JOIN_BURST, JOIN_IDENTITIES_MAX, self.clock)

    # -- handshakes --------------------------------------------------------------------------

    def may_ask_about(self, sender: str, invite_id: str) -> bool:
        """A join page's question (what room is this?) is answered: paced on buckets of its own,
        so a flood of questions spends no guest's offer."""
        return self._sender_abouts.take(sender) and self._abouts.take(invite_id)

    def offer_refusal(self, nonce: bytes, handshake: Handshake) -> str | None:
        """Why this offer gets no handshake, if it does not. Cheapest first: a copy costs nothing."""
        if not self._seen.first_sight(nonce):
            return "a replayed offer"
        running = Counter(source for held in self.handshakes.values() for source in held.sources)
        if any(running[source] >= HANDSHAKES_PER_SOURCE for source in handshake.sources):
            return "a handshake from the same source is under way"
        if sum(1 for held in self.handshakes.values() if held.sender == handshake.sender) >= HANDSHAKES_PER_SENDER:
            return "too many handshakes from one sender at once"
        if len(self.handshakes) >= MAX_HANDSHAKES:
            return "too many handshakes at once"
        on_invite = sum(1 for held in self.handshakes.values() if held.invite_id == handshake.invite_id)
        if on_invite >= HANDSHAKES_PER_INVITE:
            return "too many handshakes at once on one invitation"
        if not self._sender_offers.take(handshake.sender):
            return "too many offers a second from one sender"
        if not self._offers.take(handshake.invite_id):
            return "too many offers a second"
        return None

    # -- places ------------------------------------------------------------------------------

    def room_refusal(self, arriving: bool, present: int) -> str | None:
        """Why a guest may not take a place, if it may not: the room is full and nobody's place is
        only kept. `present` counts the guests in the room and those away within their grace."""
        if arriving and present >= self.max_guests and not self.away:
            return f"the room is full ({self.max_guests} guests)"
        return None

    def may_join_now(self, guest_id: str) -> bool:
        """Counted once the guest's key proved itself, so nobody else can spend a guest's joins."""
        return self._joins.take(guest_id)

    def gives_way(self, arriving: bool, present: int) -> str | None:
        """The guest away longest, whose place an arriving guest takes in a full room."""
        if not arriving or present < self.max_guests or not self.away:
            return None
        return min(self.away, key=lambda guest_id: self.away[guest_id])

    def went_away(self, guest_id: str) -> None:
        self.away[guest_id] = self.clock()

    def returned(self, guest_id: str) -> None:
        self.away.pop(guest_id, None)
