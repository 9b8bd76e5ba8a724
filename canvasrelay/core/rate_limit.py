"""Token buckets that bound what one peer may send, and what the hub lets in."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable

Clock = Callable[[], float]

INBOUND_RATE = 100.0
"""Frames per second a guest may send on average…"""


INBOUND_BURST = 200.0
"""…and at once. Beyond that its frames are dropped, so a flood cannot slow the others."""


class TokenBucket:
    """`rate` a second on average, `burst` at once."""

    def __init__(self, rate: float, burst: float, clock: Clock = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = burst
        self.stamp = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def full(self) -> bool:
        """Unused long enough to be back at its burst: forgetting it changes nothing."""
        return self.tokens + (self.clock() - self.stamp) * self.rate >= self.burst


class InboundGate:
    """A token bucket per guest: frames beyond its rate are dropped, with one warning per second."""

    def __init__(self, rate: float = INBOUND_RATE, burst: float = INBOUND_BURST) -> None:
        self.bucket = TokenBucket(rate, burst)
        self.warned = 0.0

    def admit(self) -> bool:
        return self.bucket.take()

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

    def take(self, key: Hashable) -> bool:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.max_keys:
                self.buckets = {k: b for k, b in self.buckets.items() if not b.full()}
                if len(self.buckets) >= self.max_keys:
                    return False
            bucket = self.buckets[key] = TokenBucket(self.rate, self.burst, self.clock)
        return bucket.take()


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
