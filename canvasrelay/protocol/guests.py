"""Frames for guests: joining over the data channel, the host's guest list, access and approvals."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from canvasrelay.protocol.access import Action
from canvasrelay.protocol.base import ClientFrame, Model, ServerFrame, client_frame, server_frame

NAME_MAX = 64
ID_MAX = 64
AccessLevel = Literal["view", "edit", "trusted"]
"""What a guest can be given; `host` is never granted over the wire."""
COLOR_PATTERN = r"^#[0-9a-fA-F]{6}$"
Outcome = Literal["approved", "denied", "trusted", "expired", "withdrawn"]
SHA256_PATTERN = r"^[0-9a-f]{64}$"


@client_frame
class GuestJoin(ClientFrame):
    """A guest's first frame on a proven channel. The hub handles it before the guest is a Room peer."""

    action: ClassVar[Action] = Action.READ

    t: Literal["guest-join"] = "guest-join"
    key: str = Field(min_length=87, max_length=87, pattern=r"^[A-Za-z0-9_-]+$")
    """The guest's own ECDSA P-256 public key (uncompressed point, base64url): who this person is."""
    signature: str = Field(min_length=86, max_length=86, pattern=r"^[A-Za-z0-9_-]+$")
    """The key's signature over the hub's challenge and both DTLS fingerprints, raw r‖s base64url:
    proves this join holds the private key, so nobody else can come back as this person."""
    name: str = Field(min_length=1, max_length=NAME_MAX)
    color: str = Field(pattern=COLOR_PATTERN)
    last_seq: int | None = Field(default=None, ge=0)
    """The last stream position this guest saw; the hub resumes after it, or says it cannot."""


@client_frame
class GuestLeave(ClientFrame):
    """A guest's page is closing (or `canvas join` quits): it leaves now, rather than when its
    connection times out, and its place is not kept for a reconnect."""

    t: Literal["guest-leave"] = "guest-leave"
    action: ClassVar[Action] = Action.READ


@client_frame
class GuestSetAccess(ClientFrame):
    t: Literal["guest-set-access"] = "guest-set-access"
    action: ClassVar[Action] = Action.ADMIN
    guest_id: str = Field(max_length=ID_MAX)
    access: AccessLevel | None
    """None returns the guest to the room's default."""


@client_frame
class RoomSetAccess(ClientFrame):
    t: Literal["room-set-access"] = "room-set-access"
    action: ClassVar[Action] = Action.ADMIN
    access: AccessLevel


@client_frame
class GuestKick(ClientFrame):
    t: Literal["guest-kick"] = "guest-kick"
    action: ClassVar[Action] = Action.ADMIN
    guest_id: str = Field(max_length=ID_MAX)


@client_frame
class GuestUnblock(ClientFrame):
    """The host undoes a removal: the person may join again (through its invitation, which the
    removal revoked, too)."""

    t: Literal["guest-unblock"] = "guest-unblock"
    action: ClassVar[Action] = Action.ADMIN
    guest_id: str = Field(max_length=ID_MAX)


@client_frame
class TerminalGrant(ClientFrame):
    t: Literal["terminal-grant"] = "terminal-grant"
    action: ClassVar[Action] = Action.ADMIN
    guest_id: str = Field(max_length=ID_MAX)
    terminal_id: str = Field(max_length=ID_MAX)
    granted: bool


@client_frame
class ApprovalAnswer(ClientFrame):
    t: Literal["approval-answer"] = "approval-answer"
    action: ClassVar[Action] = Action.ADMIN
    id: str = Field(max_length=ID_MAX)
    answer: Literal["approve", "deny", "trust"]
    sha256: str | None = Field(default=None, pattern=SHA256_PATTERN)
    """The request's `sha256` as the host saw it; when given and not the request's, nothing runs."""


class GuestInfo(Model):
    guest_id: str
    name: str
    color: str
    access: AccessLevel
    own_access: AccessLevel | None
    """Set when the host gave this guest its own level rather than the room's default."""
    connected: bool
    latency_ms: float | None = None
    granted_terminals: list[str] = Field(default_factory=list)
    via_open_link: bool = True
    """Came through the open room link (removing blocks its browser), not an invitation of its own
    (removing revokes that invitation)."""


