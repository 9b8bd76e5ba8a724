"""Each frame for the guests deflated once, however many guests it goes to.

The runtime encodes a broadcast once and hands the same `str` to every guest's stream; each
stream's writer asks here for it deflated, and the first to ask pays for it. Output a terminal or
an agent streams deflates 3 to 8 times at level 1 for a few µs a KB, while every byte a guest is
sent costs the pure-Python SCTP and DTLS under it tens of µs a KB, for each guest.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict

from canvasrelay.protocol.framing import MAX_MESSAGE_BYTES, SEQ_BYTES

COMPRESS_MIN_CHARS = 2048
"""Smaller frames travel coalesced, as text: deflating one alone gains little."""
COMPRESS_MAX_CHARS = 128 * 1024
"""Larger ones (a big board's welcome, sent to one guest) travel as chunks: deflating them at once
would hold the event loop for tens of milliseconds. A terminal's frames (64 KiB of output) fit."""
LEVEL = 1
KEEP = 32
"""Frames remembered: a guest's writer lags the first one's by fewer than this, or deflates anew."""


class DeflateOnce:
    def __init__(self) -> None:
        self._recent: OrderedDict[int, tuple[str, bytes | None]] = OrderedDict()
        """By the frame's `id`, with the frame itself kept alive so the `id` cannot be reused meanwhile."""

    def deflated(self, frame: str) -> bytes | None:
        """`frame` deflated, or None when it is to travel as text (too small, too large, or still above
        the message cap once deflated)."""
        if not COMPRESS_MIN_CHARS <= len(frame) <= COMPRESS_MAX_CHARS:
            return None
        known = self._recent.get(id(frame))
        if known is not None and known[0] is frame:
            return known[1]
        deflated = zlib.compress(frame.encode("utf-8"), LEVEL)
        # Text that barely deflates can stay above the cap: it travels as chunks.
        data = deflated if len(deflated) + SEQ_BYTES <= MAX_MESSAGE_BYTES else None
        self._recent[id(frame)] = (frame, data)
        if len(self._recent) > KEEP:
            self._recent.popitem(last=False)
        return data


SHARED = DeflateOnce()
"""One for every guest stream in the process: a broadcast reaches them all as the same `str`."""
