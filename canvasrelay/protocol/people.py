"""Frames for guests as people: invites, asking for more access, the room's record, and who speaks to an agent."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from canvasrelay.protocol.access import Action
from canvasrelay.protocol.base import ClientFrame, Model, ServerFrame, client_frame, server_frame

NAME_MAX = 64
ID_MAX = 64
EXPIRY_MAX_S = 366 * 24 * 3600
AUDIT_PAGE_MAX = 500
MAX_INVITES = 64
"""Standing invites; each costs the hub one signalling socket (the rendezvous sizes its limits by it)."""
MAX_REVOKED = 64
"""Revoked invites still told "withdrawn"; each also keeps a signalling socket."""
InviteAccess = Literal["view", "edit", "trusted"]
InviteState = Literal["standing", "off", "expired", "revoked"]


class InviteInfo(Model):
    """One invite as the host sees it; never its secret (the link is handed out once, when made)."""

    id: str
    name: str
    access: InviteAccess | None
    """None for the open room link: its guests get the room's default access."""
    open: bool
    created_at: float
    """Seconds since the epoch."""
    expires_at: float | None = None
    single_use: bool = False
    used: bool = False
    state: InviteState


class LinkReach(Model):
    """Where the room's links take guests, and how they find the host from there."""

    page: str
    """The guest page links point at (a URL ending in `/`): a published copy, or this server."""
    relays: list[str] = Field(default_factory=list)
    """The public relays guests find the room through; none: only where they can reach this server."""
    nearby_page: str | None = None
    """This server's own guest page, when links point elsewhere and it is on the network (`--host`)."""
    anywhere: bool = False
    """The page is served elsewhere and the host is found from anywhere (relays, or an outside
    rendezvous): the link opens for people on other networks."""


@server_frame
class InviteList(ServerFrame):
    """To hosts, whenever an invite is made, revoked, used, expires or the open link changes."""

    t: Literal["invites"] = "invites"
    invites: list[InviteInfo]
    """Standing and spent ones, and those revoked lately (the host may undo a revocation)."""
    open_link: str | None
    """The open room link's fragment (`room=…&key=…&host=…`), when it is on."""
    reach: LinkReach | None = None
    """Where links take guests; None until the server knows (its port, its relays)."""


@client_frame
class InviteCreate(ClientFrame):
    t: Literal["invite-create"] = "invite-create"
    action: ClassVar[Action] = Action.ADMIN
    name: str = Field(min_length=1, max_length=NAME_MAX)
    access: InviteAccess = "edit"
    expires_in_s: float | None = Field(default=None, gt=0, le=EXPIRY_MAX_S)
    single_use: bool = False


@server_frame
class InviteCreated(ServerFrame):
    """To the host that made it: the invite's link fragment, shown once to copy."""

    t: Literal["invite-created"] = "invite-created"
    id: str
    name: str
    fragment: str


@client_frame
class InviteRevoke(ClientFrame):
    t: Literal["invite-revoke"] = "invite-revoke"
    action: ClassVar[Action] = Action.ADMIN
    id: str = Field(max_length=ID_MAX)


@client_frame
class InviteRestore(ClientFrame):
    """The host undoes a revocation: the invitation's link works again."""

    t: Literal["invite-restore"] = "invite-restore"
    action: ClassVar[Action] = Action.ADMIN
    id: str = Field(max_length=ID_MAX)


@client_frame
class OpenLinkSet(ClientFrame):
    """Turn the open room link on or off, or give it a new secret (the old link stops working)."""

    t: Literal["open-link"] = "open-link"
    action: ClassVar[Action] = Action.ADMIN
    change: Literal["on", "off", "rotate"]


@client_frame
class AccessAsk(ClientFrame):
    """A view guest asks the host for edit access; it waits in the host's list like any request.
    Trust is not asked for: the host gives it with any answer ("Trust Ada")."""

    t: Literal["access-ask"] = "access-ask"
    action: ClassVar[Action] = Action.ASK
    access: Literal["edit"] = "edit"


class AuditEntry(Model):
    seq: int
    at: float
    """Seconds since the epoch."""
    who: str
    """The person's stable id: `host`, or the guest's id."""
    name: str
    action: str
    """What was done, in words a person reads: "joined", "sent a prompt", "typed in a terminal"…"""
    detail: str = ""


@client_frame
class AuditRead(ClientFrame):
    t: Literal["audit-read"] = "audit-read"
    action: ClassVar[Action] = Action.ADMIN
    before: int | None = Field(default=None, ge=0)
    who: str | None = Field(default=None, max_length=ID_MAX)
    limit: int = Field(default=100, ge=1, le=AUDIT_PAGE_MAX)


@server_frame
class AuditPage(ServerFrame):
    """To the host that asked: the record's entries before `before`, newest first."""

    t: Literal["audit-page"] = "audit-page"
    entries: list[AuditEntry]
    more: bool


@client_frame
class PromptAttribution(ClientFrame):
    """Whether guests' prompts to one session reach its agent with their author's name (on by default)."""

    t: Literal["prompt-attribution"] = "prompt-attribution"
    action: ClassVar[Action] = Action.ADMIN
    session_id: str = Field(max_length=ID_MAX)
    on: bool


@server_frame
class GuestRemoved(ServerFrame):
    """To hosts, after a removal: what it did, so the page can say it (and offer to rotate the open link)."""

    t: Literal["guest-removed"] = "guest-removed"
    guest_id: str
    name: str
    how: Literal["invite-revoked", "blocked"]
    open_link: bool
    """The guest came through the open room link, which still lets anyone holding it in."""
