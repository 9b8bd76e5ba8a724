"""The room's record, sans-I/O: who did what, attributed, append-only, bounded by age and size.

The Room tells the record every frame a person performs or asks the host for, and every join and
leave; this module turns each into a line a person reads ("Ada sent a prompt", "the host
approved Ada's prompt"). Typing and board edits are counted per person and minute, never kept:
the record says who typed how many bytes into which terminal, not what they typed. The store
adapter appends what `take_new` returns to a file in `.canvas/` and reads it back at start.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from canvasrelay.core.peer import Peer
from canvasrelay.protocol import ClientFrame
from canvasrelay.protocol.agents import AgentCreate, AgentPermission, AgentPrompt
from canvasrelay.protocol.board import BoardUpdate
from canvasrelay.protocol.encoding import text_sha256
from canvasrelay.protocol.files import FileOpen
from canvasrelay.protocol.guests import (
    ApprovalAnswer,
    GuestKick,
    GuestSetAccess,
    GuestUnblock,
    RoomSetAccess,
    TerminalGrant,
)
from canvasrelay.protocol.people import AccessAsk, AuditEntry, OpenLinkSet
from canvasrelay.protocol.terminals import TermControl, TermInput, TermOpen
from canvasrelay.protocol.words import request_asks, request_noun

MAX_ENTRIES = 20_000
MAX_AGE_S = 30 * 24 * 3600.0
HOST_ID = "host"
API_ID = "api"
AGENT_PREFIX = "agent:"
"""Begins the id an agent session's own entries are by (its board edits)."""
CANVAS_ID = "canvas"
"""Who canvas's own entries are by: its stops and starts, and what they ended."""
DIGEST_CHARS = 12
DETAIL_MAX = 200


@dataclass
class _Tally:
    minute: int
    count: int = 0


