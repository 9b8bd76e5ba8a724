"""The API's timeline: its marks, the replay file of a stretch of it, and restoring the board as it was."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from aiohttp import web

from canvasrelay.core.board import EMPTY_UPDATE
from canvasrelay.core.board_edits import BoardApiError
from canvasrelay.core.errors import Refused
from canvasrelay.server.http.api.errors import ApiError, refused
from canvasrelay.server.http.api.models import RestoreIn, RestoreOut, SpanQuery, TimelineOut
from canvasrelay.server.http.api.openapi import Call, Operation
from canvasrelay.server.http.api.services import ApiServices

REPLAY_MEDIA = "application/gzip"
T = TypeVar("T")


async def answered(work: Awaitable[T]) -> T:
    """What the recording answers, or its refusal as the API's (a restore's board refusal: 409)."""
    try:
        return await work
    except Refused as refusal:
        raise refused(refusal) from None
    except BoardApiError as exc:
        raise ApiError(409, str(exc)) from None


def operations(services: ApiServices) -> list[Operation]:
    replays = services.replays

    async def timeline(call: Call) -> TimelineOut:
        query: SpanQuery = call.query
        room = await answered(replays.timeline(query.from_, query.to))
        return TimelineOut(start=room.start, end=room.end, marks=room.marks)

    async def export_replay(call: Call) -> web.Response:
        query: SpanQuery = call.query
        made = replays.export(query.from_, query.to) if query.after is None else replays.following(query.after)
        blob = await answered(made)
        return web.Response(
            body=blob,
            content_type=REPLAY_MEDIA,
            headers={"Content-Disposition": 'attachment; filename="room.canvas-replay"'},
        )

    async def restore_board(call: Call) -> RestoreOut:
        body: RestoreIn = call.body
        edit = await answered(replays.restore(body.at, body.item))
        return RestoreOut(changed=edit.update != EMPTY_UPDATE, removed=list(edit.removed))

    return [
        Operation(
            "GET",
            "/api/timeline",
            timeline,
            "The recording's span and its marks: prompts, approvals, joins and board changes, by whom.",
            "timeline",
            query=SpanQuery,
            response=TimelineOut,
            errors=(409,),
        ),
        Operation(
            "GET",
            "/api/replay",
            export_replay,
            "The replay file of the recording (or of from…to, or of what came after `after`): open it with"
            " `canvas replay FILE`.",
            "timeline",
            query=SpanQuery,
            stream=REPLAY_MEDIA,
            errors=(409,),
        ),
        Operation(
            "POST",
            "/api/board/restore",
            restore_board,
            "Bring back the board, or one item, as it was at a moment: a new change by the host.",
            "timeline",
            body=RestoreIn,
            response=RestoreOut,
            errors=(409, 422),
        ),
    ]
