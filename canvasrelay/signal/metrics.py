"""Per-instance rendezvous counters, served at `/metrics` in the Prometheus text format."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST


class RendezvousMetrics:
    """A registry of its own, so several instances in one process (tests, benchmarks) keep apart."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.topics = Gauge("canvas_signal_topics", "Topics with a socket on this instance", registry=self.registry)
        self.sockets = Gauge("canvas_signal_sockets", "Open signalling sockets here", registry=self.registry)
        self.relayed = Counter(
            "canvas_signal_envelopes_relayed",
            "Envelopes handed to a socket's queue, by where they came from (local or redis)",
            ["source"],
            registry=self.registry,
        )
        self.published = Counter(
            "canvas_signal_envelopes_published", "Envelopes published to Redis", registry=self.registry
        )
        self.drops = Counter(
            "canvas_signal_drops",
            "Sockets cut off or envelopes not carried, by reason",
            ["reason"],
            registry=self.registry,
        )
        self.turn = Counter(
            "canvas_signal_turn_credentials",
            "TURN credential requests, by outcome (issued, refused, throttled)",
            ["outcome"],
            registry=self.registry,
        )
        self.redis_ready = Gauge(
            "canvas_signal_redis_ready",
            "1 while the Redis subscription is up (always 1 without Redis)",
            registry=self.registry,
        )

    def exposition(self) -> tuple[bytes, str]:
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
