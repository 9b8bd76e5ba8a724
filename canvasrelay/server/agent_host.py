"""Agent sessions, the I/O side: one `AgentProcess` per session, the store, the board tools.

Everything the core (`agent_sessions.Sessions`) answers goes through one ordered pump, whether
it came from a frame or from an agent: the events of a session are stored and sent in `seq`
order, and each is stored before it is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from canvasrelay.core.agent_sessions import (
    CancelTurn,
    RecordAnswer,
    ResolvePermission,
    RunTurn,
    Sessions,
    SetConfig,
    StartSession,
    StopSession,
    StoreEvent,
    StoreSession,
)
from canvasrelay.core.effects import AnyEffect, Effect
from canvasrelay.core.permission_rules import Choice
from canvasrelay.core.room import Peer, Room
from canvasrelay.protocol import ClientFrame
from canvasrelay.protocol.agents import (
    AgentCancel,
    AgentConfig,
    AgentCreate,
    AgentHistoryRequest,
    AgentPermission,
    AgentPrompt,
    AgentRename,
)
from canvasrelay.server.agent_catalog import AgentSpec
from canvasrelay.server.agent_process import AgentError, AgentProcess
from canvasrelay.server.board_mcp import BoardMcp
from canvasrelay.server.rule_book import RuleBook
from canvasrelay.server.runtime import Runtime
from canvasrelay.server.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Ordered(Effect):
    """Effects to carry out in the pump's order, after everything the pump already holds."""

    effects: list[AnyEffect]


