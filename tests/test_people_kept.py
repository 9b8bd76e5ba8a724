"""What the host did stays done, in the sans-I/O core: a revoke takes back what its invitation gave
whatever link the person uses next, a removal keeps the person out until the host undoes it, the
requests of a guest who leaves that way end on the hosts' pages with the reason, a restart keeps
hand-overs of the shells that outlive it, one shell has one size, and the record says who allowed
what."""

from __future__ import annotations

from canvasrelay.core.audit import Audit
from canvasrelay.core.effects import AnyEffect, Broadcast, Close, Send
from canvasrelay.core.guest_identity import Identities
from canvasrelay.core.guests import CLOSE_WITHDRAWN, KICKED, Approval, Guests
from canvasrelay.core.invites import OPEN_ID, Invites
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.people_room import PeopleRoom
from canvasrelay.core.room import Room
from canvasrelay.core.terminals import KeptTerminal, ResizeTerminal, TerminalRoom
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.guests import ApprovalAnswer, GuestKick, GuestUnblock, TerminalGrant
from canvasrelay.protocol.people import InviteRestore, InviteRevoke
from canvasrelay.protocol.terminals import TermControl, TermOpen, TermPin, TermResize
from tests.people import joining
from tests.test_rate_limit import Clock

ADA = "guest0001"


class People:
    """A room with its host, guests, invites, terminals and record, as the server composes them."""

    def __init__(self, identities: Identities | None = None, invites: Invites | None = None) -> None:
        self.clock = Clock()
        self.room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/tmp"))
        self.invites = invites or Invites(self.clock)
        self.identities = identities or Identities(self.clock)
        self.guests = Guests(self.room, clock=self.clock, invites=self.invites, identities=self.identities)
        self.audit = Audit(self.clock)
        self.audit.names = lambda who: i.name if (i := self.identities.get(who)) else who
        self.terminals = TerminalRoom(self.room, self.guests)
        self.audit.things = lambda ref: t.name if (t := self.terminals.terminals.get(ref)) else ""
        self.people = PeopleRoom(self.room, self.guests, self.invites, self.audit, "h")
        for feature in (self.guests.feature(), self.people.feature(), self.terminals.feature()):
            self.room.install(feature)
        self.host = Peer(id="host-1", access=Access.HOST)
        self.room.join(self.host)

    def join(self, invite_id: str, guest_id: str = ADA, name: str = "Ada") -> Peer | str:
        peer = self.guests.admit(joining(name), guest_id, invite_id)
        if isinstance(peer, Peer):
            self.room.join(peer)
        return peer

    def record(self) -> list[tuple[str, str, str]]:
        entries, _ = self.audit.page(None, None, 100)
        return [(e.name, e.action, e.detail) for e in reversed(entries)]


def resized(effects: list[AnyEffect]) -> list[ResizeTerminal]:
    return [e for e in effects if isinstance(e, ResizeTerminal)]


def frames(effects: list[AnyEffect], t: str) -> list[object]:
    return [e.frame for e in effects if isinstance(e, Send | Broadcast) and e.frame.t == t]


def test_a_revoked_guest_through_the_open_link_is_a_new_guest_with_the_rooms_default() -> None:
    people = People()
    invite = people.invites.create("Ada", "edit")
    ada = people.join(invite.id)
    assert isinstance(ada, Peer) and ada.access is Access.EDIT
    people.room.receive(ada.id, '{"t":"term-open","id":"T"}')
    people.room.dispatch(people.host, ApprovalAnswer(id=next(iter(people.guests.pending)), answer="approve"))
    assert people.identities.holding("T"), "her own terminal is hers"

    revoked = people.room.dispatch(people.host, InviteRevoke(id=invite.id))
    assert [(e.peer, e.code) for e in revoked if isinstance(e, Close)] == [(ada.id, CLOSE_WITHDRAWN)]
    again = people.join(OPEN_ID)
    assert isinstance(again, Peer), again
    assert again.access is Access.VIEW == people.guests.default_access, "the open link's default, as its page says"
    assert again.granted_terminals == set() and not people.identities.holding("T")
    assert ("Ada", "lost control of a terminal", "Terminal 1: Ada's invitation was withdrawn") in people.record()

    people.room.dispatch(people.host, InviteRestore(id=invite.id))
    people.room.leave(again.id)
    back = people.join(invite.id)
    assert isinstance(back, Peer) and back.access is Access.EDIT, "the undone revocation gives its access again"


