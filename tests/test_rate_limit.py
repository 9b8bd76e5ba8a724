"""The hub's admission bookkeeping without a network: seen-once keys and paced identities."""

from __future__ import annotations

from canvasrelay.core.rate_limit import BucketPerKey, SeenOnce, TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_key_is_fresh_once_within_its_window() -> None:
    clock = Clock()
    seen = SeenOnce(window=240.0, max_keys=10, clock=clock)
    assert seen.first_sight(b"nonce-1") and not seen.first_sight(b"nonce-1")
    clock.now += 239.0
    assert not seen.first_sight(b"nonce-1"), "still inside the window"
    assert seen.first_sight(b"nonce-2")
    clock.now += 1.0
    assert seen.first_sight(b"nonce-1"), "its window ended: it is forgotten"
    assert len(seen) == 2


def test_seen_keys_are_bounded_oldest_forgotten_first() -> None:
    seen = SeenOnce(window=240.0, max_keys=3, clock=Clock())
    for key in ("a", "b", "c", "d"):
        assert seen.first_sight(key)
    assert len(seen) == 3
    assert seen.first_sight("a") and not seen.first_sight("d")


def test_a_bucket_refills_at_its_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=0.5, burst=3, clock=clock)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.now += 2.0
    assert bucket.take() and not bucket.take()
    assert not bucket.full()
    clock.now += 6.0
    assert bucket.full()


def test_each_identity_has_its_own_pace_and_idle_ones_make_way() -> None:
    clock = Clock()
    joins = BucketPerKey(rate=0.5, burst=2, max_keys=2, clock=clock)
    assert [joins.take("churner") for _ in range(3)] == [True, True, False]
    assert joins.take("ada"), "another identity is not held up by the churner"
    assert not joins.take("bo"), "the table is full of busy identities: a new one waits"
    clock.now += 4.0
    assert joins.take("bo"), "idle identities were forgotten to make room"
