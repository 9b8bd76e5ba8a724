"""Invites, sans-I/O: who the host let in, person by person, and the open room link among them.

Each invite has a secret of its own. Its link's `room` value and its signalling key are both
derived from that secret (HKDF, as the room key always was), so the rendezvous topic a guest
meets the hub on is the invite's own: a holder of one invite cannot read, forge or crowd another
invite's signalling. The open room link is one invite (`OPEN_ID`) the host can turn off or
rotate without touching the named ones. A revoked invite is kept for a while so that its link
is answered with "this invitation was withdrawn" rather than silence.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from canvasrelay.core.errors import Refused
from canvasrelay.protocol.encoding import b64url, b64url_decode
from canvasrelay.protocol.people import MAX_INVITES, MAX_REVOKED, InviteAccess, InviteInfo, InviteState

OPEN_ID = "open"
OPEN_NAME = "Open room link"
ROOM_INFO = b"canvas/invite-room/v1"
REVOKED_KEPT_S = 7 * 24 * 3600.0
"""How long a revoked invite's link is still told "withdrawn" (then it meets silence)."""
WITHDRAWN = "This invitation was withdrawn by the host."
EXPIRED = "This invitation has expired."
USED = "This invitation was already used."
TURNED_OFF = "The host turned this room link off: ask them for an invitation of your own."


class InviteRefused(Refused):
    """What the host asked of the invites cannot be done: it clashes with the invites standing, or
    (`missing`) there is no such invite."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__("not-found" if missing else "conflict", message)


def link_room(secret: str) -> str:
    """The `room=` value of an invite's link: derived from its secret, so it names a topic only its holders know."""
    derived = HKDF(algorithm=hashes.SHA256(), length=16, salt=None, info=ROOM_INFO).derive(b64url_decode(secret))
    return b64url(derived)


def new_secret() -> str:
    return b64url(secrets.token_bytes(32))


@dataclass(frozen=True)
class Invite:
    id: str
    name: str
    access: InviteAccess | None
    """None for the open link (and the old ones it rotated away from): guests through it get the
    room's default access."""
    secret: str
    created_at: float
    expires_at: float | None = None
    single_use: bool = False
    used_by: str | None = None
    """The guest a single-use invite was spent on: only it may come back through it."""
    revoked_at: float | None = None
    enabled: bool = True
    """Only the open link is ever turned off (and on again); a named invite is revoked."""

    @property
    def room(self) -> str:
        return link_room(self.secret)

    @property
    def is_open(self) -> bool:
        return self.id == OPEN_ID

    def stands(self, now: float) -> bool:
        return self.state(now) == "standing"

    def info(self, now: float) -> InviteInfo:
        return InviteInfo(
            id=self.id,
            name=self.name,
            access=self.access,
            open=self.is_open,
            created_at=self.created_at,
            expires_at=self.expires_at,
            single_use=self.single_use,
            used=self.used_by is not None,
            state=self.state(now),
        )

    def refusal(self, now: float) -> str | None:
        """Why this invite lets nobody in now, in the words its holder reads; None while it stands."""
        state = self.state(now)
        return {"revoked": WITHDRAWN, "off": TURNED_OFF, "expired": EXPIRED}.get(state)

    def state(self, now: float) -> InviteState:
        if self.revoked_at is not None:
            return "revoked"
        if not self.enabled:
            return "off"
        if self.expires_at is not None and now >= self.expires_at:
            return "expired"
        return "standing"


def new_invite_id() -> str:
    """Twelve random URL-safe characters, never starting with "-": the id is typed after
    `canvas invite --revoke`, where a leading dash reads as an option."""
    while (invite_id := b64url(secrets.token_bytes(9))).startswith("-"):
        pass
    return invite_id


