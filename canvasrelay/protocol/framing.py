"""Data-channel framing: numbered, coalesced messages, chunks above the 256 KiB cap, and messages
sent deflated, for both ends."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from typing import Any

from canvasrelay.protocol.base import MAX_FRAME_BYTES, FrameError, load_bounded

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


_CHUNK_ID = re.compile(r'\{"t":"chunk","id":(\d{1,15})[,}]')
CHUNK_FIELDS = 4
"""`t`, `id`, `more`, `data`: a chunk is one flat object."""


class Reassembler:
    """Joins `chunk` pieces back into messages; refuses a message above `limit` bytes of UTF-8."""

    def __init__(self, limit: int = MAX_FRAME_BYTES) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0
        self.discarding: int | None = None
        """The id of a chunked message one piece of which was dropped: its other pieces go too."""

    def discard(self, message: str) -> None:
        """`message` was dropped unread; if it is a piece of a chunked message, that whole message goes."""
        match = _CHUNK_ID.match(message)
        if match is not None:
            self.parts, self.size = [], 0
            self.discarding = int(match.group(1))

    def feed(self, message: str) -> str | None:
        """The whole message once complete; raises ValueError when a chunk is malformed or too large."""
        if not message.startswith('{"t":"chunk"'):
            self.discarding = None
            if self.parts:
                self.parts, self.size = [], 0
                raise ValueError("a chunked message was interrupted")
            return message
        try:
            piece = load_bounded(message, max_depth=1, max_elements=CHUNK_FIELDS)
        except FrameError:
            self.parts, self.size = [], 0
            raise ValueError("malformed chunk") from None
        data, more = piece.get("data"), piece.get("more")
        if not isinstance(data, str) or not isinstance(more, bool):
            self.parts, self.size = [], 0
            raise ValueError("malformed chunk")
        if self.discarding is not None:
            if piece.get("id") == self.discarding:
                self.discarding = self.discarding if more else None
                return None
            self.discarding = None
        self.size += len(data.encode("utf-8", "surrogatepass"))
        if self.size > self.limit:
            self.parts, self.size = [], 0
            # The message's other pieces go too, rather than end as a message of their own.
            piece_id = piece.get("id")
            self.discarding = piece_id if more and isinstance(piece_id, int) else None
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


SEQ_BYTES = 8
"""A compressed message starts with its first frame's `seq`, big-endian; its frames follow,
comma-separated and deflated (zlib)."""


def compressed_message(seq: int, deflated: bytes) -> bytes:
    """Frames as a binary message: what a text message `[seq,frame,frame…]` says, in fewer bytes."""
    return seq.to_bytes(SEQ_BYTES, "big") + deflated


def inflated_message(message: bytes, limit: int) -> str:
    """A compressed message as the text message it stands for, `[seq,frame,frame…]`; ValueError when
    it is malformed, or its frames inflate above `limit` bytes (a small message may stand for a huge one)."""
    if len(message) <= SEQ_BYTES:
        raise ValueError("a compressed message without its frames")
    inflater = zlib.decompressobj()
    try:
        frames = inflater.decompress(message[SEQ_BYTES:], limit + 1)
    except zlib.error:
        raise ValueError("a compressed message that does not inflate") from None
    if len(frames) > limit or inflater.unconsumed_tail:
        raise ValueError(f"a compressed message above {limit} bytes")
    if not inflater.eof:
        raise ValueError("a compressed message cut short")
    return f"[{int.from_bytes(message[:SEQ_BYTES], 'big')},{frames.decode('utf-8')}]"
