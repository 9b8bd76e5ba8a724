"""A room that ran for a day: 10 sessions of 5,000 events each in a real store, served by a real
server to a real aiortc guest. The start reads heads, a join sends every head before any history,
and history comes in bounded pages, older ones only when asked."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.client.guest import Guest
from canvasrelay.core.agent_sessions import HISTORY_PAGE, HISTORY_PAGE_CHARS
from canvasrelay.protocol.session_events import LogHead
from canvasrelay.server.app import CanvasServer, ServeOptions
from tests.long_sessions import write_sessions
from tests.support import InProcessServer, as_sent, thread_of

pytestmark = pytest.mark.timeout(180)

SESSIONS = 10
EVENTS = 5_000


@pytest.fixture
async def served(project: Path) -> AsyncIterator[InProcessServer]:
    (project / ".canvas").mkdir(mode=0o700)
    write_sessions(project, SESSIONS, EVENTS)
    server = CanvasServer(ServeOptions(root=project))
    await server.start()
    yield InProcessServer(server)
    await server.stop()


def assert_bounded(page: dict[str, Any]) -> None:
    events = page["events"]
    assert 1 <= len(events) <= HISTORY_PAGE
    size = sum(len(json.dumps(e, separators=(",", ":"), ensure_ascii=False)) for e in events)
    assert size <= HISTORY_PAGE_CHARS or len(events) == 1
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and page["after"] < seqs[0] and seqs[-1] <= page["through"]


async def pages_until(guest: Guest, count: int) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    async with asyncio.timeout(60):
        while len(pages) < count:
            frame = await guest.next_frame(60)
            if frame["t"] == "agent-history":
                pages.append(frame)
    return pages


async def test_a_guest_gets_every_head_then_one_bounded_page_each_and_older_ones_as_it_asks(
    served: InProcessServer,
) -> None:
    store = served.server.store
    guest = await Guest(served.room_link, name="Vi").connect()
    try:
        first = await pages_until(guest, SESSIONS)
        order = [f["t"] for f in guest.seen if f["t"] in ("welcome", "agent-history")]
        assert order == ["welcome"] + ["agent-history"] * SESSIONS
        heads = guest.welcome["sessions"]
        assert len(heads) == SESSIONS
        assert all(h["lastSeq"] == EVENTS and h["status"] == "idle" for h in heads)
        assert {p["sessionId"] for p in first} == {h["id"] for h in heads}
        for page in first:
            assert_bounded(page)
            assert page["through"] == EVENTS and page["after"] > 0

        # Nothing more comes unasked: the next frame after a ping is its pong.
        await guest.send({"t": "ping"})
        assert (await guest.next_frame())["t"] == "pong"

        # Older pages of one session, one per request, down to its first event.
        session_id = first[0]["sessionId"]
        held = list(first[0]["events"])
        after = first[0]["after"]
        asked = 0
        while after > 0:
            await guest.send({"t": "agent-history-request", "sessionId": session_id, "before": after + 1})
            (page,) = await pages_until(guest, 1)
            assert_bounded(page)
            assert page["through"] == after
            held = page["events"] + held
            after = page["after"]
            asked += 1
        assert asked >= (EVENTS // HISTORY_PAGE) - 1
        assert held == as_sent(store.events(session_id))
        assert thread_of(held) == thread_of(as_sent(store.events(session_id)))
    finally:
        await guest.close()


async def test_the_start_reads_each_sessions_head_and_no_event(project: Path) -> None:
    (project / ".canvas").mkdir(mode=0o700)
    write_sessions(project, SESSIONS, EVENTS)
    server = CanvasServer(ServeOptions(root=project))
    statements: list[str] = []
    server.store.db.set_trace_callback(statements.append)
    await server.start()
    try:
        assert not [s for s in statements if "session_events" in s]
        sessions = server.agents.core.sessions
        assert [s.head for s in sessions.values()] == [LogHead(status="idle", last_seq=EVENTS)] * SESSIONS
    finally:
        server.store.db.set_trace_callback(None)
        await server.stop()