@dataclass
class Audit:
    clock: Callable[[], float]
    """Wall time: entries outlive the process."""
    names: Callable[[str], str] = lambda who: who
    """A guest's name by its id (for "the host made Ada an edit guest")."""
    approvals: Callable[[str], tuple[str, ClientFrame] | None] = lambda _id: None
    """Who asked a waiting request and what it asks to run, by its id, while it still waits."""
    things: Callable[[str], str] = lambda _ref: ""
    """A terminal's or a session's name on the board, by its id: what a person reads, never the id."""
    agents: Callable[[str], str] = lambda _id: ""
    """An agent's own name by its id ("Demo agent" for "demo")."""
    permissions: Callable[[str, str], str] = lambda _session, _request: ""
    """What an agent's waiting permission asks to run, by session and request id ("execute in Demo
    agent: the command make test")."""
    entries: deque[AuditEntry] = field(default_factory=deque)
    _new: list[AuditEntry] = field(default_factory=list)
    _tallies: dict[tuple[str, str, str], _Tally] = field(default_factory=dict)
    """(who, what, where) → this minute's count: board edits, bytes typed into one terminal."""
    _tally_names: dict[str, str] = field(default_factory=dict)
    _seq: int = 0

    def load(self, saved: list[AuditEntry]) -> None:
        for entry in saved:
            self.entries.append(entry)
            self._seq = max(self._seq, entry.seq)
        self.prune()

    # -- what people did ----------------------------------------------------------------------

    def record(self, peer: Peer, action: str, detail: str = "") -> None:
        who, name = _who(peer)
        self.note(who, name, action, detail)

    def note(self, who: str, name: str, action: str, detail: str = "") -> None:
        """An entry for someone by id and name: a guest who is not here, or canvas itself."""
        self._flush(flush_all=False)
        self._append(who, name, action, detail)

    def joined(self, peer: Peer) -> None:
        if not peer.is_host:
            self.record(peer, "joined", f"with {peer.access.value} access")

    def left(self, peer: Peer) -> None:
        if not peer.is_host:
            self.record(peer, "left")

    def observe(self, peer: Peer, frame: ClientFrame, asked: bool) -> None:
        """A frame someone performed, or (`asked`) one that now waits for the host."""
        if asked:
            self.record(peer, f"asked {request_asks(frame.t)}", self._prompt_detail(frame))
            return
        if isinstance(frame, BoardUpdate):
            self._tally(peer, "edited the board", "", 1)
        elif isinstance(frame, TermInput):
            self._tally(peer, "typed in a terminal", self.thing(frame.id), len(frame.data.encode("utf-8")))
        else:
            line = self._line(frame)
            if line is not None:
                self.record(peer, *line)

    def _line(self, frame: ClientFrame) -> tuple[str, str] | None:
        match frame:
            case AgentPrompt():
                return "sent a prompt", self._prompt_detail(frame)
            case AgentCreate():
                return "started an agent session", self.agents(frame.agent) or "an agent that has gone"
            case AgentPermission():
                words = [_permission_words(frame), self.permissions(frame.session_id, frame.request_id)]
                return "answered an agent's permission request", "; ".join(filter(None, words))
            case ApprovalAnswer():
                asked = self.approvals(frame.id)
                if asked is None:
                    return f"{_PAST[frame.answer]} a request that no longer waits", ""
                name, request = asked
                return f"{_PAST[frame.answer]} {name}'s {request_noun(request.t)}", self._request_detail(request)
            case GuestUnblock():
                return "let a removed guest back in", self.names(frame.guest_id)
            case GuestSetAccess():
                return "changed access", f"{self.names(frame.guest_id)}: {frame.access or 'the room default'}"
            case RoomSetAccess():
                return "changed the room's default access", frame.access
            case GuestKick():
                return "removed a guest", self.names(frame.guest_id)
            case TerminalGrant():
                verb = "gave control of a terminal" if frame.granted else "took back control of a terminal"
                return verb, f"{self.thing(frame.terminal_id)} to {self.names(frame.guest_id)}"
            case TermControl():
                return "took control of a terminal", self.thing(frame.id)
            case TermOpen():
                # A page opens every terminal it shows; only a terminal's first opening starts a shell.
                if self.things(frame.id):
                    return None
                return "opened a terminal", ""
            case FileOpen():
                return "opened a file", frame.path[:DETAIL_MAX]
            case OpenLinkSet():
                return {"on": "turned the open link on", "off": "turned the open link off"}.get(
                    frame.change, "rotated the open link"
                ), ""
            case AccessAsk():
                return "got edit access", ""
        return None

    def _prompt_detail(self, frame: ClientFrame) -> str:
        if isinstance(frame, AgentPrompt):
            digest = text_sha256(frame.text)[:DIGEST_CHARS]
            return f"{len(frame.text)} characters to {self.thing(frame.session_id)} (fingerprint {digest})"
        return ""

    def _request_detail(self, frame: ClientFrame) -> str:
        """What an approval let run, so the record answers who allowed what: the prompt's digest,
        the agent started, the terminal opened or handed over, the session it acts on."""
        match frame:
            case AgentPrompt():
                return self._prompt_detail(frame)
            case AgentCreate():
                return self.agents(frame.agent) or "an agent that has gone"
            case TermOpen():
                return "a new shell on the host's machine"
            case TermControl():
                return self.thing(frame.id)
        subject = getattr(frame, "session_id", None)
        return self.thing(subject) if isinstance(subject, str) else ""

    def thing(self, ref: str) -> str:
        """A terminal's or session's name, in words even once it has gone."""
        return self.things(ref) or "a terminal or session that has gone"

    def agent_edited_board(self, session_id: str | None) -> None:
        """An agent changed the board through its tools: counted as that agent's, not its host's."""
        name = (self.things(session_id) if session_id else "") or "an agent"
        self._count(f"{AGENT_PREFIX}{session_id or ''}", name, "edited the board", "", 1)

    def _tally(self, peer: Peer, action: str, where: str, amount: int) -> None:
        self._count(*_who(peer), action, where, amount)

    def _count(self, who: str, _name: str, action: str, where: str, amount: int) -> None:
        minute = int(self.clock() // 60)
        key = (who, action, where)
        tally = self._tallies.get(key)
        if tally is not None and tally.minute != minute:
            self._flush(flush_all=False)
            tally = None
        if tally is None:
            self._flush(flush_all=False)
            tally = self._tallies[key] = _Tally(minute)
            self._tally_names[who] = _name
        tally.count += amount

    def _flush(self, flush_all: bool) -> None:
        """Write the tallies of minutes that are over (all of them when `flush_all`)."""
        minute = int(self.clock() // 60)
        for key, tally in list(self._tallies.items()):
            if not flush_all and tally.minute == minute:
                continue
            who, action, where = key
            unit = ("edit" if action == "edited the board" else "byte") + ("" if tally.count == 1 else "s")
            detail = f"{tally.count} {unit}" + (f" in {where}" if where else "")
            self._append(who, self._tally_names.get(who, who), action, detail, at=tally.minute * 60.0)
            del self._tallies[key]

    def _append(self, who: str, name: str, action: str, detail: str, at: float | None = None) -> None:
        self._seq += 1
        entry = AuditEntry(
            seq=self._seq, at=self.clock() if at is None else at, who=who, name=name, action=action, detail=detail
        )
        self.entries.append(entry)
        self._new.append(entry)
        while len(self.entries) > MAX_ENTRIES:
            self.entries.popleft()

    # -- reading and keeping ------------------------------------------------------------------

    def page(self, before: int | None, who: str | None, limit: int) -> tuple[list[AuditEntry], bool]:
        """Entries before seq `before` (all when None), of `who` (everyone when None), newest first."""
        self._flush(flush_all=True)
        found: list[AuditEntry] = []
        for entry in reversed(self.entries):
            if before is not None and entry.seq >= before:
                continue
            if who is not None and entry.who != who:
                continue
            if len(found) == limit:
                return found, True
            found.append(entry)
        return found, False

    def tick(self) -> None:
        self._flush(flush_all=False)
        self.prune()

    def prune(self) -> bool:
        """Forget entries past their age; True when some were, so the store rewrites its file."""
        cutoff = self.clock() - MAX_AGE_S
        dropped = False
        while self.entries and self.entries[0].at < cutoff:
            self.entries.popleft()
            dropped = True
        return dropped

    def keep_newest(self, count: int) -> None:
        while len(self.entries) > count:
            self.entries.popleft()

    def take_new(self) -> list[AuditEntry]:
        new, self._new = self._new, []
        return new


def _who(peer: Peer) -> tuple[str, str]:
    if peer.id == API_ID:
        # Only the host's own token opens the API: `canvas invite` in its terminal, or its scripts.
        return API_ID, "the host's terminal"
    if peer.is_host:
        return HOST_ID, "the host"
    return peer.id.removeprefix("guest-"), peer.name


_ANSWERS = {
    "once": "allowed once",
    "reject": "rejected",
    "always": "allowed for the rest of the session",
    "never": "rejected for the rest of the session",
    "session": "allowed anything of that kind for the session",
}


def _permission_words(frame: AgentPermission) -> str:
    if frame.answer is not None:
        return _ANSWERS[frame.answer]
    return "picked one of the agent's own answers" if frame.option_id else "cancelled"


_PAST = {"approve": "approved", "deny": "denied", "trust": "trusted the guest for"}