class RemovedGuest(Model):
    """A person the host removed: kept out, whatever link it holds, until the host lets it back."""

    guest_id: str
    name: str
    color: str


@server_frame
class GuestList(ServerFrame):
    """To hosts, whenever a guest joins, leaves or changes."""

    t: Literal["guests"] = "guests"
    default_access: AccessLevel
    guests: list[GuestInfo]
    removed: list[RemovedGuest] = Field(default_factory=list)


@server_frame
class ApprovalRequest(ServerFrame):
    """To hosts: a guest asks to do something that runs on the host's machine."""

    t: Literal["approval-request"] = "approval-request"
    id: str
    guest_id: str
    name: str
    color: str
    what: str
    """The kind of frame asked for, e.g. `agent-prompt`."""
    text: str
    """What it says, whole: the prompt's text when there is one (at most the prompt limit),
    otherwise its fields. This is exactly what runs when the host approves."""
    length: int
    """`text`'s length in characters."""
    escaped: int = 0
    """How many of them the server shows as escapes (protocol/visible_text.py): a page that shows
    a different number does not claim to show it all."""
    sha256: str
    """SHA-256 of `text` as UTF-8, hex. A prompt's turn carries the same digest."""
    subject: str | None = None
    """The session or terminal the request is about."""
    expires_in_ms: int


@server_frame
class ApprovalResolved(ServerFrame):
    """To hosts and to the asking guest: how a request ended."""

    t: Literal["approval-resolved"] = "approval-resolved"
    id: str
    ref: str
    outcome: Outcome
    text: str | None = None
    """What the request said, when it did not run (denied, expired, withdrawn): the guest can copy or resend it."""
    name: str = ""
    """Who asked, for the host's line about it."""
    reason: str | None = None
    """Why a request was withdrawn, in words ("the host removed Ada"), when the asker did not leave of its own."""


@server_frame
class RequestPending(ServerFrame):
    """To a guest: its request waits for the host."""

    t: Literal["request-pending"] = "request-pending"
    id: str
    ref: str
    expires_in_ms: int
    subject: str | None = None
    """What the request is about (a session or terminal id), so the view showing it can say it waits."""
    text: str = ""
    """The words it carries, as the guest wrote them (a prompt's text); empty for a request without words."""


@client_frame
class HostProfile(ClientFrame):
    """The host's name and colour, as guests see them in the people list and on the join page."""

    t: Literal["host-profile"] = "host-profile"
    action: ClassVar[Action] = Action.ADMIN
    name: str = Field(min_length=1, max_length=NAME_MAX)
    color: str = Field(pattern=COLOR_PATTERN)


class Person(Model):
    peer_id: str
    """The peer's id, as awareness frames name it (so a page can follow that person's view)."""
    name: str
    color: str
    access: Literal["view", "edit", "trusted", "host"]


@server_frame
class People(ServerFrame):
    """To everyone, whenever someone comes, goes, is renamed or gets other access: who is here."""

    t: Literal["people"] = "people"
    people: list[Person]


@server_frame
class YourAccess(ServerFrame):
    """To a guest, on joining and whenever the host changes what it may do."""

    t: Literal["access"] = "access"
    access: AccessLevel
    granted_terminals: list[str] = Field(default_factory=list)


@server_frame
class StreamGap(ServerFrame):
    """The hub no longer holds the frames after `after`; a full resync (a new `welcome`) follows."""

    t: Literal["gap"] = "gap"
    after: int | None
    reason: str


@server_frame
class HubProof(ServerFrame):
    """The hub's first message on a channel: the host key's signature over nonce and fingerprints."""

    t: Literal["proof"] = "proof"
    signature: str
    """Raw r‖s, base64url."""
    challenge: str
    """32 fresh random bytes, base64url: what the guest signs with its own key in `guest-join`."""


@server_frame
class Bye(ServerFrame):
    """The hub is closing this guest's channel for good (kicked, or the room is stopping): do not reconnect."""

    t: Literal["bye"] = "bye"
    code: int
    reason: str
