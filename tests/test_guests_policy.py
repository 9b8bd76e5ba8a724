"""Guests on the Room without sockets: access levels, approvals, expiry, trust, kick, grants."""

from __future__ import annotations

import hashlib

import pytest
from pydantic import ValidationError

from canvasrelay.core.effects import AnyEffect, Broadcast, Close, Send
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.guests import KICKED, Guests, peer_id_of
from canvasrelay.core.invites import OPEN_ID
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.policy import Request
from canvasrelay.core.room import Room
from canvasrelay.protocol import ClientFrame
from canvasrelay.protocol.access import Access, Action
from canvasrelay.protocol.guests import (
    ApprovalAnswer,
    GuestKick,
    GuestSetAccess,
    People,
    RoomSetAccess,
    TerminalGrant,
)
from tests.people import joining
from tests.probe_frames import Draw, Permission, Prompt, Ran, Type


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def room() -> Room:
    room = Room(RoomInfo(room_id="r", host_public_key="p", cwd="/"))
    typing = Route(
        lambda peer, f: [Ran(f"type by {peer.id}")],
        request=lambda peer, f: Request(Action.TYPE_TERMINAL, terminal_granted=f.terminal in peer.granted_terminals),
    )
    routes = {
        Prompt: Route(lambda peer, f: [Ran(f"prompt {f.text} by {peer.id}")]),
        Draw: Route(lambda peer, f: [Ran(f"draw by {peer.id}")]),
        Type: typing,
        Permission: Route(lambda peer, f: [Ran(f"answer by {peer.id}")]),
    }
    room.install(Feature("the test's frames", routes=routes))
    return room


@pytest.fixture
def guests(room: Room, clock: Clock) -> Guests:
    guests = Guests(room, clock=clock, approval_ttl=30.0)
    room.install(guests.feature())
    return guests


def join(room: Room, guests: Guests, guest_id: str = "guest0001") -> Peer:
    peer = guests.admit(joining("Ada", "#112233"), guest_id, OPEN_ID)
    assert isinstance(peer, Peer)
    room.join(peer)
    return peer


def join_peer(guests: Guests, guest_id: str = "guest0001") -> Peer:
    peer = guests.admit(joining("Ada", "#112233"), guest_id, OPEN_ID)
    assert isinstance(peer, Peer)
    return peer


def ran(effects: list[AnyEffect]) -> list[str]:
    return [e.what for e in effects if isinstance(e, Ran)]


def errors(effects: list[AnyEffect]) -> list[str]:
    return [e.frame.message for e in effects if isinstance(e, Send) and e.frame.t == "error"]  # type: ignore[attr-defined]


def sent(effects: list[AnyEffect], t: str) -> list[Send | Broadcast]:
    return [e for e in effects if isinstance(e, Send | Broadcast) and e.frame.t == t]


@pytest.fixture
def host(room: Room) -> Peer:
    peer = Peer(id="host-1", access=Access.HOST)
    room.join(peer)
    return peer


def test_view_guest_is_refused_everything(room: Room, guests: Guests, host: Peer) -> None:
    guest = join(room, guests)
    assert guest.access is Access.VIEW
    frames: list[ClientFrame] = [
        Prompt(text="rm -rf"),
        Draw(),
        Type(terminal="t1"),
        Permission(),
        GuestSetAccess(guest_id="guest0001", access="trusted"),
        RoomSetAccess(access="trusted"),
        GuestKick(guest_id="guest0001"),
        ApprovalAnswer(id="a1", answer="approve"),
    ]
    for frame in frames:
        effects = room.dispatch(guest, frame)
        assert ran(effects) == [] and not sent(effects, "approval-request"), frame.t
        assert errors(effects) and "does not allow" in errors(effects)[0], frame.t
    assert guests.pending == {} and guests.default_access is Access.VIEW


def test_edit_prompt_waits_for_the_host_and_runs_when_approved(room: Room, guests: Guests, host: Peer) -> None:
    guests.default_access = Access.EDIT
    guest = join(room, guests)
    assert ran(room.dispatch(guest, Draw())) == ["draw by guest-guest0001"]
    effects = room.dispatch(guest, Prompt(text="fix the tests"))
    assert ran(effects) == []
    (request,) = sent(effects, "approval-request")
    assert isinstance(request, Broadcast) and request.min_access is Access.HOST
    assert request.frame.text == "fix the tests" and request.frame.name == "Ada"  # type: ignore[attr-defined]
    approval_id = request.frame.id  # type: ignore[attr-defined]
    effects = room.dispatch(host, ApprovalAnswer(id=approval_id, answer="approve"))
    assert ran(effects) == ["prompt fix the tests by guest-guest0001"]
    assert [e.frame.outcome for e in sent(effects, "approval-resolved")] == ["approved", "approved"]  # type: ignore[attr-defined]
    assert "no longer waiting" in errors(room.dispatch(host, ApprovalAnswer(id=approval_id, answer="approve")))[0]


