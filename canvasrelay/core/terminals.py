"""Terminals, the Room's side: which terminals exist, who watches which, who may type.

Sans-I/O: handlers return effects; `canvasrelay.terminal_host` runs the shells and carries
the output to each watcher. Opening a new terminal starts a shell on the host's machine
(RUN_ON_HOST); watching one that exists is only seeing it (READ); typing, resizing and
ending one need TYPE_TERMINAL, which an edit guest has only for terminals the host granted.
A grant belongs to one shell: it ends when that shell ends, and a new shell opened under the
same id starts with no grants; it is kept with the guest's identity, so it outlives a restart
as long as the shell does.

One shell has one size for everyone: the widest of the views that may type in it (each says what
it could show with `term-resize`), unless the host pinned one. A narrower view draws that size
smaller or scrolled; it never shrinks the shell under the others.

Where tmux keeps the shells, they outlive the server: the adapter records the terminals
(`RecordTerminals`) and, on the next start, gives them back (`restore`) as they are now,
running, ended before, or ended while canvas was stopped.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from canvasrelay.core.effects import AnyEffect, Broadcast, Effect, Multicast, Send
from canvasrelay.core.errors import Refused
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.guests import Guests
from canvasrelay.core.peer import Peer
from canvasrelay.core.policy import Request, decide
from canvasrelay.core.room import Room
from canvasrelay.protocol.access import Action, Decision
from canvasrelay.protocol.terminals import (
    TermClose,
    TermControl,
    TermDetach,
    TerminalInfo,
    Terminals,
    TermInput,
    TermList,
    TermOpen,
    TermPin,
    TermRename,
    TermResize,
    TermTypist,
)

MAX_RUNNING = 32
"""Shells one room may run at once: each is a process tree on the host's machine."""
MAX_KEPT = 64
"""Terminals (running or ended) kept with their scrollback, so ended ones cannot pile up."""
TYPIST_REPEAT_S = 1.0
"""The same person typing on is named again after this long, so a view that missed it learns it."""


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


@dataclass(frozen=True)
class KeptTerminal:
    """A terminal as the adapter records it, to give it back after a restart."""

    id: str
    name: str
    running: bool
    exit_code: int | None = None
    ended_while_stopped: bool = False
    cols: int | None = None
    rows: int | None = None
    pinned: bool = False


@dataclass(frozen=True)
class RecordTerminals(Effect):
    """The terminals changed (one started, ended, was renamed or forgotten): record them."""

    terminals: tuple[KeptTerminal, ...]


@dataclass
class _Terminal:
    name: str
    running: bool = True
    exit_code: int | None = None
    closing: bool = False
    ended_while_stopped: bool = False
    size: tuple[int, int] | None = None
    """(cols, rows) the shell has now, as the room set it."""
    pinned: bool = False
    views: dict[str, tuple[int, int]] = field(default_factory=dict)
    """What each watching view could show, by peer id: the widest of those that may type sets the size."""


GONE = "That terminal is gone: it ended, or the server restarted since."