class AgentHost:
    """Carries out the agents core's effects; built by the composition root with what it uses."""

    def __init__(
        self,
        room: Room,
        runtime: Runtime,
        store: Store,
        specs: Mapping[str, AgentSpec],
        rules: RuleBook,
        board: BoardMcp,
        root: Path,
        own_url: Callable[[], Awaitable[str]],
    ) -> None:
        self.runtime = runtime
        self.store = store
        self.specs = specs
        self.rules = rules
        self.root = root
        self.own_url = own_url
        """This server's base URL once its port is bound: where agents reach the board tools."""
        self.core = Sessions({k: spec.info() for k, spec in specs.items()}, store.events, root=str(root))
        self.procs: dict[str, AgentProcess] = {}
        self.agent_ids: dict[str, str] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.turns: dict[str, asyncio.Task[None]] = {}
        self.waiting: dict[tuple[str, str], asyncio.Future[Choice | None]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.board = board
        self._queue: asyncio.Queue[tuple[list[AnyEffect], asyncio.Future[None] | None]] = asyncio.Queue()
        self._pump_task: asyncio.Task[None] | None = None
        self._route(room)

    # -- wiring ------------------------------------------------------------------------------

    def _route(self, room: Room) -> None:
        runtime = self.runtime
        room.route(AgentCreate, self._ordered(self.core.create))
        room.route(AgentPrompt, self._ordered(self.core.prompt))
        room.route(AgentCancel, self._ordered(self.core.cancel))
        room.route(AgentConfig, self._ordered(self.core.configure))
        room.route(AgentPermission, self._ordered(self.core.answer))
        room.route(AgentRename, self._ordered(self.core.rename_frame))
        room.route(AgentHistoryRequest, self._ordered(self.core.history))
        room.add_welcome_part(self.core.heads)
        room.add_live_check(lambda ref: ref in self.core.sessions)
        room.on_join(lambda peer: [Ordered(self.core.joined(peer))])
        runtime.handle(Ordered, self._enqueue)
        runtime.handle(StoreEvent, self._store_event)
        runtime.handle(StoreSession, self._store_session)
        runtime.handle(StartSession, self._start_session)
        runtime.handle(RunTurn, self._run_turn)
        runtime.handle(CancelTurn, self._cancel_turn)
        runtime.handle(SetConfig, self._set_config)
        runtime.handle(ResolvePermission, self._resolve)
        runtime.handle(RecordAnswer, self._record_answer)
        runtime.handle(StopSession, self._stop_session)
        runtime.on_close(self.close)

    def _ordered(self, handler: Any) -> Any:
        def run(peer: Peer, frame: ClientFrame) -> list[AnyEffect]:
            return [Ordered(handler(peer, frame))]

        return run

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
        await self.board.start()
        self._pump_task = asyncio.create_task(self._pump())
        restored: list[AnyEffect] = []
        for row in self.store.sessions():
            if row.get("agentSessionId"):
                self.agent_ids[row["id"]] = row["agentSessionId"]
            restored += self.core.restore(row, self.store.events(row["id"]))
        for session_id in list(self.core.sessions):
            restored += self.core.next_queued(session_id)
        await self.run(restored)

    async def close(self) -> None:
        for task in list(self.turns.values()):
            task.cancel()
        await asyncio.gather(*(p.close() for p in self.procs.values()), return_exceptions=True)
        await asyncio.gather(*self.turns.values(), return_exceptions=True)
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self._pump_task is not None:
            self._pump_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pump_task
        await self.board.stop()

    # -- effects -----------------------------------------------------------------------------

    async def _store_event(self, effect: StoreEvent) -> None:
        self.store.append_event(effect.session_id, effect.event["seq"], effect.event)

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
        """Start the agent at once, so its config options show before the first prompt."""
        try:
            await self._ensure(session_id)
        except AgentError as exc:
            self.pump(self.core.failed(session_id, str(exc)))

    async def _ensure(self, session_id: str) -> tuple[AgentProcess, str]:
        """The session's running agent and the agent's session id, starting it if need be."""
        lock = self.locks.setdefault(session_id, asyncio.Lock())
        async with lock:
            proc = self.procs.get(session_id)
            if proc is not None and proc.alive and session_id in self.agent_ids:
                return proc, self.agent_ids[session_id]
            if proc is not None:
                await proc.close()
            session = self.core.sessions.get(session_id)
            spec = self.specs.get(session.agent) if session else None
            if session is None or spec is None:
                raise AgentError(f"agent {session.agent if session else '?'} is no longer on offer")
            proc = AgentProcess(
                spec.command,
                spec.args,
                root=self.root,
                on_update=lambda _sid, update: self._on_update(session_id, update),
                on_permission=lambda request: self._on_permission(session_id, request),
                env=spec.env,
            )
            self.procs[session_id] = proc
            await proc.start()
            # A prompt queued before a restart runs at start, before the port (and so the
            # board tools' address) is known.
            mcp = [self.board.entry(await self.own_url(), session_id)]
            agent_id = self.agent_ids.get(session_id)
            loaded = False
            if agent_id is not None and proc.supports_load:
                try:
                    loaded = await proc.load_session(agent_id, self.root, mcp)
                except AgentError as exc:
                    log.info("session/load of %s failed, starting fresh: %s", agent_id, exc)
            if not loaded:
                agent_id = await proc.new_session(self.root, mcp)
                self.agent_ids[session_id] = agent_id
                self.store.update_session(session_id, agent_session_id=agent_id)
            assert agent_id is not None
            self.pump(self.core.options(session_id, proc.config_options(agent_id)))
            return proc, agent_id

    def _on_update(self, session_id: str, update: dict[str, Any]) -> None:
        self.rules.seen(session_id, update)
        self.pump(self.core.update(session_id, update))

    async def _on_permission(self, session_id: str, request: dict[str, Any]) -> Choice | None:
        decision, choice = self.rules.verdict(session_id, request)
        announced = self.rules.full_tool_call(session_id, request.get("toolCall") or {})
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

    async def _resolve(self, effect: ResolvePermission) -> None:
        answer = self.waiting.pop((effect.session_id, effect.request_id), None)
        if answer is not None and not answer.done():
            answer.set_result(effect.choice)

    async def _record_answer(self, effect: RecordAnswer) -> None:
        self.rules.answered(effect.session_id, effect.tool_call, effect.answer, effect.option_id, effect.by)

    async def _run_turn(self, effect: RunTurn) -> None:
        self.turns[effect.session_id] = self._spawn(self._turn(effect.session_id, effect.text))

    async def _turn(self, session_id: str, text: str) -> None:
        try:
            proc, agent_id = await self._ensure(session_id)
            reason = await proc.prompt(agent_id, text)
        except AgentError as exc:
            # A dead agent is restarted (and its session loaded) by the next prompt.
            broken = self.procs.pop(session_id, None)
            if broken is not None:
                self._spawn(broken.close())
            self.pump(self.core.turn_ended(session_id, error_text=str(exc)))
            return
        finally:
            self.turns.pop(session_id, None)
        self.pump(self.core.turn_ended(session_id, cancelled=reason == "cancelled"))

    async def _cancel_turn(self, effect: CancelTurn) -> None:
        proc, agent_id = self.procs.get(effect.session_id), self.agent_ids.get(effect.session_id)
        if proc is not None and agent_id is not None:
            self._spawn(proc.cancel(agent_id))
        elif (turn := self.turns.get(effect.session_id)) is not None:
            # Still starting the agent: nothing to tell it yet, so the turn just ends.
            turn.cancel()
            self.pump(self.core.turn_ended(effect.session_id, cancelled=True))

    async def _set_config(self, effect: SetConfig) -> None:
        self._spawn(self._configure(effect))

    async def _configure(self, effect: SetConfig) -> None:
        try:
            await self.configure(effect.session_id, effect.config_id, effect.value)
        except AgentError as exc:
            self.pump(self.core.failed(effect.session_id, f"The agent could not change that setting: {exc}"))

    async def configure(self, session_id: str, config_id: str, value: str | bool) -> list[dict[str, Any]]:
        """Set one option and tell everyone the agent's options; raises `AgentError`."""
        proc, agent_id = await self._ensure(session_id)
        options = await proc.set_config(agent_id, config_id, value)
        await self.run(self.core.options(session_id, options))
        return options

    async def _stop_session(self, effect: StopSession) -> None:
        turn = self.turns.pop(effect.session_id, None)
        if turn is not None:
            turn.cancel()
        proc = self.procs.pop(effect.session_id, None)
        if proc is not None:
            await proc.close()
        self.agent_ids.pop(effect.session_id, None)
        self.board.forget(effect.session_id)
        self.rules.forget(effect.session_id)
        self.store.delete_session(effect.session_id)
