"""The board feature's core: the Room's handlers for board frames and the presence table.

Every accepted update is applied to the server's `Board`, appended to the store and only then
sent on to the other peers (effects run in order), so whatever any client was sent survives a
crash. The store is compacted into one checkpoint by count, when idle, and on shutdown.
"""

from __future__ import annotations

import base64
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from pycrdt import Map

from canvasrelay.core.board import Board, BoardFullError, BoardUpdateError, BoardValueError
from canvasrelay.core.effects import AnyEffect, Broadcast, Effect, Send
from canvasrelay.core.errors import Refused
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.peer import Peer
from canvasrelay.core.rate_limit import BucketPerKey
from canvasrelay.core.room import Room
from canvasrelay.protocol.board import (
    AWARENESS_INTERVAL_S,
    AWARENESS_TIMEOUT_S,
    BOARD_PART_BYTES,
    BOARD_PARTS_PER_ASK,
    Awareness,
    AwarenessOut,
    AwarenessState,
    BoardMore,
    BoardPart,
    BoardSync,
    BoardSyncRequest,
    BoardUpdate,
    BoardUpdateOut,
)

COMPACT_EVERY = 500
"""Updates after the checkpoint before the store is compacted: bounds both its size and the replay at start."""
IDLE_COMPACT_S = 10.0
GUEST_WRITE_RATE, GUEST_WRITE_BURST = float(256 << 10), float(2 << 20)
"""Bytes of board updates a second one guest may write on average, and at once."""
WRITERS_MAX = 4096
SNAPSHOTS_KEPT = 2
"""Board states kept for joins under way: the latest, and the one before it."""
LIVE_FRAME = "That frame shows a session or terminal that is still running: only the host can remove it."


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@dataclass(frozen=True)
class StoreBoardUpdate(Effect):
    update: bytes
    by: str | None = None
    """The peer that sent it; None for an agent's tools."""


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
        room: Room,
        board: Board,
        clock: Callable[[], float] = time.monotonic,
        compact_every: int = COMPACT_EVERY,
    ) -> None:
        self.board = board
        self.clock = clock
        self.compact_every = compact_every
        self.presence: dict[str, tuple[AwarenessState, float]] = {}
        self.last_change = clock()
        self.room = room
        self.sent_at: dict[str, float] = {}
        """When each peer's presence last went out."""
        self.unsent: set[str] = set()
        """Peers whose latest presence waits for its turn."""
        self.flush_due = False
        self.writes = BucketPerKey(GUEST_WRITE_RATE, GUEST_WRITE_BURST, WRITERS_MAX, clock)
        self.snapshots: OrderedDict[int, bytes] = OrderedDict()
        """The board's state by version, for the joins that fetch it in parts."""
        self.warning: str | None = None
        """What the host is told at each welcome about the stored board (past its bound, rows set aside)."""

    def feature(self) -> Feature:
        return Feature(
            "the board",
            routes={
                BoardUpdate: Route(self.on_update),
                BoardSyncRequest: Route(self.on_sync),
                BoardMore: Route(self.on_more),
                Awareness: Route(self.on_awareness),
            },
            welcome=self.welcome,
            joined=self.joined,
            left=self.left,
            tick=self.tick,
        )

    def welcome(self, peer: Peer) -> dict[str, object]:
        """The board's fields of the welcome (see `Welcome`)."""
        version, state = self._snapshot()
        fields: dict[str, object] = {
            "board": b64(state[:BOARD_PART_BYTES]),
            "board_size": len(state),
            "board_version": version,
        }
        if peer.is_host and self.warning is not None:
            fields["board_warning"] = self.warning
        return fields

    def _snapshot(self, version: int | None = None) -> tuple[int, bytes]:
        """The state at `version` if it is still kept, else the latest (taken once per version)."""
        if version is not None and version in self.snapshots:
            return version, self.snapshots[version]
        latest = self.board.version
        if latest not in self.snapshots:
            self.snapshots[latest] = self.board.state()
            while len(self.snapshots) > SNAPSHOTS_KEPT:
                self.snapshots.popitem(last=False)
        return latest, self.snapshots[latest]

    def on_more(self, peer: Peer, frame: BoardMore) -> list[AnyEffect]:
        """The next parts of a state a peer is putting together; a state no longer kept is
        replaced by the latest, from its start (the part's version says so)."""
        version, state = self._snapshot(frame.version)
        offset = frame.offset if version == frame.version else 0
        if offset >= len(state) and len(state) > 0:
            raise Refused("invalid", "there is no more of the board to send")
        effects: list[AnyEffect] = []
        for index in range(BOARD_PARTS_PER_ASK):
            start = offset + index * BOARD_PART_BYTES
            end = min(start + BOARD_PART_BYTES, len(state))
            last = index == BOARD_PARTS_PER_ASK - 1 or end >= len(state)
            part = BoardPart(version=version, offset=start, size=len(state), data=b64(state[start:end]), ask=last)
            effects.append(Send(peer.id, part))
            if last:
                break
        return effects

    def on_update(self, peer: Peer, frame: BoardUpdate) -> list[AnyEffect]:
        update = base64.b64decode(frame.update)
        if not peer.is_host and not self.writes.take(peer.id, len(update)):
            raise Refused("conflict", "you are changing the board too fast: wait a moment")
        guard = None if peer.is_host else self._keep_live_frames
        try:
            self.board.apply_update(update, origin=peer.id, guard=guard)
        except (BoardFullError, BoardValueError) as exc:
            # The page drops its change and loads the board as it is: sent again, it would fail again.
            raise Refused("conflict", str(exc)) from None
        except BoardUpdateError as exc:
            raise Refused("invalid", str(exc)) from None
        return self.applied(update, exclude=peer.id, encoded=frame.update)

    def _keep_live_frames(self, removed: list[str]) -> str | None:
        """A guest may not take a running session's or terminal's frame off the board: only the
        host may, since nobody else could put it back."""
        for item_id in removed:
            item = self.board.items.get(item_id)
            holds = item.get("holds") if isinstance(item, Map) and item.get("kind") == "frame" else None
            ref = holds.get("ref") if isinstance(holds, Map) else None
            if isinstance(ref, str) and self.room.is_live(ref):
                return LIVE_FRAME
        return None

    def applied(
        self, update: bytes, exclude: str | None, encoded: str | None = None, by: str | None = None
    ) -> list[AnyEffect]:
        """What follows an update the board took: store it, then send it on (order matters). It is
        by `by`, or else by the peer it is not sent back to."""
        self.last_change = self.clock()
        frame = BoardUpdateOut(update=encoded if encoded is not None else b64(update))
        effects: list[AnyEffect] = [StoreBoardUpdate(update, by=by or exclude), Broadcast(frame, exclude=exclude)]
        if self.board.needs_compaction(self.compact_every):
            effects.append(CompactBoard())
        return effects

    def on_sync(self, peer: Peer, frame: BoardSyncRequest) -> list[AnyEffect]:
        try:
            missing = self.board.diff(base64.b64decode(frame.state_vector))
        except BoardUpdateError as exc:
            raise Refused("invalid", str(exc)) from None
        if len(missing) > BOARD_PART_BYTES:
            # Too much for one frame: the whole state in parts instead, then the client syncs again.
            return self.on_more(peer, BoardMore(version=self.board.version, offset=0))
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

    def tick(self, now: float) -> list[AnyEffect]:
        """On the room's clock: expire silent peers' presence, compact an idle board."""
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
