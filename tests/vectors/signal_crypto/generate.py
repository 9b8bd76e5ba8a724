"""Writes vectors.json: what canvas's Python side derives, seals and signs for the browser's side
(web/src/join/signalCrypto.test.ts, through WebCrypto and through the pure-JS fallback) to match.

Run: .venv/bin/python tests/vectors/signal_crypto/generate.py. Everything in the file is fixed:
envelopes are sealed with a nonce named for each, signatures are deterministic (RFC 6979), so
tests/test_signal_crypto_vectors.py checks the file regenerates identically and that Python's own
functions accept every vector. The hub's proofs include a high S (WebCrypto and OpenSSL sign with
either half), which a verifier that wants low S alone would wrongly refuse; a guest's join is low
S, as the fallback signs it, so the browser must make the very same signature from the secret.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from canvasrelay.core.guest_identity import join_message
from canvasrelay.protocol import signal_crypto
from canvasrelay.protocol.encoding import b64url

HERE = Path(__file__).parent
SEALED_AT = 1_767_225_600.5
"""2026-01-01: the browser's test sets its clock here to open the envelopes."""
ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
"""P-256's group order n."""


def _digest(name: str) -> bytes:
    return hashlib.sha256(f"canvas signal vector {name}".encode()).digest()


def _fingerprint(name: str) -> str:
    return ":".join(f"{byte:02X}" for byte in _digest(name))


def _key(name: str) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(int.from_bytes(_digest(name)) % ORDER, ec.SECP256R1())


def _point(key: ec.EllipticCurvePrivateKey) -> str:
    encoding, form = serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    return b64url(key.public_key().public_bytes(encoding, form))


def _sign(key: ec.EllipticCurvePrivateKey, message: bytes) -> tuple[int, int]:
    r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256(), deterministic_signing=True)))
    return r, s


def _raw(r: int, s: int) -> str:
    return b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


ROOM_KEY = b64url(_digest("room key"))


def envelopes() -> list[dict[str, Any]]:
    key = signal_crypto.signal_key(ROOM_KEY)
    messages = {
        "an offer": {"kind": "offer", "from": "page-1", "sdp": "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n"},
        "text beyond ASCII": {"kind": "about", "from": "page-2", "name": "Grüße 😀 界"},
    }
    out = []
    for name, message in messages.items():
        body = json.dumps({**message, "ts": SEALED_AT}, separators=(",", ":")).encode()
        nonce = _digest(name)[: signal_crypto.NONCE_BYTES]
        envelope = b64url(nonce + AESGCM(key).encrypt(nonce, body, signal_crypto.SIGNAL_INFO))
        out.append({"name": name, "message": {**message, "ts": SEALED_AT}, "envelope": envelope})
    return out


def proofs() -> list[dict[str, Any]]:
    """The hub's proofs by one host key: the first whose S is low and the first whose S is high."""
    host = _key("host")
    found: dict[bool, dict[str, Any]] = {}
    attempt = 0
    while len(found) < 2:
        nonce = _digest(f"nonce {attempt}")
        guest, hub = _fingerprint(f"guest {attempt}"), _fingerprint(f"hub {attempt}")
        r, s = _sign(host, signal_crypto.proof_message(nonce, guest, hub))
        high = s > ORDER // 2
        found.setdefault(
            high,
            {
                "name": "a high S" if high else "a low S",
                "hostKey": _point(host),
                "nonce": b64url(nonce),
                "guestFingerprint": guest,
                "hubFingerprint": hub,
                "signature": _raw(r, s),
            },
        )
        attempt += 1
    return [found[False], found[True]]


def joins() -> list[dict[str, Any]]:
    """A guest's signatures over the hub's challenge, low S."""
    out = []
    for name in ("a guest", "another guest"):
        guest = _key(name)
        challenge = _digest(f"challenge {name}")
        mine, hubs = _fingerprint(f"guest {name}"), _fingerprint(f"hub {name}")
        r, s = _sign(guest, join_message(challenge, mine, hubs))
        out.append(
            {
                "name": name,
                "secret": b64url(guest.private_numbers().private_value.to_bytes(32, "big")),
                "key": _point(guest),
                "challenge": b64url(challenge),
                "guestFingerprint": mine,
                "hubFingerprint": hubs,
                "signature": _raw(r, min(s, ORDER - s)),
            }
        )
    return out


def vectors() -> dict[str, Any]:
    return {
        "roomKey": ROOM_KEY,
        "turnProof": signal_crypto.turn_proof(ROOM_KEY),
        "topic": signal_crypto.topic(ROOM_KEY),
        "sealedAt": SEALED_AT,
        "envelopes": envelopes(),
        "proofs": proofs(),
        "joins": joins(),
    }


def render(made: dict[str, Any]) -> str:
    return json.dumps(made, indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    (HERE / "vectors.json").write_text(render(vectors()), encoding="utf-8")
