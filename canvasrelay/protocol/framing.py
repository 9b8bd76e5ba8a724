"""Data-channel framing: numbered, coalesced messages and chunks above the 256 KiB cap, for both ends."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from canvasrelay.protocol.base import MAX_FRAME_BYTES

MAX_MESSAGE_BYTES = 256 * 1024
"""Chromium's largest data-channel message."""


CHUNK_CHARS = 60_000
"""A chunk's characters; even if each took 4 bytes of UTF-8, a chunk stays under the cap."""


def chunks(text: str, message_id: int) -> Iterator[str]:
    """One message as chunk frames when it is above the cap, else the message itself."""
    if len(text.encode("utf-8")) <= MAX_MESSAGE_BYTES:
        yield text
        return
    for start in range(0, len(text), CHUNK_CHARS):
        piece = text[start : start + CHUNK_CHARS]
        more = start + CHUNK_CHARS < len(text)
        yield json.dumps(
            {"t": "chunk", "id": message_id, "more": more, "data": piece}, ensure_ascii=False, separators=(",", ":")
        )


class Reassembler:
    """Joins `chunk` pieces back into messages; refuses a message above `limit`."""

    def __init__(self, limit: int = MAX_FRAME_BYTES) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0

    def feed(self, message: str) -> str | None:
        """The whole message once complete; raises ValueError when a chunk is malformed or too large."""
        if not message.startswith('{"t":"chunk"'):
            if self.parts:
                raise ValueError("a chunked message was interrupted")
            return message
        piece = json.loads(message)
        data, more = piece.get("data"), piece.get("more")
        if not isinstance(data, str) or not isinstance(more, bool):
            self.parts, self.size = [], 0
            raise ValueError("malformed chunk")
        self.size += len(data)
        if self.size > self.limit:
            self.parts, self.size = [], 0
            raise ValueError(f"chunked frame too large (limit {self.limit} bytes)")
        self.parts.append(data)
        if more:
            return None
        whole = "".join(self.parts)
        self.parts, self.size = [], 0
        return whole


def parse_stream_message(message: str) -> tuple[int | None, list[Any]]:
    """A hub message as (seq of its first frame, frames); unnumbered messages give (None, [frame])."""
    data = json.loads(message)
    if isinstance(data, list):
        if not data or not isinstance(data[0], int):
            raise ValueError("stream message without a seq")
        return data[0], data[1:]
    return None, [data]
