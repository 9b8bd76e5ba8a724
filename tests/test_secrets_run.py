"""A whole run of a real `canvas serve` — host, a view and an edit guest, the demo agent with its board
tools, a shell, bad frames, the API and MCP — leaves the host token and the host key nowhere but
`secrets.json` and the one printed host link; and nothing a view guest received opens anything."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from canvasrelay.client.guest import Guest
from canvasrelay.protocol.encoding import b64url
from tests.support import HostClient, ServerProcess, thread_of

pytestmark = pytest.mark.timeout(240)

TURN_TIMEOUT = 30.0
SECRET_LIKE = re.compile(r"[A-Za-z0-9_-]{20,}")


@dataclass
class Run:
    server: ServerProcess
    texts: dict[str, str] = field(default_factory=dict)
    """Everything the run produced that is not `secrets.json`, by where it came from."""
    view_frames: list[dict[str, Any]] = field(default_factory=list)
    tried: dict[str, list[int | str]] = field(default_factory=dict)
    """What each string a view guest held got at /ws, /api and /mcp."""


async def turn(host: HostClient, session_id: str, text: str, answer: str | None = None) -> None:
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": text})
    await until_event(host, session_id, "turn-end", answer)


async def until_event(host: HostClient, session_id: str, kind: str, answer: str | None = None) -> None:
    async with asyncio.timeout(TURN_TIMEOUT):
        while True:
            frame = await host.expect("agent-event", TURN_TIMEOUT, sessionId=session_id)
            event = frame["event"]
            if event["kind"] == "permission" and answer is not None:
                reply = {"t": "agent-permission", "sessionId": session_id, "requestId": event["requestId"]}
                await host.send({**reply, "answer": answer})
            if event["kind"] == kind:
                return


async def opens_ws(server: ServerProcess, candidate: str) -> int | str:
    """The close code a host socket authenticating with `candidate` gets, or "welcome"."""
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(server.ws_url, headers={"Origin": server.base_url}) as ws,
    ):
        await ws.send_str(json.dumps({"t": "auth", "token": candidate}))
        msg = await ws.receive(timeout=10)
        if msg.type is aiohttp.WSMsgType.TEXT and json.loads(msg.data).get("t") == "welcome":
            return "welcome"
        return ws.close_code or 0


async def status_with_bearer(session: aiohttp.ClientSession, method: str, url: str, candidate: str) -> int:
    headers = {"Authorization": f"Bearer {candidate}", "Content-Type": "application/json"}
    async with session.request(method, url, headers=headers, data="{}") as response:
        await response.read()
        return response.status


async def activity(run: Run) -> None:
    server = run.server
    host = await HostClient.connect(server)
    viewer = await Guest(server.room_link, name="Vi").connect()
    editor = await Guest(server.room_link, name="Ed").connect()
    await viewer.expect("access")
    await editor.expect("access")
    await host.send({"t": "guest-set-access", "guestId": editor.guest_id, "access": "edit"})
    await editor.expect("access", access="edit")

    await host.send({"t": "agent-create", "id": "s1", "agent": "demo"})
    await host.expect("agent-options", TURN_TIMEOUT, sessionId="s1")
    await turn(host, "s1", "hello from the host")
    await turn(host, "s1", "/note the agent's own note")  # the board's MCP tools, their output logged
    await turn(host, "s1", "/read README.md")
    await turn(host, "s1", "/write notes.txt written by the agent", answer="once")
    await editor.send({"t": "agent-prompt", "sessionId": "s1", "text": "from the edit guest"})
    request = await host.expect("approval-request", what="agent-prompt")
    await host.send({"t": "approval-answer", "id": request["id"], "answer": "approve", "sha256": request["sha256"]})
    await until_event(host, "s1", "turn-end")

    await host.send({"t": "term-open", "id": "T", "cols": 80, "rows": 24})
    await host.send({"t": "term-input", "id": "T", "data": "echo shell-$((40+2))\n"})
    async with asyncio.timeout(10):
        while "shell-42" not in (await host.expect("term-data", id="T"))["data"]:
            pass
    await host.send({"t": "term-close", "id": "T"})

    # Bad input everywhere: each answer is an error frame, recorded like every other frame.
    for bad in ("not json", {"t": "auth", "token": "x"}, {"t": "no-such"}, {"t": "agent-prompt", "text": 5}):
        await host.send(bad)
        await host.expect("error")
        await viewer.send(bad)
        await viewer.expect("error")
    await viewer.send({"t": "agent-prompt", "sessionId": "s1", "text": "a view guest tries"})
    await viewer.expect("error", ref="agent-prompt")
    assert await opens_ws(server, "wrong") == 4401

    late = await Guest(server.room_link, name="Late").connect()  # gets every session's history
    async with asyncio.timeout(TURN_TIMEOUT):
        while not any(f["t"] == "agent-history" for f in late.seen):
            await late.next_frame(TURN_TIMEOUT)

    api = server.base_url + "/api"
    auth = {"Authorization": f"Bearer {server.token}"}
    async with aiohttp.ClientSession() as session:
        for path, headers in [
            ("/openapi.json", {}),
            ("/docs", {}),
            ("/health", {}),
            ("/sessions", auth),
            ("/session/s1", auth),
            ("/board/items", auth),
            ("/sessions", {"Authorization": "Bearer wrong"}),
            ("/session/nope", auth),
        ]:
            async with session.get(api + path, headers=headers) as response:
                run.texts[f"GET /api{path}"] = await response.text()
        async with session.post(server.base_url + "/mcp/board", data="{}") as response:
            run.texts["POST /mcp/board"] = await response.text()

        run.view_frames = viewer.seen + late.seen
        held = {*strings_in(run.view_frames), *SECRET_LIKE.findall(json.dumps(run.view_frames))}
        held |= set(SECRET_LIKE.findall(server.room_link))
        for candidate in sorted(held):
            run.tried[candidate] = [
                await opens_ws(server, candidate),
                await status_with_bearer(session, "GET", api + "/sessions", candidate),
                await status_with_bearer(session, "POST", server.base_url + "/mcp/board", candidate),
            ]

    for name, client in [("host", host), ("viewer", viewer), ("editor", editor), ("late", late)]:
        run.texts[f"frames to {name}"] = json.dumps(client.seen, ensure_ascii=False)
    run.texts.update(canvas_files(server.root))  # with the WAL as it is while running
    for guest in (viewer, editor, late):
        await guest.close()
    await host.close()


def strings_in(value: Any) -> set[str]:
    """Every string in a frame (keys too) that could be a credential: one word, of a credential's length."""
    if isinstance(value, str):
        return {value} if 8 <= len(value) <= 256 and value.isprintable() and " " not in value else set()
    if isinstance(value, dict):
        return set().union(*(strings_in(k) | strings_in(v) for k, v in value.items()))
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value))
    return set()


