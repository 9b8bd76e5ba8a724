"""One typed refusal: a handler raises `Refused(kind, message)`; a peer hears one `error` frame of
that kind, the HTTP API answers with the kind's status code."""

from __future__ import annotations

from typing import get_args

import pytest

from canvasrelay.core.effects import AnyEffect, Send
from canvasrelay.core.errors import Refused
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.room import Room
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.agents import AgentCancel
from canvasrelay.protocol.core import ErrorFrame, ErrorKind
from canvasrelay.server.http.api.errors import STATUS_OF_KIND, refused

HOST = Peer("host-1", Access.HOST)


def refusing_room(kind: ErrorKind) -> Room:
    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/p"))

    def cancel(_peer: Peer, frame: AgentCancel) -> list[AnyEffect]:
        raise Refused(kind, f"no session {frame.session_id}")

    room.install(Feature("the test's agents", routes={AgentCancel: Route(cancel)}))
    room.join(HOST)
    return room


@pytest.mark.parametrize("kind", get_args(ErrorKind))
def test_a_refusal_reaches_the_peer_as_one_error_frame_of_its_kind(kind: ErrorKind) -> None:
    effects = refusing_room(kind).receive(HOST.id, '{"t":"agent-cancel","sessionId":"s1"}')
    assert effects == [Send(HOST.id, ErrorFrame(message="no session s1", ref="agent-cancel", kind=kind))]


def test_an_approved_request_that_is_refused_tells_the_peer_too() -> None:
    effects = refusing_room("not-found").perform(HOST, AgentCancel(session_id="s2"))
    assert effects == [Send(HOST.id, ErrorFrame(message="no session s2", ref="agent-cancel", kind="not-found"))]


def test_attempt_raises_the_refusal_for_a_caller_that_answers_it_its_own_way() -> None:
    with pytest.raises(Refused) as refusal:
        refusing_room("conflict").attempt(HOST, AgentCancel(session_id="s3"))
    assert (refusal.value.kind, refusal.value.message) == ("conflict", "no session s3")


def test_the_api_status_comes_from_the_kind_not_the_words() -> None:
    assert set(STATUS_OF_KIND) == set(get_args(ErrorKind))
    statuses = {kind: refused(Refused(kind, "the same words")).status for kind in get_args(ErrorKind)}
    assert statuses == {"invalid": 422, "not-found": 404, "conflict": 409}
    assert refused(Refused("conflict", "That session exists already.")).message == "That session exists already."
