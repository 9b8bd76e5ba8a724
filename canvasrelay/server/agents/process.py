"""One ACP agent subprocess, seen from canvas (the ACP client).

``AgentProcess`` spawns the agent in its own process group with the full environment (the
SDK's spawner would trim it to HOME, PATH…, losing API keys), drains its stderr into a small
ring, and speaks ACP to it through the SDK's ``ClientSideConnection`` over a transport of
our own. That transport does two jobs the SDK does not:

- It hands every ``session/update`` to ``on_update`` synchronously, as it is read, so
  updates arrive in wire order and before the response that follows them (the SDK would
  run each in its own task).
- It treats anything that is not a JSON object on the agent's stdout as fatal (the SDK would
  log it and keep waiting), so a broken agent fails fast instead of hanging.

Every request races the agent's death: when the process exits or its stdout breaks, all
waiting calls raise ``AgentError`` with the tail of its stderr.

File access asked for by the agent (``fs/read_text_file``, ``fs/write_text_file``) goes
through ``AgentFiles``: the shared set seen from the agent.

Config options: an agent's ``configOptions`` as it reports them, typed (one no model reads is
left out); an agent that reports only ACP's older ``modes`` / ``models`` fields gets them shown as
two select options of the same shape, set through ``session/set_mode`` / ``session/set_model``.
``on_options`` hears each distinct list once: a change the agent both announces and answers is one
call.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import os
import re
import signal
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar, cast

from acp import PROTOCOL_VERSION, Client, RequestError, connect_to_agent
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    HttpMcpServer,
    Implementation,
    McpServerStdio,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    SseMcpServer,
    TextContentBlock,
    ToolCallUpdate,
    WriteTextFileResponse,
)
from pydantic import ValidationError

from canvasrelay.core.permission_rules import Choice, PermissionAsk
from canvasrelay.protocol.json_value import JsonObject, JsonValue
from canvasrelay.protocol.session_events import ConfigOption, config_options
from canvasrelay.server.agents.error import AgentError, doing, exit_words
from canvasrelay.server.agents.files import AgentFiles, FileRefused

log = logging.getLogger(__name__)

T = TypeVar("T")
UpdateCallback = Callable[[str, JsonObject], None]
"""Gets an ACP session update verbatim: the agent host reads it into a `SessionUpdate`."""
OptionsCallback = Callable[[str, list[ConfigOption]], None]
McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio

STDERR_LINES = 50
SANDBOX_SAYS = "bwrap: "
ALLOW_WRITE = "canvas-allow-write"
REFUSE_WRITE = "canvas-refuse-write"
"""The options of the question canvas asks the host before an agent's ACP write to a file that runs code later."""
STDOUT_LIMIT = 50 * 1024 * 1024
INIT_TIMEOUT = 60.0
SESSION_TIMEOUT = 60.0
CONFIG_TIMEOUT = 30.0
EXIT_GRACE = 0.5
"""How long an agent has to exit by itself once its stdin is closed (many never do)."""
TERM_GRACE = 1.5
REPLAY_QUIET = 0.3
"""An agent that replays a loaded session's history after its answer has done so once it
has been quiet this long; the replay is dropped, since canvas keeps its own log."""
REPLAY_MAX = 5.0
STDOUT_CLOSED = "agent closed its stdout"
ERROR_MAX = 2000
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
LEGACY_METHODS = {"mode": "session/set_mode", "model": "session/set_model"}


PermissionCallback = Callable[[PermissionAsk], Awaitable[str | Choice | None]]


