"""The API's operations on the room: health, agents, guests and the board.

Guests are changed by dispatching the same frames a host page sends, as a host peer named
`api`, so the API gets exactly the host's powers and the other host surfaces are told."""

from __future__ import annotations

import time

from canvasrelay import __version__
from canvasrelay.core import board_edits as board_api
from canvasrelay.core.effects import AnyEffect
from canvasrelay.core.errors import Refused
from canvasrelay.core.peer import Peer
from canvasrelay.protocol import ClientFrame
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.guests import GuestKick, GuestSetAccess
from canvasrelay.server.http.api.errors import not_found, refused
from canvasrelay.server.http.api.models import (
    AgentsOut,
    BoardItem,
    BoardItemsOut,
    GuestAccessIn,
    GuestsOut,
    HealthOut,
)
from canvasrelay.server.http.api.openapi import Call, Operation
from canvasrelay.server.http.api.services import ApiServices

API_PEER = Peer(id="api", access=Access.HOST, name="api")


def attempt(services: ApiServices, frame: ClientFrame) -> list[AnyEffect]:
    """What a host page's frame would do, through the Room's policy like every frame; a refusal
    raises the `ApiError` its kind calls for."""
    try:
        return services.attempt(API_PEER, frame)
    except Refused as refusal:
        raise refused(refusal) from None


async def as_host(services: ApiServices, frame: ClientFrame) -> None:
    await services.run(attempt(services, frame))


def session_count(services: ApiServices) -> int:
    return len(services.store.sessions())


def operations(services: ApiServices) -> list[Operation]:
    started = time.monotonic()

    async def health(_call: Call) -> HealthOut:
        guests = services.guests.guests.values()
        return HealthOut(
            version=__version__,
            uptime_seconds=round(time.monotonic() - started, 3),
            sessions=session_count(services),
            guests=sum(1 for g in guests if g.connected),
            webrtc=services.webrtc,
        )

    async def list_agents(_call: Call) -> AgentsOut:
        return AgentsOut(agents=services.agent_list())

    async def list_guests(_call: Call) -> GuestsOut:
        listed = services.guests.guest_list()
        return GuestsOut(default_access=listed.default_access, guests=listed.guests)

    def known_guest(guest_id: str) -> str:
        if guest_id not in services.guests.guests or guest_id in services.guests.banned:
            raise not_found("guest")
        return guest_id

    async def set_guest_access(call: Call) -> GuestsOut:
        body: GuestAccessIn = call.body
        await as_host(services, GuestSetAccess(guest_id=known_guest(call.params["guestId"]), access=body.access))
        return await list_guests(call)

    async def kick_guest(call: Call) -> None:
        await as_host(services, GuestKick(guest_id=known_guest(call.params["guestId"])))

    async def list_board_items(_call: Call) -> BoardItemsOut:
        items = board_api.list_items(services.board())
        return BoardItemsOut(items=[BoardItem.model_validate(item) for item in items])

    return [
        Operation(
            "GET",
            "/api/health",
            health,
            "Version, uptime, sessions and connected guests.",
            "server",
            public=True,
            response=HealthOut,
        ),
        Operation("GET", "/api/agents", list_agents, "The agents on offer.", "server", response=AgentsOut),
        Operation("GET", "/api/guests", list_guests, "Guests and their access.", "guests", response=GuestsOut),
        Operation(
            "PUT",
            "/api/guest/{guestId}/access",
            set_guest_access,
            "Set one guest's access.",
            "guests",
            body=GuestAccessIn,
            response=GuestsOut,
        ),
        Operation("DELETE", "/api/guest/{guestId}", kick_guest, "Remove a guest from the room.", "guests", status=204),
        Operation(
            "GET",
            "/api/board/items",
            list_board_items,
            "Every item on the board, back to front.",
            "board",
            response=BoardItemsOut,
        ),
    ]
