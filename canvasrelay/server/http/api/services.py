"""What the HTTP API uses of the server, and nothing more.

The composition root (`server/app.py`) builds one `ApiServices` and hands it to `mount_api`;
the API never sees the server itself, so it cannot reach past these, and it does not import the
module that builds it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from canvasrelay.core.audit import Audit
from canvasrelay.core.board import Board
from canvasrelay.core.effects import AnyEffect
from canvasrelay.core.guests import Guests
from canvasrelay.core.invites import Invite
from canvasrelay.core.people_room import PeopleRoom
from canvasrelay.core.room import Peer
from canvasrelay.protocol import ClientFrame, ServerFrame
from canvasrelay.protocol.core import AgentInfo
from canvasrelay.server.agents.host import AgentHost
from canvasrelay.server.agents.rule_book import RuleBook
from canvasrelay.server.recording.service import Replays
from canvasrelay.server.store import Store


@dataclass(frozen=True)
class ApiServices:
    attempt: Callable[[Peer, ClientFrame], list[AnyEffect]]
    """What a peer's frame would do, through the Room's policy; a refusal raises `Refused`."""
    run: Callable[[list[AnyEffect]], Awaitable[None]]
    """Carry effects out (store, send), as every frame's are."""
    on_broadcast: Callable[[Callable[[ServerFrame], None]], Callable[[], None]]
    """Hear every broadcast frame (the event stream); returns the unsubscribe."""
    on_close: Callable[[Callable[[], Awaitable[None]]], None]
    """Called when the server stops (to end the open event streams)."""
    store: Store
    """Read only: sessions and their events."""
    agent_list: Callable[[], list[AgentInfo]]
    agents: AgentHost
    rules: RuleBook
    guests: Guests
    people: PeopleRoom
    audit: Audit
    board: Callable[[], Board]
    token_matches: Callable[[str], bool]
    """Whether a Bearer token is the host token."""
    invite_link: Callable[[Invite], str]
    allowed_origins: Callable[[], set[str]]
    """Origins whose pages may call the API (known once the port is bound)."""
    webrtc: str
    """The WebRTC library that carries the guests' channels, in words."""
    replays: Replays
    """The room's recording: its timeline, its export, restoring the board from it."""
