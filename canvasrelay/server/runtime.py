"""Carries out the Room's effects: frames to transports, everything else to the adapters.

Transports register a sender per peer; adapters register a handler per effect type. The
runtime encodes a broadcast once and hands the same text to every transport.

Store writes commit in groups: an adapter that wrote a row without committing says `staged()`,
and from then on every frame waits until one commit, at the next turn of the event loop, has made
all rows staged meanwhile durable. So nothing is sent that a crash could lose, and a burst of
updates costs one commit instead of one each.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from canvasrelay.core.effects import AnyEffect, Broadcast, Close, Effect, Multicast, Send
from canvasrelay.core.peer import Peer
from canvasrelay.core.room import Room
from canvasrelay.protocol import ServerFrame, encode
from canvasrelay.protocol.base import frame_type
from canvasrelay.protocol.core import ErrorFrame, Restarting
from canvasrelay.server.occupancy import Occupancy, Periodic

log = logging.getLogger(__name__)

GOING_AWAY = 1001
CLOCK_S = 1.0
"""The room's clock ticks this often while someone is in the room, and not at all otherwise."""
Step = Callable[[], Awaitable[None]]
EffectHandler = Callable[[Any], Awaitable[None]]


@dataclass(frozen=True)
class Adapter:
    """What an adapter carries out for the room, declared in one value the composition root installs:
    its effects (each effect type by exactly one adapter) and its part in stopping."""

    name: str
    effects: Mapping[type[Effect], EffectHandler] = field(default_factory=dict)
    quiet: Step | None = None
    """Stop hearing what it runs and carry out what it heard, before the restart notice."""
    stopping: Step | None = None
    """Interrupt what runs (and say so) while every peer is still connected."""
    close: Step | None = None
    """End its processes: after every peer was told goodbye."""


class Transport(Protocol):
    """How the runtime reaches one peer. `send` only queues, so one slow peer never holds up the rest."""

    def send(self, text: str, at_once: bool = False) -> None:
        """Queue `text`; `at_once` when someone waits on it (a keystroke's echo): a transport that
        holds frames back to write them together writes this one, and those before it, now."""

    @property
    def backlog(self) -> int:
        """Characters queued and not yet written: how far this peer is behind."""
        ...

    async def flush(self) -> None:
        """Write what `send` queued, if this transport writes inline; called after each batch that
        leaves it a `backlog`."""

    async def below(self, chars: int) -> None:
        """Until at most `chars` characters are queued, woken as they are written (never polled)."""

    async def close(self, code: int, reason: str) -> None: ...


