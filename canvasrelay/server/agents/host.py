"""Agent sessions, the I/O side: the agent processes, the store, the board tools.

Everything the core (`agent_sessions.Sessions`) answers goes through one ordered pump, whether
it came from a frame or from an agent: the events of a session are stored and sent in `seq`
order, and each is stored before it is sent. History pages are read by the store's reader thread
(`ReadHistory`), never on the loop, and fed back to the core in the order they were asked for.

Agent processes are bounded (`ProcessLimits`): at most `max_running` run at once, an agent
idle for `idle_seconds` is stopped, and the next prompt starts it again with `session/load`.
A session that needs an agent past the cap takes the place of the one idle longest, or, when
every agent is busy, its turn ends with an error saying so. An agent process lives until canvas
stops it or it exits: an error answer to a prompt ends that turn, not the agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from canvasrelay.core.agent_notices import control_notice
from canvasrelay.core.agent_sessions import (
    CancelTurn,
    CompactTurn,
    Ordered,
    ReadHistory,
    RecordAnswer,
    ResolvePermission,
    RewriteEvents,
    RunTurn,
    Sessions,
    SetConfig,
    StartSession,
    StopSession,
    StoreEvent,
    StoreSession,
)
from canvasrelay.core.agent_slots import AgentSlots, Full, GiveWay, Wait
from canvasrelay.core.effects import AnyEffect, Broadcast
from canvasrelay.core.permission_preview import unread_replacements, with_old_texts
from canvasrelay.core.permission_rules import Choice, PermissionAsk, ToolCallJson
from canvasrelay.core.project_paths import ProjectPaths
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.core import ErrorFrame
from canvasrelay.protocol.json_value import JsonObject
from canvasrelay.protocol.session_events import ConfigChoice, ConfigOption, session_update
from canvasrelay.server.agents import launch as agent_launch
from canvasrelay.server.agents import sandbox as agent_sandbox
from canvasrelay.server.agents.catalog import AgentSpec, ProcessLimits
from canvasrelay.server.agents.error import AgentError
from canvasrelay.server.agents.files import AgentFiles
from canvasrelay.server.agents.rule_book import RuleBook
from canvasrelay.server.board.mcp import BoardMcp
from canvasrelay.server.deferred_imports import DeferredImports
from canvasrelay.server.runtime import Adapter, Runtime
from canvasrelay.server.store import Store

if TYPE_CHECKING:
    from canvasrelay.server.agents.process import AgentProcess

log = logging.getLogger(__name__)

SHUTDOWN_GRACE = 0.5
"""When the server stops, how long an agent may take to exit on its own before it is stopped."""
CANCEL_GRACE = 15.0
"""How long an agent has to end a cancelled turn before canvas ends it without the agent."""
STDERR_LOG = "agent-stderr.log"
STDERR_LOG_MAX = 4 * 1024 * 1024
RELOAD_FAILED = "The agent could not reload this conversation; it starts afresh."


class AgentHost:
    """Carries out the agents core's effects; built by the composition root with what it uses."""

    def __init__(
        self,
        runtime: Runtime,
        store: Store,
        specs: Mapping[str, AgentSpec],
        rules: RuleBook,
        board: BoardMcp,
        root: Path,
        own_url: Callable[[], Awaitable[str]],
        deferred: DeferredImports,
        limits: ProcessLimits | None = None,
    ) -> None:
        self.runtime = runtime
        self.deferred = deferred
        self.store = store
        self.specs = specs
        self.rules = rules
        self.root = root
        self.own_url = own_url
        """This server's base URL once its port is bound: where agents reach the board tools."""
        self.limits = limits or ProcessLimits()
        self.core = Sessions({k: spec.info() for k, spec in specs.items()}, root=str(root))
        self.files = AgentFiles(root, rules, store.audit)
        self.stderr_log = StderrLog(root / ".canvas" / STDERR_LOG)
        self.paths = ProjectPaths(str(root), str(Path.home()))
        self.procs: dict[str, AgentProcess] = {}
        self.agent_ids: dict[str, str] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.turns: dict[str, asyncio.Task[None]] = {}
        self.waiting: dict[tuple[str, str], asyncio.Future[Choice | None]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.board = board
        self._slots = asyncio.Lock()
        """Held while a session takes a place among the running agents, so two never take the last."""
        self.slots = AgentSlots(self.limits.max_running, self.limits.idle_seconds)
        """Which agents run, give way and stop: decided there, carried out here."""
        self._idle_timers: dict[str, asyncio.TimerHandle] = {}
        self._starting: set[str] = set()
        self._start_ended = asyncio.Event()
        """Set (and replaced) each time an agent's start ends: a prompt waiting for a place asks again."""
        self._stopping: set[asyncio.Task[None]] = set()
        self._queue: asyncio.Queue[tuple[list[AnyEffect], asyncio.Future[None] | None]] = asyncio.Queue()
        self._pump_task: asyncio.Task[None] | None = None
        self.shutting_down = False
        """The server stops: the turns were ended as interrupted, so what the agents still say goes unheard."""

    def adapter(self) -> Adapter:
        return Adapter(
            "the agents",
            effects={
                Ordered: self._enqueue,
                StoreEvent: self._store_event,
                ReadHistory: self._read_history,
                CompactTurn: self._compact_turn,
                RewriteEvents: self._rewrite_events,
                StoreSession: self._store_session,
                StartSession: self._start_session,
                RunTurn: self._run_turn,
                CancelTurn: self._cancel_turn,
                SetConfig: self._set_config,
                ResolvePermission: self._resolve,
                RecordAnswer: self._record_answer,
                StopSession: self._stop_session,
            },
            quiet=self.quiet,
            stopping=self.interrupt,
            close=self.close,
        )

    async def _enqueue(self, effect: Ordered) -> None:
        self.pump(effect.effects)

    def pump(self, effects: list[AnyEffect]) -> None:
        if effects:
            self._queue.put_nowait((effects, None))

    async def run(self, effects: list[AnyEffect]) -> None:
        """Pump `effects` and wait until they are carried out (for the API)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait((effects, done))
        await done

    async def _pump(self) -> None:
        while True:
            effects, done = await self._queue.get()
            try:
                await self.runtime.run(effects)
            except Exception:
                log.exception("agent session effects failed")
            if done is not None and not done.done():
                done.set_result(None)

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # -- start and stop ----------------------------------------------------------------------

    async def start(self) -> None:
        """Restore every session from its stored head (no log is read), then run queued prompts."""
        self._pump_task = asyncio.create_task(self._pump())
        # This server holds the folder: whatever carries its mark was left by an earlier one.
        await asyncio.to_thread(agent_launch.end_leftovers, self.root)
        restored: list[AnyEffect] = []
        for row in self.store.sessions():
            if row.agent_session_id:
                self.agent_ids[row.id] = row.agent_session_id
            restored += self.core.restore(row)
        for session_id in list(self.core.sessions):
            restored += self.core.next_queued(session_id)
        await self.run(restored)

    async def quiet(self) -> None:
        """Hear the agents no more, and carry out what was heard from them already."""
        self.shutting_down = True
        await self.run([])

    async def interrupt(self) -> None:
        """End every running turn as interrupted while the peers are still there to see it (after
        `quiet`, so the agents are heard no more)."""
        await self.run(self.core.interrupt())

    async def close(self) -> None:
        """Stop every agent (stdin closed, then SIGTERM, then SIGKILL of its process group, each
        with a short grace), all at once, and wait until they are gone."""
        for timer in self._idle_timers.values():
            timer.cancel()
        for task in list(self.turns.values()):
            task.cancel()
        procs = list(self.procs.values())
        self.procs.clear()
        await asyncio.gather(*(p.close(grace=SHUTDOWN_GRACE) for p in procs), *self._stopping, return_exceptions=True)
        await asyncio.gather(*self.turns.values(), return_exceptions=True)
        # What left its agent's group (setsid) and so outlived it.
        agent_launch.end_leftovers(self.root)
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self._pump_task is not None:
            self._pump_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump_task
        await self.board.stop()
        await self.files.close()
        self.stderr_log.close()

    def running(self) -> list[str]:
        """Sessions whose agent process runs (or is starting)."""
        return [session_id for session_id, proc in self.procs.items() if proc.running]

    # -- effects -----------------------------------------------------------------------------

    async def _store_event(self, effect: StoreEvent) -> None:
        self.store.stage_event(effect.session_id, effect.event, effect.head)
        self.runtime.staged()

    async def _read_history(self, effect: ReadHistory) -> None:
        self._spawn(self._read_page(effect))

    async def _read_page(self, read: ReadHistory) -> None:
        if read.delay > 0:
            await asyncio.sleep(read.delay)
        page = await self.store.history.page(read.session_id, read.after, read.before, read.limit, read.max_chars)
        self.pump(self.core.history_read(read, page))

    async def _compact_turn(self, effect: CompactTurn) -> None:
        self._spawn(self._compact(effect))

    async def _compact(self, turn: CompactTurn) -> None:
        events = await self.store.history.compacted(turn.session_id, turn.after, turn.through)
        if events is not None:
            self.pump(self.core.compacted(turn.session_id, turn.after, turn.through, events))

    async def _rewrite_events(self, effect: RewriteEvents) -> None:
        self.store.rewrite_events(effect.session_id, effect.after, effect.through, effect.events)

    async def _store_session(self, effect: StoreSession) -> None:
        session = self.core.sessions.get(effect.session_id)
        if session is None:
            return
        if effect.created:
            self.store.create_session(session.id, session.agent, session.title, session.meta())
        else:
            self.store.update_session(session.id, title=session.title, meta=session.meta())

    async def _start_session(self, effect: StartSession) -> None:
        self._spawn(self._warm_up(effect.session_id))

    async def _warm_up(self, session_id: str) -> None:
        """Start the agent at once, so its config options show before the first prompt; past the
        cap the first prompt starts it instead."""
        try:
            await self._ensure(session_id, take_place=False)
        except NoPlace:
            return
        except AgentError as exc:
            self._report(session_id, exc)
            self.pump(self.core.failed(session_id, str(exc), exc.detail))
        else:
            self._idle_later(session_id)

    async def _ensure(self, session_id: str, take_place: bool = True) -> tuple[AgentProcess, str]:
        """The session's running agent and the agent's session id, starting it if need be.
        Without `take_place`, an agent past the cap is not started (`NoPlace`)."""
        self._touch(session_id)
        lock = self.locks.setdefault(session_id, asyncio.Lock())
        async with lock:
            proc = self.procs.get(session_id)
            if proc is not None and proc.alive and session_id in self.agent_ids:
                return proc, self.agent_ids[session_id]
            if proc is not None:
                self._drop(session_id)
            session = self.core.sessions.get(session_id)
            spec = self.specs.get(session.agent) if session else None
            if session is None or spec is None:
                raise AgentError(f"agent {session.agent if session else '?'} is no longer on offer")
            await self.deferred.ready()
            launch = await self._launch(spec)
            async with self._slots:
                await self._make_place(session_id, take_place)
                proc = self._new_process(session_id, spec, launch)
                self.procs[session_id] = proc
                self._starting.add(session_id)
            try:
                agent_id = await self._open(session_id, proc)
            finally:
                self._starting.discard(session_id)
                self._start_ended.set()
                self._start_ended = asyncio.Event()
            self.pump(self.core.options(session_id, proc.config_options(agent_id)))
            return proc, agent_id

    async def _launch(self, spec: AgentSpec) -> list[str]:
        """The command line that starts the agent: confined unless it opted out or cannot be
        (then the agents' list says so, and the log once per start)."""
        command = spec.resolve()
        if command is None:
            raise AgentError(f"{spec.label} is not installed: {spec.missing()}")
        confinement = agent_sandbox.confinement(spec.confine)
        if spec.confine and not confinement.confined:
            log.warning("%s runs %s", spec.label, confinement.words)
        env = {**os.environ, **spec.env}
        needs = spec.home_needs() if confinement.confined else None
        try:
            return await asyncio.to_thread(agent_launch.argv, command, list(spec.args), self.root, env, needs)
        except agent_sandbox.SandboxError as exc:
            raise AgentError(f"{spec.label} was not started: {exc}") from None

    def _new_process(self, session_id: str, spec: AgentSpec, launch: list[str]) -> AgentProcess:
        from canvasrelay.server.agents.process import AgentProcess

        return AgentProcess(
            launch[0],
            launch[1:],
            root=self.root,
            on_update=lambda _sid, update: self._on_update(session_id, update),
            on_permission=lambda request: self._on_permission(session_id, request),
            on_options=lambda _sid, options: self._on_options(session_id, options),
            on_stderr=lambda line: self.stderr_log.write(session_id, spec.id, line),
            env={**spec.env, **agent_launch.marked(self.root)},
            files=self.files,
            refusal_as_error=spec.refusal_as_error,
            offers_files=spec.offers_files,
            asking_mode=spec.asking_mode,
        )

    async def _open(self, session_id: str, proc: AgentProcess) -> str:
        """Start the agent, reload its session where it can (else open a new one and say so), and
        re-apply the options the session had."""
        wanted = {o.id: o.current_value for o in self.core.sessions[session_id].options}
        await proc.start()
        # A prompt queued before a restart runs at start, before the port (and so the
        # board tools' address) is known.
        from canvasrelay.server.agents.process import mcp_server

        mcp = [mcp_server(self.board.entry(await self.own_url(), session_id))]
        agent_id = self.agent_ids.get(session_id)
        loaded = False
        if agent_id is not None and proc.supports_load:
            try:
                loaded = await proc.load_session(agent_id, self.root, mcp)
            except AgentError as exc:
                log.warning("session %s: the agent could not reload its session %s: %s", session_id, agent_id, exc)
                self.pump(self.core.notice(session_id, RELOAD_FAILED))
        elif agent_id is not None:
            self.pump(self.core.notice(session_id, RELOAD_FAILED))
        if not loaded:
            agent_id = await proc.new_session(self.root, mcp)
            self.agent_ids[session_id] = agent_id
            self.store.update_session(session_id, agent_session_id=agent_id)
        assert agent_id is not None
        await self._reapply(proc, agent_id, wanted)
        return agent_id

    async def _reapply(self, proc: AgentProcess, agent_id: str, wanted: Mapping[str, str | bool | None]) -> None:
        for option in proc.config_options(agent_id):
            value = wanted.get(option.id)
            if value is None or value == option.current_value:
                continue
            choices = {c.value for c in option.options if isinstance(c, ConfigChoice)}
            if option.type == "select" and value not in choices:
                continue
            try:
                await proc.set_config(agent_id, option.id, value)
            except AgentError as exc:
                log.warning("could not re-apply %s=%r to the agent: %s", option.id, value, exc)

    async def _make_place(self, session_id: str, take_place: bool) -> None:
        place = self.slots.place(session_id, self.running(), self._idle, take_place, self._starting.__contains__)
        while isinstance(place, Wait):
            # Held under `_slots`: a start in progress never needs it, so it ends and frees a place.
            await self._start_ended.wait()
            place = self.slots.place(session_id, self.running(), self._idle, take_place, self._starting.__contains__)
        if isinstance(place, Full):
            raise NoPlace(place.reason)
        if isinstance(place, GiveWay):
            await self._stop_agent(place.session_id)

    def _idle(self, session_id: str) -> bool:
        lock = self.locks.get(session_id)
        return (
            session_id not in self.turns
            and session_id not in self._starting
            and not (lock is not None and lock.locked())
            and not any(sid == session_id for sid, _ in self.waiting)
        )

    def _touch(self, session_id: str) -> None:
        self.slots.in_use(session_id, time.monotonic())
        timer = self._idle_timers.pop(session_id, None)
        if timer is not None:
            timer.cancel()

    def _idle_later(self, session_id: str) -> None:
        if session_id not in self.procs:
            return
        timer = self._idle_timers.pop(session_id, None)
        if timer is not None:
            timer.cancel()
        due = self.slots.idle_from(session_id, time.monotonic())
        loop = asyncio.get_running_loop()
        self._idle_timers[session_id] = loop.call_later(self.limits.idle_seconds, self._idle_out, session_id, due)

    def _idle_out(self, session_id: str, due: float) -> None:
        """The timer set for `due`: the slots say whether the agent is still idle then."""
        self._idle_timers.pop(session_id, None)
        running = [session_id] if session_id in self.procs else []
        for idle in self.slots.due(due, running, self._idle):
            log.info("session %s: stopping its agent, idle for %g s", idle, self.limits.idle_seconds)
            self._spawn(self._stop_agent(idle))

    async def _stop_agent(self, session_id: str) -> None:
        """Stop the session's agent; its next prompt starts it again and reloads the session."""
        proc = self.procs.pop(session_id, None)
        self.rules.agent_forgot(session_id)
        if proc is not None:
            await proc.close()

    def _drop(self, session_id: str) -> None:
        """Forget a dead agent; closing it (to reap its process group) is awaited at shutdown."""
        proc = self.procs.pop(session_id, None)
        self.rules.agent_forgot(session_id)
        if proc is not None:
            task = asyncio.create_task(proc.close())
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)

    def _on_update(self, session_id: str, update: JsonObject) -> None:
        """An update as the agent sent it: where it becomes a typed one (one no model reads, without
        a `sessionUpdate`, is dropped)."""
        if self.shutting_down:
            return
        update = self.paths.value(update)
        self.rules.seen(session_id, update)
        try:
            typed = session_update(update)
        except ValidationError:
            log.warning("session %s: the agent sent an update without a kind; it was left out", session_id)
            return
        notice = control_notice(typed)
        self.pump(self.core.notice(session_id, notice) if notice else self.core.update(session_id, typed))

    def _on_options(self, session_id: str, options: list[ConfigOption]) -> None:
        # While the agent starts, its options are told once it is ready (after re-applying).
        if session_id not in self._starting:
            self.pump(self.core.options(session_id, options))

    async def _on_permission(self, session_id: str, request: PermissionAsk) -> Choice | None:
        if self.shutting_down:
            return None
        # Only the tool call: the options' ids go back to the agent as they came.
        request = {**request, "toolCall": self.paths.value(request["toolCall"])}
        decision, choice = self.rules.verdict(session_id, request)
        announced = self.rules.full_tool_call(session_id, request["toolCall"])
        found = await self._replaced_texts(session_id, announced)
        if found:
            announced = with_old_texts(announced, found)
            request = {**request, "toolCall": with_old_texts(request["toolCall"], found)}
        if decision.action != "ask":
            self.pump(self.core.decided(session_id, request, choice, announced))
            return choice
        request_id, effects = self.core.ask(session_id, request, announced)
        answer: asyncio.Future[Choice | None] = asyncio.get_running_loop().create_future()
        self.waiting[(session_id, request_id)] = answer
        self.pump(effects)
        try:
            return await answer
        finally:
            # Cancelled (turn over, agent gone) before anyone answered: the log says so.
            if self.waiting.pop((session_id, request_id), None) is not None:
                self.pump(self.core.abandon(session_id, request_id))

    async def _replaced_texts(self, session_id: str, tool_call: ToolCallJson) -> dict[str, str]:
        """The text on disk of each file the call replaces whole, by its path, told to the thread
        as the call's own update: the card and the thread show what is removed, not a new file."""
        unread = unread_replacements(tool_call)
        found = {path: text for path in unread if (text := await self.files.on_disk(path)) is not None}
        if found:
            content = with_old_texts(tool_call, found)["content"]
            update = {
                "sessionUpdate": "tool_call_update",
                "toolCallId": tool_call.get("toolCallId"),
                "content": content,
            }
            self.pump(self.core.update(session_id, session_update(update)))
        return found

    async def _resolve(self, effect: ResolvePermission) -> None:
        answer = self.waiting.pop((effect.session_id, effect.request_id), None)
        if answer is not None and not answer.done():
            answer.set_result(effect.choice)

    async def _record_answer(self, effect: RecordAnswer) -> None:
        self.rules.answered(
            effect.session_id, effect.tool_call, effect.answer, effect.option_id, effect.by, effect.option_kind
        )

    async def _run_turn(self, effect: RunTurn) -> None:
        self.turns[effect.session_id] = self._spawn(self._turn(effect.session_id, effect.text))

    async def _turn(self, session_id: str, text: str) -> None:
        me = asyncio.current_task()
        try:
            proc, agent_id = await self._ensure(session_id)
            reason = await proc.prompt(agent_id, text)
        except AgentError as exc:
            if self.turns.get(session_id) is me:
                dead = self.procs.get(session_id)
                if dead is not None and not dead.alive:
                    # The next prompt starts the agent again (and reloads its session).
                    self._drop(session_id)
                self._report(session_id, exc)
                self._end_turn(session_id, error_text=str(exc), error_detail=exc.detail)
            return
        except asyncio.CancelledError:
            if self.turns.get(session_id) is me:
                self.turns.pop(session_id, None)
            raise
        if self.turns.get(session_id) is me:
            self._end_turn(session_id, cancelled=reason == "cancelled")

    def _end_turn(
        self, session_id: str, error_text: str | None = None, cancelled: bool = False, error_detail: str | None = None
    ) -> None:
        self.turns.pop(session_id, None)
        self.pump(self.core.turn_ended(session_id, error_text, cancelled, error_detail))
        self._idle_later(session_id)

    async def _cancel_turn(self, effect: CancelTurn) -> None:
        session_id = effect.session_id
        turn = self.turns.get(session_id)
        proc, agent_id = self.procs.get(session_id), self.agent_ids.get(session_id)
        if turn is not None and proc is not None and proc.alive and agent_id is not None:
            self._spawn(proc.cancel(agent_id))
            self._spawn(self._end_if_ignored(session_id, turn))
            return
        if turn is not None:
            # Still starting the agent: nothing to tell it yet, so the turn just ends.
            turn.cancel()
        self._end_turn(session_id, cancelled=True)

    async def _end_if_ignored(self, session_id: str, turn: asyncio.Task[None]) -> None:
        """Cancel always brings the session back: an agent that does not end its turn within
        the grace has it ended for it (whatever it answers later is ignored)."""
        await asyncio.wait({turn}, timeout=CANCEL_GRACE)
        if not turn.done() and self.turns.get(session_id) is turn:
            log.warning("session %s: the agent ignored the cancel; ending the turn without it", session_id)
            self.turns.pop(session_id, None)
            turn.cancel()
            self._end_turn(session_id, cancelled=True)

    async def _set_config(self, effect: SetConfig) -> None:
        self._spawn(self._configure(effect))

    async def _configure(self, effect: SetConfig) -> None:
        try:
            await self.configure(effect.session_id, effect.config_id, effect.value)
        except AgentError as exc:
            self._report(effect.session_id, exc)
            self.pump(self.core.failed(effect.session_id, str(exc), exc.detail))

    async def configure(self, session_id: str, config_id: str, value: str | bool) -> list[ConfigOption]:
        """Set one option and tell everyone the agent's options; raises `AgentError`."""
        proc, agent_id = await self._ensure(session_id)
        try:
            options = await proc.set_config(agent_id, config_id, value)
        finally:
            if session_id not in self.turns:
                self._idle_later(session_id)
        await self.run(self.core.options(session_id, options))
        return options

    def _report(self, session_id: str, exc: AgentError) -> None:
        """The agent's last stderr lines go to the host alone (and to the log file)."""
        if not exc.stderr:
            return
        session = self.core.sessions.get(session_id)
        label = session.agent_label if session else "the agent"
        message = f"{label} ({session_id}): {exc}\nIts last output:\n" + "\n".join(exc.stderr)
        self.pump([Broadcast(ErrorFrame(message=message, ref="agent-stderr"), min_access=Access.HOST)])

    async def _stop_session(self, effect: StopSession) -> None:
        turn = self.turns.pop(effect.session_id, None)
        if turn is not None:
            turn.cancel()
        timer = self._idle_timers.pop(effect.session_id, None)
        if timer is not None:
            timer.cancel()
        proc = self.procs.pop(effect.session_id, None)
        if proc is not None:
            await proc.close()
        self.agent_ids.pop(effect.session_id, None)
        self.locks.pop(effect.session_id, None)
        self.slots.forget(effect.session_id)
        self.board.forget(effect.session_id)
        self.rules.forget(effect.session_id)
        self.store.delete_session(effect.session_id)


class NoPlace(AgentError):
    """Every place for a running agent is taken by a busy one."""


class StderrLog(RotatingFileHandler):
    """Every agent's stderr, in `.canvas/` (mode 0600): for the host, never for guests. Past
    `STDERR_LOG_MAX` it moves to `agent-stderr.log.1` and a new one starts."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, maxBytes=STDERR_LOG_MAX, backupCount=1, encoding="utf-8", delay=True)
        self.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%dT%H:%M:%S"))

    def write(self, session_id: str, agent: str, line: str) -> None:
        self.handle(logging.makeLogRecord({"msg": "%s %s: %s", "args": (session_id, agent, line)}))

    def _open(self) -> io.TextIOWrapper:
        path = Path(self.baseFilename)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        os.fchmod(fd, 0o600)
        return open(fd, "a", encoding=self.encoding)

    def handleError(self, record: logging.LogRecord) -> None:
        log.warning("could not write %s", self.baseFilename, exc_info=True)
