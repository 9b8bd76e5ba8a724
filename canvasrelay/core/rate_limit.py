"""Token buckets that bound what one peer may send."""

from __future__ import annotations

import time

INBOUND_RATE = 100.0
"""Frames per second a guest may send on average…"""


INBOUND_BURST = 200.0
"""…and at once. Beyond that its frames are dropped, so a flood cannot slow the others."""


class InboundGate:
    """A token bucket per guest: frames beyond its rate are dropped, with one warning per second."""

    def __init__(self, rate: float = INBOUND_RATE, burst: float = INBOUND_BURST) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()
        self.warned = 0.0

    def admit(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def should_warn(self) -> bool:
        now = time.monotonic()
        if now - self.warned < 1.0:
            return False
        self.warned = now
        return True
