"""Nostr events (NIP-01) as canvas's rendezvous uses them: signed with BIP-340 Schnorr
signatures over secp256k1, with a key made fresh for each host start and each page load.

The events carry canvas's signalling envelope (AES-GCM, the invitation's key) as their content
and an opaque topic as their tag: relays see ciphertext, a hash and timing, never the SDP or
the room's key. Every event read from a relay is untrusted: `parse_event` checks its shape, its
bounds, its id and its signature before anything reads its content.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import dataclass

import coincurve

SIGNAL_KIND = 25050
"""Ephemeral (20000 to 29999: relays pass it on and keep nothing); the kind Nostr's drafts for
WebRTC signalling use."""
TOPIC_TAG = "x"
"""The tag that carries an invitation's topic: a single letter, which relays index (NIP-01)."""
TO_TAG = "p"
"""The tag that names the page (by its key) an answer is for."""
CONTENT_MAX = 64 * 1024
TAGS_MAX = 8
HEX64 = re.compile(r"[0-9a-f]{64}\Z")
HEX128 = re.compile(r"[0-9a-f]{128}\Z")


class EventError(ValueError):
    """An event that is not a well-formed, correctly signed one; the message says what is wrong."""


@dataclass(frozen=True)
class NostrKey:
    """A key pair made for one host start or one page load; never stored."""

    secret: bytes

    @classmethod
    def fresh(cls) -> NostrKey:
        return cls(secrets.token_bytes(32))

    @property
    def public(self) -> str:
        """The x-only public key, hex: what events name as their `pubkey`."""
        return coincurve.PrivateKey(self.secret).public_key_xonly.format().hex()

    def sign(
        self, kind: int, tags: list[list[str]], content: str, created_at: int | None = None, aux: bytes | None = None
    ) -> dict[str, object]:
        """The signed event; `aux` (BIP-340's auxiliary randomness) is fresh unless given, as the
        cross-language vectors give it so that both sides must produce the same signature."""
        created = int(time.time()) if created_at is None else created_at
        pubkey = self.public
        event_id = _event_id(pubkey, created, kind, tags, content)
        randomness = aux or secrets.token_bytes(32)
        signature = coincurve.PrivateKey(self.secret).sign_schnorr(bytes.fromhex(event_id), randomness)
        return {
            "id": event_id,
            "pubkey": pubkey,
            "created_at": created,
            "kind": kind,
            "tags": tags,
            "content": content,
            "sig": signature.hex(),
        }


@dataclass(frozen=True)
class Event:
    id: str
    pubkey: str
    created_at: int
    kind: int
    tags: tuple[tuple[str, ...], ...]
    content: str

    def tag(self, name: str) -> str | None:
        return next((tag[1] for tag in self.tags if len(tag) > 1 and tag[0] == name), None)


def signal_event(key: NostrKey, envelope: str, topic: str | None = None, to: str | None = None) -> dict[str, object]:
    """One signalling event: on an invitation's `topic` (a guest's offer) or `to` a page's key
    (the host's answer)."""
    tags = ([[TOPIC_TAG, topic]] if topic else []) + ([[TO_TAG, to]] if to else [])
    return key.sign(SIGNAL_KIND, tags, envelope)


def parse_event(value: object) -> Event:
    """The event a relay sent, checked: its fields and their bounds, its id, its signature."""
    if not isinstance(value, dict):
        raise EventError("an event must be an object")
    pubkey, event_id, sig = value.get("pubkey"), value.get("id"), value.get("sig")
    created, kind, tags, content = value.get("created_at"), value.get("kind"), value.get("tags"), value.get("content")
    if not (isinstance(pubkey, str) and HEX64.match(pubkey)):
        raise EventError("pubkey must be 64 hex digits")
    if not (isinstance(event_id, str) and HEX64.match(event_id) and isinstance(sig, str) and HEX128.match(sig)):
        raise EventError("id and sig must be hex digits")
    if not (isinstance(created, int) and isinstance(kind, int) and not isinstance(kind, bool)):
        raise EventError("created_at and kind must be integers")
    if not (isinstance(content, str) and len(content) <= CONTENT_MAX):
        raise EventError(f"content must be text of at most {CONTENT_MAX} characters")
    if not (isinstance(tags, list) and len(tags) <= TAGS_MAX):
        raise EventError(f"tags must be a list of at most {TAGS_MAX}")
    if not all(
        isinstance(tag, list) and all(isinstance(part, str) and len(part) <= 256 for part in tag) for tag in tags
    ):
        raise EventError("each tag must be a list of short strings")
    if _event_id(pubkey, created, kind, tags, content) != event_id:
        raise EventError("the id is not the hash of the event")
    try:
        signed = coincurve.PublicKeyXOnly(bytes.fromhex(pubkey)).verify(bytes.fromhex(sig), bytes.fromhex(event_id))
    except ValueError as exc:
        raise EventError(f"the signature cannot be checked: {exc}") from None
    if not signed:
        raise EventError("the signature does not match")
    return Event(event_id, pubkey, created, kind, tuple(tuple(tag) for tag in tags), content)


def _event_id(pubkey: str, created_at: int, kind: int, tags: list[list[str]], content: str) -> str:
    serialised = json.dumps([0, pubkey, created_at, kind, tags, content], separators=(",", ":"), ensure_ascii=False)
    try:
        encoded = serialised.encode("utf-8")
    except UnicodeEncodeError:
        # JSON may carry a lone surrogate (`"\ud800"`), which has no UTF-8 form, so no id: left
        # uncaught, one such event from a stranger ended the relay link that read it.
        raise EventError("the event's text is not Unicode (a lone surrogate)") from None
    return hashlib.sha256(encoded).hexdigest()
