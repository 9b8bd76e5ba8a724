"""The Room: the sans-I/O core. It takes `(peer, frame)` and returns effects as data.

Transports turn bytes into `receive` calls and carry out the `Send`/`Broadcast`/`Close`
effects; adapters (agents, PTYs, the store) carry out the rest. The Room itself does no I/O,
which is why it is tested without sockets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from canvasrelay.core.effects import AnyEffect, Send
from canvasrelay.core.errors import Refused
from canvasrelay.core.feature import AskHost, Feature, Observer, PeerHook, Rewrite, Route, Tick, WelcomePart
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.policy import Decision, Request, decide, denial_reason
from canvasrelay.core.welcome_heads import WelcomeHeads
from canvasrelay.protocol import ClientFrame, FrameError, parse_client_frame
from canvasrelay.protocol.core import AgentInfo, ErrorFrame, ErrorKind, HeadsMore, Ping, Pong, Welcome
from canvasrelay.protocol.words import request_verb

NOT_ACCEPTED = "This room does not take that request."


def needs_approval(frame_type: str) -> str:
    return f"To {request_verb(frame_type)} you need the host's approval, and none could be asked."


class Room:
    def __init__(self, info: RoomInfo) -> None:
        self.info = info
        self.peers: dict[str, Peer] = {}
        self.agents: list[AgentInfo] = []
        self.heads = WelcomeHeads()
        """The sessions and waiting approvals a welcome lists, a page at a time: features add theirs."""
        self._routes: dict[type[ClientFrame], Route[Any]] = {}
        self._owners: dict[type[ClientFrame], str] = {}
        self._welcome_parts: list[WelcomePart] = [self.heads.welcome]
        self._join_hooks: list[PeerHook] = []
        self._leave_hooks: list[PeerHook] = []
        self._live_checks: list[Callable[[str], bool]] = []
        self._observers: list[Observer] = []
        self._rewrites: list[Rewrite] = []
        self._ticks: list[Tick] = []
        self._ask_host: AskHost | None = None
        self._asker = ""
        self.install(Feature("the room", routes={Ping: Route(self._ping), HeadsMore: Route(self.heads.on_more)}))

    def install(self, feature: Feature) -> None:
        """Plug in what `feature` declares. A frame type (or the approvals) another feature owns
        is refused, naming both, before anything of `feature` is installed."""
        for frame_type in feature.routes:
            if frame_type in self._routes:
                owner = self._owners[frame_type]
                raise ValueError(f"{feature.name} claims {frame_type.__name__}, which {owner} already handles")
        if feature.approvals is not None and self._ask_host is not None:
            raise ValueError(f"{feature.name} claims the approvals, which {self._asker} already asks")
        for frame_type, frame_route in feature.routes.items():
            self._routes[frame_type] = frame_route
            self._owners[frame_type] = feature.name
        if feature.approvals is not None:
            self._ask_host, self._asker = feature.approvals, feature.name
        if feature.welcome is not None:
            self._welcome_parts.append(feature.welcome)
        if feature.joined is not None:
            self._join_hooks.append(feature.joined)
        if feature.left is not None:
            self._leave_hooks.append(feature.left)
        if feature.live is not None:
            self._live_checks.append(feature.live)
        if feature.observe is not None:
            self._observers.append(feature.observe)
        if feature.rewrite is not None:
            self._rewrites.append(feature.rewrite)
        if feature.tick is not None:
            self._ticks.append(feature.tick)
        if feature.heads is not None:
            self.heads.add(feature.heads)

    def handled(self) -> dict[type[ClientFrame], str]:
        """The frame types some feature handles, each with the name of the one feature that does."""
        return dict(self._owners)

    def is_live(self, ref: str) -> bool:
        return any(check(ref) for check in self._live_checks)

    def tick(self, now: float) -> list[AnyEffect]:
        """What every feature has due at `now` (monotonic seconds): the room's one clock."""
        return [effect for tick in self._ticks for effect in tick(now)]

    def join(self, peer: Peer) -> list[AnyEffect]:
        self.peers[peer.id] = peer
        effects: list[AnyEffect] = [Send(peer.id, self.welcome(peer))]
        for hook in self._join_hooks:
            effects += hook(peer)
        return effects

    def leave(self, peer_id: str) -> list[AnyEffect]:
        peer = self.peers.pop(peer_id, None)
        if peer is None:
            return []
        effects: list[AnyEffect] = []
        for hook in self._leave_hooks:
            effects += hook(peer)
        return effects

    def welcome(self, peer: Peer) -> Welcome:
        fields: dict[str, Any] = {
            "room_id": self.info.room_id,
            "host_public_key": self.info.host_public_key,
            "project": self.info.project,
            "cwd": self.info.cwd if peer.is_host else None,
            "access": peer.access.value,
            "peer_id": peer.id,
            "agents": self.agents,
        }
        for part in self._welcome_parts:
            fields.update(part(peer))
        return Welcome(**fields)

    def receive(self, peer_id: str, raw: str | bytes) -> list[AnyEffect]:
        """Parse, check against the policy, dispatch. Never raises for what a peer sent."""
        peer = self.peers.get(peer_id)
        if peer is None:
            return []
        try:
            frame = parse_client_frame(raw)
        except FrameError as exc:
            return [error(peer_id, str(exc), exc.ref)]
        return self.dispatch(peer, frame)

    def dispatch(self, peer: Peer, frame: ClientFrame) -> list[AnyEffect]:
        """Check the frame against the policy and run its handler; a refusal is one `error` frame to the peer."""
        try:
            return self.attempt(peer, frame)
        except Refused as refused:
            return [error(peer.id, refused.message, frame.t, refused.kind)]

    def attempt(self, peer: Peer, frame: ClientFrame) -> list[AnyEffect]:
        """As `dispatch`, but a refusal raises `Refused`: for a caller that answers it its own way
        (the HTTP API, with the kind's status code)."""
        route = self._route_of(frame)
        request = route.request(peer, frame) if route.request else Request(type(frame).action)
        decision = decide(peer.access, request)
        if decision is Decision.DENY:
            raise Refused("invalid", denial_reason(peer.access, request))
        for rewrite in self._rewrites:
            frame = rewrite(peer, frame)
        if decision is Decision.ASK_HOST:
            for observer in self._observers:
                observer(peer, frame, True)
            if self._ask_host is None:
                raise Refused("invalid", needs_approval(frame.t))
            return self._ask_host(peer, frame)
        return self._run(route, peer, frame)

    def perform(self, peer: Peer, frame: ClientFrame) -> list[AnyEffect]:
        """Run a frame's handler without asking the policy again: for a request the host approved."""
        try:
            return self._run(self._route_of(frame), peer, frame)
        except Refused as refused:
            return [error(peer.id, refused.message, frame.t, refused.kind)]

    def _route_of(self, frame: ClientFrame) -> Route[Any]:
        route = self._routes.get(type(frame))
        if route is None:
            raise Refused("invalid", NOT_ACCEPTED)
        return route

    def _run(self, route: Route[Any], peer: Peer, frame: ClientFrame) -> list[AnyEffect]:
        for observer in self._observers:
            observer(peer, frame, False)
        try:
            return route.handler(peer, frame)
        except FrameError as exc:
            raise Refused("invalid", str(exc)) from None

    def _ping(self, peer: Peer, _frame: Ping) -> list[AnyEffect]:
        return [Send(peer.id, Pong())]


def error(peer_id: str, message: str, ref: str | None = None, kind: ErrorKind = "invalid") -> Send:
    return Send(peer_id, ErrorFrame(message=message, ref=ref, kind=kind))