class TerminalRoom:
    def __init__(self, room: Room, guests: Guests) -> None:
        self.room = room
        self.guests = guests
        self.terminals: dict[str, _Terminal] = {}
        self.watchers: dict[str, set[str]] = {}
        self.outlive_restart = True
        """The adapter's shells outlive the server (tmux keeps them); the listing says so."""
        self._typists: dict[str, tuple[str, float]] = {}
        guests.grant_listeners.append(lambda: [self.listing()])

    def feature(self) -> Feature:
        return Feature(
            "the terminals",
            routes={
                TermOpen: Route(self._open, request=self._open_request),
                TermInput: Route(self._input, request=self._typing),
                TermResize: Route(self._resize, request=self._typing),
                TermClose: Route(self._close, request=self._typing),
                TermDetach: Route(self._detach),
                TermControl: Route(self._take_control),
                TermRename: Route(self._rename),
                TermPin: Route(self._pin),
                TermList: Route(self._list),
            },
            live=lambda ref: ref in self.terminals and self.terminals[ref].running,
            joined=self._joined,
            left=self._left,
        )

    def _list(self, peer: Peer, _frame: TermList) -> list[AnyEffect]:
        return self._joined(peer)

    def _open_request(self, _peer: Peer, frame: TermOpen) -> Request:
        return Request(Action.READ if frame.id in self.terminals else Action.RUN_ON_HOST)

    def _typing(self, peer: Peer, frame: TermInput | TermResize | TermClose) -> Request:
        return Request(Action.TYPE_TERMINAL, terminal_granted=frame.id in peer.granted_terminals)

    def _open(self, peer: Peer, frame: TermOpen) -> list[AnyEffect]:
        if frame.id in self.terminals:
            self.watchers[frame.id].add(peer.id)
            return [AttachTerminal(frame.id, peer.id), *self._viewed(peer, frame.id, (frame.cols, frame.rows))]
        if sum(t.running for t in self.terminals.values()) >= MAX_RUNNING:
            raise Refused("conflict", f"{MAX_RUNNING} terminals run already: end one first.")
        effects: list[AnyEffect] = []
        if len(self.terminals) >= MAX_KEPT:
            oldest = next((tid for tid, t in self.terminals.items() if not t.running), None)
            if oldest is None:
                raise Refused("conflict", f"The room keeps at most {MAX_KEPT} terminals: end one first.")
            effects.append(self._forget(oldest))
        size = (frame.cols, frame.rows)
        self.terminals[frame.id] = _Terminal(self._numbered(), size=size, views={peer.id: size})
        self.watchers[frame.id] = {peer.id}
        # A grant was for the shell the host saw; one given for this id before is not for this shell.
        effects += self.guests.end_grants(frame.id, "a new shell started in its place")
        effects += [StartTerminal(frame.id, frame.cols, frame.rows, peer.id)]
        guest_id = self.guests.guest_id_of(peer)
        if guest_id is not None:
            # A guest's new terminal (the host approved it, or the guest is trusted) is the guest's to type in.
            effects += self.guests.grant(guest_id, frame.id, True)
        return [*effects, *self._changed()]

    def restore(self, kept: list[KeptTerminal]) -> None:
        """The terminals the adapter found at start-up, before anyone joined. A hand-over lasts as
        long as its shell: those of shells that did not outlive the stop end, and are recorded so."""
        for record in kept:
            self.terminals[record.id] = _Terminal(
                record.name or self._numbered(),
                record.running,
                record.exit_code,
                ended_while_stopped=record.ended_while_stopped,
                size=(record.cols, record.rows) if record.cols and record.rows else None,
                pinned=record.pinned,
            )
            self.watchers[record.id] = set()
        why = (
            "its shell ended while canvas was stopped"
            if self.outlive_restart
            else "canvas stopped, and its shell with it (tmux is not installed)"
        )
        self.guests.keep_grants({record.id for record in kept if record.running}, why)

    def _numbered(self) -> str:
        taken = {t.name for t in self.terminals.values()}
        return next(f"Terminal {n}" for n in itertools.count(1) if f"Terminal {n}" not in taken)

    def _take_control(self, peer: Peer, frame: TermControl) -> list[AnyEffect]:
        """A guest asked for control and the host approved (or the guest is trusted): hand it over."""
        self._require_running(frame.id)
        guest_id = self.guests.guest_id_of(peer)
        return self.guests.grant(guest_id, frame.id, True) if guest_id is not None else []

    def _rename(self, peer: Peer, frame: TermRename) -> list[AnyEffect]:
        terminal = self.terminals.get(frame.id)
        if terminal is None:
            raise Refused("not-found", GONE)
        terminal.name = frame.name.strip() or frame.name
        return self._changed()

    def _require_running(self, tid: str) -> None:
        """Refuses what needs `tid` to be a running terminal when it is not."""
        terminal = self.terminals.get(tid)
        if terminal is None:
            raise Refused("not-found", GONE)
        if not terminal.running:
            raise Refused("invalid", f"{terminal.name} has ended.")

    def _input(self, peer: Peer, frame: TermInput) -> list[AnyEffect]:
        self._require_running(frame.id)
        return [WriteTerminal(frame.id, frame.data, peer.id), *self._typist(peer, frame.id)]

    def _typist(self, peer: Peer, tid: str) -> list[AnyEffect]:
        """Name who typed to everyone watching, when the typist changed or typed again after a pause."""
        now = self.guests.clock()
        last = self._typists.get(tid)
        if last is not None and last[0] == peer.id and now - last[1] < TYPIST_REPEAT_S:
            return []
        self._typists[tid] = (peer.id, now)
        watching = tuple(sorted(self.watchers.get(tid, ())))
        frame = TermTypist(id=tid, name=self.guests.name_of(peer), color=self.guests.color_of(peer))
        return [Multicast(watching, frame)] if watching else []

    def _resize(self, peer: Peer, frame: TermResize) -> list[AnyEffect]:
        self._require_running(frame.id)
        return self._viewed(peer, frame.id, (frame.cols, frame.rows))

    def _pin(self, _host: Peer, frame: TermPin) -> list[AnyEffect]:
        self._require_running(frame.id)
        terminal = self.terminals[frame.id]
        if (frame.cols is None) != (frame.rows is None):
            raise Refused("invalid", "Pin a terminal to both a number of columns and of rows, or to neither.")
        terminal.pinned = frame.cols is not None and frame.rows is not None
        if frame.cols is not None and frame.rows is not None:
            return self._sized(frame.id, (frame.cols, frame.rows), told=True)
        return self._sized(frame.id, self._widest(frame.id), told=True)

    def _viewed(self, peer: Peer, tid: str, size: tuple[int, int]) -> list[AnyEffect]:
        """`peer`'s view of `tid` could show `size`: the shell follows the widest view that may type."""
        terminal = self.terminals[tid]
        if not terminal.running:
            return []
        terminal.views[peer.id] = size
        return [] if terminal.pinned else self._sized(tid, self._widest(tid))

    def _widest(self, tid: str) -> tuple[int, int] | None:
        """The size of the widest view of `tid` whose peer may type in it now (the tallest among equals)."""
        terminal = self.terminals[tid]
        sizes = [
            size
            for peer_id, size in terminal.views.items()
            if (peer := self.room.peers.get(peer_id)) is not None and self._may_type(peer, tid)
        ]
        return max(sizes) if sizes else None

    @staticmethod
    def _may_type(peer: Peer, tid: str) -> bool:
        request = Request(Action.TYPE_TERMINAL, terminal_granted=tid in peer.granted_terminals)
        return decide(peer.access, request) is Decision.ALLOW

    def _sized(self, tid: str, size: tuple[int, int] | None, told: bool = False) -> list[AnyEffect]:
        """The shell takes `size` (None: it keeps the one it has); every page hears of a change."""
        terminal = self.terminals[tid]
        if size is None or size == terminal.size:
            return self._changed() if told else []
        terminal.size = size
        return [ResizeTerminal(tid, *size), *self._changed()]

    def _unviewed(self, peer_id: str, tid: str) -> list[AnyEffect]:
        terminal = self.terminals.get(tid)
        if terminal is None or terminal.views.pop(peer_id, None) is None or terminal.pinned or not terminal.running:
            return []
        return self._sized(tid, self._widest(tid))

    def _close(self, peer: Peer, frame: TermClose) -> list[AnyEffect]:
        terminal = self.terminals.get(frame.id)
        if terminal is None:
            raise Refused("not-found", GONE)
        if not terminal.running:
            return [self._forget(frame.id), *self._changed()]
        terminal.closing = True
        return [EndTerminal(frame.id)]

    def _detach(self, peer: Peer, frame: TermDetach) -> list[AnyEffect]:
        watching = self.watchers.get(frame.id)
        if watching is None or peer.id not in watching:
            return []
        watching.discard(peer.id)
        return [DetachTerminal(frame.id, peer.id), *self._unviewed(peer.id, frame.id)]

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
        return [*effects, *self.guests.end_grants(tid, "its shell ended"), *self._changed()]

    def _forget(self, tid: str) -> ForgetTerminal:
        self.terminals.pop(tid, None)
        self.watchers.pop(tid, None)
        self._typists.pop(tid, None)
        return ForgetTerminal(tid)

    def _changed(self) -> list[AnyEffect]:
        return [RecordTerminals(self.kept()), self.listing()]

    def kept(self) -> tuple[KeptTerminal, ...]:
        return tuple(
            KeptTerminal(
                tid,
                t.name,
                t.running,
                t.exit_code,
                t.ended_while_stopped,
                cols=t.size[0] if t.size else None,
                rows=t.size[1] if t.size else None,
                pinned=t.pinned,
            )
            for tid, t in self.terminals.items()
        )

    def listing(self) -> Broadcast:
        return Broadcast(self._listing_frame())

    def _listing_frame(self) -> Terminals:
        return Terminals(
            terminals=[
                TerminalInfo(
                    id=tid,
                    name=t.name,
                    running=t.running,
                    exit_code=t.exit_code,
                    ended_while_stopped=t.ended_while_stopped,
                    controllers=self.guests.controllers(tid),
                    cols=t.size[0] if t.size else None,
                    rows=t.size[1] if t.size else None,
                    pinned=t.pinned,
                )
                for tid, t in self.terminals.items()
            ],
            outlive_restart=self.outlive_restart,
        )

    def _joined(self, peer: Peer) -> list[AnyEffect]:
        return [Send(peer.id, self._listing_frame())]

    def _left(self, peer: Peer) -> list[AnyEffect]:
        effects: list[AnyEffect] = [DetachPeer(peer.id)]
        for tid, watching in self.watchers.items():
            watching.discard(peer.id)
            effects += self._unviewed(peer.id, tid)
        return effects
