"""Guests and agent sessions end to end: real aiortc guests, the real hub, the real demo agent.

The server runs in this process (so a test can shorten the approval deadline); the agent is
the demo agent's own process, the guests are `canvasrelay.client.guest` peers over loopback.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.client.guest import Guest
from canvasrelay.server.app import CanvasServer, ServeOptions
from tests.support import HostClient, InProcessServer, as_sent, thread_of

pytestmark = pytest.mark.timeout(120)

TURN_TIMEOUT = 30.0
_ids = itertools.count(1)


class Served(InProcessServer):
    def stored(self, session_id: str) -> list[dict[str, Any]]:
        return as_sent(self.server.store.events(session_id))


@pytest.fixture
async def served(project: Path) -> AsyncIterator[Served]:
    server = CanvasServer(ServeOptions(root=project))
    await server.start()
    yield Served(server)
    await server.stop()


async def create(host: HostClient, size_hint: str = "") -> str:
    """A demo agent session whose guests' prompts reach it as written: these tests send the demo agent
    commands (`/write …`), which it reads only at a prompt's start (naming is tested in test_invites)."""
    session_id = f"g{next(_ids)}{size_hint}"
    await host.send({"t": "agent-create", "id": session_id, "agent": "demo"})
    await host.expect("agent-options", timeout=TURN_TIMEOUT, sessionId=session_id)
    await host.send({"t": "prompt-attribution", "sessionId": session_id, "on": False})
    return session_id


async def join(served: Served, name: str, access: str | None, host: HostClient) -> Guest:
    guest = await Guest(served.server.room_link, name=name, color="#3366aa").connect()
    await guest.expect("access")
    if access is not None:
        await host.send({"t": "guest-set-access", "guestId": guest.guest_id, "access": access})
        await guest.expect("access", access=access)
    return guest


async def events_until(client: HostClient | Guest, session_id: str, kind: str, **match: Any) -> list[dict[str, Any]]:
    """Every agent-event of the session up to the first of `kind` whose fields equal `match`."""
    seen: list[dict[str, Any]] = []
    async with asyncio.timeout(TURN_TIMEOUT):
        while True:
            frame = await client.next_frame(TURN_TIMEOUT)
            if frame.get("t") == "agent-event" and frame["sessionId"] == session_id:
                event = frame["event"]
                seen.append(event)
                if event["kind"] == kind and all(event.get(k) == v for k, v in match.items()):
                    return seen


def turns(events: list[dict[str, Any]]) -> list[str]:
    return [e["text"] for e in events if e["kind"] == "turn"]


def guest_thread(guest: Guest, session_id: str) -> tuple[dict[str, Any], list[int]]:
    """The guest's fold of everything it received for the session, and the seqs in arrival order."""
    events: list[dict[str, Any]] = []
    for frame in guest.seen:
        if frame.get("t") == "agent-history" and frame["sessionId"] == session_id:
            events += frame["events"]
        elif frame.get("t") == "agent-event" and frame["sessionId"] == session_id:
            events.append(frame["event"])
    return thread_of(events), [e["seq"] for e in events]


async def test_an_edit_guests_prompts_wait_for_the_host(served: Served, host_client: HostClient) -> None:
    session_id = await create(host_client)
    ada = await join(served, "Ada", "edit", host_client)

    await ada.send({"t": "agent-prompt", "sessionId": session_id, "text": "hello from ada"})
    pending = await ada.expect("request-pending", ref="agent-prompt")
    assert pending["subject"] == session_id
    request = await host_client.expect("approval-request", id=pending["id"])
    assert (request["name"], request["what"], request["text"]) == ("Ada", "agent-prompt", "hello from ada")
    assert turns(served.stored(session_id)) == []
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "approve"})
    await ada.expect("approval-resolved", id=request["id"], outcome="approved")
    events = await events_until(ada, session_id, "turn-end")
    assert events[0]["kind"] == "turn" and events[0]["author"] == "Ada"
    chunks = [e for e in events if e["kind"] == "chunk" and e["update"]["sessionUpdate"] == "agent_message_chunk"]
    assert len(chunks) > 1
    items = thread_of(events)["items"]
    assert any(i["type"] == "message" and i["text"] == "You said: hello from ada" for i in items)

    await ada.send({"t": "agent-prompt", "sessionId": session_id, "text": "deny me"})
    request = await host_client.expect("approval-request", text="deny me")
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "deny"})
    await ada.expect("approval-resolved", id=request["id"], outcome="denied")

    served.server.guests.approval_ttl = 0.5
    await ada.send({"t": "agent-prompt", "sessionId": session_id, "text": "nobody answers"})
    await ada.expect("approval-resolved", outcome="expired", timeout=5)
    await host_client.expect("approval-resolved", outcome="expired")
    served.server.guests.approval_ttl = 60.0
    assert turns(served.stored(session_id)) == ["hello from ada"]
    assert served.server.agents.core.sessions[session_id].status == "idle"

    await ada.send({"t": "agent-prompt", "sessionId": session_id, "text": "trust me"})
    request = await host_client.expect("approval-request", text="trust me")
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "trust"})
    await ada.expect("access", access="trusted")
    await events_until(ada, session_id, "turn-end")
    await ada.send({"t": "agent-prompt", "sessionId": session_id, "text": "now directly"})
    events = await events_until(ada, session_id, "turn-end")
    assert turns(events) == ["now directly"]
    assert not any(f["t"] == "approval-request" and f["text"] == "now directly" for f in host_client.seen)
    assert not any(f["t"] == "request-pending" and f["ref"] == "agent-prompt" for f in ada.seen[-len(events) :])
    assert turns(served.stored(session_id)) == ["hello from ada", "trust me", "now directly"]
    await ada.close()


