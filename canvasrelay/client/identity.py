"""A guest's own key pair: made once, kept in `canvas join`'s config folder (0600), proven at each join.

The hub knows a guest by this key, so the same person comes back with the same access after a
reconnect or the host's restart, and a removed person stays out whatever link they hold.
"""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from canvasrelay.core.guest_identity import join_message
from canvasrelay.protocol import signal_crypto
from canvasrelay.protocol.encoding import b64url

KEY_FILE = "identity.pem"


def public_key(identity: ec.EllipticCurvePrivateKey) -> str:
    point = identity.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def sign_join(identity: ec.EllipticCurvePrivateKey, challenge: bytes, offer: str, answer: str) -> str:
    """Our signature over the hub's challenge and both DTLS fingerprints, as `guest-join` carries it."""
    message = join_message(challenge, signal_crypto.sdp_fingerprint(offer), signal_crypto.sdp_fingerprint(answer))
    return b64url(signal_crypto.sign_proof(identity, message))


def config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "canvas"


def load_or_create(folder: Path) -> ec.EllipticCurvePrivateKey:
    """This machine's guest identity, made on first use; the file is 0600 from its first byte."""
    path = folder / KEY_FILE
    if path.exists():
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        if isinstance(key, ec.EllipticCurvePrivateKey):
            return key
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(pem)
    os.replace(tmp, path)
    return key
