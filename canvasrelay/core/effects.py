"""What the Room asks the world to do: plain data, carried out by the runtime."""

from __future__ import annotations

from dataclasses import dataclass

from canvasrelay.protocol import ServerFrame
from canvasrelay.protocol.access import Access


@dataclass(frozen=True)
class Send:
    to: str
    frame: ServerFrame


@dataclass(frozen=True)
class Broadcast:
    """One frame for every peer with at least `min_access`, but `exclude`; encoded once."""

    frame: ServerFrame
    exclude: str | None = None
    min_access: Access = Access.VIEW


@dataclass(frozen=True)
class Multicast:
    """One frame for the listed peers (a terminal's watchers); encoded once."""

    to: tuple[str, ...]
    frame: ServerFrame


@dataclass(frozen=True)
class Close:
    peer: str
    code: int
    reason: str


class Effect:
    """Marker base for the effects features define (start a PTY, prompt an agent…)."""


AnyEffect = Send | Broadcast | Multicast | Close | Effect
