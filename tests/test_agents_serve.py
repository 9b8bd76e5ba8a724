"""Agent sessions through the real WebSocket, with the real demo agent process."""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.protocol.session_events import session_event
from tests.support import HostClient, ServerProcess, as_sent, thread_of

TURN_TIMEOUT = 30.0
_ids = itertools.count(1)

CONFIG = f"""
[agents.missing]
command = "canvas-no-such-agent-binary"

[agents.garbage]
command = "{sys.executable}"
args = ["-c", "print('hello, I am not ACP', flush=True); import time; time.sleep(30)"]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".canvas").mkdir(parents=True, mode=0o700)
    (root / ".canvas" / "config.toml").write_text(CONFIG)
    return root


async def create(host: HostClient, agent: str = "demo") -> str:
    session_id = f"s{next(_ids)}"
    await host.send({"t": "agent-create", "id": session_id, "agent": agent})
    while (await host.expect("agent-meta"))["meta"]["id"] != session_id:
        pass
    return session_id


async def events_until(
    host: HostClient, session_id: str, kind: str, timeout: float = TURN_TIMEOUT
) -> list[dict[str, Any]]:
    """Every agent-event of the session up to and including the first of `kind`."""
    seen: list[dict[str, Any]] = []
    async with asyncio.timeout(timeout):
        while True:
            frame = await host.next_frame(timeout)
            if frame.get("t") == "agent-event" and frame["sessionId"] == session_id:
                seen.append(frame["event"])
                if frame["event"]["kind"] == kind:
                    return seen


async def prompt_and_answer(host: HostClient, session_id: str, text: str, **answer: str) -> dict[str, Any]:
    """Prompt, wait for the permission question and answer it (`answer=` or `optionId=`); returns the question."""
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": text})
    asked = (await events_until(host, session_id, "permission"))[-1]
    await host.send({"t": "agent-permission", "sessionId": session_id, "requestId": asked["requestId"], **answer})
    return asked


def stored(project: Path, session_id: str) -> list[dict[str, Any]]:
    import json

    with sqlite3.connect(project / ".canvas" / "canvas.db") as db:
        rows = db.execute("SELECT event FROM session_events WHERE session_id = ? ORDER BY seq", (session_id,))
        return [json.loads(r[0]) for r in rows]


async def test_prompt_streams_chunks_in_order(host: HostClient, project: Path) -> None:
    session_id = await create(host)
    options = await host.expect("agent-options", timeout=TURN_TIMEOUT, sessionId=session_id)
    assert options["options"][0]["id"] == "mode"
    await host.send(
        {"t": "agent-prompt", "sessionId": session_id, "text": "hello there canvas friends", "author": "ann"}
    )
    events = await events_until(host, session_id, "turn-end")
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(1, len(seqs) + 1))
    assert events[0]["kind"] == "turn" and events[0]["author"] == "ann"
    thread = thread_of(events)
    message = next(i for i in thread["items"] if i["type"] == "message")
    assert message["text"] == "You said: hello there canvas friends"
    assert sum(1 for e in events if e["kind"] == "chunk" and e["update"]["sessionUpdate"] == "agent_message_chunk") > 1
    assert any(i["type"] == "plan" for i in thread["items"])
    assert thread["status"] == "idle"
    # The store holds the log as sent, or once the finished turn is compacted, one that folds the same.
    assert thread_of(stored(project, session_id)) == thread


async def test_write_allowed_then_rejected(host: HostClient, project: Path) -> None:
    session_id = await create(host)
    await prompt_and_answer(host, session_id, "/write out.txt written by the agent", answer="once")
    await events_until(host, session_id, "turn-end")
    assert (project / "out.txt").read_text() == "written by the agent"

    await prompt_and_answer(host, session_id, "/write no.txt should not exist", optionId="reject_once")
    events = await events_until(host, session_id, "turn-end")
    assert not (project / "no.txt").exists()
    resolved = next(e for e in events if e["kind"] == "permission-resolved")
    assert resolved["optionId"] == "reject_once"
    text = thread_of(stored(project, session_id))["items"]
    assert any(i["type"] == "message" and "Permission denied" in i["text"] for i in text)


async def test_cancel_during_slow_turn(host: HostClient) -> None:
    session_id = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/slow 50"})
    await events_until(host, session_id, "chunk")
    await host.send({"t": "agent-cancel", "sessionId": session_id})
    end = (await events_until(host, session_id, "turn-end"))[-1]
    assert end.get("cancelled") is True


async def test_prompt_while_running_is_queued(host: HostClient) -> None:
    session_id = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/slow 5"})
    await events_until(host, session_id, "chunk")
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "after the slow one"})
    meta = await host.expect("agent-meta")
    assert [q["text"] for q in meta["meta"]["queued"]] == ["after the slow one"]
    await events_until(host, session_id, "turn-end")
    turn = (await events_until(host, session_id, "turn"))[-1]
    assert turn["text"] == "after the slow one"
    await events_until(host, session_id, "turn-end")


async def test_cancel_while_waiting_resolves_permission(host: HostClient, project: Path) -> None:
    session_id = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/write never.txt nope"})
    await events_until(host, session_id, "permission")
    await host.send({"t": "agent-cancel", "sessionId": session_id})
    events = await events_until(host, session_id, "turn-end")
    resolved = next(e for e in events if e["kind"] == "permission-resolved")
    assert resolved["optionId"] is None and resolved["by"] == "cancelled"
    assert events[-1].get("cancelled") is True
    assert not (project / "never.txt").exists()


async def test_two_hosts_first_answer_wins(server: ServerProcess, host: HostClient, project: Path) -> None:
    other = await HostClient.connect(server)
    try:
        session_id = await create(host)
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/write both.txt from the first"})
        asked = (await events_until(host, session_id, "permission"))[-1]
        await events_until(other, session_id, "permission")
        request = {"t": "agent-permission", "sessionId": session_id, "requestId": asked["requestId"]}
        await host.send({**request, "answer": "once", "by": "first"})
        told = (await events_until(other, session_id, "permission-resolved"))[-1]
        assert told["by"] == "first" and told["optionId"] == "allow_once"
        await other.send({**request, "answer": "reject", "by": "second"})
        refused = await other.expect("error", ref="agent-permission")
        assert "already answered" in refused["message"]
        await events_until(host, session_id, "turn-end")
        assert (project / "both.txt").read_text() == "from the first"
    finally:
        await other.close()


async def test_bad_frames_get_errors_and_the_socket_stays(host: HostClient) -> None:
    await host.send({"t": "agent-prompt", "sessionId": "nope", "text": "hi"})
    assert "no such session" in (await host.expect("error"))["message"]
    await host.send({"t": "agent-prompt", "sessionId": "../x", "text": "hi"})
    assert "sessionId" in (await host.expect("error"))["message"]
    await host.send({"t": "agent-create", "id": "x1", "agent": "nobody"})
    assert "unknown agent" in (await host.expect("error"))["message"]
    await host.send({"t": "agent-prompt", "sessionId": "x", "text": "a" * 100_001})
    assert "text" in (await host.expect("error"))["message"]
    await host.send({"t": "ping"})
    await host.expect("pong")


@pytest.mark.parametrize("agent", ["missing", "garbage"])
@pytest.mark.serve_subprocess
async def test_broken_agents_are_error_events(server: ServerProcess, host: HostClient, agent: str) -> None:
    session_id = await create(host, agent)
    end = (await events_until(host, session_id, "turn-end"))[-1]
    assert end["error"]
    if agent == "missing":
        assert "not found" in end["error"]
    else:
        # In words for everyone; what the agent actually wrote is behind "Details".
        assert "broke off talking to canvas" in end["error"]
        assert "other than ACP JSON" in end["errorDetail"]
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "hello"})
    end = (await events_until(host, session_id, "turn-end"))[-1]
    assert end["error"]
    fine = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": fine, "text": "still fine"})
    assert (await events_until(host, fine, "turn-end"))[-1].get("error") is None
    assert server.proc is not None and server.proc.poll() is None


async def test_note_goes_on_the_board(host: HostClient, server: ServerProcess) -> None:
    import aiohttp

    session_id = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/note from the demo agent"})
    events = await events_until(host, session_id, "turn-end")
    thread = thread_of(events)
    assert any(i["type"] == "message" and "Added a note" in i["text"] for i in thread["items"]), thread
    assert any(f["t"] == "board-update" for f in host.seen)
    async with aiohttp.ClientSession() as http:
        headers = {"Authorization": f"Bearer {server.token}"}
        async with http.get(server.base_url + "/api/board/items", headers=headers) as response:
            items = (await response.json())["items"]
        async with http.post(server.base_url + "/mcp/board", json={}) as response:
            assert response.status == 401
    assert any(i["kind"] == "note" and i["text"] == "from the demo agent" for i in items)


async def test_kill9_during_turn_then_restart(project: Path) -> None:
    server = ServerProcess(project).start()
    host = await HostClient.connect(server)
    session_id = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/slow 100"})
    sent = await events_until(host, session_id, "chunk")
    sent += await events_until(host, session_id, "chunk")
    server.kill9()
    await host.close()
    log = stored(project, session_id)
    # The store keeps an event's fields that hold something; a frame also names the empty ones.
    assert log[: len(sent)] == [{k: v for k, v in event.items() if v is not None} for event in sent]

    server.start()
    try:
        host = await HostClient.connect(server)
        head = next(s for s in host.welcome["sessions"] if s["id"] == session_id)
        assert head["status"] == "idle"
        history = await host.expect("agent-history", sessionId=session_id)
        end = history["events"][-1]
        assert end["kind"] == "turn-end" and end["interrupted"] is True
        # Compacted at the start: fewer events, the same thread.
        assert history["after"] == 0 and history["events"][0] == sent[0]
        assert thread_of(history["events"]) == thread_of([*log, end])
        # The same session prompts again; the agent's session id was kept.
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "back again"})
        assert (await events_until(host, session_id, "turn-end"))[-1].get("error") is None
        await host.close()
    finally:
        server.stop()


async def test_a_finished_turn_is_compacted_in_the_store_with_the_same_thread(host: HostClient, project: Path) -> None:
    session_id = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/slow 6"})
    sent = await events_until(host, session_id, "turn-end")
    notice = await host.expect("agent-compacted", sessionId=session_id)
    assert (notice["after"], notice["through"]) == (sent[0]["seq"] - 1, sent[-1]["seq"])
    log = stored(project, session_id)
    assert len(log) < sent[-1]["seq"]
    assert thread_of(log) == thread_of(sent)
    await host.send({"t": "agent-history-request", "sessionId": session_id, "before": sent[-1]["seq"] + 1})
    page = await host.expect("agent-history", sessionId=session_id)
    assert (page["after"], page["through"], page["events"]) == (0, sent[-1]["seq"], as_sent(map(session_event, log)))
