"""What a feature plugs into the Room, declared as one value.

Each feature (the guests, the people, the board, the agents, the terminals, the shared files)
builds a `Feature` naming the frames it handles and how the policy asks about them, what it
adds to a welcome, what it does when a peer joins or leaves and on each tick of the room's clock.
The composition root installs them, in one list; the Room refuses a frame type that two features
claim, naming both. Reading a feature's `feature()` tells where its frames go.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from canvasrelay.core.effects import AnyEffect
from canvasrelay.core.peer import Peer
from canvasrelay.core.policy import Request
from canvasrelay.core.welcome_heads import HeadSource
from canvasrelay.protocol import ClientFrame

F = TypeVar("F", bound=ClientFrame)
Handler = Callable[[Peer, F], list[AnyEffect]]
RequestOf = Callable[[Peer, F], Request]


@dataclass(frozen=True)
class Route(Generic[F]):
    handler: Handler[F]
    request: RequestOf[F] | None = None
    """How to ask the policy; by default the frame class's `action`."""


AskHost = Callable[[Peer, ClientFrame], list[AnyEffect]]
Observer = Callable[[Peer, ClientFrame, bool], None]
"""Told of each frame a peer performs, or (True) asks the host for: the room's record."""
Rewrite = Callable[[Peer, ClientFrame], ClientFrame]
WelcomePart = Callable[[Peer], dict[str, Any]]
PeerHook = Callable[[Peer], list[AnyEffect]]
Tick = Callable[[float], list[AnyEffect]]
"""Called on each tick of the room's clock with the monotonic time: what is due by then."""


@dataclass(frozen=True)
class Feature:
    name: str
    routes: Mapping[type[ClientFrame], Route[Any]] = field(default_factory=dict)
    welcome: WelcomePart | None = None
    heads: HeadSource | None = None
    """The sessions or waiting requests a welcome lists, paged with every other feature's."""
    joined: PeerHook | None = None
    left: PeerHook | None = None
    live: Callable[[str], bool] | None = None
    """Which of the things a board frame may show (by ref) still exist."""
    observe: Observer | None = None
    rewrite: Rewrite | None = None
    """A frame is rewritten before the policy sees it, so what the host approves is what runs."""
    approvals: AskHost | None = None
    """Asks the host about a frame the policy sends to it (a guest's prompt, say): one feature at most."""
    tick: Tick | None = None