def test_deny_runs_nothing_and_expiry_says_so(room: Room, guests: Guests, host: Peer, clock: Clock) -> None:
    guests.default_access = Access.EDIT
    guest = join(room, guests)
    first = sent(room.dispatch(guest, Prompt(text="one")), "approval-request")[0].frame.id  # type: ignore[attr-defined]
    effects = room.dispatch(host, ApprovalAnswer(id=first, answer="deny"))
    assert ran(effects) == [] and errors(effects) == []
    assert [e.frame.outcome for e in sent(effects, "approval-resolved")] == ["denied", "denied"]  # type: ignore[attr-defined]
    room.dispatch(guest, Prompt(text="two"))
    clock.now += 29
    assert guests.tick(clock()) == []
    clock.now += 2
    effects = guests.tick(clock())
    assert ran(effects) == [] and [e.frame.outcome for e in sent(effects, "approval-resolved")] == ["expired"] * 2  # type: ignore[attr-defined]
    assert guests.pending == {}


def test_trust_runs_this_and_the_next_directly(room: Room, guests: Guests, host: Peer) -> None:
    guests.default_access = Access.EDIT
    guest = join(room, guests)
    request = sent(room.dispatch(guest, Prompt(text="a")), "approval-request")[0]
    effects = room.dispatch(host, ApprovalAnswer(id=request.frame.id, answer="trust"))  # type: ignore[attr-defined]
    assert ran(effects) == ["prompt a by guest-guest0001"]
    assert guest.access is Access.TRUSTED
    assert [e.frame.access for e in sent(effects, "access")] == ["trusted"]  # type: ignore[attr-defined]
    assert ran(room.dispatch(guest, Prompt(text="b"))) == ["prompt b by guest-guest0001"]
    assert ran(room.dispatch(guest, Permission())) == [], "a trusted guest never answers a tool permission"


def test_access_changes_default_and_own(room: Room, guests: Guests, host: Peer) -> None:
    guest = join(room, guests)
    room.dispatch(host, RoomSetAccess(access="edit"))
    assert guest.access is Access.EDIT
    room.dispatch(host, GuestSetAccess(guest_id="guest0001", access="view"))
    room.dispatch(host, RoomSetAccess(access="trusted"))
    assert guest.access is Access.VIEW, "an own level outlasts a change of the default"
    effects = room.dispatch(host, GuestSetAccess(guest_id="guest0001", access=None))
    assert guest.access is Access.TRUSTED
    (listing,) = sent(effects, "guests")
    assert listing.frame.guests[0].access == "trusted"  # type: ignore[attr-defined]


def test_terminal_grant_is_per_terminal(room: Room, guests: Guests, host: Peer) -> None:
    guests.default_access = Access.EDIT
    guest = join(room, guests)
    assert ran(room.dispatch(guest, Type(terminal="t1"))) == []
    room.dispatch(host, TerminalGrant(guest_id="guest0001", terminal_id="t1", granted=True))
    assert ran(room.dispatch(guest, Type(terminal="t1"))) == ["type by guest-guest0001"]
    assert ran(room.dispatch(guest, Type(terminal="t2"))) == []
    room.dispatch(host, TerminalGrant(guest_id="guest0001", terminal_id="t1", granted=False))
    assert ran(room.dispatch(guest, Type(terminal="t1"))) == []


def test_kick_closes_and_bans_for_this_run(room: Room, guests: Guests, host: Peer) -> None:
    join(room, guests)
    effects = room.dispatch(host, GuestKick(guest_id="guest0001"))
    assert [e.peer for e in effects if isinstance(e, Close)] == [peer_id_of("guest0001")]
    again = guests.admit(joining("Ada", "#112233"), "guest0001", OPEN_ID)
    assert again == KICKED


def test_host_sees_the_list_on_join_and_requests_outlive_a_drop(room: Room, guests: Guests) -> None:
    guests.default_access = Access.EDIT
    guest = join(room, guests)
    room.dispatch(guest, Prompt(text="a"))
    effects = room.join(Peer(id="host-2", access=Access.HOST))
    assert sent(effects, "guests")[0].frame.guests[0].connected  # type: ignore[attr-defined]
    effects = room.leave(guest.id)
    assert sent(effects, "approval-resolved") == [] and len(guests.pending) == 1, "still waiting for the guest"
    effects = room.join(join_peer(guests))
    waiting = sent(effects, "request-pending")
    assert [e.frame.text for e in waiting] == ["a"], "the guest is told what still waits"  # type: ignore[attr-defined]


