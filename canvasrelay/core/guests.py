"""Guests on the Room, sans-I/O: who they are, what they may do, and the host's approvals.

The hub admits a guest with `admit` (after the channel proved the host key and the guest sent
`guest-join`); from then on the guest is an ordinary Room peer whose `access` this module keeps
in step with the host's choices. Requests the policy answers with "ask the host" wait here until a
host approves, denies or trusts, or until they expire (`expire`, driven by the hub's clock).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from canvasrelay.core.effects import AnyEffect, Broadcast, Close, Send
from canvasrelay.core.errors import Refused
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.guest_identity import Identities, Identity
from canvasrelay.core.invites import OPEN_ID, WITHDRAWN, Invite, Invites
from canvasrelay.core.peer import Peer
from canvasrelay.core.room import Room, error, needs_approval
from canvasrelay.protocol import ClientFrame
from canvasrelay.protocol.access import Access, Action
from canvasrelay.protocol.encoding import text_sha256
from canvasrelay.protocol.guests import (
    AccessLevel,
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalResolved,
    GuestInfo,
    GuestJoin,
    GuestKick,
    GuestLeave,
    GuestList,
    GuestSetAccess,
    GuestUnblock,
    HostProfile,
    Outcome,
    People,
    Person,
    RemovedGuest,
    RequestPending,
    RoomSetAccess,
    TerminalGrant,
    YourAccess,
)
from canvasrelay.protocol.people import GuestRemoved
from canvasrelay.protocol.terminals import Controller
from canvasrelay.protocol.visible_text import visible
from canvasrelay.protocol.words import request_noun

APPROVAL_TTL = 120.0
MAX_PENDING_PER_GUEST = 8
"""A guest cannot bury the host in requests…"""
PENDING_CHARS_PER_GUEST = 400_000
"""…nor in text: what one guest's waiting requests hold in all (four prompts of the largest size)…"""
PENDING_CHARS = 2_000_000
"""…and what all of them hold: every waiting request is in a host's welcome, which must stay well
under what a socket may hold back for a page (so a reload always loads)."""
CLOSE_KICKED = 4403
CLOSE_WITHDRAWN = 4410
"""Its invitation was revoked: the page says so rather than that the guest left."""
CLOSE_LEFT = 4000
"""The guest said it leaves (its page closed): no reconnect, and no farewell anyone reads."""
PEER_PREFIX = "guest-"
FORGET_AFTER = 60.0
"""A guest gone this long (counted from when it left the room, after the hub's own resume grace)
is forgotten: its name, its own access and grants. A kicked guest's id stays banned."""
KICKED = "The host removed you from this room."
NO_GUEST = "That guest is no longer in the room."
HOST_COLOR = "#495057"


@dataclass
class Guest:
    guest_id: str
    name: str
    color: str
    invite_id: str = OPEN_ID
    own_access: Access | None = None
    granted_terminals: set[str] = field(default_factory=set)
    connected: bool = False
    latency_ms: float | None = None
    away_since: float | None = None
    """When it left the room (or was admitted without joining yet); None while it is there."""


