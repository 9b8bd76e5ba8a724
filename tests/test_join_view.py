"""`canvas join` without `--json`: the sessions' threads as they stream, against a real server."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

from canvasrelay.client.join_view import ThreadView
from tests.support import HostClient, ServerProcess
from tests.test_agents_serve import create, events_until

TIMEOUT = 30.0


def chunk(seq: int, text: str) -> dict[str, Any]:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    return {"t": "agent-event", "sessionId": "s1", "event": {"seq": seq, "kind": "chunk", "update": update}}


def test_new_text_is_written_as_it_arrives_and_only_once() -> None:
    view = ThreadView()
    view.feed({"t": "welcome", "sessions": [{"id": "s1", "agentLabel": "Demo", "title": ""}]})
    turn = {"seq": 1, "kind": "turn", "text": "hi", "author": "Ada", "time": 0}
    assert view.feed({"t": "agent-history", "sessionId": "s1", "events": [turn]}) == "[Demo] Ada: hi\n"
    assert view.feed(chunk(2, "Hel")) == "[Demo] agent: Hel"
    assert view.feed(chunk(3, "lo")) == "lo"
    assert view.feed(chunk(3, "lo")) == ""
    assert view.line("your access is now edit") == "\nyour access is now edit\n"
    assert view.feed(chunk(4, "!")) == "[Demo] agent: !"
    assert view.feed({"t": "agent-event", "sessionId": "s1", "event": {"seq": 5, "kind": "turn-end"}}) == ""
    again = {"seq": 6, "kind": "turn", "text": "stop", "author": "Bo", "time": 0}
    assert view.feed({"t": "agent-event", "sessionId": "s1", "event": again}) == "\n[Demo] Bo: stop\n"
    end = {"seq": 7, "kind": "turn-end", "cancelled": True}
    assert view.feed({"t": "agent-event", "sessionId": "s1", "event": end}) == "[Demo] turn cancelled\n"


def test_a_long_session_leaves_only_its_current_turn_behind() -> None:
    view = ThreadView()
    view.feed({"t": "welcome", "sessions": [{"id": "s1", "agentLabel": "Demo", "title": ""}]})
    seq = 0
    for turn in range(200):
        seq += 1
        prompt = {"seq": seq, "kind": "turn", "text": f"prompt {turn}", "author": "Ada", "time": 0}
        assert view.feed({"t": "agent-event", "sessionId": "s1", "event": prompt}).endswith(f"Ada: prompt {turn}\n")
        for word in range(20):
            seq += 1
            assert view.feed(chunk(seq, f"w{word} ")) == ("[Demo] agent: w0 " if word == 0 else f"w{word} ")
        seq += 1
        view.feed({"t": "agent-event", "sessionId": "s1", "event": {"seq": seq, "kind": "turn-end"}})
    assert len(view.threads["s1"].items) <= 3 and len(view.shown) <= 3
    assert view.feed(chunk(seq - 1, "late")) == "", "an event already seen is not written again"
    view.feed({"t": "agent-removed", "sessionId": "s1"})
    assert (view.threads, view.labels, view.shown) == ({}, {}, {})


def test_a_replay_prints_the_permission_before_the_tool_it_allowed_in_plain_words() -> None:
    view = ThreadView()
    view.feed({"t": "welcome", "sessions": [{"id": "s1", "agentLabel": "Demo", "title": "Demo 2"}]})
    options = [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}]
    events = [
        {"seq": 1, "kind": "turn", "text": "/write a.txt hi", "author": "Ada", "time": 0},
        {
            "seq": 2,
            "kind": "chunk",
            "update": {"sessionUpdate": "tool_call", "toolCallId": "w1", "title": "Write a.txt"},
        },
        {
            "seq": 3,
            "kind": "permission",
            "requestId": "p1",
            "toolCallId": "w1",
            "title": "Write a.txt",
            "options": options,
        },
        {
            "seq": 4,
            "kind": "permission-resolved",
            "requestId": "p1",
            "optionId": "ok",
            "by": "host",
            "answer": "always",
        },
        {
            "seq": 5,
            "kind": "chunk",
            "update": {"sessionUpdate": "tool_call_update", "toolCallId": "w1", "status": "completed"},
        },
        {"seq": 6, "kind": "turn-end"},
    ]
    text = view.feed({"t": "agent-history", "sessionId": "s1", "events": events})
    assert text.splitlines() == [
        "[Demo 2] Ada: /write a.txt hi",
        "[Demo 2] permission for Write a.txt: always allowed, for this session by host",
        "[Demo 2] tool Write a.txt: completed",
    ]


async def read_until(proc: subprocess.Popen[str], needle: str, output: list[str]) -> None:
    assert proc.stdout is not None
    async with asyncio.timeout(TIMEOUT):
        while needle not in "".join(output):
            piece = await asyncio.to_thread(proc.stdout.read1, 4096)  # type: ignore[attr-defined]
            if not piece:
                raise AssertionError(f"canvas join ended: {''.join(output)}")
            output.append(piece.decode() if isinstance(piece, bytes) else piece)


async def test_canvas_join_shows_the_threads(server: ServerProcess, host: HostClient) -> None:
    session_id = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "before you came", "author": "ann"})
    await events_until(host, session_id, "turn-end")
    proc = subprocess.Popen(
        [sys.executable, "-m", "canvasrelay", "join", server.room_link, "--name", "Tess"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    output: list[str] = []
    try:
        await read_until(proc, "You said: before you came", output)
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "while you watch", "author": "ann"})
        await read_until(proc, "You said: while you watch", output)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    text = "".join(output)
    assert text.startswith("joined ") and "with view access" in text.splitlines()[0]
    lines = text.splitlines()
    label = "[Demo agent]"
    assert lines.index(f"{label} ann: before you came") < lines.index(f"{label} ann: while you watch")
    assert text.count("You said: before you came") == 1 and text.count("You said: while you watch") == 1
