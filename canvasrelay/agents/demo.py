"""The built-in demo agent: a real ACP agent that needs no network and no API key.

Run as ``python -m canvasrelay.agents.demo``; it speaks ACP over stdio. Everything it does is
deterministic, so it doubles as the agent the tests drive:

- plain text: a short plan, then a reply streamed in several chunks, then ``end_turn``;
- ``/write PATH TEXT``: an edit tool call, a permission request (allow once / always / reject),
  then ``fs/write_text_file`` of TEXT to ``cwd/PATH`` if allowed; after "always" it stops
  asking for any write, as real agents do;
- ``/read PATH``: ``fs/read_text_file`` of ``cwd/PATH``, shown in the reply;
- ``/run CMD``: an execute tool call whose raw input is an argv list
  (``["/bin/bash", "-lc", CMD]``, Codex's shape), a permission request, then CMD run in ``cwd``,
  its output (stdout and stderr, up to ``OUTPUT_MAX``) as the call's content and its exit code
  as its raw output;
- ``/late-write PATH TEXT``: like ``/write``, but the turn ends first and the permission is
  asked after (real agents do this);
- ``/fail``: answers the prompt with an error, as an agent whose model refused the request;
- ``/hang``: a turn that ignores cancel;
- ``/note TEXT``: calls the ``add_note`` tool of the board's MCP server (an HTTP MCP server
  given in ``session/new``);
- ``/slow N``: N chunks 0.2 s apart, so a turn can be cancelled;
- ``/link URI NAME``: a reply citing URI as a resource link named NAME, as agents cite files;
- ``/plan TEXT``: a plan whose one entry says TEXT, then a reply;
- config option ``mode`` ("concise" or "verbose") shapes the plain reply;
- it offers its commands (``available_commands_update``) once a session starts.

Sessions live in this process's memory. ``session/load`` of a session this process created
replays its history; after a restart the agent accepts the id and starts the session fresh.

With ``--legacy`` it speaks like older agents (Gemini CLI): ``modes`` and ``models`` fields
instead of config options, and the history replayed just after its ``session/load`` answer.
With ``--strict-load`` a ``session/load`` of a session it does not know fails, as an agent
whose saved conversation is gone. With ``--state DIR`` it keeps its sessions in DIR, as real
agents keep theirs on disk, so a new process reloads (and replays) them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from acp import (
    PROTOCOL_VERSION,
    Agent,
    Client,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    SetSessionConfigOptionResponse,
    plan_entry,
    resource_link_block,
    run_agent,
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message,
    update_agent_message_text,
    update_plan,
    update_tool_call,
    update_user_message_text,
)
from acp.helpers import update_available_commands
from acp.schema import (
    AgentCapabilities,
    AllowedOutcome,
    AudioContentBlock,
    AvailableCommand,
    AvailableCommandInput,
    ClientCapabilities,
    ConfigOptionUpdate,
    DeniedOutcome,
    EmbeddedResourceContentBlock,
    HttpMcpServer,
    ImageContentBlock,
    Implementation,
    McpCapabilities,
    McpServerStdio,
    PermissionOption,
    PlanEntryStatus,
    ResourceContentBlock,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SseMcpServer,
    TextContentBlock,
    ToolCallLocation,
    ToolCallStatus,
    ToolCallUpdate,
    UnstructuredCommandInput,
)
from pydantic import JsonValue

log = logging.getLogger("canvasrelay.agents.demo")

SLOW_INTERVAL = 0.2
MCP_TIMEOUT = 15.0
MODES = {"concise": "Concise", "verbose": "Verbose"}
MODELS = {"demo-small": "Demo small", "demo-large": "Demo large"}
RUN_TIMEOUT = 30.0
OUTPUT_MAX = 1_000_000
"""Characters of a command's output the demo agent reports (canvas keeps as much of one text)."""
COMMANDS = {
    "run": ("Run a shell command in the project", "command"),
    "read": ("Read a file of the project", "path"),
    "write": ("Write a file of the project (asks first)", "path and text"),
    "note": ("Add a note to the board", "text"),
    "slow": ("Reply in N slow chunks", "N"),
}

PromptBlock = (
    TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceContentBlock | EmbeddedResourceContentBlock
)
McpServer = HttpMcpServer | SseMcpServer | McpServerStdio


class _Cancelled(Exception):
    """The client cancelled the turn; unwinds to ``prompt``, which answers ``cancelled``."""