def test_a_removed_person_stays_out_through_every_link_until_the_host_lets_them_back() -> None:
    people = People()
    invite = people.invites.create("Ada", "edit")
    ada = people.join(invite.id)
    assert isinstance(ada, Peer)
    people.room.receive(ada.id, '{"t":"term-open","id":"T"}')
    removed = people.room.dispatch(people.host, GuestKick(guest_id=ADA))
    (_to_ada, ended) = frames(removed, "approval-resolved")
    assert (ended.outcome, ended.reason) == ("withdrawn", "the host removed Ada")  # type: ignore[attr-defined]
    assert not people.guests.pending
    told = frames(removed, "invites")
    assert told and told[-1].invites[-1].state == "revoked", "the hosts' invitations show it at once"  # type: ignore[attr-defined]
    assert frames(removed, "guests")[-1].removed[0].name == "Ada"  # type: ignore[attr-defined]
    assert people.join(OPEN_ID) == KICKED and people.join(invite.id) == KICKED

    people.room.dispatch(people.host, GuestUnblock(guest_id=ADA))
    back = people.join(invite.id)
    assert isinstance(back, Peer) and back.access is Access.EDIT
    assert ("the host", "let a removed guest back in", "Ada") in people.record()


def test_after_a_restart_every_waiting_request_names_who_asks() -> None:
    before = People()
    ada = before.join(OPEN_ID)
    assert isinstance(ada, Peer)
    before.room.receive(ada.id, '{"t":"term-control","id":"T"}')
    (waiting,) = before.guests.pending.values()

    after = People(identities=before.identities, invites=before.invites)
    after.guests.restore(Approval(waiting.id, ADA, ada.id, TermControl(id="T"), 1e9, waiting.text, waiting.sha256))
    (asked,) = after.room.welcome(after.host).approvals
    assert (asked.name, asked.color) == ("Ada", "#112233"), "named before Ada is back"


def test_a_hand_over_outlives_a_restart_as_long_as_its_shell() -> None:
    before = People()
    ada = before.join(OPEN_ID)
    assert isinstance(ada, Peer)
    for tid in ("kept", "gone"):
        before.room.dispatch(before.host, TermOpen(id=tid))
        before.room.dispatch(before.host, TerminalGrant(guest_id=ADA, terminal_id=tid, granted=True))
    kept = list(before.terminals.kept())

    after = People(identities=before.identities, invites=before.invites)
    after.terminals.restore([kept[0], KeptTerminal("gone", "Terminal 2", running=False, ended_while_stopped=True)])
    again = after.join(OPEN_ID)
    assert isinstance(again, Peer) and again.granted_terminals == {"kept"}
    (listing,) = frames(after.terminals._joined(after.host), "terminals")
    assert [(t.id, [c.name for c in t.controllers]) for t in listing.terminals] == [  # type: ignore[attr-defined]
        ("kept", ["Ada"]),
        ("gone", []),
    ]
    assert ("Ada", "lost control of a terminal", "Terminal 2: its shell ended while canvas was stopped") in (
        after.record()
    )


def test_one_shell_has_the_widest_size_of_the_views_that_may_type_and_the_host_may_pin_it() -> None:
    people = People()
    people.room.dispatch(people.host, TermOpen(id="T", cols=79, rows=28))
    phone = Peer(id="host-2", access=Access.HOST)
    people.room.join(phone)
    assert not resized(people.room.dispatch(phone, TermOpen(id="T", cols=38, rows=31))), "a narrow view never shrinks"
    viewer = people.join(OPEN_ID)
    assert isinstance(viewer, Peer)
    assert not resized(people.room.dispatch(viewer, TermOpen(id="T", cols=200, rows=50))), "nor one that cannot type"
    assert people.room.dispatch(viewer, TermResize(id="T", cols=200, rows=50))[0].frame.t == "error"  # type: ignore[attr-defined]
    wider = people.room.dispatch(phone, TermResize(id="T", cols=120, rows=30))
    assert ResizeTerminal("T", 120, 30) in wider, "the widest view that may type sets it"
    assert ResizeTerminal("T", 79, 28) in people.room.leave(phone.id), "and it follows the next widest when it goes"

    pinned = people.room.dispatch(people.host, TermPin(id="T", cols=100, rows=40))
    assert ResizeTerminal("T", 100, 40) in pinned
    assert people.room.dispatch(people.host, TermResize(id="T", cols=150, rows=40)) == []
    (listing,) = frames(pinned, "terminals")
    (info,) = listing.terminals  # type: ignore[attr-defined]
    assert (info.cols, info.rows, info.pinned) == (100, 40, True)
    assert ResizeTerminal("T", 150, 40) in people.room.dispatch(people.host, TermPin(id="T"))
