"""Each message for the guests deflated once, however many guests it goes to.

The runtime encodes a broadcast once and hands the same `str` to every guest's stream; each
stream's writer asks here for its next message's frames deflated, and the first to ask for those
very frames pays for it: a large frame always travels alone, so it is deflated once for the room;
small frames coalesced alike for guests in step are too. Output a terminal or an agent streams
deflates 3 to 8 times at level 1 for a few µs a KB, while every byte a guest is sent costs the
pure-Python SCTP and DTLS under it tens of µs a KB, for each guest.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from collections.abc import Sequence

from canvasrelay.protocol.framing import MAX_MESSAGE_BYTES, SEQ_BYTES

COMPRESS_MIN_CHARS = 2048
"""Smaller messages travel as text: deflating them gains little."""
COMPRESS_MAX_CHARS = 128 * 1024
"""Larger ones (a big board's welcome, sent to one guest) travel as chunks: deflating them at once
would hold the event loop for tens of milliseconds. A terminal's frames (64 KiB of output) fit."""
LEVEL = 1
KEEP = 32
"""Messages remembered: a guest's writer lags the first one's by fewer than this, or deflates anew."""


class DeflateOnce:
    def __init__(self) -> None:
        self._recent: OrderedDict[tuple[int, ...], tuple[Sequence[str], bytes | None]] = OrderedDict()
        """By the frames' `id`s, with the frames kept alive so no `id` can be reused meanwhile."""

    def deflated(self, frames: Sequence[str]) -> bytes | None:
        """The message of `frames` (comma-separated) deflated, or None when it is to travel as text:
        too small, too large, or still above the message cap once deflated."""
        if not COMPRESS_MIN_CHARS <= sum(map(len, frames)) + len(frames) - 1 <= COMPRESS_MAX_CHARS:
            return None
        key = tuple(map(id, frames))
        known = self._recent.get(key)
        if known is not None and all(a is b for a, b in zip(known[0], frames, strict=True)):
            return known[1]
        deflated = zlib.compress(",".join(frames).encode("utf-8"), LEVEL)
        # Text that barely deflates can stay above the cap: it travels as chunks.
        data = deflated if len(deflated) + SEQ_BYTES <= MAX_MESSAGE_BYTES else None
        self._recent[key] = (tuple(frames), data)
        if len(self._recent) > KEEP:
            self._recent.popitem(last=False)
        return data


SHARED = DeflateOnce()
"""One for every guest stream in the process: a broadcast reaches them all as the same `str`."""