class Runtime:
    def __init__(self, room: Room, commit: Callable[[], None] | None = None, tick_every: float = CLOCK_S) -> None:
        self.room = room
        self.transports: dict[str, Transport] = {}
        self.occupancy = Occupancy()
        """Told when the first peer arrives and the last leaves: timers and watchers run only in between."""
        self.clock = Periodic("the room's clock", tick_every, self._tick).while_occupied(self.occupancy)
        """The one clock every feature's `tick` runs on (presence, approvals, an idle board's compaction)."""
        self._handlers: dict[type[Effect], EffectHandler] = {}
        self._handled_by: dict[type[Effect], str] = {}
        self._watchers: dict[type[Effect], list[Callable[[Any], None]]] = {}
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self._broadcast_listeners: list[Callable[[ServerFrame], None]] = []
        self._quieting_hooks: list[Callable[[], Awaitable[None]]] = []
        self._stopping_hooks: list[Callable[[], Awaitable[None]]] = []
        self.closing = False
        """Set once the server starts to stop: a peer connecting now is not let in."""
        self._commit = commit
        self._pending = False
        """Set while rows wait for their commit: what is sent meanwhile waits in `_held`."""
        self._held: list[tuple[Callable[[Any], None], Any]] = []
        self._waiters: list[asyncio.Future[None]] = []
        """One per batch waiting for the commit, so a cancelled batch cancels only its own."""

    def staged(self) -> None:
        """A row was written and not committed: hold every frame until the commit this schedules."""
        if not self._pending:
            self._pending = True
            asyncio.get_running_loop().call_soon(self._commit_staged)

    def _commit_staged(self) -> None:
        self._pending = False
        held, self._held = self._held, []
        waiters, self._waiters = self._waiters, []
        try:
            if self._commit is not None:
                self._commit()
        except Exception:
            # Not sent, then: a client must never hold what the store lost.
            log.exception("the store failed to commit; %d frames that followed its rows are dropped", len(held))
            held = []
        # The batches wake before the transports' own writers would (both are scheduled from
        # here, in this order), so they write what is queued below inline, without a task switch.
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        for send, what in held:
            send(what)

    def _out(self, send: Callable[[Any], None], what: Any) -> None:
        """`send(what)` now, or after the commit that rows staged before it wait for."""
        if self._pending:
            self._held.append((send, what))
        else:
            send(what)

    def install(self, adapter: Adapter) -> None:
        """Carry out `adapter`'s effects from now on. An effect type another adapter handles is
        refused, naming both, before anything of `adapter` is installed."""
        for effect_type in adapter.effects:
            if effect_type in self._handlers:
                owner = self._handled_by[effect_type]
                raise ValueError(f"{adapter.name} claims {effect_type.__name__}, which {owner} already carries out")
        for effect_type, handler in adapter.effects.items():
            self._handlers[effect_type] = handler
            self._handled_by[effect_type] = adapter.name
        if adapter.stopping is not None:
            self.on_stopping(adapter.stopping, adapter.quiet)
        if adapter.close is not None:
            self.on_close(adapter.close)

    def watch(self, effect_type: type[Effect], watcher: Callable[[Any], None]) -> None:
        """Call `watcher` with every effect of that type once its adapter carried it out (the room's
        recording keeps what was stored and shown); it must only queue."""
        self._watchers.setdefault(effect_type, []).append(watcher)

    def on_close(self, closer: Callable[[], Awaitable[None]]) -> None:
        self._closers.append(closer)

    def on_stopping(
        self, hook: Callable[[], Awaitable[None]], quiet: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        """Run `hook` when the server starts to stop, while every peer is still connected (to tell
        them what it interrupts). `quiet` runs before the restart notice: it stops hearing what the
        adapter runs and carries out what it already heard, so nothing of that follows the notice."""
        if quiet is not None:
            self._quieting_hooks.append(quiet)
        self._stopping_hooks.append(hook)

    def on_broadcast(self, listener: Callable[[ServerFrame], None]) -> Callable[[], None]:
        """Call `listener` with every broadcast frame as it goes to the peers (it must only queue);
        returns what stops it. What a broadcast follows (a stored event) is done by then."""
        self._broadcast_listeners.append(listener)
        return lambda: self._broadcast_listeners.remove(listener)

    async def connect(self, peer: Peer, transport: Transport) -> None:
        if self.closing:
            return
        self.transports[peer.id] = transport
        self.occupancy.changed(len(self.transports))
        await self.run(self.room.join(peer))

    async def disconnect(self, peer_id: str) -> None:
        if self.transports.pop(peer_id, None) is not None:
            await self.run(self.room.leave(peer_id))
            self.occupancy.changed(len(self.transports))

    async def receive(self, peer_id: str, raw: str | bytes) -> None:
        """One frame from a peer. A handler or adapter that fails is a bug on this side: it is logged
        with the frame's type and the peer is told, and the peer's next frames are handled as usual."""
        try:
            await self.run(self.room.receive(peer_id, raw))
        except Exception:
            kind = frame_type(raw)
            log.exception("handling a %s frame from %s failed", kind, peer_id)
            transport = self.transports.get(peer_id)
            if transport is not None:
                what = "frame" if kind == "frame" else f"{kind} frame"
                error = encode(ErrorFrame(message=f"the host failed to handle this {what}", ref=kind))
                self._out(transport.send, error)
                await self._flush()

    async def run(self, effects: list[AnyEffect]) -> None:
        for effect in effects:
            await self._carry_out(effect)
        await self._flush()

    async def _flush(self) -> None:
        if self._pending:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter
        for transport in list(self.transports.values()):
            if transport.backlog:
                await transport.flush()

    async def _carry_out(self, effect: AnyEffect) -> None:
        if isinstance(effect, Send):
            transport = self.transports.get(effect.to)
            if transport is not None:
                self._out(transport.send, encode(effect.frame))
        elif isinstance(effect, Broadcast):
            for listener in list(self._broadcast_listeners):
                self._out(listener, effect.frame)
            self.multicast(effect.frame, [peer_id for peer_id in list(self.transports) if self._hears(peer_id, effect)])
        elif isinstance(effect, Multicast):
            self.multicast(effect.frame, effect.to)
        elif isinstance(effect, Close):
            transport = self.transports.get(effect.peer)
            if transport is not None:
                await transport.close(effect.code, effect.reason)
        else:
            handler = self._handlers.get(type(effect))
            if handler is None:
                raise LookupError(f"no handler for {type(effect).__name__}")
            await handler(effect)
            for watcher in self._watchers.get(type(effect), ()):
                watcher(effect)

    def _hears(self, peer_id: str, broadcast: Broadcast) -> bool:
        peer = self.room.peers.get(peer_id)
        return peer_id != broadcast.exclude and peer is not None and peer.access.rank >= broadcast.min_access.rank

    def multicast(self, frame: ServerFrame, peers: Iterable[str], at_once: bool = False) -> None:
        """Queue one frame, encoded once, for each of `peers` that is connected (`at_once`: as
        `Transport.send`'s)."""
        text: str | None = None
        for peer_id in peers:
            transport = self.transports.get(peer_id)
            if transport is not None:
                text = text if text is not None else encode(frame)
                self._out(functools.partial(transport.send, at_once=True) if at_once else transport.send, text)

    async def _tick(self) -> None:
        await self.run(self.room.tick(time.monotonic()))

    async def stopping(self) -> None:
        """The server stops: the clock stops, the adapters fall quiet, every peer hears it, then what
        was running is interrupted (and said so) by the stopping hooks, all at once."""
        self.closing = True
        await self.clock.close()
        await _all(self._quieting_hooks)
        await self.run([Broadcast(Restarting())])
        await _all(self._stopping_hooks)

    async def close(self) -> None:
        """Say goodbye to every peer (1001, going away), then let every adapter stop its processes
        at once: each has a short grace of its own, so the slowest one bounds the wait. Frames held
        for a commit leave first."""
        await self._flush()
        await asyncio.gather(
            *(transport.close(GOING_AWAY, "The host closed the room.") for transport in list(self.transports.values())),
            return_exceptions=True,
        )
        await _all(self._closers)


async def _all(steps: list[Callable[[], Awaitable[None]]]) -> None:
    for result in await asyncio.gather(*(step() for step in steps), return_exceptions=True):
        if isinstance(result, BaseException):
            log.error("error while shutting down", exc_info=result)
