"""The API's session operations that read the store: list, one session with its events in
pages, the events as server-sent events, and the session's permission rules.

Events are written to the store before anyone is sent them. The event stream reads the store for
what came before (resuming after `Last-Event-ID`), then takes each new event from the same
broadcast the sockets get: nothing polls."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import Any

from aiohttp import web
from aiohttp_sse import EventSourceResponse, sse_response

from canvasrelay.core.agent_sessions import StoredSession
from canvasrelay.protocol import ServerFrame
from canvasrelay.protocol.agents import AgentEvent, AgentRemoved
from canvasrelay.protocol.session_events import EVENT_MODELS, SESSION_EVENT_KINDS, SessionEvent, session_event_json
from canvasrelay.server.agents.rule_book import RuleBook
from canvasrelay.server.http.api.app import response_headers
from canvasrelay.server.http.api.errors import ApiError, not_found
from canvasrelay.server.http.api.models import (
    AgentRuleOut,
    EventsQuery,
    PageQuery,
    RemovedOut,
    RuleOut,
    RulesOut,
    SessionEventsOut,
    SessionOut,
    SessionsOut,
)
from canvasrelay.server.http.api.openapi import Call, Operation
from canvasrelay.server.http.api.services import ApiServices

SSE_EVENT: dict[str, Any] = {
    "type": "object",
    "description": "One server-sent event: a session event (its kind as `event`, its seq as `id`), "
    "or `deleted` once the session is gone.",
    "required": ["data"],
    "properties": {
        "event": {"type": "string", "enum": [*SESSION_EVENT_KINDS, "deleted"]},
        "id": {"type": "string", "pattern": "^[0-9]{1,15}$"},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {
                "oneOf": [{"$ref": f"#/components/schemas/{model.__name__}"} for model in EVENT_MODELS],
                "discriminator": {"propertyName": "kind"},
            },
        },
        "retry": {"type": "integer"},
    },
}
"""What `text/event-stream` carries, event by event (the stream's comments are keep-alives)."""
STREAM_BATCH = 200
STREAM_QUEUE = 1000
"""Events a stream may fall behind the broadcast; further behind, it reads them from the store."""
HEARTBEAT_S = 15.0


def session_out(row: StoredSession) -> SessionOut:
    """From the row's stored head: listing sessions reads no log."""
    return SessionOut(
        id=row.id,
        agent=row.agent,
        title=row.title,
        status=row.head.status,
        created=row.created,
        last_seq=row.head.last_seq if row.head.last_seq > 0 else -1,
        meta=row.meta,
    )


def find(services: ApiServices, session_id: str) -> StoredSession:
    row = services.store.session(session_id)
    if row is None:
        raise not_found("session")
    return row


def operations(services: ApiServices) -> list[Operation]:
    stopping = asyncio.Event()

    async def stop_streams() -> None:
        stopping.set()

    services.on_close(stop_streams)

    def rules() -> RuleBook:
        return services.rules

    async def list_sessions(call: Call) -> SessionsOut:
        page: PageQuery = call.query
        rows = services.store.sessions()[page.cursor : page.cursor + page.limit]
        end = page.cursor + len(rows)
        more = end < len(services.store.sessions())
        return SessionsOut(sessions=[session_out(r) for r in rows], next_cursor=end if more else None)

    async def get_session(call: Call) -> SessionEventsOut:
        query: EventsQuery = call.query
        row = find(services, call.params["sessionId"])
        events = services.store.events(row.id, after=query.after, limit=query.limit + 1)
        more = len(events) > query.limit
        events = events[: query.limit]
        return SessionEventsOut(session=session_out(row), events=events, next_after=events[-1].seq if more else None)

    async def stream_session_events(call: Call) -> web.StreamResponse:
        session_id = find(services, call.params["sessionId"]).id
        last = call.request.headers.get("Last-Event-ID", "").strip()
        if last and not (last.isdigit() and len(last) <= 15):
            raise ApiError(422, "Last-Event-ID must be an event's seq")
        after = int(last) if last else 0
        headers = response_headers(services, call.request)
        async with sse_response(call.request, headers=headers, sep="\n", ping_interval=HEARTBEAT_S) as stream:
            await _until_first(follow(services, session_id, after, stream), stream.wait(), stopping.wait())
        return stream

    async def get_session_rules(call: Call) -> RulesOut:
        session_id = find(services, call.params["sessionId"]).id
        book = rules()
        return RulesOut(
            session=[RuleOut(id=i, rule=rule) for i, rule in book.session_rules(session_id)],
            user=book.user,
            project=book.project,
            agent=[AgentRuleOut.model_validate(entry) for entry in book.agent_remembers(session_id)],
            unnamed_kinds=book.unnamed_kinds(session_id),
        )

    async def reset_session_rules(call: Call) -> RemovedOut:
        session_id = find(services, call.params["sessionId"]).id
        return RemovedOut(removed=rules().remove(session_id, None, by="api"))

    async def remove_session_rule(call: Call) -> None:
        session_id = find(services, call.params["sessionId"]).id
        rule_id = call.params["ruleId"]
        if not (rule_id.isdigit() and len(rule_id) <= 15) or not rules().remove(session_id, int(rule_id), by="api"):
            raise not_found("rule")

    s = "sessions"
    return [
        Operation(
            "GET",
            "/api/sessions",
            list_sessions,
            "Sessions, oldest first, in pages.",
            s,
            query=PageQuery,
            response=SessionsOut,
        ),
        Operation(
            "GET",
            "/api/session/{sessionId}",
            get_session,
            "A session and a page of its events.",
            s,
            query=EventsQuery,
            response=SessionEventsOut,
        ),
        Operation(
            "GET",
            "/api/session/{sessionId}/events",
            stream_session_events,
            "The session's events as server-sent events (id = seq), resuming after Last-Event-ID.",
            s,
            stream="text/event-stream",
            stream_item=SSE_EVENT,
        ),
        Operation(
            "GET",
            "/api/session/{sessionId}/rules",
            get_session_rules,
            "The permission rules that apply to the session.",
            s,
            response=RulesOut,
        ),
        Operation(
            "DELETE",
            "/api/session/{sessionId}/rules",
            reset_session_rules,
            "Remove every rule the host's answers added to the session.",
            s,
            response=RemovedOut,
        ),
        Operation(
            "DELETE",
            "/api/session/{sessionId}/rules/{ruleId}",
            remove_session_rule,
            "Remove one of the session's rules.",
            s,
            status=204,
        ),
    ]


_DELETED = object()


class _Feed:
    """One stream's subscription to the broadcast: its session's new events, bounded."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self.queue: asyncio.Queue[Any] = asyncio.Queue(STREAM_QUEUE)
        self.behind = False
        """Events were dropped: read the store again from the last one written."""

    def __call__(self, frame: ServerFrame) -> None:
        if isinstance(frame, AgentEvent) and frame.session_id == self.session_id:
            item: Any = frame.event
        elif isinstance(frame, AgentRemoved) and frame.session_id == self.session_id:
            item = _DELETED
        else:
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            self.behind = True


async def _send(stream: EventSourceResponse, event: SessionEvent) -> int:
    """One event, stored or broadcast, in the models' JSON like every page of them."""
    await stream.send(session_event_json(event).decode(), id=str(event.seq), event=event.kind)
    return event.seq


async def follow(services: ApiServices, session_id: str, after: int, stream: EventSourceResponse) -> None:
    """Send every event after `after`, then each new one as it is broadcast, until the session is
    deleted (the caller ends it when the client goes or the server stops)."""
    feed = _Feed(session_id)
    unsubscribe = services.on_broadcast(feed)
    try:
        catching_up = True
        while True:
            if catching_up or feed.behind:
                # Subscribed first, so nothing falls between the store and the feed; the feed's
                # copies of events sent here are skipped by their seq.
                feed.behind = False
                events = services.store.events(session_id, after=after, limit=STREAM_BATCH)
                for event in events:
                    after = await _send(stream, event)
                catching_up = len(events) == STREAM_BATCH
                continue
            item = await feed.queue.get()
            if item is _DELETED:
                await stream.send("{}", event="deleted")
                return
            if item.seq > after:
                after = await _send(stream, item)
    finally:
        unsubscribe()


async def _until_first(*waits: Awaitable[object]) -> None:
    """Until the first of `waits` ends; the others are cancelled. A client that went away (or
    stalled past the stream's send timeout) ends the stream: there is nobody left to tell."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in done:
        with contextlib.suppress(ConnectionResetError, TimeoutError):
            task.result()