def plain_text(text: str, limit: int = ERROR_MAX) -> str:
    """Text from an agent with its terminal colour codes removed, cut to ``limit``."""
    text = ANSI.sub("", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


class AgentProcess:
    """An ACP agent subprocess; use ``async with`` or ``start()`` / ``close()``.

    ``on_update(session_id, update)`` gets every session update verbatim (the ACP JSON dict,
    keyed by ``sessionUpdate``), in order, synchronously: it must not block. Updates the agent
    replays while ``load_session`` runs are dropped, since canvas keeps its own log.

    ``on_permission(request)`` gets the ``session/request_permission`` params (``sessionId``,
    ``toolCall``, ``options``) and returns the chosen ``optionId`` (or a ``Choice``, to give a
    reason), or None for cancelled. It is cancelled (and the agent told "cancelled") when the
    turn is cancelled or the process closes.
    """

    def __init__(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        root: str | Path,
        on_update: UpdateCallback,
        on_permission: PermissionCallback,
        env: Mapping[str, str] | None = None,
        init_timeout: float = INIT_TIMEOUT,
        files: AgentFiles | None = None,
        on_options: OptionsCallback | None = None,
        on_stderr: Callable[[str], None] | None = None,
        refusal_as_error: bool = False,
        offers_files: bool = True,
        asking_mode: str | None = None,
    ) -> None:
        self.command = command
        self.args = list(args)
        self.root = Path(root).resolve()
        self.files = files or AgentFiles(self.root)
        self._on_update = on_update
        self._on_permission = on_permission
        self._on_options = on_options
        self._on_stderr = on_stderr
        self._refusal_as_error = refusal_as_error
        """Refuse with a reason as an error answer: the one way some agents (Claude's) tell
        their model why; others drop `_meta.reason`, and some end the turn on an error."""
        self._offers_files = offers_files
        self._asking_mode = asking_mode
        """The mode a new session is put in when it starts in another: Claude's adapter starts in
        "auto", where a classifier rather than the host allows its commands and edits."""
        self._env = {**os.environ, **(env or {})}
        self._init_timeout = init_timeout
        self._proc: asyncio.subprocess.Process | None = None
        self._exited = asyncio.Event()
        self._conn: ClientSideConnection | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._tasks: list[asyncio.Task[None]] = []
        self._stderr_task: asyncio.Task[None] | None = None
        self._dead = asyncio.Event()
        self._death: str | None = None
        self._closed = False
        self._settling: asyncio.Future[None] | None = None
        self._loading: dict[str, float] = {}
        """Sessions being loaded: their replayed history is dropped; the last one's time."""
        self._permissions: dict[str, set[asyncio.Future[str | Choice | None]]] = {}
        self._config: dict[str, list[ConfigOption]] = {}
        self._legacy: dict[str, set[str]] = {}
        """Per session, the option ids that stand for the older `modes` / `models` fields."""
        self._told: dict[str, list[ConfigOption]] = {}
        self._configuring: set[str] = set()
        self._prompting: set[str] = set()
        self._turn_closing: dict[str, asyncio.Event] = {}
        self._held: dict[str, list[JsonObject]] = {}
        """Sessions whose prompt the agent answered while the caller has not yet heard it: a
        permission request read after that answer waits until the caller has (wire order)."""
        self.agent_info: Implementation | None = None
        self.agent_capabilities = AgentCapabilities()

    async def __aenter__(self) -> AgentProcess:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def stderr_tail(self) -> list[str]:
        return list(self._stderr)

    @property
    def alive(self) -> bool:
        return self._proc is not None and not self._dead.is_set()

    async def exited(self) -> None:
        """Until the agent's process has exited."""
        await self._exited.wait()

    @property
    def running(self) -> bool:
        """Started or starting, and neither closed nor dead: it holds a place among the agents."""
        return not self._closed and not self._dead.is_set()

    @property
    def supports_load(self) -> bool:
        return bool(self.agent_capabilities.load_session)

    def config_options(self, session_id: str) -> list[ConfigOption]:
        """The session's config options as the agent last reported them (those a model reads)."""
        return self._config.get(session_id, [])

    async def start(self) -> None:
        """Spawn the agent and run ``initialize``; raises ``AgentError`` on any failure."""
        if not self.root.is_dir():
            raise AgentError(f"agent folder not found: {self.root}")
        loop = asyncio.get_running_loop()
        protocol = _AgentProtocol(self._exited, loop)
        try:
            transport, _ = await loop.subprocess_exec(
                lambda: protocol,
                self.command,
                *self.args,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self._env,
                cwd=self.root,
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise AgentError(f"agent command not found: {self.command}") from exc
        except PermissionError as exc:
            raise AgentError(f"agent command not executable: {self.command}") from exc
        self._proc = asyncio.subprocess.Process(transport, protocol, loop)
        assert self._proc.stdin is not None and self._proc.stdout is not None and self._proc.stderr is not None
        self._stderr_task = asyncio.create_task(self._drain_stderr(self._proc.stderr))
        self._tasks = [self._stderr_task, asyncio.create_task(self._watch_exit())]
        pipe = _PipeTransport(
            self._proc.stdin,
            self._proc.stdout,
            self._deliver,
            self._die,
            self._broken,
            self._session_result,
            self._prompt_answered,
        )
        # _Client answers the requests canvas supports; the SDK reports the others as unknown methods.
        self._conn = connect_to_agent(cast(Client, _Client(self)), pipe)
        try:
            response = await self._call(
                "initialize",
                self._conn.initialize(
                    protocol_version=PROTOCOL_VERSION,
                    client_capabilities=ClientCapabilities(
                        fs=FileSystemCapabilities(
                            read_text_file=self._offers_files, write_text_file=self._offers_files
                        ),
                        terminal=False,
                    ),
                    client_info=Implementation(name="canvas", title="canvas", version="0"),
                ),
                self._init_timeout,
            )
        except BaseException:
            await self.close()
            raise
        self.agent_info = response.agent_info
        self.agent_capabilities = response.agent_capabilities or AgentCapabilities()

    async def new_session(self, cwd: str | Path | None = None, mcp_servers: Sequence[McpServer] = ()) -> str:
        """Open a session with the MCP servers it may use (see ``mcp_server``)."""
        response = await self._call(
            "session/new",
            self._connection().new_session(cwd=self._cwd(cwd), mcp_servers=list(mcp_servers)),
            SESSION_TIMEOUT,
        )
        session_id = response.session_id
        if self._asking_mode is not None and self._can_switch_to(session_id, "mode", self._asking_mode):
            await self.set_config(session_id, "mode", self._asking_mode)
        return session_id

    def _can_switch_to(self, session_id: str, config_id: str, value: str) -> bool:
        option = next((o for o in self.config_options(session_id) if o.id == config_id), None)
        if option is None or option.current_value == value:
            return False
        return any(getattr(choice, "value", None) == value for choice in option.options)

    async def load_session(
        self, session_id: str, cwd: str | Path | None = None, mcp_servers: Sequence[McpServer] = ()
    ) -> bool:
        """Reopen a session the agent knows; False if the agent cannot load sessions. The history
        the agent replays, during its answer or just after, is dropped."""
        if not self.supports_load:
            return False
        loop = asyncio.get_running_loop()
        self._loading[session_id] = loop.time()
        try:
            await self._call(
                "session/load",
                self._connection().load_session(
                    cwd=self._cwd(cwd), session_id=session_id, mcp_servers=list(mcp_servers)
                ),
                SESSION_TIMEOUT,
            )
            deadline = loop.time() + REPLAY_MAX
            while (quiet := self._loading[session_id] + REPLAY_QUIET - loop.time()) > 0 and loop.time() < deadline:
                await self._wait_dead(quiet)
        finally:
            self._loading.pop(session_id, None)
        return True

    async def prompt(self, session_id: str, text: str) -> str:
        """Run one turn to its end; returns the ACP stop reason (e.g. "end_turn", "cancelled").

        The caller hears the end of the turn before any permission request the agent sent after
        its answer: whatever it does right after this returns happens first."""
        self._prompting.add(session_id)
        try:
            response = await self._call(
                "session/prompt",
                self._connection().prompt(session_id=session_id, prompt=[TextContentBlock(type="text", text=text)]),
                None,
            )
        finally:
            self._prompting.discard(session_id)
            closing = self._turn_closing.pop(session_id, None)
            if closing is not None:
                # Both run once the caller's step that follows this return is done.
                asyncio.get_running_loop().call_soon(self._release, session_id)
                closing.set()
        return response.stop_reason

    def _prompt_answered(self, session_id: str) -> None:
        if session_id in self._prompting:
            self._turn_closing.setdefault(session_id, asyncio.Event())

    def _release(self, session_id: str) -> None:
        for update in self._held.pop(session_id, []):
            self._deliver(session_id, update)

    async def cancel(self, session_id: str) -> None:
        """Ask the agent to stop the turn and answer its open permission requests "cancelled"."""
        if self.alive:
            with contextlib.suppress(ConnectionError, OSError):
                await self._connection().cancel(session_id=session_id)
        for task in self._permissions.pop(session_id, set()):
            task.cancel()

    async def set_config(self, session_id: str, config_id: str, value: str | bool) -> list[ConfigOption]:
        """Set one config option; returns the session's full option list as the agent reports it."""
        self._configuring.add(session_id)
        try:
            if config_id in self._legacy.get(session_id, ()):
                await self._set_legacy(session_id, config_id, value)
            else:
                response = await self._call(
                    "session/set_config_option",
                    self._connection().set_config_option(config_id=config_id, session_id=session_id, value=value),
                    CONFIG_TIMEOUT,
                )
                dumped = response.model_dump(mode="json", by_alias=True, exclude_none=True)
                self._config[session_id] = config_options(dumped.get("configOptions") or [])
        finally:
            self._configuring.discard(session_id)
        self._tell_options(session_id)
        return self.config_options(session_id)

    async def _set_legacy(self, session_id: str, config_id: str, value: str | bool) -> None:
        key = "modeId" if config_id == "mode" else "modelId"
        method = LEGACY_METHODS[config_id]
        request = self._connection()._conn.send_request(method, {"sessionId": session_id, key: value})
        await self._call(method, request, CONFIG_TIMEOUT)
        self._set_current(session_id, config_id, str(value))

    def _set_current(self, session_id: str, config_id: str, value: str) -> None:
        self._config[session_id] = [
            option.model_copy(update={"current_value": value}) if option.id == config_id else option
            for option in self._config.get(session_id, [])
        ]

    async def close(self, grace: float | None = None) -> None:
        """Stop the agent and everything it started (its process group), and wait for it; `grace`
        bounds each step (exiting on its own, then after SIGTERM, then after SIGKILL)."""
        if self._closed:
            return
        self._closed = True
        self._die("agent closed")
        if self._conn is not None:
            await self._conn.close()
        if self._proc is not None:
            await _stop_group(self._proc, self._exited, grace or EXIT_GRACE, grace or TERM_GRACE)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _connection(self) -> ClientSideConnection:
        if self._conn is None:
            raise AgentError("agent not started")
        return self._conn

    def _cwd(self, cwd: str | Path | None) -> str:
        return str(Path(cwd).resolve() if cwd is not None else self.root)

    def _session_result(self, method: str, params: JsonObject, result: JsonObject) -> None:
        """The raw answer to `session/new` or `session/load`: the SDK's models drop `models`."""
        session_id = result.get("sessionId") if method == "session/new" else params.get("sessionId")
        if not isinstance(session_id, str) or not isinstance(result, dict):
            return
        options = result.get("configOptions")
        if isinstance(options, list):
            self._config[session_id] = config_options(options)
            self._legacy.pop(session_id, None)
        else:
            self._config[session_id] = config_options(_legacy_options(result))
            self._legacy[session_id] = {option.id for option in self._config[session_id]}
        self._tell_options(session_id)

    def _tell_options(self, session_id: str) -> None:
        options = self._config.get(session_id, [])
        if self._on_options is None or session_id in self._configuring or self._told.get(session_id) == options:
            return
        self._told[session_id] = options
        try:
            self._on_options(session_id, options)
        except Exception:
            log.exception("on_options failed")

    def _deliver(self, session_id: str, update: JsonObject) -> None:
        kind, options = update.get("sessionUpdate"), update.get("configOptions")
        if kind == "config_option_update" and isinstance(options, list):
            self._config[session_id] = config_options(options)
            self._tell_options(session_id)
        elif kind == "current_mode_update" and "mode" in self._legacy.get(session_id, ()):
            self._set_current(session_id, "mode", str(update.get("currentModeId")))
            self._tell_options(session_id)
        if session_id in self._loading:
            self._loading[session_id] = asyncio.get_running_loop().time()
            return
        if session_id in self._turn_closing:
            self._held.setdefault(session_id, []).append(update)
            return
        try:
            self._on_update(session_id, update)
        except Exception:
            log.exception("on_update failed")

    def _die(self, reason: str) -> None:
        if self._death is None:
            self._death = reason
        self._dead.set()

    def _broken(self, reason: str) -> None:
        """The agent broke the protocol, so nothing more it says is usable: stop it soon, after
        giving it a moment to explain itself on stderr."""
        self._die(reason)
        asyncio.get_running_loop().call_later(EXIT_GRACE, self._kill)

    def _kill(self) -> None:
        if self._proc is not None and self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._proc.pid, signal.SIGKILL)

    async def _call(self, what: str, request: Coroutine[Any, Any, T], timeout: float | None) -> T:
        if self._dead.is_set():
            request.close()
            raise await self._failure(what)
        task = asyncio.ensure_future(request)
        dead = asyncio.ensure_future(self._dead.wait())
        try:
            done, _ = await asyncio.wait({task, dead}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            dead.cancel()
            if not task.done():
                task.cancel()
        if task in done:
            try:
                return task.result()
            except RequestError as exc:
                data = f" {json.dumps(exc.data, ensure_ascii=False)}" if exc.data is not None else ""
                words = f"The agent could not {doing(what)}: it answered with an error."
                raise AgentError(words, detail=plain_text(f"{exc}{data}")) from exc
            except ConnectionError:
                raise await self._failure(what) from None
            except ValidationError as exc:
                words = f"The agent could not {doing(what)}: its answer was not one canvas understands."
                raise AgentError(words, detail=plain_text(str(exc))) from exc
        if dead in done:
            raise await self._failure(what)
        raise AgentError(f"The agent did not {doing(what)} within {timeout:g} s.", self.stderr_tail)

    async def _failure(self, what: str) -> AgentError:
        if self._settling is None:
            self._settling = asyncio.ensure_future(self._settle())
        await asyncio.shield(self._settling)
        reason = self._death or "agent stopped"
        code = self._proc.returncode if self._proc is not None else None
        if code is not None and "exited" not in reason:
            reason += f" (exit code {code})"
        words = f"The agent stopped before it could {doing(what)}: {exit_words(code)}."
        if self._death == "agent closed":
            words = f"The agent was stopped before it could {doing(what)}."
        elif self._death and not self._death.startswith("agent exited"):
            words = f"The agent could not {doing(what)}: it broke off talking to canvas."
        sandbox = next((line for line in reversed(self._stderr) if line.startswith(SANDBOX_SAYS)), None)
        if sandbox is not None:
            # The sandbox's own words, not the agent's: they say why it never ran.
            words = f"The agent could not {doing(what)}: its sandbox could not run it ({sandbox[len(SANDBOX_SAYS) :]})."
        return AgentError(words, self.stderr_tail, detail=plain_text(f"{what}: {reason}"))

    async def _settle(self) -> None:
        """The exit code and the last stderr lines explain a death; give them a moment to land."""
        if self._stderr_task is None:
            return
        exited = asyncio.ensure_future(self._exited.wait())
        await asyncio.wait({exited, self._stderr_task}, timeout=EXIT_GRACE)
        exited.cancel()

    async def _wait_dead(self, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._dead.wait()), timeout)

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        while line := await stream.readline():
            text = plain_text(line.decode("utf-8", "replace").rstrip())
            self._stderr.append(text)
            log.debug("agent %s: %s", self.command, text)
            if self._on_stderr is not None:
                try:
                    self._on_stderr(text)
                except Exception:
                    log.exception("on_stderr failed")

    async def _watch_exit(self) -> None:
        await self._exited.wait()
        code = self._proc.returncode if self._proc is not None else None
        if self._death == STDOUT_CLOSED:
            # Closing stdout is how a dying agent looks first; its exit code says more.
            self._death = None
        self._die(f"agent exited with code {code}")

    async def _ask_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        request: PermissionAsk = {
            "sessionId": session_id,
            "toolCall": tool_call.model_dump(mode="json", by_alias=True, exclude_none=True),
            "options": [option.model_dump(mode="json", by_alias=True, exclude_none=True) for option in options],
        }
        closing = self._turn_closing.get(session_id)
        if closing is not None:
            await closing.wait()
        answer = asyncio.ensure_future(self._on_permission(request))
        pending = self._permissions.setdefault(session_id, set())
        pending.add(answer)
        try:
            # asyncio.wait, unlike await, leaves `answer` alone when this handler is cancelled
            # and lets cancel() cancel `answer` without cancelling this handler.
            await asyncio.wait({answer})
        finally:
            pending.discard(answer)
            answer.cancel()
        result = None if answer.cancelled() else answer.result()
        choice = Choice(result) if isinstance(result, str) else result
        if choice is None or choice.option_id not in {option.option_id for option in options}:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        meta = {"reason": choice.reason} if choice.reason else None
        kind = next((o.kind for o in options if o.option_id == choice.option_id), None)
        if choice.reason and self._refusal_as_error and kind in ("reject_once", "reject_always"):
            raise RequestError(-32000, f"Refused by the host's rules: {choice.reason}", {"reason": choice.reason})
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=choice.option_id, field_meta=meta)
        )


