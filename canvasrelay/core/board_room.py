"""The board feature's core: the Room's handlers for board frames and the presence table.

Every accepted update is applied to the server's `Board`, appended to the store and only then
sent on to the other peers (effects run in order), so whatever any client was sent survives a
crash. The store is compacted into one checkpoint by count, when idle, and on shutdown.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pycrdt import Map

from canvasrelay.core.board import Board, BoardUpdateError
from canvasrelay.core.effects import AnyEffect, Broadcast, Effect, Send
from canvasrelay.core.room import Peer, Room, error
from canvasrelay.protocol.board import (
    Awareness,
    AwarenessOut,
    AwarenessState,
    BoardSync,
    BoardSyncRequest,
    BoardUpdate,
    BoardUpdateOut,
)

COMPACT_EVERY = 500
"""Updates after the checkpoint before the store is compacted: bounds both its size and the replay at start."""
IDLE_COMPACT_S = 10.0
AWARENESS_TIMEOUT_S = 30.0
"""Clients refresh their awareness every 10 s; three missed refreshes and they count as gone."""
AWARENESS_INTERVAL_S = 0.05
"""A peer's presence goes out at most this often, its latest state only, however often it sends."""
TICK_S = 2.0
LIVE_FRAME = "That frame shows a session or terminal that is still running: only the host can remove it."


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@dataclass(frozen=True)
class StoreBoardUpdate(Effect):
    update: bytes


@dataclass(frozen=True)
class CompactBoard(Effect):
    pass


@dataclass(frozen=True)
class AwarenessDue(Effect):
    """Call `BoardRoom.flush_awareness` after `delay` seconds: presence is waiting to go out."""

    delay: float


class BoardRoom:
    """The board's frame handlers and presence table; pure apart from the board document itself."""

    def __init__(
        self,
        board: Board,
        clock: Callable[[], float] = time.monotonic,
        compact_every: int = COMPACT_EVERY,
    ) -> None:
        self.board = board
        self.clock = clock
        self.compact_every = compact_every
        self.presence: dict[str, tuple[AwarenessState, float]] = {}
        self.last_change = clock()
        self.room: Room | None = None
        self.sent_at: dict[str, float] = {}
        """When each peer's presence last went out."""
        self.unsent: set[str] = set()
        """Peers whose latest presence waits for its turn."""
        self.flush_due = False

    def install(self, room: Room) -> None:
        self.room = room
        room.route(BoardUpdate, self.on_update)
        room.route(BoardSyncRequest, self.on_sync)
        room.route(Awareness, self.on_awareness)
        room.add_welcome_part(self.welcome)
        room.on_join(self.joined)
        room.on_leave(self.left)

    def welcome(self, _peer: Peer) -> dict[str, Any]:
        return {"board": b64(self.board.state())}

    def on_update(self, peer: Peer, frame: BoardUpdate) -> list[AnyEffect]:
        update = base64.b64decode(frame.update)
        guard = None if peer.is_host else self._keep_live_frames
        try:
            self.board.apply_update(update, origin=peer.id, guard=guard)
        except BoardUpdateError as exc:
            return [error(peer.id, str(exc), frame.t)]
        return self.applied(update, exclude=peer.id, encoded=frame.update)

    def _keep_live_frames(self, removed: list[str]) -> str | None:
        """A guest may not take a running session's or terminal's frame off the board: only the
        host may, since nobody else could put it back."""
        for item_id in removed:
            item = self.board.items.get(item_id)
            holds = item.get("holds") if isinstance(item, Map) and item.get("kind") == "frame" else None
            ref = holds.get("ref") if isinstance(holds, Map) else None
            if isinstance(ref, str) and self.room is not None and self.room.is_live(ref):
                return LIVE_FRAME
        return None

    def applied(self, update: bytes, exclude: str | None, encoded: str | None = None) -> list[AnyEffect]:
        """What follows an update the board took: store it, then send it on (order matters)."""
        self.last_change = self.clock()
        frame = BoardUpdateOut(update=encoded if encoded is not None else b64(update))
        effects: list[AnyEffect] = [StoreBoardUpdate(update), Broadcast(frame, exclude=exclude)]
        if self.board.needs_compaction(self.compact_every):
            effects.append(CompactBoard())
        return effects

    def on_sync(self, peer: Peer, frame: BoardSyncRequest) -> list[AnyEffect]:
        try:
            missing = self.board.diff(base64.b64decode(frame.state_vector))
        except BoardUpdateError as exc:
            return [error(peer.id, str(exc), frame.t)]
        reply = BoardSync(update=b64(missing), state_vector=b64(self.board.state_vector()))
        return [Send(peer.id, reply)]

    def on_awareness(self, peer: Peer, frame: Awareness) -> list[AnyEffect]:
        state = frame.state
        if not peer.is_host and peer.name:
            # A guest's name and colour are the ones the room knows, not whatever it claims.
            state = state.model_copy(update={"name": peer.name, "color": peer.color or state.color})
        now = self.clock()
        self.presence[peer.id] = (state, now)
        if now - self.sent_at.get(peer.id, -AWARENESS_INTERVAL_S) >= AWARENESS_INTERVAL_S:
            return self._send_presence(peer.id, now)
        self.unsent.add(peer.id)
        return self._due(now)

    def flush_awareness(self) -> list[AnyEffect]:
        """Send the presence whose turn has come; the rest waits for the next `AwarenessDue`."""
        self.flush_due = False
        now = self.clock()
        effects: list[AnyEffect] = []
        for peer_id in sorted(self.unsent):
            if now - self.sent_at[peer_id] >= AWARENESS_INTERVAL_S:
                effects += self._send_presence(peer_id, now)
        return effects + self._due(now)

    def _send_presence(self, peer_id: str, now: float) -> list[AnyEffect]:
        self.unsent.discard(peer_id)
        self.sent_at[peer_id] = now
        state, _ = self.presence[peer_id]
        return [Broadcast(AwarenessOut(peer=peer_id, state=state), exclude=peer_id)]

    def _due(self, now: float) -> list[AnyEffect]:
        if self.flush_due or not self.unsent:
            return []
        self.flush_due = True
        first = min(self.sent_at[peer_id] for peer_id in self.unsent)
        return [AwarenessDue(max(0.0, first + AWARENESS_INTERVAL_S - now))]

    def joined(self, peer: Peer) -> list[AnyEffect]:
        return [
            Send(peer.id, AwarenessOut(peer=other, state=state))
            for other, (state, _) in self.presence.items()
            if other != peer.id
        ]

    def left(self, peer: Peer) -> list[AnyEffect]:
        return self._gone([peer.id])

    def tick(self) -> list[AnyEffect]:
        """Called every few seconds: expire silent peers' presence, compact an idle board."""
        now = self.clock()
        silent = [peer_id for peer_id, (_, seen) in self.presence.items() if now - seen > AWARENESS_TIMEOUT_S]
        effects = self._gone(silent)
        if self.board.updates_since_checkpoint > 0 and now - self.last_change >= IDLE_COMPACT_S:
            effects.append(CompactBoard())
        return effects

    def _gone(self, peer_ids: list[str]) -> list[AnyEffect]:
        for peer_id in peer_ids:
            self.unsent.discard(peer_id)
            self.sent_at.pop(peer_id, None)
        return [
            Broadcast(AwarenessOut(peer=peer_id, state=None), exclude=peer_id)
            for peer_id in peer_ids
            if self.presence.pop(peer_id, None) is not None
        ]
