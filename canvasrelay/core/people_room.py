"""The host's say over people, sans-I/O: invites, the open link, guests asking for more, the record, and
who speaks to an agent.

Routes the invite frames (a host makes, revokes, turns off or rotates), grants an approved
`access-ask`, answers the host's reads of the room's record, and names a guest's prompt to the
agent (`Ada (guest, edit): …`) before the policy sees it, so the host approves exactly what the
agent will get (unless the host switched that off for the session). Each change to the invites
is told to the hosts (`invites`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from canvasrelay.core.audit import Audit
from canvasrelay.core.effects import AnyEffect, Broadcast, Send
from canvasrelay.core.errors import Refused
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.guests import Guests
from canvasrelay.core.invites import Invite, Invites
from canvasrelay.core.peer import Peer
from canvasrelay.core.room import Room
from canvasrelay.protocol import ClientFrame
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.agents import MAX_PROMPT_CHARS, AgentPrompt
from canvasrelay.protocol.people import (
    AccessAsk,
    AuditPage,
    AuditRead,
    InviteCreate,
    InviteCreated,
    InviteList,
    InviteRestore,
    InviteRevoke,
    LinkReach,
    OpenLinkSet,
)

NOT_A_GUEST = "Only a guest asks for edit access: the host has it all."


def attribution(name: str, access: Access, text: str) -> str:
    """How a guest's prompt reaches the agent: its author named first, as the host sees it in the approval."""
    return f"{name} (guest, {access.value}): {text}"


@dataclass
class PeopleRoom:
    room: Room
    guests: Guests
    invites: Invites
    audit: Audit
    host_public_key: str
    link_tail: str = ""
    """What every link carries after its keys (`&signal=…`): set once the server knows it."""
    reach: LinkReach | None = None
    """Where links take guests, told to the hosts with the invites: set once the server knows it."""
    names_prompts: Callable[[str], bool] = lambda _session_id: True
    """Whether guests' prompts to a session reach its agent named (the session keeps the host's switch)."""

    _told: InviteList | None = field(default=None, init=False)
    """The invite list the hosts were sent last: an invite that expires or is spent is told on the clock."""

    def __post_init__(self) -> None:
        self.guests.invite_listeners.append(lambda: [self.to_hosts()])
        self.guests.hand_over_ended.append(self._hand_over_ended)
        self.audit.approvals = self._asked

    def _asked(self, request_id: str) -> tuple[str, ClientFrame] | None:
        """Who asked a waiting request, and the frame that runs if the host approves it."""
        approval = self.guests.pending.get(request_id)
        return (self.audit.names(approval.guest_id), approval.frame) if approval is not None else None

    def feature(self) -> Feature:
        return Feature(
            "the people",
            routes={
                InviteCreate: Route(self._create),
                InviteRevoke: Route(self._revoke),
                InviteRestore: Route(self._restore),
                OpenLinkSet: Route(self._open_link),
                AccessAsk: Route(self._access),
                AuditRead: Route(self._read),
            },
            rewrite=self._attributed,
            observe=self.audit.observe,
            joined=self._joined,
            left=self._left,
            tick=self.tick,
        )

    def fragment(self, invite: Invite) -> str:
        return f"room={invite.room}&key={invite.secret}&host={self.host_public_key}{self.link_tail}"

    def invite_list(self) -> InviteList:
        now = self.invites.clock()
        open_invite = self.invites.open
        return InviteList(
            invites=[
                *(i.info(now) for i in self.invites if i.revoked_at is None or i.is_open),
                *(i.info(now) for i in self.invites.withdrawn()),
            ],
            open_link=self.fragment(open_invite) if open_invite.stands(now) else None,
            reach=self.reach,
        )

    def to_hosts(self) -> Broadcast:
        self._told = self.invite_list()
        return Broadcast(self._told, min_access=Access.HOST)

    def tick(self, _now: float) -> list[AnyEffect]:
        """An invite that expired or was spent since the hosts were told: told now, not at their next reload."""
        return [self.to_hosts()] if self._told is not None and self.invite_list() != self._told else []

    def create(self, by: Peer, frame: InviteCreate) -> Invite:
        name = frame.name.strip() or frame.name
        invite = self.invites.create(name, frame.access, frame.expires_in_s, frame.single_use)
        self.audit.record(by, "made an invitation", f"{name} ({frame.access})")
        return invite

    def revoke(self, by: Peer, invite_id: str) -> list[AnyEffect]:
        invite = self.invites.revoke(invite_id)
        self.audit.record(by, "revoked an invitation", invite.name)
        return [*self.guests.revoked(invite_id), self.to_hosts()]

    def _hand_over_ended(self, guest_id: str, terminal_id: str, why: str) -> None:
        detail = f"{self.audit.thing(terminal_id)}: {why}"
        self.audit.note(guest_id, self.audit.names(guest_id), "lost control of a terminal", detail)

    # -- routes -------------------------------------------------------------------------------

    def _create(self, host: Peer, frame: InviteCreate) -> list[AnyEffect]:
        invite = self.create(host, frame)
        created = InviteCreated(id=invite.id, name=invite.name, fragment=self.fragment(invite))
        return [Send(host.id, created), self.to_hosts()]

    def _revoke(self, host: Peer, frame: InviteRevoke) -> list[AnyEffect]:
        return self.revoke(host, frame.id)

    def _restore(self, host: Peer, frame: InviteRestore) -> list[AnyEffect]:
        invite = self.invites.restore(frame.id)
        self.audit.record(host, "undid the revocation of an invitation", invite.name)
        return [self.to_hosts()]

    def _open_link(self, _host: Peer, frame: OpenLinkSet) -> list[AnyEffect]:
        # Whoever came through the old link stays: the host removes people one by one.
        if frame.change == "rotate":
            self.invites.rotate_open()
        else:
            self.invites.set_open(frame.change == "on")
        return [self.to_hosts()]

    def _access(self, peer: Peer, frame: AccessAsk) -> list[AnyEffect]:
        guest_id = self.guests.guest_id_of(peer)
        if guest_id is None:
            raise Refused("invalid", NOT_A_GUEST)
        return self.guests.set_own_access(guest_id, Access(frame.access))

    def _read(self, host: Peer, frame: AuditRead) -> list[AnyEffect]:
        entries, more = self.audit.page(frame.before, frame.who, frame.limit)
        return [Send(host.id, AuditPage(entries=entries, more=more))]

    def _attributed(self, peer: Peer, frame: ClientFrame) -> ClientFrame:
        if not isinstance(frame, AgentPrompt):
            return frame
        # `written` is the server's to set: whatever a client put there goes.
        # A command (`/run …`) is the agent's to parse from its first character: named, it would
        # be words, so it goes as written (the approval shows it so, the record names who).
        if peer.is_host:
            # The thread names the host as guests know it (its page says "You"), unless a script named someone.
            return frame.model_copy(update={"written": None, "author": frame.author or self.guests.name_of(peer)})
        if frame.text.startswith("/") or not self.names_prompts(frame.session_id):
            return frame.model_copy(update={"written": None})
        text = attribution(peer.name or "A guest", peer.access, frame.text)[:MAX_PROMPT_CHARS]
        return frame.model_copy(update={"text": text, "written": frame.text})

    # -- presence -----------------------------------------------------------------------------

    def _joined(self, peer: Peer) -> list[AnyEffect]:
        self.audit.joined(peer)
        return [Send(peer.id, self.invite_list())] if peer.is_host else []

    def _left(self, peer: Peer) -> list[AnyEffect]:
        self.audit.left(peer)
        return []