class _Client:
    """The ACP client methods the SDK routes the agent's requests to."""

    def __init__(self, owner: AgentProcess) -> None:
        self._owner = owner
        self._writes = 0

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        """Already delivered, in order, by ``_PipeTransport``."""

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        return await self._owner._ask_permission(session_id, tool_call, options)

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        try:
            text = await self._owner.files.read(session_id, path)
        except FileRefused as refused:
            raise _refusal("read", path, str(refused)) from None
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max((line or 1) - 1, 0)
            text = "".join(lines[start : start + limit if limit is not None else None])
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str, **kwargs: Any) -> WriteTextFileResponse:
        async def confirm(_why: str, replaced: str | None) -> bool:
            return await self._host_allows_write(session_id, path, content, replaced)

        try:
            await self._owner.files.write(session_id, path, content, confirm)
        except FileRefused as refused:
            raise _refusal("write", path, str(refused)) from None
        return WriteTextFileResponse()

    async def _host_allows_write(self, session_id: str, path: str, content: str, replaced: str | None) -> bool:
        """Ask the host, as a tool call of its own, before writing a file that runs code later."""
        self._writes += 1
        absolute = str(self._owner.root / path) if not os.path.isabs(path) else path
        diff = {"type": "diff", "path": absolute, "oldText": replaced}
        tool_call = ToolCallUpdate.model_validate(
            {
                "toolCallId": f"canvas-fs-write-{self._writes}",
                "title": f"Write {path}",
                "kind": "edit",
                "locations": [{"path": absolute}],
                "content": [{**diff, "newText": content}],
            }
        )
        options = [
            PermissionOption(option_id=ALLOW_WRITE, name="Allow this change", kind="allow_once"),
            PermissionOption(option_id=REFUSE_WRITE, name="Refuse", kind="reject_once"),
        ]
        try:
            answer = await self._owner._ask_permission(session_id, tool_call, options)
        except RequestError:
            return False
        return isinstance(answer.outcome, AllowedOutcome) and answer.outcome.option_id == ALLOW_WRITE


