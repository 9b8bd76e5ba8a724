"""The composition root: the real server's Room gives every frame a peer may send exactly one
owner, and a feature that registers a frame type another already handles fails at start-up."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from canvasrelay.core.effects import AnyEffect
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.peer import Peer
from canvasrelay.core.room import Room
from canvasrelay.protocol import CLIENT_FRAMES, ClientFrame
from canvasrelay.protocol.core import Auth
from canvasrelay.protocol.guests import GuestJoin
from canvasrelay.server.app import CanvasServer, ServeOptions

ANSWERED_BEFORE_JOINING = {Auth, GuestJoin}
"""The host socket's first frame and a guest's handshake: each transport answers its own before
the peer is in the Room, so the Room must not route them."""


@asynccontextmanager
async def composed_room(root: Path) -> AsyncIterator[Room]:
    """The Room as `canvas serve` wires it, before anything listens."""
    server = CanvasServer(ServeOptions(root=root))
    try:
        yield server.room
    finally:
        # Never started, so nothing runs: give back only what the constructor took.
        server.store.close()
        server.lock.release()


def refuse(_peer: Peer, _frame: ClientFrame) -> list[AnyEffect]:
    raise AssertionError("a second handler must never be registered")


async def test_every_frame_a_joined_peer_may_send_has_one_owner_and_a_second_claim_fails(tmp_path: Path) -> None:
    async with composed_room(tmp_path) as room:
        owners = room.handled()
        assert set(owners) == set(CLIENT_FRAMES.values()) - ANSWERED_BEFORE_JOINING
        for frame_type, owner in owners.items():
            with pytest.raises(ValueError, match=f"a late feature claims {frame_type.__name__}, which {owner}"):
                room.install(Feature("a late feature", routes={frame_type: Route(refuse)}))
        # Asking the host is one feature's too (the guests'): another cannot take it over.
        with pytest.raises(ValueError, match="a late feature claims the approvals, which the guests already ask"):
            room.install(Feature("a late feature", approvals=refuse))
        assert room.handled() == owners
