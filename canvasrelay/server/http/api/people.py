"""The API's operations on people: invites (made, listed, revoked), the open link, and the room's record.

Invites are made and revoked through the same core as the host's page, so the hosts' lists follow."""

from __future__ import annotations

from pydantic import Field

from canvasrelay.core.errors import Refused
from canvasrelay.protocol.people import AUDIT_PAGE_MAX, EXPIRY_MAX_S, NAME_MAX, AuditEntry, InviteAccess, InviteInfo
from canvasrelay.protocol.people import InviteCreate as InviteFrame
from canvasrelay.server.http.api.errors import refused
from canvasrelay.server.http.api.models import ApiModel, QueryModel, RequestModel
from canvasrelay.server.http.api.openapi import Call, Operation
from canvasrelay.server.http.api.routes import API_PEER
from canvasrelay.server.http.api.services import ApiServices


class InviteIn(RequestModel):
    name: str = Field(min_length=1, max_length=NAME_MAX, description="Who the invitation is for.")
    access: InviteAccess = "edit"
    expires_in_s: float | None = Field(default=None, gt=0, le=EXPIRY_MAX_S, description="Seconds until it lapses.")
    single_use: bool = Field(default=False, description="Only the first person who joins with it may use it.")


class InviteOut(ApiModel):
    id: str
    link: str
    """The invitation link: give it to that person only."""


class InvitesOut(ApiModel):
    invites: list[InviteInfo]


class AuditQuery(QueryModel):
    before: int | None = Field(default=None, ge=0, description="Entries older than this `seq`.")
    who: str | None = Field(default=None, max_length=64, description="One person's entries: `host` or a guest id.")
    limit: int = Field(default=100, ge=1, le=AUDIT_PAGE_MAX)


class AuditOut(ApiModel):
    entries: list[AuditEntry]
    """Newest first."""
    more: bool
    """Older entries remain: ask again with `before` set to the last entry's `seq`."""


def operations(services: ApiServices) -> list[Operation]:
    async def create_invite(call: Call) -> InviteOut:
        body: InviteIn = call.body
        frame = InviteFrame(
            name=body.name, access=body.access, expires_in_s=body.expires_in_s, single_use=body.single_use
        )
        try:
            invite = services.people.create(API_PEER, frame)
        except Refused as refusal:
            raise refused(refusal) from None
        await services.run([services.people.to_hosts()])
        return InviteOut(id=invite.id, link=services.invite_link(invite))

    async def list_invites(_call: Call) -> InvitesOut:
        return InvitesOut(invites=services.people.invite_list().invites)

    async def revoke_invite(call: Call) -> None:
        try:
            effects = services.people.revoke(API_PEER, call.params["inviteId"])
        except Refused as refusal:
            raise refused(refusal) from None
        await services.run(effects)

    async def read_audit(call: Call) -> AuditOut:
        query: AuditQuery = call.query
        entries, more = services.audit.page(query.before, query.who, query.limit)
        return AuditOut(entries=entries, more=more)

    return [
        Operation(
            "POST",
            "/api/invites",
            create_invite,
            "Invite one person: a link of their own, revocable alone.",
            "people",
            body=InviteIn,
            response=InviteOut,
            status=201,
            errors=(409,),
        ),
        Operation(
            "GET", "/api/invites", list_invites, "The invitations and their state.", "people", response=InvitesOut
        ),
        Operation(
            "DELETE",
            "/api/invites/{inviteId}",
            revoke_invite,
            "Revoke an invitation: whoever came with it leaves at once, and its link stops working.",
            "people",
            status=204,
            errors=(404, 409),
        ),
        Operation(
            "GET",
            "/api/audit",
            read_audit,
            "The room's record of who did what, newest first, paged.",
            "people",
            query=AuditQuery,
            response=AuditOut,
        ),
    ]