def test_a_guest_gone_past_its_grace_is_forgotten_and_a_kicked_one_stays_banned(
    room: Room, guests: Guests, host: Peer, clock: Clock
) -> None:
    ada = join(room, guests)
    room.dispatch(host, GuestSetAccess(guest_id="guest0001", access="trusted"))
    bob = join(room, guests, guest_id="guest0002")
    room.dispatch(host, GuestKick(guest_id="guest0002"))
    room.leave(bob.id)
    room.leave(ada.id)
    guests.admit(joining("Cy", "#112233"), "guest0003", OPEN_ID)
    clock.now += guests.forget_after - 1
    assert guests.tick(clock()) == [] and set(guests.guests) == {"guest0001", "guest0002", "guest0003"}
    back = join(room, guests)
    assert back.access is Access.TRUSTED, "back within the grace: still itself"
    clock.now += 1
    effects = guests.tick(clock())
    assert set(guests.guests) == {"guest0001"} and guests.guest_list().guests[0].guest_id == "guest0001"
    assert sent(effects, "guests"), "the hosts see the shorter list"
    room.leave(back.id)
    clock.now += guests.forget_after
    guests.tick(clock())
    assert guests.guests == {}
    assert guests.admit(joining("Bob", "#112233"), "guest0002", OPEN_ID) == (KICKED)
    again = guests.admit(joining("Ada", "#112233"), "guest0001", OPEN_ID)
    assert isinstance(again, Peer) and again.access is Access.TRUSTED, "gone from the list, yet the same person"


def test_the_host_is_shown_the_whole_prompt_with_its_length_and_digest(room: Room, guests: Guests, host: Peer) -> None:
    guests.default_access = Access.EDIT
    guest = join(room, guests)
    text = "".join(f"line {i}: do step {i}\n" for i in range(600))[:10_000] + "\u202etxt.exe\x1b[2K"
    (request,) = sent(room.dispatch(guest, Prompt(text=text)), "approval-request")
    shown = request.frame
    assert shown.text == text and shown.length == len(text) > 10_000  # type: ignore[attr-defined]
    assert shown.sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest()  # type: ignore[attr-defined]
    effects = room.dispatch(host, ApprovalAnswer(id=shown.id, answer="approve", sha256=shown.sha256))  # type: ignore[attr-defined]
    assert ran(effects) == [f"prompt {text} by guest-guest0001"]


def test_an_answer_for_other_text_runs_nothing_and_the_request_stays(room: Room, guests: Guests, host: Peer) -> None:
    guests.default_access = Access.EDIT
    guest = join(room, guests)
    request = sent(room.dispatch(guest, Prompt(text="the real one")), "approval-request")[0].frame
    other = hashlib.sha256(b"what the host saw").hexdigest()
    effects = room.dispatch(host, ApprovalAnswer(id=request.id, answer="approve", sha256=other))  # type: ignore[attr-defined]
    assert ran(effects) == [] and "different text" in errors(effects)[0]
    assert request.id in guests.pending  # type: ignore[attr-defined]
    effects = room.dispatch(host, ApprovalAnswer(id=request.id, answer="approve", sha256=request.sha256))  # type: ignore[attr-defined]
    assert ran(effects) == ["prompt the real one by guest-guest0001"]


def test_a_waiting_request_cannot_be_changed_before_it_runs(room: Room, guests: Guests, host: Peer) -> None:
    guests.default_access = Access.EDIT
    guest = join(room, guests)
    frame = Prompt(text="approved text")
    room.dispatch(guest, frame)
    with pytest.raises(ValidationError):
        frame.text = "something else"  # type: ignore[misc]


def test_a_reloaded_host_page_gets_the_requests_still_waiting(
    room: Room, guests: Guests, host: Peer, clock: Clock
) -> None:
    guests.default_access = Access.EDIT
    guest = join(room, guests)
    first = sent(room.dispatch(guest, Prompt(text="one")), "approval-request")[0].frame
    room.dispatch(guest, Prompt(text="two"))
    room.dispatch(host, ApprovalAnswer(id=first.id, answer="deny"))  # type: ignore[attr-defined]
    clock.now += 10
    reloaded = room.welcome(Peer(id="host-2", access=Access.HOST))
    assert [(a.text, a.name, a.expires_in_ms) for a in reloaded.approvals] == [("two", "Ada", 20_000)]
    assert room.welcome(guest).approvals == [], "guests are not shown the host's queue"


def test_a_guest_whose_channel_dropped_is_not_counted_until_it_resumes(room: Room, guests: Guests, host: Peer) -> None:
    def here(effects: list[AnyEffect]) -> list[str]:
        (people,) = [e.frame for e in effects if isinstance(e, Broadcast) and isinstance(e.frame, People)]
        return [p.name for p in people.people]

    ada = join(room, guests)
    assert ada.id in room.peers
    assert here(guests.away("guest0001")) == ["Host"], "counted out while its place waits"
    assert not guests.guests["guest0001"].connected and guests.away("guest0001") == []
    assert here(guests.back("guest0001")) == ["Host", "Ada"]
    assert here(guests.away("guest0001")) == ["Host"]
    # Its place given up at last: still not here, and gone since it dropped, not since now.
    dropped_at = guests.guests["guest0001"].away_since
    assert here(room.leave(ada.id)) == ["Host"] and guests.guests["guest0001"].away_since == dropped_at