def _refusal(verb: str, path: str, reason: str) -> RequestError:
    return RequestError(-32602, f"canvas refused to {verb} {path}: {reason}", {"path": path, "reason": reason})


class _AgentProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Signals the agent's exit as it happens: ``Process.wait()`` also waits for its pipes to
    close, which never happens while a child of the agent still holds them."""

    def __init__(self, exited: asyncio.Event, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=STDOUT_LIMIT, loop=loop)
        self._exited = exited

    def process_exited(self) -> None:
        super().process_exited()
        self._exited.set()


class _PipeTransport:
    """ACP messages over the agent's stdin/stdout, one JSON object per line."""

    def __init__(
        self,
        stdin: asyncio.StreamWriter,
        stdout: asyncio.StreamReader,
        deliver: UpdateCallback,
        closed: Callable[[str], None],
        broken: Callable[[str], None],
        session_result: Callable[[str, JsonObject, JsonObject], None],
        prompt_answered: Callable[[str], None],
    ) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._deliver = deliver
        self._closed = closed
        self._broken = broken
        self._session_result = session_result
        self._prompt_answered = prompt_answered
        self._asked: dict[JsonValue, tuple[str, JsonObject]] = {}
        """Our `session/new`, `session/load` and `session/prompt` requests awaiting their answer, by id."""

    async def send(self, message: JsonObject) -> None:
        method, params = message.get("method"), message.get("params")
        if method in ("session/new", "session/load", "session/prompt") and "id" in message:
            self._asked[message["id"]] = (str(method), params if isinstance(params, dict) else {})
        try:
            self._stdin.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")
            await self._stdin.drain()
        except (OSError, RuntimeError) as exc:
            raise ConnectionError(f"agent stdin closed: {exc}") from exc

    async def receive(self) -> JsonObject | None:
        while True:
            try:
                line = await self._stdout.readline()
            except ValueError:
                self._broken(f"agent wrote a line over {STDOUT_LIMIT} bytes to stdout")
                return None
            if not line:
                self._closed(STDOUT_CLOSED)
                return None
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                message = None
            if not isinstance(message, dict):
                self._broken(f"agent wrote something other than ACP JSON to stdout: {line[:200]!r}")
                return None
            asked = self._asked.pop(message.get("id"), None) if "method" not in message else None
            if asked is not None and asked[0] == "session/prompt":
                self._prompt_answered(str(asked[1].get("sessionId")))
            elif asked is not None and isinstance(message.get("result"), dict):
                self._session_result(*asked, message["result"])
            params = message.get("params")
            if message.get("method") == "session/update" and isinstance(params, dict):
                update = params.get("update")
                if isinstance(update, dict) and isinstance(params.get("sessionId"), str):
                    self._deliver(params["sessionId"], update)
            return message

    async def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError):
            self._stdin.close()