@dataclass
class _Session:
    cwd: Path
    mcp_servers: list[Any]
    mode: str = "concise"
    model: str = "demo-small"
    history: list[tuple[str, str]] = field(default_factory=list)
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    tool_calls: int = 0
    always: set[str] = field(default_factory=set)
    """Tool kinds the client said "allow always" for: the agent asks no more for them."""

    def next_tool_call_id(self, prefix: str) -> str:
        self.tool_calls += 1
        return f"{prefix}-{self.tool_calls}"


def _config_options(mode: str) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
    return [
        SessionConfigOptionSelect(
            id="mode",
            name="Mode",
            description="How much the demo agent says",
            category="mode",
            type="select",
            current_value=mode,
            options=[SessionConfigSelectOption(value=value, name=name) for value, name in MODES.items()],
        )
    ]


def _word_chunks(text: str, words_per_chunk: int = 2) -> list[str]:
    words = re.findall(r"\S+\s*", text)
    return ["".join(words[i : i + words_per_chunk]) for i in range(0, len(words), words_per_chunk)]


def _legacy_fields(session: _Session) -> dict[str, JsonValue]:
    """ACP's older `modes` and `models` fields, as Gemini CLI sends them: as JSON, since the SDK's
    response models drop `models`."""
    return {
        "modes": {
            "currentModeId": session.mode,
            "availableModes": [{"id": key, "name": name} for key, name in MODES.items()],
        },
        "models": {
            "currentModelId": session.model,
            "availableModels": [{"modelId": key, "name": name} for key, name in MODELS.items()],
        },
    }


def _reply(text: str, mode: str) -> str:
    if mode == "verbose":
        return (
            f"You said: {text}\n\nI am the canvas demo agent, so I answer deterministically: "
            f"your message has {len(text.split())} words and {len(text)} characters. "
            "Try /write PATH TEXT, /note TEXT or /slow N."
        )
    return f"You said: {text}"


def _allowed(outcome: Any) -> bool:
    return isinstance(outcome, AllowedOutcome) and outcome.option_id in ("allow_once", "allow_always")


def _denial_reason(outcome: Any) -> str | None:
    meta = getattr(outcome, "field_meta", None) or {}
    reason = meta.get("reason")
    return reason if isinstance(reason, str) and reason else None


