"""AgentProcess driving the real demo agent (and a few broken agents) as subprocesses."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from mcp.server.mcpserver import MCPServer

from canvasrelay.server.agents.error import AgentError
from canvasrelay.server.agents.process import AgentProcess

REPO = str(Path(__file__).resolve().parent.parent)
DEMO = [sys.executable, "-m", "canvasrelay.agents.demo"]
# The agent runs in the served folder, not in the repo, so it must be told where canvasrelay is.
ENV = {"PYTHONPATH": REPO}

pytestmark = pytest.mark.timeout(60)


class Recorder:
    """Collects what the agent sends and answers its permission requests."""

    def __init__(self, answer: str | None = "allow_once") -> None:
        self.updates: list[tuple[str, dict[str, Any]]] = []
        self.permissions: list[dict[str, Any]] = []
        self.answer = answer
        self.hold = False
        self.permission_cancelled = asyncio.Event()
        self._changed = asyncio.Condition()

    def on_update(self, session_id: str, update: dict[str, Any]) -> None:
        self.updates.append((session_id, update))
        asyncio.get_running_loop().create_task(self._notify())

    async def on_permission(self, request: dict[str, Any]) -> str | None:
        self.permissions.append(request)
        await self._notify()
        if self.hold:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.permission_cancelled.set()
                raise
        return self.answer

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_until(self, predicate: Callable[[], bool]) -> None:
        async with self._changed:
            await self._changed.wait_for(predicate)

    def kinds(self) -> list[str]:
        return [update["sessionUpdate"] for _, update in self.updates]

    def text(self) -> str:
        return "".join(
            update["content"]["text"] for _, update in self.updates if update["sessionUpdate"] == "agent_message_chunk"
        )

    def tool_updates(self) -> list[dict[str, Any]]:
        return [u for _, u in self.updates if u["sessionUpdate"] in ("tool_call", "tool_call_update")]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def demo(root: Path, recorder: Recorder, command: list[str] = DEMO) -> AgentProcess:
    return AgentProcess(
        command[0],
        command[1:],
        root=root,
        env=ENV,
        on_update=recorder.on_update,
        on_permission=recorder.on_permission,
    )


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # An orphan nobody has reaped yet is dead all the same.
    status = Path(f"/proc/{pid}/status")
    return not status.exists() or "\nState:\tZ" in status.read_text()


async def test_plain_prompt_streams_plan_then_chunks_in_order(root: Path) -> None:
    recorder = Recorder()
    async with demo(root, recorder) as agent:
        assert agent.supports_load
        assert agent.agent_info is not None and agent.agent_info.name == "canvas-demo"
        session = await agent.new_session()
        assert await agent.prompt(session, "hello there, demo agent") == "end_turn"
    offered, *kinds = recorder.kinds()
    assert offered == "available_commands_update", "the demo offers its commands once the session starts"
    assert [c["name"] for c in recorder.updates[0][1]["availableCommands"]] == ["run", "read", "write", "note", "slow"]
    assert kinds[0] == "plan" and kinds[-1] == "plan"
    assert len(recorder.updates[1][1]["entries"]) == 3
    assert kinds[1:-1] == ["agent_message_chunk"] * (len(kinds) - 2)
    assert len(kinds) - 2 >= 3
    assert recorder.text() == "You said: hello there, demo agent"
    # The plan ends done: a person reads a plan left half done as work that stopped.
    assert [entry["status"] for entry in recorder.updates[-1][1]["entries"]] == ["completed"] * 3
    assert {sid for sid, _ in recorder.updates} == {session}


async def test_write_allowed_writes_the_file(root: Path) -> None:
    recorder = Recorder(answer="allow_once")
    async with demo(root, recorder) as agent:
        session = await agent.new_session()
        assert await agent.prompt(session, "/write notes/hi.txt héllo\nworld") == "end_turn"
    assert (root / "notes" / "hi.txt").read_text(encoding="utf-8") == "héllo\nworld"
    [request] = recorder.permissions
    assert request["sessionId"] == session
    assert [(o["optionId"], o["kind"]) for o in request["options"]] == [
        ("allow_once", "allow_once"),
        ("allow_always", "allow_always"),
        ("reject_once", "reject_once"),
    ]
    first, *rest = recorder.tool_updates()
    assert (first["sessionUpdate"], first["kind"], first["title"], first["status"]) == (
        "tool_call",
        "edit",
        "Write notes/hi.txt",
        "pending",
    )
    assert request["toolCall"]["toolCallId"] == first["toolCallId"]
    assert rest[-1]["status"] == "completed"
    assert "Wrote 11 characters to notes/hi.txt." in recorder.text()


async def test_write_rejected_writes_nothing(root: Path) -> None:
    recorder = Recorder(answer="reject_once")
    async with demo(root, recorder) as agent:
        session = await agent.new_session()
        assert await agent.prompt(session, "/write a.txt nope") == "end_turn"
    assert not (root / "a.txt").exists()
    assert recorder.tool_updates()[-1]["status"] == "failed"
    assert "Permission denied: not writing a.txt" in recorder.text()


async def test_cancel_while_asking_permission(root: Path) -> None:
    recorder = Recorder()
    recorder.hold = True
    async with demo(root, recorder) as agent:
        session = await agent.new_session()
        turn = asyncio.create_task(agent.prompt(session, "/write a.txt later"))
        await recorder.wait_until(lambda: bool(recorder.permissions))
        await agent.cancel(session)
        assert await asyncio.wait_for(turn, 5) == "cancelled"
        assert recorder.permission_cancelled.is_set()
    assert not (root / "a.txt").exists()
    assert recorder.tool_updates()[-1]["status"] == "failed"


async def test_slow_turn_is_cancelled_promptly(root: Path) -> None:
    recorder = Recorder()
    async with demo(root, recorder) as agent:
        session = await agent.new_session()
        turn = asyncio.create_task(agent.prompt(session, "/slow 50"))
        await recorder.wait_until(lambda: len(recorder.updates) >= 2)
        started = time.monotonic()
        await agent.cancel(session)
        assert await asyncio.wait_for(turn, 5) == "cancelled"
        assert time.monotonic() - started < 1.0
        assert len(recorder.updates) < 50
        assert await agent.prompt(session, "/slow 2") == "end_turn"
    assert recorder.text().endswith("chunk 1/2\nchunk 2/2\n")


async def test_config_option_changes_the_reply(root: Path) -> None:
    recorder = Recorder()
    async with demo(root, recorder) as agent:
        session = await agent.new_session()
        [mode] = agent.config_options(session)
        assert (mode.id, mode.type, mode.current_value) == ("mode", "select", "concise")
        assert {getattr(o, "value", None) for o in mode.options} == {"concise", "verbose"}
        options = await agent.set_config(session, "mode", "verbose")
        assert options[0].current_value == "verbose"
        assert agent.config_options(session) == options
        await agent.prompt(session, "hi")
        assert "deterministically" in recorder.text()
        with pytest.raises(AgentError, match="could not change that setting") as info:
            await agent.set_config(session, "mode", "loud")
        assert info.value.detail is not None and "Invalid params" in info.value.detail


async def test_a_new_session_starts_in_the_mode_that_asks(root: Path) -> None:
    """An agent whose sessions start in a mode where nothing asks the host (Claude's adapter
    starts in "auto") is put in its asking mode; a mode it does not offer is left alone."""
    recorder = Recorder()

    async def first_mode(asking_mode: str) -> object:
        process = AgentProcess(
            *DEMO[:1],
            DEMO[1:],
            root=root,
            env=ENV,
            on_update=recorder.on_update,
            on_permission=recorder.on_permission,
            asking_mode=asking_mode,
        )
        async with process as agent:
            session = await agent.new_session()
            return agent.config_options(session)[0].current_value

    assert await first_mode("verbose") == "verbose"
    assert await first_mode("careful") == "concise"


async def test_load_session_keeps_state_and_drops_replayed_history(root: Path) -> None:
    recorder = Recorder()
    async with demo(root, recorder) as agent:
        session = await agent.new_session()
        await agent.set_config(session, "mode", "verbose")
        await agent.prompt(session, "remember me")
        seen = len(recorder.updates)
        assert await agent.load_session(session)
        assert len(recorder.updates) == seen
        assert agent.config_options(session)[0].current_value == "verbose"
    # A new process does not know the session: it accepts the id and starts fresh.
    async with demo(root, recorder) as agent:
        assert await agent.load_session(session)
        assert agent.config_options(session)[0].current_value == "concise"
        assert await agent.prompt(session, "again") == "end_turn"


async def test_fs_outside_the_root_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s3cret")
    (root / "link").symlink_to(outside)
    (root / "inside.txt").write_text("fine")
    recorder = Recorder(answer="allow_once")
    async with demo(root, recorder) as agent:
        session = await agent.new_session()
        await agent.prompt(session, "/write ../escape.txt x")
        await agent.prompt(session, "/write link/escape.txt x")
        await agent.prompt(session, "/read ../outside/secret.txt")
        await agent.prompt(session, "/read link/secret.txt")
        await agent.prompt(session, "/read inside.txt")
    text = recorder.text()
    assert not (tmp_path / "escape.txt").exists()
    assert not (outside / "escape.txt").exists()
    assert "s3cret" not in text
    assert text.count(": outside the project folder") == 2
    assert text.count(": a link pointing outside the project folder") == 2
    assert "'reason'" not in text, "the refusal reads in words, not as the error's data"
    assert "inside.txt says:\nfine" in text


async def test_missing_command_raises() -> None:
    recorder = Recorder()
    agent = AgentProcess(
        "canvas-no-such-agent",
        root=Path.cwd(),
        on_update=recorder.on_update,
        on_permission=recorder.on_permission,
    )
    with pytest.raises(AgentError, match="not found"):
        await agent.start()


async def test_garbage_on_stdout_fails_fast(root: Path) -> None:
    recorder = Recorder()
    script = "import sys, time; print('garbage', flush=True); print('oops', file=sys.stderr); time.sleep(30)"
    agent = demo(root, recorder, [sys.executable, "-c", script])
    started = time.monotonic()
    with pytest.raises(AgentError) as info:
        await agent.start()
    assert time.monotonic() - started < 5
    assert "broke off talking to canvas" in str(info.value)
    assert info.value.detail is not None and "garbage" in info.value.detail
    # stderr is the host's alone: kept apart from the message everyone sees
    assert "oops" in info.value.stderr
    assert "oops" not in str(info.value)
    assert agent.pid is not None and gone(agent.pid)


CRASH_AFTER_INIT = """
import json, sys
request = json.loads(sys.stdin.readline())
result = {"protocolVersion": 1, "agentCapabilities": {}}
print(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}), flush=True)
sys.stdin.readline()
print("boom: the agent fell over", file=sys.stderr, flush=True)
sys.exit(3)
"""


# The shell reports its background child's pid on stderr, then becomes the agent; the child
# stays in the agent's process group and holds its stdout and stderr open.
WITH_CHILD = ["sh", "-c", 'sleep 300 & echo "child $!" >&2; exec "$0" "$@"']


def child_pid(agent: AgentProcess) -> int:
    [pid] = [int(line.split()[1]) for line in agent.stderr_tail if line.startswith("child ")]
    return pid


@pytest.mark.parametrize("with_child", [False, True], ids=["alone", "with-child"])
async def test_agent_crash_fails_the_pending_request_with_stderr(root: Path, with_child: bool) -> None:
    recorder = Recorder()
    command = [*(WITH_CHILD if with_child else []), sys.executable, "-c", CRASH_AFTER_INIT]
    async with demo(root, recorder, command) as agent:
        assert not agent.supports_load
        assert await agent.load_session("whatever") is False
        started = time.monotonic()
        with pytest.raises(AgentError) as info:
            await agent.new_session()
        assert time.monotonic() - started < 5
        assert "boom: the agent fell over" in info.value.stderr
        assert "exited with code 3" in str(info.value)
        with pytest.raises(AgentError):
            await agent.prompt("s", "hello")
    if with_child:
        assert gone(child_pid(agent))


async def test_close_leaves_no_process_behind(root: Path) -> None:
    recorder = Recorder()
    agent = demo(root, recorder, [*WITH_CHILD, *DEMO])
    await agent.start()
    session = await agent.new_session()
    assert await agent.prompt(session, "hi") == "end_turn"
    child = child_pid(agent)
    pid = agent.pid
    assert pid is not None and not gone(child)
    await agent.close()
    assert gone(pid)
    assert gone(child)
    with pytest.raises(AgentError):
        await agent.new_session()


@asynccontextmanager
async def board_mcp_server(calls: list[str], headers: list[dict[str, str]]) -> AsyncIterator[str]:
    board = MCPServer("board")

    @board.tool()
    def add_note(text: str) -> str:
        calls.append(text)
        return f"note {len(calls)} added"

    app = board.streamable_http_app()

    async def recording_app(scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        if scope["type"] == "http":
            headers.append({k.decode(): v.decode() for k, v in scope["headers"]})
        await app(scope, receive, send)

    # Listening before serving means the port is known and early connections just queue.
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(recording_app, log_level="warning", lifespan="on"))
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.should_exit = True
        await serving
        sock.close()


async def test_note_calls_the_board_mcp_server(root: Path) -> None:
    calls: list[str] = []
    headers: list[dict[str, str]] = []
    recorder = Recorder()
    async with board_mcp_server(calls, headers) as url, demo(root, recorder) as agent:
        mcp = {"type": "http", "name": "board", "url": url, "headers": [{"name": "X-Canvas-Token", "value": "t0k"}]}
        session = await agent.new_session(mcp_servers=[mcp])
        assert await agent.prompt(session, "/note Buy milk 🥛") == "end_turn"
    assert calls == ["Buy milk 🥛"]
    assert headers and all(h.get("x-canvas-token") == "t0k" for h in headers)
    first, *_, last = recorder.tool_updates()
    assert (first["kind"], first["status"]) == ("other", "in_progress")
    assert last["status"] == "completed"
    # The board's answer is the model's to read; the thread says what happened in words.
    assert last["content"][0]["content"]["text"] == "A note on the board: Buy milk 🥛"
    assert "Added a note to the board: Buy milk 🥛" in recorder.text()


async def test_note_without_board_tools_says_so(root: Path) -> None:
    recorder = Recorder()
    async with demo(root, recorder) as agent:
        session = await agent.new_session()
        assert await agent.prompt(session, "/note hello") == "end_turn"
    assert "No board tools" in recorder.text()
