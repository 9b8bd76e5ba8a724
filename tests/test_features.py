"""Features declare what they handle and the composition root installs them: a second claim on a
frame type, the approvals or an effect type is refused naming both, and every feature's tick runs
on the room's one clock, only while someone is in the room."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from canvasrelay.core.effects import AnyEffect, Effect
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.room import Room
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.core import Ping
from canvasrelay.server.runtime import Adapter, Runtime


def nothing(_peer: Peer, _frame: object) -> list[AnyEffect]:
    return []


@dataclass(frozen=True)
class Noted(Effect):
    what: str


class Transport:
    backlog = 0

    def send(self, text: str, at_once: bool = False) -> None:
        pass

    async def flush(self) -> None:
        pass

    async def below(self, chars: int) -> None:
        pass

    async def close(self, code: int, reason: str) -> None:
        pass


def new_room() -> Room:
    return Room(RoomInfo(room_id="r", host_public_key="h", cwd="/p"))


def test_a_frame_type_a_feature_owns_cannot_be_claimed_again_and_nothing_of_the_claimant_is_installed() -> None:
    room = new_room()
    joins: list[str] = []

    def joined(peer: Peer) -> list[AnyEffect]:
        joins.append(peer.id)
        return []

    greedy = Feature("the greedy feature", routes={Ping: Route(nothing)}, joined=joined)
    with pytest.raises(ValueError, match="the greedy feature claims Ping, which the room already handles"):
        room.install(greedy)
    room.join(Peer("host", Access.HOST))
    assert joins == []
    assert room.handled()[Ping] == "the room"


def test_the_approvals_have_one_feature() -> None:
    room = new_room()
    room.install(Feature("the guests", approvals=nothing))
    with pytest.raises(ValueError, match="the people claims the approvals, which the guests already ask"):
        room.install(Feature("the people", approvals=nothing))


def test_an_effect_type_has_one_adapter() -> None:
    runtime = Runtime(new_room())

    async def note(_effect: Noted) -> None:
        pass

    runtime.install(Adapter("the board", {Noted: note}))
    with pytest.raises(ValueError, match="the agents claims Noted, which the board already carries out"):
        runtime.install(Adapter("the agents", {Noted: note}))


async def test_every_feature_ticks_on_the_rooms_one_clock_only_while_someone_is_in() -> None:
    room = new_room()
    ticked = asyncio.Event()
    seen: list[float] = []

    def tick(now: float) -> list[AnyEffect]:
        seen.append(now)
        ticked.set()
        return [Noted(f"tick {len(seen)}")]

    noted: list[str] = []

    async def note(effect: Noted) -> None:
        noted.append(effect.what)

    room.install(Feature("the ticking feature", tick=tick))
    runtime = Runtime(room, tick_every=0.01)
    runtime.install(Adapter("the notes", {Noted: note}))
    assert not runtime.clock.running
    await runtime.connect(Peer("host", Access.HOST), Transport())
    await asyncio.wait_for(ticked.wait(), 5)
    assert runtime.clock.running and noted[0] == "tick 1"
    await runtime.disconnect("host")
    assert not runtime.clock.running
    await runtime.stopping()
    assert seen == sorted(seen)