def canvas_files(root: Path) -> dict[str, str]:
    return {
        f"file {path.relative_to(root)}": path.read_bytes().decode("latin-1")
        for path in sorted((root / ".canvas").rglob("*"))
        if path.is_file() and path.name != "secrets.json"
    }


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    root = tmp_path_factory.mktemp("secrets") / "project"
    root.mkdir()
    (root / "README.md").write_text("# a project\n")
    recorded = Run(ServerProcess(root).start())
    try:
        asyncio.run(activity(recorded))
    finally:
        assert recorded.server.stop() == 0
    output = "".join(recorded.server.output).splitlines()
    recorded.texts["server output"] = "\n".join(line for line in output if not line.startswith("Host link"))
    recorded.texts["host link line"] = "\n".join(line for line in output if line.startswith("Host link"))
    recorded.texts.update({f"{k} (after stop)": v for k, v in canvas_files(root).items()})
    yield recorded


def secret_forms(root: Path) -> dict[str, str]:
    """The token, and the private key in every form it could be written out in."""
    stored = json.loads((root / ".canvas" / "secrets.json").read_text())
    pem: str = stored["hostPrivateKey"]
    key = serialization.load_pem_private_key(pem.encode("ascii"), password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    scalar = key.private_numbers().private_value.to_bytes(32, "big")
    body = [line for line in pem.splitlines() if line and not line.startswith("-----")]
    forms = {"token": stored["token"], "key (PEM body)": "".join(body), "key (hex)": scalar.hex()}
    forms["key (base64url)"] = b64url(scalar)
    forms.update({f"key (PEM line {i})": line for i, line in enumerate(body)})
    return forms


def viewer_thread(run: Run) -> dict[str, Any]:
    events = [f["event"] for f in run.view_frames if f["t"] == "agent-event" and f["sessionId"] == "s1"]
    return thread_of(events)


def test_no_frame_file_or_log_line_of_a_run_holds_the_token_or_the_host_key(run: Run) -> None:
    forms = secret_forms(run.server.root)
    link_line = run.texts.pop("host link line")
    assert link_line.count(forms["token"]) == 1, "the printed host link is the token's one way out"
    assert {"frames to host", "frames to viewer", "file .canvas/canvas.db", "GET /api/openapi.json"} <= set(run.texts)
    said = [i["text"] for i in viewer_thread(run)["items"] if i["type"] == "message"]
    assert "You said: hello from the host" in said, "the view guest saw the session log"
    assert "Added a note to the board: the agent's own note" in said, "and the board tools' output"
    leaks = [(what, where) for where, text in run.texts.items() for what, form in forms.items() if form in text]
    assert leaks == []


def test_nothing_a_view_guest_received_opens_ws_api_or_mcp(run: Run) -> None:
    room = dict(part.split("=", 1) for part in run.server.room_link.split("#", 1)[1].split("&"))
    assert {room["room"], room["key"], room["host"]} <= run.tried.keys(), "the link's own keys were tried"
    assert len(run.tried) > 50, "and every id, digest and text the guest was sent"
    opened = {candidate: codes for candidate, codes in run.tried.items() if codes != [4401, 401, 401]}
    assert opened == {}


def test_guests_never_hear_where_the_project_lives(run: Run) -> None:
    tools = [item for item in viewer_thread(run)["items"] if item["type"] == "tool"]
    located = {location["path"] for tool in tools for location in tool["locations"]}
    assert {"README.md", "notes.txt"} <= located, "the agent's reads and writes name the project's files"
    where = str(run.server.root.resolve())
    told = [name for name in ("viewer", "editor", "late") if where in run.texts[f"frames to {name}"]]
    assert told == []
