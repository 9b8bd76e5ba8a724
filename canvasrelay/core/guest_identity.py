"""A guest's identity, sans-I/O: the key pair it proves at each join, and what the room keeps of it.

A guest is its public key. Its id is a digest of that key, and each join carries the key's
signature over a challenge the hub made for that channel (bound to both DTLS fingerprints, as the
hub's own proof is), so a reconnect, a reload or a restart restores the same person, and nobody
without the private key can come back as them. The room keeps each identity's name, colour, own
access, the invites it came through, the terminals the host handed it and whether the host blocked
it; the store writes it to disk. What an invite gave is the person's only while the invite stands:
revoking it takes back the access and the terminals, whichever link the person uses next.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from canvasrelay.core.invites import OPEN_ID
from canvasrelay.protocol import signal_crypto
from canvasrelay.protocol.encoding import b64url, b64url_decode
from canvasrelay.protocol.guests import AccessLevel, GuestJoin

JOIN_PREFIX = b"canvas/guest-join/v1"
CHALLENGE_BYTES = 32
MAX_IDENTITIES = 1024
"""Identities kept; beyond it the one seen longest ago is forgotten (a blocked one is kept)."""


def guest_id_of(key: str) -> str:
    """The guest's id: a digest of its public key, so an id cannot be claimed without the key."""
    return b64url(hashlib.sha256(b64url_decode(key)).digest()[:16])


def join_message(challenge: bytes, guest_fingerprint: str, hub_fingerprint: str) -> bytes:
    return b"\n".join(
        [JOIN_PREFIX, challenge, guest_fingerprint.upper().encode("ascii"), hub_fingerprint.upper().encode("ascii")]
    )


def proven_guest(join: GuestJoin, challenge: bytes, guest_fingerprint: str, hub_fingerprint: str) -> str | None:
    """The id of the guest whose key signed this channel's challenge, or None when the signature fails."""
    try:
        signature = b64url_decode(join.signature)
    except ValueError:
        return None
    message = join_message(challenge, guest_fingerprint, hub_fingerprint)
    return guest_id_of(join.key) if signal_crypto.verify_proof(join.key, message, signature) else None


@dataclass(frozen=True)
class Identity:
    guest_id: str
    key: str
    name: str
    color: str
    invite_id: str
    own_access: AccessLevel | None = None
    blocked: bool = False
    last_seen: float = 0.0
    invites: tuple[str, ...] = ()
    """The named invites it came through, each of which set its access on first use."""
    terminals: tuple[str, ...] = ()
    """The terminals the host handed it (or it opened with the host's approval): kept like its
    access, through a drop and a restart, until its shell ends or the host takes it back."""


class Identities:
    """Every guest the room knows, by id; `clock` is wall time, as the store outlives the process."""

    def __init__(self, clock: Callable[[], float], saved: Iterable[Identity] = ()) -> None:
        self.clock = clock
        self.known: dict[str, Identity] = {}
        self.listeners: list[Callable[[], None]] = []
        for identity in saved:
            # A record written before identities listed their invites knew only the last one.
            named = () if identity.invite_id == OPEN_ID or identity.invites else (identity.invite_id,)
            self.known[identity.guest_id] = replace(identity, invites=identity.invites or named)

    def get(self, guest_id: str) -> Identity | None:
        return self.known.get(guest_id)

    def seen(self, guest_id: str, key: str, name: str, color: str, invite_id: str) -> Identity:
        """A guest came in through `invite_id`: remember it (a new one), or update what it is called."""
        now = self.clock()
        known = self.known.get(guest_id)
        identity = (
            Identity(guest_id, key, name, color, invite_id, last_seen=now)
            if known is None
            else replace(known, name=name, color=color, invite_id=invite_id, last_seen=now)
        )
        self._put(identity)
        self._bound()
        return identity

    def uses(self, guest_id: str, invite_id: str) -> bool:
        """Whether this is the first time `guest_id` comes through the named invite `invite_id` (it
        is noted): that invite's access is then the person's."""
        known = self.known.get(guest_id)
        if known is None or invite_id == OPEN_ID or invite_id in known.invites:
            return False
        self._put(replace(known, invites=(*known.invites, invite_id)))
        return True

    def set_access(self, guest_id: str, access: AccessLevel | None) -> None:
        known = self.known.get(guest_id)
        if known is not None and known.own_access != access:
            self._put(replace(known, own_access=access))

    def set_terminals(self, guest_id: str, terminals: Iterable[str]) -> None:
        known = self.known.get(guest_id)
        held = tuple(sorted(terminals))
        if known is not None and known.terminals != held:
            self._put(replace(known, terminals=held))

    def holding(self, terminal_id: str) -> list[Identity]:
        """Who was handed `terminal_id` and is not blocked, here or not."""
        return [i for i in self.known.values() if terminal_id in i.terminals and not i.blocked]

    def revoked(self, invite_id: str) -> list[Identity]:
        """The invite `invite_id` was revoked: whoever came through it loses the access it gave and
        comes back, through any link, as a new guest (the room takes its terminals back). Returns them."""
        came = [i for i in self.known.values() if invite_id in i.invites]
        for identity in came:
            kept = tuple(i for i in identity.invites if i != invite_id)
            self._put(replace(identity, invites=kept, own_access=None))
        return came

    def block(self, guest_id: str) -> None:
        known = self.known.get(guest_id)
        if known is not None:
            self._put(replace(known, blocked=True, own_access=None, terminals=()))

    def unblock(self, guest_id: str) -> Identity | None:
        known = self.known.get(guest_id)
        if known is None or not known.blocked:
            return None
        self._put(replace(known, blocked=False))
        return known

    def blocked(self) -> list[Identity]:
        return [i for i in self.known.values() if i.blocked]

    def is_blocked(self, guest_id: str) -> bool:
        known = self.known.get(guest_id)
        return known is not None and known.blocked

    def through(self, invite_id: str) -> list[Identity]:
        return [i for i in self.known.values() if i.invite_id == invite_id]

    def _put(self, identity: Identity) -> None:
        self.known[identity.guest_id] = identity
        for listener in self.listeners:
            listener()

    def _bound(self) -> None:
        unblocked = sorted((i for i in self.known.values() if not i.blocked), key=lambda i: i.last_seen)
        for identity in unblocked[: max(0, len(self.known) - MAX_IDENTITIES)]:
            del self.known[identity.guest_id]
