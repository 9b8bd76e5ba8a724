"""The sessions and waiting approvals a welcome lists come a page at a time: with every guest's
waiting requests at their bounds, or sessions' queues full (each prompt of the largest size, in
characters JSON writes six bytes for), a fresh host page and a guest still load at once and,
asking page after page, list them all."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from canvasrelay.client.guest import Guest
from canvasrelay.core.agent_sessions import MAX_QUEUE_CHARS, Session
from canvasrelay.core.guests import MAX_PENDING_PER_GUEST, PENDING_CHARS, PENDING_CHARS_PER_GUEST
from canvasrelay.core.peer import Peer
from canvasrelay.core.welcome_heads import HEADS_PAGE_CHARS, WelcomeHeads
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.agents import MAX_PROMPT_CHARS, QueuedPrompt, SessionHead
from canvasrelay.protocol.core import HeadsMore
from tests.support import HostClient, InProcessServer

HOST = Peer("host", Access.HOST)


def head(session_id: str, size: int) -> SessionHead:
    """A session's head holding about `size` characters of queued prompts."""
    queued = [QueuedPrompt(text="x" * size, author="Ada")]
    return SessionHead(
        id=session_id,
        agent="demo",
        agent_label="Demo",
        title="t",
        status="idle",
        queued=queued,
        created=0.0,
        last_seq=0,
    )


def page_through(heads: WelcomeHeads) -> list[list[str]]:
    """The ids on each page: the welcome's, then each part asked for with the cursor before it."""
    first = heads.welcome(HOST)
    pages = [[s.id for s in first["sessions"]]]
    after = first["heads_after"]
    while after is not None:
        (sent,) = heads.on_more(HOST, HeadsMore(after=after))
        part: Any = sent.frame  # type: ignore[attr-defined]
        pages.append([s.id for s in part.sessions])
        after = part.after
    return pages


async def every_head(host: HostClient) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """The approvals and sessions of a host's welcome and of every part after it, as a page asks
    for them; and how many parts that took."""
    approvals, sessions = list(host.welcome["approvals"]), list(host.welcome["sessions"])
    after, parts = host.welcome["headsAfter"], 0
    async with asyncio.timeout(10):
        while after is not None:
            await host.send({"t": "heads-more", "after": after})
            part = await host.expect("heads-part")
            approvals += part["approvals"]
            sessions += part["sessions"]
            after, parts = part["after"], parts + 1
    return approvals, sessions, parts


def test_heads_come_in_pages_of_bounded_size_and_a_cursor_survives_a_removal() -> None:
    sessions = {f"s{index:03}": head(f"s{index:03}", 200_000) for index in range(12)}
    heads = WelcomeHeads()
    heads.add(lambda _peer: list(sessions.items()))
    pages = page_through(heads)
    assert [session for page in pages for session in page] == sorted(sessions)
    assert len(pages) > 1 and all(len(page) * 200_000 <= HEADS_PAGE_CHARS for page in pages)
    # A session removed between asks (its removal was told live) does not lose the page its place.
    first = heads.welcome(HOST)
    del sessions[first["sessions"][-1].id]
    (sent,) = heads.on_more(HOST, HeadsMore(after=first["heads_after"]))
    assert sent.frame.sessions[0].id == sorted(sessions)[len(first["sessions"]) - 1]  # type: ignore[attr-defined]
    # One head larger than a page still goes, alone.
    heads = WelcomeHeads()
    heads.add(lambda _peer: [("big", head("big", HEADS_PAGE_CHARS + 10))])
    assert page_through(heads) == [["big"]]
    (refusal,) = heads.on_more(HOST, HeadsMore(after="not a place"))
    assert refusal.frame.t == "error"  # type: ignore[attr-defined]


async def test_a_fresh_host_page_loads_and_lists_every_waiting_request_at_their_bounds(
    served: InProcessServer,
) -> None:
    host = await HostClient.connect(served)
    await host.send({"t": "room-set-access", "access": "edit"})
    await host.expect("guests", defaultAccess="edit")
    count = PENDING_CHARS // PENDING_CHARS_PER_GUEST
    guests = [await Guest(served.room_link, name=f"Guest {n}").connect() for n in range(count)]
    # Control characters: each is six bytes of JSON (and shown escaped), the most a character costs.
    waiting = 0
    for guest in guests:
        await guest.expect("access")
        held = 0
        while held < PENDING_CHARS_PER_GUEST:
            # Prompts of the largest size, the last one what is left of the guest's share.
            size = min(MAX_PROMPT_CHARS, PENDING_CHARS_PER_GUEST - held)
            await guest.send({"t": "agent-prompt", "sessionId": "s1", "text": "\x01" * size})
            await guest.expect("request-pending")
            # The host's page reads them as they come, as an open page does.
            await host.expect("approval-request")
            held += size
            waiting += 1
        await guest.send({"t": "agent-prompt", "sessionId": "s1", "text": "one more"})
        assert "too long in all" in (await guest.expect("error", ref="agent-prompt"))["message"]
    assert waiting <= MAX_PENDING_PER_GUEST * count
    started = time.monotonic()
    fresh = await HostClient.connect(served)
    welcome_took = time.monotonic() - started
    approvals, _, parts = await every_head(fresh)
    listed = [a["id"] for a in approvals]
    took = time.monotonic() - started
    print(
        f"{len(listed)} waiting requests ({PENDING_CHARS:,} characters): the welcome in"
        f" {welcome_took:.2f} s, all of them in {took:.2f} s over {parts} parts"
    )
    assert len(listed) == len(set(listed)) == waiting
    assert parts >= 1
    for guest in guests:
        await guest.close()
    for client in (fresh, host):
        await client.close()


async def test_a_host_page_and_a_guest_load_however_much_the_sessions_queues_hold(served: InProcessServer) -> None:
    core = served.server.agents.core
    # Eight sessions, each queue full of prompts JSON writes six bytes a character for: some
    # 19 MB of heads, past a host socket's 16 MiB backlog and a guest channel's 8 MiB.
    prompt = QueuedPrompt(text="\x01" * MAX_PROMPT_CHARS, author="Ada")
    for number in range(8):
        session = Session(f"s{number}", "demo", "Demo agent", f"Session {number}", created=0.0)
        session.queued = [prompt] * (MAX_QUEUE_CHARS // MAX_PROMPT_CHARS)
        core.sessions[session.id] = session
    started = time.monotonic()
    host = await HostClient.connect(served)
    _, sessions, parts = await every_head(host)
    titles = [s["title"] for s in sessions]
    host_took, started = time.monotonic() - started, time.monotonic()
    assert sorted(titles) == [f"Session {n}" for n in range(8)] and parts == 7
    guest = await Guest(served.room_link, name="Bob").connect()
    welcome = await guest.expect("welcome")
    assert welcome["headsAfter"] is not None and len(welcome["sessions"]) == 1
    guest_took = time.monotonic() - started
    print(
        f"eight full queues: a host page had every head in {host_took:.2f} s, a guest its welcome in {guest_took:.2f} s"
    )
    await guest.close()
    await host.close()
