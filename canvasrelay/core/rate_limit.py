"""Token buckets that bound what one peer may send (in frames and in bytes), and what the hub lets in."""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

Clock = Callable[[], float]

INBOUND_RATE = 100.0
"""Frames per second a guest may send on average…"""


INBOUND_BURST = 200.0
"""…and at once. Beyond that its frames are dropped, so a flood cannot slow the others."""
INBOUND_BYTE_RATE = float(1 << 20)
"""Bytes per second a guest may send on average: a frame costs by its size as well as by its count…"""
INBOUND_BYTE_BURST = float(4 << 20)
"""…and at once: room for a few frames of the largest size in a row."""


class TokenBucket:
    """`rate` a second on average, `burst` at once."""

    def __init__(self, rate: float, burst: float, clock: Clock = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = burst
        self.stamp = clock()

    def can_take(self, cost: float = 1.0) -> bool:
        now = self.clock()
        if self.tokens < self.burst:
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens >= cost

    def take(self, cost: float = 1.0) -> bool:
        if not self.can_take(cost):
            return False
        self.tokens -= cost
        return True

    def full(self) -> bool:
        """Unused long enough to be back at its burst: forgetting it changes nothing."""
        return self.tokens + (self.clock() - self.stamp) * self.rate >= self.burst


class InboundGate:
    """A frame bucket and a byte bucket per peer: a message that either cannot pay for is
    dropped (and paid for only when it passes), with one warning per second."""

    def __init__(
        self,
        rate: float = INBOUND_RATE,
        burst: float = INBOUND_BURST,
        byte_rate: float = math.inf,
        byte_burst: float = math.inf,
    ) -> None:
        self.frames = TokenBucket(rate, burst)
        self.bytes = TokenBucket(byte_rate, byte_burst)
        self.warned = 0.0

    @classmethod
    def for_guest(cls) -> InboundGate:
        return cls(INBOUND_RATE, INBOUND_BURST, INBOUND_BYTE_RATE, INBOUND_BYTE_BURST)

    def admit(self, size: int = 0) -> bool:
        """Whether a message of `size` bytes may pass."""
        if not (self.frames.can_take() and self.bytes.can_take(size)):
            return False
        self.frames.take()
        self.bytes.take(size)
        return True

    def should_warn(self) -> bool:
        now = time.monotonic()
        if now - self.warned < 1.0:
            return False
        self.warned = now
        return True


class BucketPerKey:
    """One `TokenBucket` per key (a guest identity), holding at most `max_keys` of them: idle
    buckets are forgotten first, and when none is idle a new key is refused rather than let
    the table grow."""

    def __init__(self, rate: float, burst: float, max_keys: int, clock: Clock = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.clock = clock
        self.buckets: dict[Hashable, TokenBucket] = {}

    def take(self, key: Hashable, cost: float = 1.0) -> bool:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.max_keys:
                self.buckets = {k: b for k, b in self.buckets.items() if not b.full()}
                if len(self.buckets) >= self.max_keys:
                    return False
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst, self.clock)
        return bucket.take(cost)


class SeenOnce:
    """Keys remembered for `window` seconds after their first sight: a repeat within it is not
    fresh. At most `max_keys` are held; beyond that the oldest is forgotten, since a repeat that
    slips through costs the hub a bounded handshake while refusing every new key would lock out
    everyone."""

    def __init__(self, window: float, max_keys: int, clock: Clock = time.monotonic) -> None:
        self.window = window
        self.max_keys = max_keys
        self.clock = clock
        self._until: OrderedDict[Hashable, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._until)

    def first_sight(self, key: Hashable) -> bool:
        now = self.clock()
        # Every key is held for the same window, so the oldest entries expire first.
        while self._until and next(iter(self._until.values())) <= now:
            self._until.popitem(last=False)
        if key in self._until:
            return False
        if len(self._until) >= self.max_keys:
            self._until.popitem(last=False)
        self._until[key] = now + self.window
        return True
