"""The room's secrets: room id, room key, host token and the host's ECDSA P-256 key pair.

They live in `<dir>/.canvas/secrets.json` (mode 0600, folder 0700) so the links printed on one
start keep working after a restart; `rotate` makes new ones and old links stop working.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from canvasrelay.protocol.encoding import b64url

SECRETS_FILE = "secrets.json"


@dataclass(frozen=True)
class RoomSecrets:
    room_id: str
    room_key: str
    token: str
    host_private_key: ec.EllipticCurvePrivateKey

    @property
    def host_public_key(self) -> str:
        """The public key as an uncompressed point, base64url: the form WebCrypto imports as raw."""
        point = self.host_private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)

    def token_matches(self, candidate: str) -> bool:
        try:
            given = candidate.encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate (from a JSON escape, or a header's undecodable byte) is no token.
            return False
        return hmac.compare_digest(given, self.token.encode("utf-8"))

    @classmethod
    def generate(cls) -> RoomSecrets:
        return cls(
            room_id=b64url(secrets.token_bytes(16)),
            room_key=b64url(secrets.token_bytes(32)),
            token=b64url(secrets.token_bytes(32)),
            host_private_key=ec.generate_private_key(ec.SECP256R1()),
        )

    def to_json(self) -> str:
        pem = self.host_private_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        return json.dumps(
            {
                "roomId": self.room_id,
                "roomKey": self.room_key,
                "token": self.token,
                "hostPrivateKey": pem.decode("ascii"),
            }
        )

    @classmethod
    def from_json(cls, text: str) -> RoomSecrets:
        data = json.loads(text)
        key = serialization.load_pem_private_key(data["hostPrivateKey"].encode("ascii"), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise ValueError("host key is not an EC key")
        return cls(data["roomId"], data["roomKey"], data["token"], key)


def ensure_private_dir(canvas_dir: Path) -> Path:
    canvas_dir.mkdir(mode=0o700, exist_ok=True)
    os.chmod(canvas_dir, 0o700)
    return canvas_dir


def write_private_file(path: Path, text: str) -> None:
    """Write atomically with mode 0600 from the first byte, so the secret is never world-readable."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def load_or_create(canvas_dir: Path, rotate: bool = False) -> RoomSecrets:
    path = ensure_private_dir(canvas_dir) / SECRETS_FILE
    if path.exists() and not rotate:
        os.chmod(path, 0o600)
        return RoomSecrets.from_json(path.read_text(encoding="utf-8"))
    room = RoomSecrets.generate()
    write_private_file(path, room.to_json())
    return room
