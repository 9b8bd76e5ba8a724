"""Terminals, the Room's side: which terminals exist, who watches which, who may type.

Sans-I/O: handlers return effects; `canvasrelay.terminal_host` runs the shells and carries
the output to each watcher. Opening a new terminal starts a shell on the host's machine
(RUN_ON_HOST); watching one that exists is only seeing it (READ); typing, resizing and
ending one need TYPE_TERMINAL, which an edit guest has only for terminals the host granted.
A grant belongs to one shell: it ends when that shell ends, and a new shell opened under the
same id starts with no grants.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from canvasrelay.core.effects import AnyEffect, Broadcast, Effect, Send
from canvasrelay.core.policy import Request
from canvasrelay.core.room import Peer, Room, error
from canvasrelay.protocol.access import Action
from canvasrelay.protocol.terminals import (
    TermClose,
    TermDetach,
    TerminalInfo,
    Terminals,
    TermInput,
    TermList,
    TermOpen,
    TermResize,
)

MAX_RUNNING = 32
"""Shells one room may run at once: each is a process tree on the host's machine."""
MAX_KEPT = 64
"""Terminals (running or ended) kept with their scrollback, so ended ones cannot pile up."""


@dataclass(frozen=True)
class StartTerminal(Effect):
    id: str
    cols: int
    rows: int
    peer: str
    """Who opened it: the first watcher."""


@dataclass(frozen=True)
class AttachTerminal(Effect):
    """Send `peer` a replay of the terminal's ring, then its live output (and its exit)."""

    id: str
    peer: str


@dataclass(frozen=True)
class DetachTerminal(Effect):
    id: str
    peer: str


@dataclass(frozen=True)
class DetachPeer(Effect):
    """The peer left: drop its output queues."""

    peer: str


@dataclass(frozen=True)
class WriteTerminal(Effect):
    id: str
    data: str
    peer: str


@dataclass(frozen=True)
class ResizeTerminal(Effect):
    id: str
    cols: int
    rows: int


@dataclass(frozen=True)
class EndTerminal(Effect):
    """Hang up the shell; its exit comes back through `TerminalRoom.exited`."""

    id: str


@dataclass(frozen=True)
class ForgetTerminal(Effect):
    """Drop an ended terminal and its scrollback."""

    id: str


@dataclass(frozen=True)
class DeliverExit(Effect):
    """Tell each watcher the shell's exit code, after the output it has not been sent yet."""

    id: str
    code: int
    peers: tuple[str, ...]


@dataclass
class _Terminal:
    running: bool = True
    exit_code: int | None = None
    closing: bool = False


GrantsEnd = Callable[[str], list[AnyEffect]]
"""Revoke every guest's control of a terminal id: its shell ended, or a new one starts under it."""


class TerminalRoom:
    def __init__(self, room: Room, grants_end: GrantsEnd) -> None:
        self.room = room
        self.grants_end = grants_end
        self.terminals: dict[str, _Terminal] = {}
        self.watchers: dict[str, set[str]] = {}
        room.route(TermOpen, self._open, request=self._open_request)
        room.route(TermInput, self._input, request=self._typing)
        room.route(TermResize, self._resize, request=self._typing)
        room.route(TermClose, self._close, request=self._typing)
        room.route(TermDetach, self._detach)
        room.route(TermList, lambda peer, _frame: self._joined(peer))
        room.on_join(self._joined)
        room.on_leave(self._left)

    def _open_request(self, _peer: Peer, frame: TermOpen) -> Request:
        return Request(Action.READ if frame.id in self.terminals else Action.RUN_ON_HOST)

    def _typing(self, peer: Peer, frame: TermInput | TermResize | TermClose) -> Request:
        return Request(Action.TYPE_TERMINAL, terminal_granted=frame.id in peer.granted_terminals)

    def _open(self, peer: Peer, frame: TermOpen) -> list[AnyEffect]:
        if frame.id in self.terminals:
            self.watchers[frame.id].add(peer.id)
            return [AttachTerminal(frame.id, peer.id)]
        if sum(t.running for t in self.terminals.values()) >= MAX_RUNNING:
            return [error(peer.id, f"too many terminals: at most {MAX_RUNNING} run at once", frame.t)]
        effects: list[AnyEffect] = []
        if len(self.terminals) >= MAX_KEPT:
            oldest = next((tid for tid, t in self.terminals.items() if not t.running), None)
            if oldest is None:
                return [error(peer.id, f"too many terminals: at most {MAX_KEPT}", frame.t)]
            effects.append(self._forget(oldest))
        self.terminals[frame.id] = _Terminal()
        self.watchers[frame.id] = {peer.id}
        # A grant was for the shell the host saw; one given for this id before is not for this shell.
        effects += self.grants_end(frame.id)
        return [*effects, StartTerminal(frame.id, frame.cols, frame.rows, peer.id), self.listing()]

    def _running(self, peer: Peer, tid: str, ref: str) -> AnyEffect | None:
        """An error for `peer` when `tid` is not a running terminal."""
        terminal = self.terminals.get(tid)
        if terminal is None:
            return error(peer.id, f"no terminal {tid}", ref)
        if not terminal.running:
            return error(peer.id, f"terminal {tid} has ended", ref)
        return None

    def _input(self, peer: Peer, frame: TermInput) -> list[AnyEffect]:
        refusal = self._running(peer, frame.id, frame.t)
        return [refusal] if refusal else [WriteTerminal(frame.id, frame.data, peer.id)]

    def _resize(self, peer: Peer, frame: TermResize) -> list[AnyEffect]:
        refusal = self._running(peer, frame.id, frame.t)
        return [refusal] if refusal else [ResizeTerminal(frame.id, frame.cols, frame.rows)]

    def _close(self, peer: Peer, frame: TermClose) -> list[AnyEffect]:
        terminal = self.terminals.get(frame.id)
        if terminal is None:
            return [error(peer.id, f"no terminal {frame.id}", frame.t)]
        if not terminal.running:
            return [self._forget(frame.id), self.listing()]
        terminal.closing = True
        return [EndTerminal(frame.id)]

    def _detach(self, peer: Peer, frame: TermDetach) -> list[AnyEffect]:
        watching = self.watchers.get(frame.id)
        if watching is None or peer.id not in watching:
            return []
        watching.discard(peer.id)
        return [DetachTerminal(frame.id, peer.id)]

    def exited(self, tid: str, code: int) -> list[AnyEffect]:
        """The adapter reports that a shell ended (after its last output)."""
        terminal = self.terminals.get(tid)
        if terminal is None:
            return []
        terminal.running = False
        terminal.exit_code = code
        effects: list[AnyEffect] = [DeliverExit(tid, code, tuple(sorted(self.watchers.get(tid, ()))))]
        if terminal.closing:
            effects.append(self._forget(tid))
        return [*effects, *self.grants_end(tid), self.listing()]

    def _forget(self, tid: str) -> ForgetTerminal:
        self.terminals.pop(tid, None)
        self.watchers.pop(tid, None)
        return ForgetTerminal(tid)

    def listing(self) -> Broadcast:
        return Broadcast(self._listing_frame())

    def _listing_frame(self) -> Terminals:
        return Terminals(
            terminals=[
                TerminalInfo(id=tid, running=t.running, exit_code=t.exit_code) for tid, t in self.terminals.items()
            ]
        )

    def _joined(self, peer: Peer) -> list[AnyEffect]:
        return [Send(peer.id, self._listing_frame())]

    def _left(self, peer: Peer) -> list[AnyEffect]:
        for watching in self.watchers.values():
            watching.discard(peer.id)
        return [DetachPeer(peer.id)]
