"""Token buckets that bound what one peer may send, in frames and in bytes."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

INBOUND_RATE = 100.0
"""Frames per second a guest may send on average…"""
INBOUND_BURST = 200.0
"""…and at once. Beyond that its frames are dropped, so a flood cannot slow the others."""
INBOUND_BYTE_RATE = float(1 << 20)
"""Bytes per second a guest may send on average: a frame costs by its size as well as by its count…"""
INBOUND_BYTE_BURST = float(4 << 20)
"""…and at once: room for a few frames of the largest size in a row."""


@dataclass
class _Bucket:
    rate: float
    burst: float
    tokens: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = self.burst

    def refill(self, elapsed: float) -> None:
        if self.tokens < self.burst:
            self.tokens = min(self.burst, self.tokens + elapsed * self.rate)


class InboundGate:
    """A frame bucket and a byte bucket per peer: a message that either cannot pay for is dropped."""

    def __init__(
        self,
        rate: float = INBOUND_RATE,
        burst: float = INBOUND_BURST,
        byte_rate: float = math.inf,
        byte_burst: float = math.inf,
    ) -> None:
        self.frames = _Bucket(rate, burst)
        self.bytes = _Bucket(byte_rate, byte_burst)
        self.stamp = time.monotonic()
        self.warned = 0.0

    @classmethod
    def for_guest(cls) -> InboundGate:
        return cls(INBOUND_RATE, INBOUND_BURST, INBOUND_BYTE_RATE, INBOUND_BYTE_BURST)

    def admit(self, size: int = 0) -> bool:
        """Whether a message of `size` bytes may pass; it is paid for only when it does."""
        now = time.monotonic()
        for bucket in (self.frames, self.bytes):
            bucket.refill(now - self.stamp)
        self.stamp = now
        if self.frames.tokens < 1.0 or self.bytes.tokens < size:
            return False
        self.frames.tokens -= 1.0
        self.bytes.tokens -= size
        return True

    def should_warn(self) -> bool:
        now = time.monotonic()
        if now - self.warned < 1.0:
            return False
        self.warned = now
        return True