class DemoAgent:
    """Implements the ``acp.Agent`` protocol; the SDK routes requests to these methods."""

    def __init__(self, legacy: bool = False, strict_load: bool = False, state: Path | None = None) -> None:
        self._conn: Client | None = None
        self._sessions: dict[str, _Session] = {}
        self._legacy = legacy
        self._strict_load = strict_load
        self._state = state
        self._background: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    @property
    def conn(self) -> Client:
        if self._conn is None:
            raise RuntimeError("DemoAgent used before the connection was made")
        return self._conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(load_session=True, mcp_capabilities=McpCapabilities(http=True)),
            agent_info=Implementation(name="canvas-demo", title="Demo agent", version="1"),
        )

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse | dict[str, JsonValue]:
        session_id = f"demo-{uuid.uuid4().hex[:12]}"
        session = self._sessions[session_id] = _Session(cwd=Path(cwd), mcp_servers=list(mcp_servers or []))
        # After this answer, as agents announce theirs: the client knows the session by then.
        self._in_background(self._offer_commands(session_id))
        if self._legacy:
            return {"sessionId": session_id, **_legacy_fields(session)}
        return NewSessionResponse(session_id=session_id, config_options=_config_options("concise"))

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse | dict[str, JsonValue]:
        session = self._sessions.get(session_id) or self._restore(session_id, cwd)
        if session is None and self._strict_load:
            raise RequestError.resource_not_found(session_id)
        if session is None:
            session = self._sessions[session_id] = _Session(cwd=Path(cwd), mcp_servers=[])
        session.cwd = Path(cwd)
        session.mcp_servers = list(mcp_servers or [])
        if self._legacy:
            # Queued after this answer, as Gemini CLI streams a loaded session's history.
            self._in_background(self._replay(session_id, session))
            return _legacy_fields(session)
        await self._replay(session_id, session)
        return LoadSessionResponse(config_options=_config_options(session.mode))

    def _state_file(self, session_id: str) -> Path | None:
        if self._state is None or not re.fullmatch(r"demo-[0-9a-f]{12}", session_id):
            return None
        return self._state / f"{session_id}.json"

    def _save(self, session_id: str, session: _Session) -> None:
        file = self._state_file(session_id)
        if file is not None:
            saved = {"mode": session.mode, "model": session.model, "history": session.history}
            file.write_text(json.dumps(saved), encoding="utf-8")

    def _restore(self, session_id: str, cwd: str) -> _Session | None:
        file = self._state_file(session_id)
        if file is None or not file.is_file():
            return None
        saved = json.loads(file.read_text(encoding="utf-8"))
        session = _Session(cwd=Path(cwd), mcp_servers=[], mode=saved["mode"], model=saved["model"])
        session.history = [(role, text) for role, text in saved["history"]]
        self._sessions[session_id] = session
        return session

    async def _replay(self, session_id: str, session: _Session) -> None:
        for role, text in list(session.history):
            update = update_user_message_text(text) if role == "user" else update_agent_message_text(text)
            await self.conn.session_update(session_id=session_id, update=update)

    async def _offer_commands(self, session_id: str) -> None:
        commands = [
            AvailableCommand(
                name=name,
                description=description,
                input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)),
            )
            for name, (description, hint) in COMMANDS.items()
        ]
        await self.conn.session_update(session_id=session_id, update=update_available_commands(commands))

    def _in_background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def set_session_mode(self, mode_id: str, session_id: str, **kwargs: Any) -> None:
        session = self._session(session_id)
        if mode_id not in MODES:
            raise RequestError.invalid_params({"modeId": mode_id})
        session.mode = mode_id
        self._save(session_id, session)

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        if config_id != "mode" or value not in MODES:
            raise RequestError.invalid_params({"configId": config_id, "value": value})
        session.mode = str(value)
        self._save(session_id, session)
        # Announced and answered both, as Claude's agent does: the client should show one change.
        update = ConfigOptionUpdate(session_update="config_option_update", config_options=_config_options(session.mode))
        await self.conn.session_update(session_id=session_id, update=update)
        return SetSessionConfigOptionResponse(config_options=_config_options(session.mode))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None:
            session.cancel.set()

    async def prompt(self, prompt: list[PromptBlock], session_id: str, **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        session.cancel = asyncio.Event()
        text = "".join(block.text for block in prompt if isinstance(block, TextContentBlock)).strip()
        session.history.append(("user", text))
        turn = _Turn(self.conn, session_id, session)
        try:
            if text == "/fail":
                raise RequestError.internal_error({"details": "the model answered HTTP 400: bad request"})
            if text.startswith("/late-write"):
                # Queued after this turn's answer: the permission request comes after the turn ended.
                self._in_background(turn.write(text.replace("/late-write", "/write", 1)))
            elif text == "/hang":
                await asyncio.Event().wait()
            elif text.startswith("/write"):
                await turn.write(text)
            elif text.startswith("/run"):
                await turn.run(text.removeprefix("/run").strip())
            elif text.startswith("/read"):
                await turn.read(text.removeprefix("/read").strip())
            elif text.startswith("/note"):
                await turn.note(text.removeprefix("/note").strip())
            elif text.startswith("/slow"):
                await turn.slow(text)
            elif text.startswith("/link"):
                await turn.link(text.removeprefix("/link").strip())
            elif text.startswith("/plan"):
                await turn.planned(text.removeprefix("/plan").strip())
            else:
                await turn.answer(text)
        except _Cancelled:
            return PromptResponse(stop_reason="cancelled")
        finally:
            if turn.said:
                session.history.append(("agent", "".join(turn.said)))
            self._save(session_id, session)
        return PromptResponse(stop_reason="end_turn")

    def _session(self, session_id: str) -> _Session:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params({"sessionId": session_id, "reason": "unknown session"})
        return session


@dataclass
class _Turn:
    conn: Client
    session_id: str
    session: _Session
    said: list[str] = field(default_factory=list)

    async def send(self, update: Any) -> None:
        await self.conn.session_update(session_id=self.session_id, update=update)

    async def say(self, text: str) -> None:
        if self.session.cancel.is_set():
            raise _Cancelled
        self.said.append(text)
        await self.send(update_agent_message_text(text))

    async def update_tool(
        self, tool_call_id: str, status: ToolCallStatus, content: Any = None, raw_output: Any = None
    ) -> None:
        await self.send(update_tool_call(tool_call_id, status=status, content=content, raw_output=raw_output))

    async def answer(self, text: str) -> None:
        await self.plan(composing="in_progress", sending="pending")
        for chunk in _word_chunks(_reply(text, self.session.mode)):
            await self.say(chunk)
        # A plan left half done reads to a person as work that stopped.
        await self.plan(composing="completed", sending="completed")

    async def plan(self, composing: PlanEntryStatus, sending: PlanEntryStatus) -> None:
        await self.send(
            update_plan(
                [
                    plan_entry("Read the message", priority="high", status="completed"),
                    plan_entry("Compose a reply", status=composing),
                    plan_entry("Send the reply", priority="low", status=sending),
                ]
            )
        )

    async def link(self, text: str) -> None:
        uri, _, name = text.partition(" ")
        await self.say("See ")
        await self.send(update_agent_message(resource_link_block(name or uri, uri)))

    async def planned(self, entry: str) -> None:
        await self.send(update_plan([plan_entry(entry, status="completed")]))
        await self.say("Planned.")

    async def slow(self, text: str) -> None:
        match = re.fullmatch(r"/slow\s+(\d+)", text)
        if match is None:
            await self.say("Usage: /slow N")
            return
        count = int(match.group(1))
        for i in range(1, count + 1):
            await self.say(f"chunk {i}/{count}\n")
            if i < count:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.session.cancel.wait(), SLOW_INTERVAL)
        if self.session.cancel.is_set():
            raise _Cancelled

    async def write(self, text: str) -> None:
        match = re.fullmatch(r"/write\s+(\S+)(?:\s(.*))?", text, re.DOTALL)
        if match is None:
            await self.say("Usage: /write PATH TEXT")
            return
        rel_path, content = match.group(1), match.group(2) or ""
        path = str(self.session.cwd / rel_path)
        tool_call_id = self.session.next_tool_call_id("write")
        title = f"Write {rel_path}"
        try:
            before: str | None = (await self.conn.read_text_file(session_id=self.session_id, path=path)).content
        except RequestError:
            before = None
        await self.send(
            start_tool_call(
                tool_call_id,
                title,
                kind="edit",
                status="pending",
                content=[tool_diff_content(path, content, before)],
                locations=[ToolCallLocation(path=path)],
                raw_input={"path": path, "content": content},
            )
        )
        outcome = await self.ask(ToolCallUpdate(tool_call_id=tool_call_id, title=title, kind="edit"), "edit")
        if _allowed(outcome):
            await self.update_tool(tool_call_id, "in_progress")
            try:
                await self.conn.write_text_file(session_id=self.session_id, path=path, content=content)
            except RequestError as exc:
                await self.update_tool(tool_call_id, "failed")
                await self.say(f"Could not write {rel_path}: {exc}")
                return
            await self.update_tool(tool_call_id, "completed")
            await self.say(f"Wrote {len(content)} characters to {rel_path}.")
            return
        await self.refused(tool_call_id, f"not writing {rel_path}", outcome)

    async def refused(self, tool_call_id: str, what: str, outcome: Any) -> None:
        await self.update_tool(tool_call_id, "failed")
        if self.session.cancel.is_set():
            raise _Cancelled
        reason = _denial_reason(outcome)
        await self.say(f"Permission denied: {what} ({reason})" if reason else f"Permission denied: {what}")

    async def run(self, command: str) -> None:
        if not command:
            await self.say("Usage: /run COMMAND")
            return
        tool_call_id = self.session.next_tool_call_id("run")
        argv = ["/bin/bash", "-lc", command]
        await self.send(
            start_tool_call(tool_call_id, command, kind="execute", status="pending", raw_input={"command": argv})
        )
        asked = ToolCallUpdate(tool_call_id=tool_call_id, title=command, kind="execute", raw_input={"command": argv})
        outcome = await self.ask(asked, "execute")
        if not _allowed(outcome):
            await self.refused(tool_call_id, f"not running {command}", outcome)
            return
        await self.update_tool(tool_call_id, "in_progress")
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=self.session.cwd,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
        )
        try:
            output, _ = await asyncio.wait_for(proc.communicate(), RUN_TIMEOUT)
        except TimeoutError:
            proc.kill()
            output = b"(timed out)"
        shown = output.decode("utf-8", "replace")[:OUTPUT_MAX]
        content = [tool_content(text_block(shown))] if shown else None
        status: ToolCallStatus = "completed" if proc.returncode == 0 else "failed"
        await self.send(
            update_tool_call(tool_call_id, status=status, content=content, raw_output={"exit_code": proc.returncode})
        )
        await self.say(f"Ran {command} (exit code {proc.returncode}).")

    async def read(self, rel_path: str) -> None:
        path = str(self.session.cwd / rel_path)
        tool_call_id = self.session.next_tool_call_id("read")
        await self.send(
            start_tool_call(
                tool_call_id,
                f"Read {rel_path}",
                kind="read",
                status="in_progress",
                locations=[ToolCallLocation(path=path)],
            )
        )
        try:
            response = await self.conn.read_text_file(session_id=self.session_id, path=path)
        except RequestError as exc:
            await self.update_tool(tool_call_id, "failed")
            await self.say(f"Could not read {rel_path}: {exc}")
            return
        await self.update_tool(tool_call_id, "completed")
        await self.say(f"{rel_path} says:\n{response.content}")

    async def ask(self, tool_call: ToolCallUpdate, kind: str) -> DeniedOutcome | AllowedOutcome | None:
        """The client's answer, or None when the turn is cancelled while it is asked. After an
        "allow always" for a kind, the agent asks no more for that kind."""
        if kind in self.session.always:
            return AllowedOutcome(outcome="selected", option_id="allow_always")
        request = asyncio.ensure_future(
            self.conn.request_permission(
                session_id=self.session_id,
                tool_call=tool_call,
                options=[
                    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
                    PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
                    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
                ],
            )
        )
        cancelled = asyncio.ensure_future(self.session.cancel.wait())
        try:
            await asyncio.wait({request, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            cancelled.cancel()
        if not request.done():
            request.cancel()
            return None
        outcome = request.result().outcome
        if isinstance(outcome, AllowedOutcome) and outcome.option_id == "allow_always":
            self.session.always.add(kind)
        return outcome

    async def note(self, text: str) -> None:
        server = next((s for s in self.session.mcp_servers if isinstance(s, HttpMcpServer)), None)
        if server is None:
            await self.say("No board tools were given to me, so I cannot add a note.")
            return
        tool_call_id = self.session.next_tool_call_id("note")
        await self.send(
            start_tool_call(tool_call_id, "Add a note", kind="other", status="in_progress", raw_input={"text": text})
        )
        try:
            result_text, is_error = await _call_add_note(server, text)
        except Exception as exc:
            log.warning("add_note failed", exc_info=True)
            result_text, is_error = f"{type(exc).__name__}: {exc}", True
        # The tool's answer is for a model (the new item's id, as JSON): the thread says it in words
        # and passes the answer on as the raw output, which is how the page finds the note.
        shown = result_text if is_error else f"A note on the board: {text}"
        content = [tool_content(text_block(shown))] if shown else None
        raw = None if is_error else result_text
        await self.update_tool(tool_call_id, "failed" if is_error else "completed", content, raw)
        if is_error:
            await self.say(f"The board refused the note: {result_text}")
        else:
            await self.say(f"Added a note to the board: {text}")


async def _call_add_note(server: HttpMcpServer, text: str) -> tuple[str, bool]:
    # Imported here: the MCP client doubles the agent's start-up time, and only /note needs it.
    import httpx2
    from mcp import Client as McpClient
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import TextContent

    headers = {header.name: header.value for header in server.headers}
    async with (
        asyncio.timeout(MCP_TIMEOUT),
        httpx2.AsyncClient(headers=headers, timeout=MCP_TIMEOUT) as http,
        # "legacy" skips the 2026 discovery probe, which a small board server need not answer.
        McpClient(streamable_http_client(server.url, http_client=http), mode="legacy") as client,
    ):
        result = await client.call_tool("add_note", {"text": text})
    parts = [block.text for block in result.content if isinstance(block, TextContent)]
    return "\n".join(parts), bool(result.is_error)


def main() -> None:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="demo-agent %(levelname)s %(message)s")
    flags = sys.argv[1:]
    state = Path(flags[flags.index("--state") + 1]) if "--state" in flags[:-1] else None
    agent = DemoAgent(legacy="--legacy" in flags, strict_load="--strict-load" in flags, state=state)
    # DemoAgent implements the requests it supports; the SDK answers the others "method not found".
    asyncio.run(run_agent(cast(Agent, agent)))


if __name__ == "__main__":
    main()
