"""A guest who leaves is out of the room at once, in the record and on the board; a guest whose
connection drops keeps its place, and its cursor, until it reconnects; a server that stops records
every guest leaving.

Real `canvas serve` parts in this process, the real rendezvous and hub, real aiortc guests
(`canvasrelay.client.guest`, what `canvas join` runs); the record is read through `GET /api/audit`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from canvasrelay.client.guest import Guest
from tests.agent_support import serving
from tests.support import HostClient, InProcessServer
from tests.test_invites import api, guests_until, joined

pytestmark = pytest.mark.timeout(120)

LEFT_WITHIN_S = 5.0
"""The hub keeps a dropped guest's place for 30 s: seen within this, the leave was not waited out."""
CURSOR = {"name": "Ada", "color": "#3366aa", "cursor": {"x": 120.0, "y": 80.0}}


async def record(served: InProcessServer) -> list[tuple[str, str]]:
    """The room's record, oldest first, as (name, action)."""
    status, page = await api(served, "GET", "/api/audit?limit=200")
    assert status == 200, page
    return [(entry["name"], entry["action"]) for entry in reversed(page["entries"])]


async def with_cursor(served: InProcessServer, host: HostClient, name: str) -> tuple[Guest, str]:
    """A guest on the open link whose cursor the host sees on the board; with its peer id."""
    guest = await joined(served.room_link, name)
    await guest.send({"t": "awareness", "state": {**CURSOR, "name": name}})
    seen = await host.expect(
        "awareness", state={**CURSOR, "name": name, "selection": [], "dragging": [], "editing": None, "view": None}
    )
    return guest, str(seen["peer"])


async def test_a_guest_who_leaves_is_recorded_and_its_cursor_goes_at_once(
    served: InProcessServer, host_client: HostClient
) -> None:
    ada, peer = await with_cursor(served, host_client, "Ada")
    await ada.close()
    gone = await host_client.expect("awareness", timeout=LEFT_WITHIN_S, peer=peer)
    assert gone["state"] is None, "the board drops the cursor of a guest who left"
    assert await record(served) == [("Ada", "joined"), ("Ada", "left")]


async def test_a_dropped_guest_keeps_its_place_and_cursor_across_a_reconnect(
    served: InProcessServer, host_client: HostClient
) -> None:
    bo, peer = await with_cursor(served, host_client, "Bo")
    await bo.drop()
    # The host's list says Bo is away, then back: the guest reconnected by itself and resumed its place.
    for connected in (False, True):
        await guests_until(
            host_client, lambda guests, c=connected: any(g["name"] == "Bo" and g["connected"] is c for g in guests)
        )
    # A frame sent now reaches Bo on its resumed channel.
    await host_client.send({"t": "awareness", "state": {**CURSOR, "name": "Host"}})
    await bo.expect("awareness", peer=host_client.welcome["peerId"])
    gone = [f for f in host_client.seen if f["t"] == "awareness" and f["peer"] == peer and f["state"] is None]
    assert gone == [], "the cursor stays across a reconnect"
    assert await record(served) == [("Bo", "joined")], "a reconnect is no leave"
    await bo.close()


async def test_a_server_that_stops_records_every_guest_leaving(project: Path) -> None:
    async with serving(project) as served:
        guests = [await joined(served.room_link, name) for name in ("Ada", "Bo")]
    async with serving(project) as served:
        lines = await record(served)
    assert lines[:4] == [("Ada", "joined"), ("Bo", "joined"), ("Ada", "left"), ("Bo", "left")], lines
    for guest in guests:
        await guest.close()