async def test_a_trusted_guest_prompts_directly_but_never_answers_a_permission(
    served: Served, host_client: HostClient, project: Path
) -> None:
    session_id = await create(host_client)
    tess = await join(served, "Tess", "trusted", host_client)
    await tess.send({"t": "agent-prompt", "sessionId": session_id, "text": "/write guest.txt from a guest"})
    asked = (await events_until(tess, session_id, "permission"))[-1]
    assert turns(served.stored(session_id)) == ["/write guest.txt from a guest"]
    for answer in ({"answer": "once"}, {"optionId": "allow_once"}):
        await tess.send({"t": "agent-permission", "sessionId": session_id, "requestId": asked["requestId"], **answer})
        refused = await tess.expect("error", ref="agent-permission")
        assert "does not allow" in refused["message"], refused
    await tess.send({"t": "ping"})
    await tess.expect("pong")
    assert not any(e["kind"] == "permission-resolved" for e in served.stored(session_id))
    assert served.server.agents.core.sessions[session_id].status == "waiting"
    assert not (project / "guest.txt").exists()

    await host_client.send(
        {"t": "agent-permission", "sessionId": session_id, "requestId": asked["requestId"], "answer": "reject"}
    )
    events = await events_until(tess, session_id, "turn-end")
    assert next(e for e in events if e["kind"] == "permission-resolved")["optionId"] == "reject_once"
    assert not (project / "guest.txt").exists()
    await tess.close()


async def test_a_joining_guest_gets_heads_then_histories_shortest_first(
    served: Served, host_client: HostClient
) -> None:
    long_id = await create(host_client, "long")
    short_id = await create(host_client, "short")
    for text in ("first of many", "second of many", "third of many"):
        await host_client.send({"t": "agent-prompt", "sessionId": long_id, "text": text})
        await events_until(host_client, long_id, "turn-end")
    await host_client.send({"t": "agent-prompt", "sessionId": short_id, "text": "only one"})
    await events_until(host_client, short_id, "turn-end")

    guest = await join(served, "Vi", None, host_client)
    assert [h["id"] for h in guest.welcome["sessions"]] == [long_id, short_id]
    async with asyncio.timeout(TURN_TIMEOUT):
        while not any(f["t"] == "agent-history" and f["sessionId"] == long_id for f in guest.seen):
            await guest.next_frame()
    kinds = [(f["t"], f.get("sessionId")) for f in guest.seen if f["t"] in ("welcome", "agent-history")]
    assert kinds == [("welcome", None), ("agent-history", short_id), ("agent-history", long_id)]
    for session_id in (short_id, long_id):
        thread, _ = guest_thread(guest, session_id)
        assert thread == thread_of(served.stored(session_id))
    await guest.close()


async def test_a_guest_dropped_mid_stream_folds_the_same_thread(served: Served, host_client: HostClient) -> None:
    session_id = await create(host_client)
    guest = await join(served, "Ro", None, host_client)
    await host_client.send({"t": "agent-prompt", "sessionId": session_id, "text": "/slow 30"})
    host_events = await events_until(host_client, session_id, "chunk")
    for _ in range(4):
        await events_until(guest, session_id, "chunk")
    await guest.drop()
    host_events += await events_until(host_client, session_id, "turn-end")
    async with asyncio.timeout(TURN_TIMEOUT):
        while guest_thread(guest, session_id)[0]["lastSeq"] < host_events[-1]["seq"]:
            await guest.next_frame(TURN_TIMEOUT)
    assert guest.connections == 2
    assert not any(f["t"] in ("gap", "welcome") for f in guest.seen[1:])
    thread, seqs = guest_thread(guest, session_id)
    assert seqs == list(range(1, len(seqs) + 1))
    assert thread == thread_of(host_events) == thread_of(served.stored(session_id))
    assert sum(1 for i in thread["items"] if i["type"] == "message") == 1
    await guest.close()


async def test_the_host_approves_the_whole_prompt_and_the_agent_runs_exactly_that(
    served: Served, host_client: HostClient
) -> None:
    session_id = await create(host_client)
    ada = await join(served, "Ada", "edit", host_client)
    # Past the old 4,000-character cut, with what a terminal or a bidi renderer would interpret.
    prompt = "".join(f"Step {i}: tidy module {i} and keep its tests green. " for i in range(250))
    prompt = prompt[:5_000] + "\u202eexe.txt\u202c \x1b[8mhidden\x1b[0m " + prompt[5_000:10_000] + "rm -rf ~/."
    digest = hashlib.sha256(prompt.encode("utf-8")).hexdigest()
    await ada.send({"t": "agent-prompt", "sessionId": session_id, "text": prompt})
    request = await host_client.expect("approval-request", what="agent-prompt")
    assert request["text"] == prompt and request["length"] == len(prompt) > 10_000
    assert request["sha256"] == digest and request["subject"] == session_id

    # The host reloads the page before answering: the request is in the new page's welcome.
    reloaded = await HostClient.connect(served)
    assert [(a["id"], a["text"], a["sha256"]) for a in reloaded.welcome["approvals"]] == [
        (request["id"], prompt, digest)
    ]
    await reloaded.send({"t": "approval-answer", "id": request["id"], "answer": "approve", "sha256": digest})
    events = await events_until(ada, session_id, "turn-end")
    assert (events[0]["kind"], events[0]["text"], events[0]["sha256"]) == ("turn", prompt, digest)
    said = "".join(
        e["update"]["content"]["text"]
        for e in events
        if e["kind"] == "chunk" and e["update"]["sessionUpdate"] == "agent_message_chunk"
    )
    assert said == f"You said: {prompt}", "the demo agent echoes exactly what it was sent"
    await reloaded.close()
    await ada.close()