def _legacy_options(result: JsonObject) -> list[JsonObject]:
    """ACP's older `modes` and `models` fields, shaped as select config options."""
    options = []
    modes, models = result.get("modes"), result.get("models")
    if isinstance(modes, dict) and (choices := _choices(modes.get("availableModes"), "id")):
        options.append(_select("mode", "Mode", "mode", modes.get("currentModeId"), choices))
    if isinstance(models, dict) and (choices := _choices(models.get("availableModels"), "modelId")):
        options.append(_select("model", "Model", "model", models.get("currentModelId"), choices))
    return options


def _choices(entries: JsonValue, key: str) -> list[JsonObject]:
    """An older mode or model list as a select option's choices (none when it is not a list)."""
    if not isinstance(entries, list):
        return []
    return [
        {"value": m.get(key), "name": m.get("name") or m.get(key), "description": m.get("description")}
        for m in entries
        if isinstance(m, dict)
    ]


def _select(option_id: str, name: str, category: str, current: JsonValue, choices: list[JsonObject]) -> JsonObject:
    return {
        "id": option_id,
        "name": name,
        "category": category,
        "type": "select",
        "currentValue": current,
        "options": [{k: v for k, v in choice.items() if v is not None} for choice in choices],
    }


def mcp_server(entry: Mapping[str, object]) -> McpServer:
    """An MCP server's ACP JSON entry (e.g. ``{"type": "http", ...}``) as its model."""
    models: dict[object, type[McpServer]] = {"http": HttpMcpServer, "sse": SseMcpServer, "acp": AcpMcpServer}
    return models.get(entry.get("type"), McpServerStdio).model_validate(entry)


async def _stop_group(
    proc: asyncio.subprocess.Process, exited: asyncio.Event, exit_grace: float, term_grace: float
) -> None:
    """Let the agent exit on stdin EOF, then SIGTERM, then SIGKILL its whole process group."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(exited.wait(), exit_grace)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _group_alive(proc.pid):
            break
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_group_gone(proc.pid), term_grace)
    # Only a process that left the group (setsid) can still hold the pipes open; don't wait on it.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), exit_grace)


async def _group_gone(pgid: int) -> None:
    # Processes of the group other than our child raise no event when they exit.
    while _group_alive(pgid):
        await asyncio.sleep(0.05)


def _group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs; zombies waiting for init to reap don't."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    proc_fs = Path("/proc")
    if not proc_fs.is_dir():
        return True
    for stat in proc_fs.glob("[0-9]*/stat"):
        try:
            # After the ")" that closes the command name: state, ppid, pgrp, ...
            state, _, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, IndexError, ValueError):
            continue
        if int(pgrp) == pgid and state != "Z":
            return True
    return False