@dataclass(frozen=True)
class Approval:
    id: str
    guest_id: str
    peer_id: str
    frame: ClientFrame
    expires_at: float
    text: str
    """What the host is shown, whole; `sha256` is its digest."""
    sha256: str
    escaped: int = field(init=False)
    """How many characters of `text` the card shows escaped: counted once, not at every welcome."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "escaped", visible(self.text)[1])


def peer_id_of(guest_id: str) -> str:
    return PEER_PREFIX + guest_id


def words_of(frame: ClientFrame) -> str | None:
    """The words the frame carries (a prompt's text, as the agent will get it), if any."""
    for name in ("text", "prompt"):
        value = getattr(frame, name, None)
        if isinstance(value, str):
            return value
    return None


def own_words(frame: ClientFrame) -> str | None:
    """The words as the guest wrote them: a prompt named to the agent keeps them in `written`."""
    written = getattr(frame, "written", None)
    return written if isinstance(written, str) else words_of(frame)


def describe(frame: ClientFrame) -> str:
    """What the host reads before approving, whole (frames are bounded by their own limits):
    the prompt's text when there is one, else the fields."""
    words = words_of(frame)
    if words is not None:
        return words
    fields = frame.model_dump(mode="json", by_alias=True, exclude={"t"})
    return json.dumps(fields, ensure_ascii=False)


def subject_of(frame: ClientFrame) -> str | None:
    for name in ("session_id", "id"):
        value = getattr(frame, name, None)
        if isinstance(value, str):
            return value
    return None


class Guests:
    def __init__(
        self,
        room: Room,
        clock: Callable[[], float] = time.monotonic,
        approval_ttl: float = APPROVAL_TTL,
        forget_after: float = FORGET_AFTER,
        invites: Invites | None = None,
        identities: Identities | None = None,
        request_prefix: str = "a",
    ) -> None:
        self.room = room
        self.request_prefix = request_prefix
        """Begins every request id: the server's is new at each start, so a page that saw a request
        answered before a restart never takes a new one for it."""
        self.invites = invites or Invites(time.time)
        self.identities = identities or Identities(time.time)
        self.clock = clock
        self.approval_ttl = approval_ttl
        self.forget_after = forget_after
        self.default_access = Access.VIEW
        self.guests: dict[str, Guest] = {}
        self.banned: set[str] = set()
        self.pending: dict[str, Approval] = {}
        self._ids = itertools.count(1)
        self.host_name = ""
        """The host's name as the host set it (host-profile), shown to guests; empty until then."""
        self.grant_listeners: list[Callable[[], list[AnyEffect]]] = []
        """Called whenever a guest is handed a terminal or loses it (the terminal listing says who)."""
        self.invite_listeners: list[Callable[[], list[AnyEffect]]] = []
        """Called when a removal revoked an invite or an undo restored one (the hosts' invite list)."""
        self.hand_over_ended: list[Callable[[str, str, str], None]] = []
        """Called as (guest id, terminal id, why) when a hand-over ends other than by the host's
        taking it back: the record says so."""

    def feature(self) -> Feature:
        return Feature(
            "the guests",
            routes={
                GuestSetAccess: Route(self._set_access),
                RoomSetAccess: Route(self._set_room_access),
                GuestKick: Route(self._kick),
                GuestUnblock: Route(self._unblock),
                TerminalGrant: Route(self._grant),
                ApprovalAnswer: Route(self._answer),
                HostProfile: Route(self._host_profile),
                GuestLeave: Route(self._leave),
            },
            approvals=self.ask_host,
            joined=self._joined,
            left=self._left,
            heads=self._waiting,
            tick=self.tick,
        )

    # -- admission, driven by the hub -------------------------------------------------------

    def admit(self, join: GuestJoin, guest_id: str, invite_id: str) -> Peer | str:
        """The peer to connect for this join of a proven `guest_id` through `invite_id`, or why it may not join."""
        if guest_id in self.banned or self.identities.is_blocked(guest_id):
            return KICKED
        invite = self.invites.admit(invite_id, guest_id)
        if isinstance(invite, str):
            return invite
        identity = self.identities.seen(guest_id, join.key, join.name, join.color, invite.id)
        if invite.access is not None and self.identities.uses(guest_id, invite.id):
            # A person's own invite sets their access the first time they use it; the host may change it later.
            self.identities.set_access(guest_id, invite.access)
        identity = self.identities.get(guest_id) or identity
        guest = self.guests.get(guest_id)
        if guest is None:
            guest = Guest(guest_id, join.name, join.color, away_since=self.clock())
            self.guests[guest_id] = guest
        guest.name, guest.color, guest.invite_id = join.name, join.color, invite.id
        guest.own_access = Access(identity.own_access) if identity.own_access else None
        # The same set as the peer's, changed in place: a hand-over kept through a restart is back.
        guest.granted_terminals.clear()
        guest.granted_terminals.update(identity.terminals)
        return Peer(
            id=peer_id_of(guest.guest_id),
            access=self.access_of(guest),
            name=guest.name,
            color=guest.color,
            granted_terminals=guest.granted_terminals,
        )

    def access_of(self, guest: Guest) -> Access:
        return guest.own_access or self.default_access

    def set_latency(self, guest_id: str, latency_ms: float | None) -> None:
        guest = self.guests.get(guest_id)
        if guest is not None:
            guest.latency_ms = latency_ms

    def guest_list(self) -> GuestList:
        return GuestList(
            default_access=_level(self.default_access),
            guests=[
                GuestInfo(
                    guest_id=g.guest_id,
                    name=g.name,
                    color=g.color,
                    access=_level(self.access_of(g)),
                    own_access=_level(g.own_access) if g.own_access else None,
                    connected=g.connected,
                    latency_ms=g.latency_ms,
                    granted_terminals=sorted(g.granted_terminals),
                    via_open_link=g.invite_id == OPEN_ID,
                )
                for g in self.guests.values()
                if g.guest_id not in self.banned
            ],
            removed=[RemovedGuest(guest_id=i.guest_id, name=i.name, color=i.color) for i in self.identities.blocked()],
        )

    def to_hosts(self) -> Broadcast:
        return Broadcast(self.guest_list(), min_access=Access.HOST)

    # -- approvals ---------------------------------------------------------------------------

    def ask_host(self, peer: Peer, frame: ClientFrame) -> list[AnyEffect]:
        guest_id = self._guest_id(peer)
        if guest_id is None:
            raise Refused("invalid", needs_approval(frame.t))
        if sum(1 for a in self.pending.values() if a.guest_id == guest_id) >= MAX_PENDING_PER_GUEST:
            raise Refused(
                "conflict", f"{MAX_PENDING_PER_GUEST} of your requests already wait for the host: ask again later."
            )
        text = describe(frame)
        held = sum(len(a.text) for a in self.pending.values() if a.guest_id == guest_id)
        if held + len(text) > PENDING_CHARS_PER_GUEST:
            raise Refused("conflict", "your requests waiting for the host are too long in all: ask again later.")
        if sum(len(a.text) for a in self.pending.values()) + len(text) > PENDING_CHARS:
            raise Refused("conflict", "the host has too much waiting for an answer: ask again later.")
        expires_at = self.clock() + self.approval_ttl
        request_id = f"{self.request_prefix}{next(self._ids)}"
        approval = Approval(request_id, guest_id, peer.id, frame, expires_at, text, text_sha256(text))
        self.pending[approval.id] = approval
        return [Send(peer.id, self._pending_of(approval)), Broadcast(self._request(approval), min_access=Access.HOST)]

    def _pending_of(self, approval: Approval) -> RequestPending:
        expires_in_ms = max(0, int((approval.expires_at - self.clock()) * 1000))
        ref, subject = approval.frame.t, subject_of(approval.frame)
        text = own_words(approval.frame) or ""
        return RequestPending(id=approval.id, ref=ref, subject=subject, expires_in_ms=expires_in_ms, text=text)

    def restore(self, approval: Approval) -> None:
        """A request that waited when the server stopped waits again, with the time it had left."""
        self.pending[approval.id] = approval
        number = approval.id.removeprefix(self.request_prefix)
        if number.isdigit():
            self._ids = itertools.count(max(int(number) + 1, next(self._ids)))

    def _who(self, guest_id: str) -> tuple[str, str]:
        """A guest's name and colour, here or not (after a restart, its requests wait before it is back)."""
        guest = self.guests.get(guest_id) or self.identities.get(guest_id)
        return (guest.name, guest.color) if guest is not None else ("A guest", HOST_COLOR)

    def _request(self, approval: Approval) -> ApprovalRequest:
        name, color = self._who(approval.guest_id)
        return ApprovalRequest(
            id=approval.id,
            guest_id=approval.guest_id,
            name=name,
            color=color,
            what=approval.frame.t,
            text=approval.text,
            length=len(approval.text),
            escaped=approval.escaped,
            sha256=approval.sha256,
            subject=subject_of(approval.frame),
            expires_in_ms=max(0, int((approval.expires_at - self.clock()) * 1000)),
        )

    def _waiting(self, peer: Peer) -> list[tuple[str, ApprovalRequest]]:
        """A host's welcome lists the requests still waiting, so a reloaded page loses none."""
        if not peer.is_host:
            return []
        return [(a.id, self._request(a)) for a in self.pending.values()]

    def tick(self, now: float) -> list[AnyEffect]:
        """On the room's clock: requests nobody answered in time, and guests long gone."""
        effects: list[AnyEffect] = self._forget(now)
        for approval in [a for a in self.pending.values() if a.expires_at <= now]:
            del self.pending[approval.id]
            effects += self._resolved(approval, "expired")
        return effects

    def _forget(self, now: float) -> list[AnyEffect]:
        gone = [
            g.guest_id
            for g in self.guests.values()
            if g.away_since is not None and now - g.away_since >= self.forget_after
        ]
        for guest_id in gone:
            del self.guests[guest_id]
        return [self.to_hosts()] if gone else []

    def _answer(self, _host: Peer, frame: ApprovalAnswer) -> list[AnyEffect]:
        approval = self.pending.get(frame.id)
        if approval is None:
            raise Refused("not-found", "That request is no longer waiting: it was answered, withdrawn or expired.")
        if frame.sha256 is not None and frame.sha256 != approval.sha256:
            # The host answered something other than what waits: it stays waiting for a real answer.
            raise Refused("conflict", "That answer was for different text than the request holds: nothing ran.")
        del self.pending[frame.id]
        peer = self.room.peers.get(approval.peer_id)
        guest = self.guests.get(approval.guest_id)
        if peer is None or guest is None:
            return self._resolved(approval, "withdrawn")
        ref = approval.frame.t
        if frame.answer == "deny":
            return self._resolved(approval, "denied")
        effects: list[AnyEffect] = []
        if frame.answer == "trust":
            effects += self._change(guest, own_access=Access.TRUSTED)
        elif peer.access.rank < Access.EDIT.rank and type(approval.frame).action is not Action.ASK:
            # Lowered to view while the request waited: the approval no longer applies.
            return [
                error(
                    peer.id,
                    f"The host approved your {request_noun(ref)}, but you now have view access: it did not run.",
                    ref,
                ),
                *self._resolved(approval, "withdrawn"),
            ]
        effects += self._resolved(approval, "trusted" if frame.answer == "trust" else "approved")
        return effects + self.room.perform(peer, approval.frame)

    def _resolved(self, approval: Approval, outcome: Outcome, reason: str | None = None) -> list[AnyEffect]:
        """The guest keeps the words of a request that did not run (to copy or send again); the hosts keep a line."""
        kept = own_words(approval.frame) if outcome in ("denied", "expired", "withdrawn") else None
        resolved = ApprovalResolved(
            id=approval.id,
            ref=approval.frame.t,
            outcome=outcome,
            text=kept,
            name=self._who(approval.guest_id)[0],
            reason=reason,
        )
        return [Send(approval.peer_id, resolved), Broadcast(resolved, min_access=Access.HOST)]

    # -- the host's controls -----------------------------------------------------------------

    def _set_access(self, _host: Peer, frame: GuestSetAccess) -> list[AnyEffect]:
        guest = self._known(frame.guest_id)
        if guest is None:
            raise Refused("not-found", NO_GUEST)
        return self._change(guest, own_access=Access(frame.access) if frame.access else None)

    def _set_room_access(self, _host: Peer, frame: RoomSetAccess) -> list[AnyEffect]:
        before = self.default_access
        self.default_access = Access(frame.access)
        effects: list[AnyEffect] = []
        for guest in self.guests.values():
            if guest.own_access is None:
                effects += self._lowered(guest, before) + self._sync_peer(guest)
        return [*effects, self.to_hosts(), self.people()]

    def _kick(self, _host: Peer, frame: GuestKick) -> list[AnyEffect]:
        """Removing a guest blocks its identity, whatever link it uses next, and revokes its own invite
        when it came through one."""
        guest = self._known(frame.guest_id)
        if guest is None:
            raise Refused("not-found", NO_GUEST)
        why = f"the host removed {guest.name}"
        effects = self._hold(guest.guest_id, set(), why)
        self.identities.block(guest.guest_id)
        is_open = guest.invite_id == OPEN_ID
        effects += self.remove(guest.guest_id, KICKED, ban=True, why=why)
        if not is_open:
            self.invites.revoke(guest.invite_id)
            effects += self.revoked(guest.invite_id)
        removed = GuestRemoved(
            guest_id=guest.guest_id, name=guest.name, how="blocked" if is_open else "invite-revoked", open_link=is_open
        )
        return [*effects, *self._invites_changed(), Broadcast(removed, min_access=Access.HOST)]

    def _unblock(self, _host: Peer, frame: GuestUnblock) -> list[AnyEffect]:
        """The host undoes a removal: the person may come back, through the invite the removal revoked too."""
        identity = self.identities.unblock(frame.guest_id)
        if identity is None:
            raise Refused("not-found", "That person is not removed from the room.")
        self.banned.discard(identity.guest_id)
        # The removed guest's place was kept only to keep it out: it comes back as it joins.
        self.guests.pop(identity.guest_id, None)
        effects: list[AnyEffect] = [self.to_hosts()]
        if identity.invite_id != OPEN_ID and identity.invite_id in self.invites.invites:
            self.invites.restore(identity.invite_id)
            effects += self._invites_changed()
        return effects

    def revoked(self, invite_id: str) -> list[AnyEffect]:
        """An invite was revoked: whoever came through it loses the access and the terminals it gave,
        through whatever link it comes next, and whoever is here through it leaves now."""
        effects: list[AnyEffect] = []
        for identity in self.identities.revoked(invite_id):
            effects += self._hold(identity.guest_id, set(), f"{identity.name}'s invitation was withdrawn")
            guest = self.guests.get(identity.guest_id)
            if guest is not None and guest.invite_id != invite_id:
                guest.own_access = None
                effects += self._sync_peer(guest)
        for guest in [g for g in self.guests.values() if g.invite_id == invite_id and g.guest_id not in self.banned]:
            why = f"{guest.name}'s invitation was withdrawn"
            effects += self.remove(guest.guest_id, WITHDRAWN, ban=False, why=why, code=CLOSE_WITHDRAWN)
        return [*effects, self.to_hosts(), self.people()]

    def remove(self, guest_id: str, reason: str, ban: bool, why: str, code: int = CLOSE_KICKED) -> list[AnyEffect]:
        """Out of the room, its requests ended (on every page, with `why`) and its terminals taken back:
        the hub ends its channel. Banned, it cannot come back in this run whatever invite it holds;
        else it is forgotten here."""
        if ban:
            self.banned.add(guest_id)
        effects: list[AnyEffect] = []
        for approval in [a for a in self.pending.values() if a.guest_id == guest_id]:
            del self.pending[approval.id]
            effects += self._resolved(approval, "withdrawn", why)
        effects += self._hold(guest_id, set(), why)
        if not ban:
            self.guests.pop(guest_id, None)
        return [*effects, Close(peer_id_of(guest_id), code, reason), self.to_hosts()]

    def _grant(self, _host: Peer, frame: TerminalGrant) -> list[AnyEffect]:
        if self._person(frame.guest_id) is None:
            raise Refused("not-found", NO_GUEST)
        return self.grant(frame.guest_id, frame.terminal_id, frame.granted)

    def grant(self, guest_id: str, terminal_id: str, granted: bool) -> list[AnyEffect]:
        """Hand a guest control of a terminal (or take it back), here or not: it is kept like its access."""
        held = self._held(guest_id)
        if held is None:
            return []
        return self._hold(guest_id, held | {terminal_id} if granted else held - {terminal_id})

    def _held(self, guest_id: str) -> set[str] | None:
        """The terminals a person (not removed) holds, or None for nobody the room knows."""
        if self._person(guest_id) is None:
            return None
        guest, identity = self.guests.get(guest_id), self.identities.get(guest_id)
        return set(identity.terminals) if identity is not None else set(guest.granted_terminals if guest else ())

    def _hold(self, guest_id: str, terminals: set[str], why: str = "") -> list[AnyEffect]:
        """`guest_id` now holds `terminals`, on its identity (which outlives a restart) and its live
        peer; each hand-over it loses is recorded with `why`, unless the host took it back."""
        guest, identity = self.guests.get(guest_id), self.identities.get(guest_id)
        before = set(identity.terminals) if identity is not None else set(guest.granted_terminals if guest else ())
        if before == terminals:
            return []
        self.identities.set_terminals(guest_id, terminals)
        if guest is not None:
            guest.granted_terminals.clear()
            guest.granted_terminals.update(terminals)
        if why:
            for terminal_id in sorted(before - terminals):
                for listener in self.hand_over_ended:
                    listener(guest_id, terminal_id, why)
        synced = self._sync_peer(guest) if guest is not None else []
        return [*synced, self.to_hosts(), *self._grants_changed()]

    def controllers(self, terminal_id: str) -> list[Controller]:
        return [
            Controller(guest_id=i.guest_id, name=i.name, color=i.color)
            for i in self.identities.holding(terminal_id)
            if i.guest_id not in self.banned
        ]

    def _grants_changed(self) -> list[AnyEffect]:
        return [effect for listener in self.grant_listeners for effect in listener()]

    def _invites_changed(self) -> list[AnyEffect]:
        return [effect for listener in self.invite_listeners for effect in listener()]

    def end_grants(self, terminal_id: str, why: str) -> list[AnyEffect]:
        """No guest controls `terminal_id` any more (its shell ended, or another starts under it)."""
        effects: list[AnyEffect] = []
        for identity in self.identities.holding(terminal_id):
            effects += self._hold(identity.guest_id, set(identity.terminals) - {terminal_id}, why)
        return effects

    def keep_grants(self, running: set[str], why: str) -> None:
        """At start, before anyone is here: the hand-overs of shells that did not outlive the stop end."""
        for identity in list(self.identities.known.values()):
            if not set(identity.terminals) <= running:
                self._hold(identity.guest_id, set(identity.terminals) & running, why)

    def set_own_access(self, guest_id: str, access: Access) -> list[AnyEffect]:
        guest = self._known(guest_id)
        return self._change(guest, own_access=access) if guest is not None else []

    def _change(self, guest: Guest, own_access: Access | None) -> list[AnyEffect]:
        before = self.access_of(guest)
        guest.own_access = own_access
        self.identities.set_access(guest.guest_id, _level(own_access) if own_access else None)
        return [*self._lowered(guest, before), *self._sync_peer(guest), self.to_hosts(), self.people()]

    def _lowered(self, guest: Guest, before: Access) -> list[AnyEffect]:
        """Lowering a guest's access takes back the terminals it was handed: the host meant less, not more."""
        if self.access_of(guest).rank >= before.rank:
            return []
        return self._hold(guest.guest_id, set(), f"the host lowered {guest.name}'s access")

    def _leave(self, peer: Peer, _frame: GuestLeave) -> list[AnyEffect]:
        if self._guest_of(peer) is None:
            raise Refused("invalid", "Only a guest leaves: the host's page simply closes.")
        # Closing its channel takes it out of the room at once: it leaves, its cursor with it.
        return [Close(peer.id, CLOSE_LEFT, "You left the room.")]

    def _host_profile(self, host: Peer, frame: HostProfile) -> list[AnyEffect]:
        host.color = frame.color
        self.host_name = frame.name
        return [self.people()]

    def people(self) -> Broadcast:
        """Who is here, for everyone: each host and connected guest with its name, colour and access
        (not a guest whose channel dropped, though its place waits for it to resume)."""
        people = [
            Person(peer_id=peer.id, name=self.name_of(peer), color=self.color_of(peer), access=peer.access.value)
            for peer in self.room.peers.values()
            if getattr(self._guest_of(peer), "connected", True)
        ]
        return Broadcast(People(people=people))

    def name_of(self, peer: Peer) -> str:
        return (self.host_name or "Host") if peer.is_host else peer.name

    def color_of(self, peer: Peer) -> str:
        return peer.color or HOST_COLOR

    def about(self) -> dict[str, str | None]:
        """What the join page says before one joins: the project, whose room it is, the access one gets."""
        return {"project": self.room.info.project, "host": self.host_name or None, "access": self.default_access.value}

    def about_for(self, guest_id: str | None, invite: Invite) -> dict[str, str | None] | str:
        """What the join page says to the person `guest_id` (None when the page did not say who it
        is) before it joins through `invite`: the access that join would give, as `admit` sets it,
        and whom a named invite is for; or why it may not join."""
        if guest_id is not None and (guest_id in self.banned or self.identities.is_blocked(guest_id)):
            return KICKED
        about = self.about()
        if invite.access is not None:
            about["name"] = invite.name
        identity = self.identities.get(guest_id) if guest_id is not None else None
        if invite.access is not None and (identity is None or invite.id not in identity.invites):
            about["access"] = invite.access
        elif identity is not None and identity.own_access is not None:
            about["access"] = identity.own_access
        return about

    def _sync_peer(self, guest: Guest) -> list[AnyEffect]:
        """Apply the guest's current access to its live peer and tell the guest."""
        peer = self.room.peers.get(peer_id_of(guest.guest_id))
        if peer is None:
            return []
        peer.access = self.access_of(guest)
        return [Send(peer.id, self._your_access(guest))]

    def _your_access(self, guest: Guest) -> YourAccess:
        return YourAccess(access=_level(self.access_of(guest)), granted_terminals=sorted(guest.granted_terminals))

    # -- presence ----------------------------------------------------------------------------

    def _joined(self, peer: Peer) -> list[AnyEffect]:
        if peer.is_host:
            return [Send(peer.id, self.guest_list()), self.people()]
        guest = self._guest_of(peer)
        if guest is None:
            return [self.people()]
        guest.connected = True
        guest.away_since = None
        waiting: list[AnyEffect] = [
            Send(peer.id, self._pending_of(a)) for a in self.pending.values() if a.peer_id == peer.id
        ]
        return [Send(peer.id, self._your_access(guest)), *waiting, self.to_hosts(), self.people()]

    def _left(self, peer: Peer) -> list[AnyEffect]:
        guest = self._guest_of(peer)
        if guest is None:
            return [self.people()]
        # Its requests keep waiting: a guest that drops or a server that restarts finds them still there.
        return self._gone(guest, self.clock() if guest.connected else guest.away_since)

    def away(self, guest_id: str) -> list[AnyEffect]:
        """The guest's channel dropped: its place waits for it to resume, but it is not here now."""
        guest = self.guests.get(guest_id)
        return self._gone(guest, self.clock()) if guest is not None and guest.connected else []

    def back(self, guest_id: str) -> list[AnyEffect]:
        """The guest resumed its place after a drop."""
        guest = self.guests.get(guest_id)
        if guest is None or guest.connected:
            return []
        guest.connected = True
        guest.away_since = None
        return [self.to_hosts(), self.people()]

    def _gone(self, guest: Guest, since: float | None) -> list[AnyEffect]:
        guest.connected = False
        guest.latency_ms = None
        guest.away_since = since
        return [self.to_hosts(), self.people()]

    def guest_id_of(self, peer: Peer) -> str | None:
        return self._guest_id(peer)

    def _guest_id(self, peer: Peer) -> str | None:
        if not peer.id.startswith(PEER_PREFIX):
            return None
        return peer.id[len(PEER_PREFIX) :]

    def _guest_of(self, peer: Peer) -> Guest | None:
        guest_id = self._guest_id(peer)
        return self.guests.get(guest_id) if guest_id else None

    def _known(self, guest_id: str) -> Guest | None:
        return None if guest_id in self.banned else self.guests.get(guest_id)

    def _person(self, guest_id: str) -> Guest | Identity | None:
        """A guest here, or one the room keeps (gone for now, or before a restart), not removed."""
        identity = self.identities.get(guest_id)
        if guest_id in self.banned or (identity is not None and identity.blocked):
            return None
        return self.guests.get(guest_id) or identity


def _level(access: Access) -> AccessLevel:
    if access is Access.HOST:
        raise ValueError("a guest never has host access")
    return access.value  # type: ignore[return-value]