class Invites:
    """The room's invites. `clock` is wall time: expiries outlive a restart."""

    def __init__(
        self, clock: Callable[[], float], saved: Iterable[Invite] = (), open_secret: str | None = None
    ) -> None:
        self.clock = clock
        self.invites: dict[str, Invite] = {}
        self.listeners: list[Callable[[], None]] = []
        """Called after every change: the store writes, the hub listens on the topics that changed."""
        for invite in saved:
            self.invites[invite.id] = invite
        if OPEN_ID not in self.invites:
            self.invites[OPEN_ID] = Invite(OPEN_ID, OPEN_NAME, None, open_secret or new_secret(), clock())

    @property
    def open(self) -> Invite:
        return self.invites[OPEN_ID]

    def __iter__(self) -> Iterator[Invite]:
        return iter(self.invites.values())

    def create(
        self, name: str, access: InviteAccess, expires_in_s: float | None = None, single_use: bool = False
    ) -> Invite:
        now = self.clock()
        if sum(1 for i in self if i.stands(now)) >= MAX_INVITES:
            raise InviteRefused(f"the room already has {MAX_INVITES} invitations standing: revoke one first")
        invite = Invite(
            id=new_invite_id(),
            name=name,
            access=access,
            secret=new_secret(),
            created_at=now,
            expires_at=now + expires_in_s if expires_in_s is not None else None,
            single_use=single_use,
        )
        self.invites[invite.id] = invite
        self._changed()
        return invite

    def revoke(self, invite_id: str) -> Invite:
        invite = self.get(invite_id)
        if invite.is_open:
            raise InviteRefused("the open room link is turned off or rotated, not revoked")
        if invite.revoked_at is None:
            invite = self._put(replace(invite, revoked_at=self.clock()))
        return invite

    def restore(self, invite_id: str) -> Invite:
        """Undo a revocation: the link works again, and its guests' next join gives them its access anew."""
        invite = self.get(invite_id)
        if invite.access is None:
            raise InviteRefused("an old open room link stays withdrawn: the open link has a new secret")
        if invite.revoked_at is not None:
            invite = self._put(replace(invite, revoked_at=None))
        return invite

    def withdrawn(self) -> list[Invite]:
        """The named invites revoked lately, newest first: the host may still undo each."""
        return sorted(
            (i for i in self.listening() if i.revoked_at is not None and i.access is not None),
            key=lambda i: -(i.revoked_at or 0.0),
        )

    def set_open(self, enabled: bool) -> Invite:
        return self._put(replace(self.open, enabled=enabled))

    def rotate_open(self) -> Invite:
        """A new secret for the open link; the old one is kept as revoked (its holders are told), the
        named invites are untouched."""
        now = self.clock()
        old = replace(self.open, id=f"{OPEN_ID}-{b64url(secrets.token_bytes(6))}", revoked_at=now)
        self.invites[old.id] = old
        return self._put(replace(self.open, secret=new_secret(), created_at=now))

    def get(self, invite_id: str) -> Invite:
        invite = self.invites.get(invite_id)
        if invite is None:
            raise InviteRefused("there is no such invitation", missing=True)
        return invite

    def admit(self, invite_id: str, guest_id: str) -> Invite | str:
        """The invite a guest may come in through, or why not. Spends a single-use invite."""
        invite = self.invites.get(invite_id)
        if invite is None:
            return WITHDRAWN
        refusal = invite.refusal(self.clock())
        if refusal is not None:
            return refusal
        if invite.single_use:
            if invite.used_by is None:
                invite = self._put(replace(invite, used_by=guest_id))
            elif invite.used_by != guest_id:
                return USED
        return invite

    def listening(self) -> list[Invite]:
        """The invites the hub listens for: those standing, and those recently withdrawn or off (to say so)."""
        now = self.clock()
        return [i for i in self if i.revoked_at is None or now - i.revoked_at < REVOKED_KEPT_S]

    def prune(self) -> None:
        """Forget revoked invites beyond their time, and the oldest beyond `MAX_REVOKED`."""
        now = self.clock()
        revoked = sorted((i for i in self if i.revoked_at is not None), key=lambda i: i.revoked_at or 0.0)
        old = [i for i in revoked if now - (i.revoked_at or 0.0) >= REVOKED_KEPT_S]
        old += revoked[len(old) : max(len(old), len(revoked) - MAX_REVOKED)]
        for invite in old:
            del self.invites[invite.id]
        if old:
            self._changed()

    def _put(self, invite: Invite) -> Invite:
        self.invites[invite.id] = invite
        self._changed()
        return invite

    def _changed(self) -> None:
        for listener in self.listeners:
            listener()
