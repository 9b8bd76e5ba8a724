"""Signalling crypto: the rendezvous topic, sealed envelopes, and the hub's proof of the host key.

The rendezvous sees only `topic(room_key)` (which the room id alone cannot name) and ciphertext.
Envelopes are AES-256-GCM under a key derived from the room key, so only holders of the room
link can read or forge signalling. Once a data channel opens, the hub signs the guest's nonce
together with both DTLS fingerprints; a signature bound to the fingerprints cannot be replayed
by a man in the middle who holds the room key but not the host key, because his DTLS fingerprint
would differ.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Mapping

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from canvasrelay.protocol.encoding import b64url, b64url_decode
from canvasrelay.protocol.json_value import JsonObject

SIGNAL_INFO = b"canvas/signal/v1"
TURN_INFO = b"canvas/turn/v1"
TOPIC_PREFIX = b"canvas/topic/v1:"
PROOF_PREFIX = b"canvas/proof/v1"
REFUSAL_PREFIX = b"canvas/refusal/v1"
REFUSAL_TAG = "refused."
"""Refusals travel in the clear; `.` is not base64url, so no envelope starts like one."""
NONCE_BYTES = 12
GUEST_NONCE_BYTES = 32
MAX_AGE_SECONDS = 120.0
"""An envelope older than this is refused, so a recorded offer cannot be replayed much later."""

_FINGERPRINT = re.compile(r"^a=fingerprint:sha-256 ([0-9A-Fa-f:]{95})\s*$", re.MULTILINE)


class SignalError(Exception):
    """An envelope or proof that does not check out; deliberately vague about why."""


class SealedForAnotherKey(SignalError):
    """A well-formed envelope that this key does not open: its sender holds another room key."""


def topic(room_key: str) -> str:
    """The room's topic on the rendezvous: derived from the key through the TURN verifier, so the
    room id alone names no topic, and the rendezvous can check that a host registering a verifier
    registers it for its own topic (adr/0014-topic-admission.md)."""
    return topic_of_verifier(turn_verifier(turn_proof(room_key)))


def topic_of_verifier(verifier: str) -> str:
    return b64url(hashlib.sha256(TOPIC_PREFIX + b64url_decode(verifier)).digest())


def _derive(room_key: str, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(b64url_decode(room_key))


def signal_key(room_key: str) -> bytes:
    return _derive(room_key, SIGNAL_INFO)


def turn_proof(room_key: str) -> str:
    """What a room-link holder presents to the rendezvous for TURN credentials; it reveals nothing of the key."""
    return b64url(_derive(room_key, TURN_INFO))


def turn_verifier(proof: str) -> str:
    """What the host registers for its topic: the rendezvous can check a proof against it, not forge one."""
    return b64url(hashlib.sha256(b64url_decode(proof)).digest())


def seal(key: bytes, message: Mapping[str, object], now: float | None = None) -> str:
    """`message` (see `signal_messages`) sealed, with the time it was sealed."""
    body = json.dumps({**message, "ts": now if now is not None else time.time()}, separators=(",", ":"))
    nonce = os.urandom(NONCE_BYTES)
    return b64url(nonce + AESGCM(key).encrypt(nonce, body.encode("utf-8"), SIGNAL_INFO))


def open_envelope(key: bytes, envelope: str, now: float | None = None) -> JsonObject:
    """The message sealed in `envelope`, if it opens and is fresh: still to be read field by field."""
    try:
        raw = b64url_decode(envelope)
        plain = AESGCM(key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], SIGNAL_INFO)
        message = json.loads(plain)
    except InvalidTag:
        raise SealedForAnotherKey("envelope does not open") from None
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise SignalError("envelope does not open") from None
    if not isinstance(message, dict) or not isinstance(message.get("ts"), int | float):
        raise SignalError("envelope is malformed")
    age = (now if now is not None else time.time()) - message["ts"]
    if not -MAX_AGE_SECONDS < age < MAX_AGE_SECONDS:
        raise SignalError("envelope is stale")
    return message


def sdp_fingerprint(sdp: str) -> str:
    """The SHA-256 DTLS fingerprint an SDP announces, upper case: the form both sides sign and check."""
    match = _FINGERPRINT.search(sdp)
    if match is None:
        raise SignalError("SDP has no sha-256 fingerprint")
    return match.group(1).upper()


def proof_message(nonce: bytes, guest_fingerprint: str, hub_fingerprint: str) -> bytes:
    return b"\n".join(
        [PROOF_PREFIX, nonce, guest_fingerprint.upper().encode("ascii"), hub_fingerprint.upper().encode("ascii")]
    )


def sign_proof(key: ec.EllipticCurvePrivateKey, message: bytes) -> bytes:
    """ECDSA P-256 / SHA-256 as raw r‖s, each half padded to 32 bytes: WebCrypto's form."""
    r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def verify_proof(host_public_key: str, message: bytes, signature: bytes) -> bool:
    if len(signature) != 64:
        return False
    try:
        point = b64url_decode(host_public_key)
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        key.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True


def _refusal_digest(envelope: str) -> bytes:
    return hashlib.sha256(REFUSAL_PREFIX + envelope.encode("utf-8")).digest()[:16]


def refusal(key: ec.EllipticCurvePrivateKey, envelope: str) -> str:
    """The hub's answer to an envelope sealed with another room key, signed with the host key, so
    the guest learns its link's key is wrong at once and nobody else can make it think so."""
    digest = _refusal_digest(envelope)
    return REFUSAL_TAG + b64url(digest) + "." + b64url(sign_proof(key, REFUSAL_PREFIX + digest))


def refuses(host_public_key: str, message: str, envelope: str) -> bool:
    """Whether `message` is the hub's signed refusal of `envelope`."""
    if not message.startswith(REFUSAL_TAG):
        return False
    digest, _, signature = message[len(REFUSAL_TAG) :].partition(".")
    try:
        if b64url_decode(digest) != _refusal_digest(envelope):
            return False
        return verify_proof(host_public_key, REFUSAL_PREFIX + b64url_decode(digest), b64url_decode(signature))
    except ValueError:
        return False
