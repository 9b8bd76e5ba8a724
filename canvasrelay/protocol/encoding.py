"""URL-safe base64 without padding, as room links and signalling carry it; text digests."""

from __future__ import annotations

import base64
import hashlib


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def text_sha256(text: str) -> str:
    """SHA-256 of `text` as UTF-8, hex: how an approval request and the turn it runs name their text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
