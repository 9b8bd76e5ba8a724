"""Helpers for tests of guests as people: a `guest-join` as the core sees it once the hub checked its proof."""

from __future__ import annotations

from canvasrelay.protocol.guests import GuestJoin

SOME_KEY = "B" + "A" * 86
"""Shaped like a public key; the core never checks it (the hub proved it before `admit`)."""


def joining(name: str = "Ada", color: str = "#112233") -> GuestJoin:
    return GuestJoin(key=SOME_KEY, signature="A" * 86, name=name, color=color)
