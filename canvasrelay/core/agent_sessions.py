"""Agent sessions, sans-I/O: the logs, each session's status and queue, and permission bookkeeping.

`Sessions` takes frames and the agent's doings (an update, a permission request, a turn's end)
and answers with effects. Every event it appends becomes `StoreEvent` then a `Broadcast` of
`agent-event`, in that order, so nothing is sent that is not stored. The adapter
(`agent_host`) runs the agent processes and feeds what they do back in here.

A session here is its head (status, last seq, open permissions, queue), never its thread: the
log lives in the store, and history is read from there as an effect (`ReadHistory`) whose page
the adapter feeds back (`history_read`). A join gets every head (in `welcome`), then the newest
page of each history, shortest history first; older pages only as the client asks, one page per
request. A finished turn's events are compacted (`CompactTurn`, see `session_log.compact`) and
every client told which seqs were rewritten (`agent-compacted`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from canvasrelay.core import session_log
from canvasrelay.core.effects import AnyEffect, Broadcast, Effect, Send
from canvasrelay.core.errors import Refused
from canvasrelay.core.feature import F, Feature, Handler, Route
from canvasrelay.core.peer import Peer
from canvasrelay.core.permission_preview import preview
from canvasrelay.core.permission_requests import ANSWERED, Pending, chosen
from canvasrelay.core.permission_rules import (
    Choice,
    PermissionAsk,
    ToolCallJson,
    merge_announced,
)
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.agents import (
    AgentCancel,
    AgentCompacted,
    AgentConfig,
    AgentCreate,
    AgentEvent,
    AgentHistory,
    AgentHistoryRequest,
    AgentMeta,
    AgentOptions,
    AgentPermission,
    AgentPrompt,
    AgentRemoved,
    AgentRename,
    HostAnswer,
    QueuedPrompt,
    SessionHead,
    SessionMeta,
)
from canvasrelay.protocol.core import AgentInfo, ErrorFrame
from canvasrelay.protocol.encoding import text_sha256
from canvasrelay.protocol.people import PromptAttribution
from canvasrelay.protocol.session_events import (
    AvailableCommand,
    AvailableCommandsUpdate,
    ChunkEvent,
    ConfigOption,
    LogHead,
    NoticeEvent,
    PermissionEvent,
    PermissionResolvedEvent,
    SessionEvent,
    SessionStatus,
    SessionUpdate,
    TextBlock,
    ToolCallUpdate,
    ToolContent,
    ToolContentBlock,
    TurnEndEvent,
    TurnEvent,
    permission_options,
)
from canvasrelay.protocol.words import RULES_BY

HISTORY_PAGE = 200
"""Events per `agent-history` frame at most."""
HISTORY_PAGE_CHARS = 192 * 1024
"""And at most this much of their JSON (but always one event): under the data channel's 256 KiB."""
MAX_READS_PER_PEER = 4
HISTORY_PAGE_INTERVAL_S = 0.05
"""One peer's pages are read at most this often (20 a second, some 4 MB): the reader and the loop's
encoding are shared, so a peer paging through everything leaves the others their share."""
"""History pages a peer may have asked for and not yet received."""
MAX_QUEUE = 20
MAX_QUEUE_CHARS = 400_000
"""What one session's queued prompts hold in all: its head (queue included) is one page of a
welcome's heads, so it stays far under a socket's backlog whatever is queued."""
MAX_SESSIONS = 500
MAX_TOOL_TEXT_CHARS = 1_000_000
"""Of one text in a tool call's content (a command's output): the rest is cut, and the cut said."""


# -- effects the adapter carries out ---------------------------------------------------------


@dataclass(frozen=True)
class Ordered(Effect):
    """Effects to carry out in the agents' one order, after everything already waiting there: a
    session's frames take effect one after another even while an agent holds up what came before."""

    effects: list[AnyEffect]


def in_order(handler: Handler[F]) -> Handler[F]:
    def run(peer: Peer, frame: F) -> list[AnyEffect]:
        return [Ordered(handler(peer, frame))]

    return run


@dataclass(frozen=True)
class StoreEvent(Effect):
    """Append the event and save the session's head after it, in one transaction."""

    session_id: str
    event: SessionEvent
    head: LogHead


@dataclass(frozen=True)
class ReadHistory(Effect):
    """Read one page of a session's log for a peer, then call `Sessions.history_read` with it.

    With `after`, the oldest events after that seq; otherwise the newest before `before` (or
    the newest of all). `asked` is a read the peer asked for (counted against its limit).
    """

    peer_id: str
    session_id: str
    after: int | None = None
    before: int | None = None
    asked: bool = False
    delay: float = 0.0
    """Seconds to wait before reading: this peer's turn at the reader."""
    limit: int = HISTORY_PAGE
    max_chars: int = HISTORY_PAGE_CHARS


@dataclass(frozen=True)
class CompactTurn(Effect):
    """Compact the finished turn's events (`after` < seq ≤ `through`) off the loop, then call
    `Sessions.compacted` with the result."""

    session_id: str
    after: int
    through: int


@dataclass(frozen=True)
class RewriteEvents(Effect):
    """Replace the stored events with `after` < seq ≤ `through` by `events`."""

    session_id: str
    after: int
    through: int
    events: list[SessionEvent]


@dataclass(frozen=True)
class HistoryPage:
    """Stored events of a session in seq order: every event with `after` < seq ≤ `through`."""

    events: list[SessionEvent]
    after: int
    through: int


@dataclass(frozen=True)
class StoredSession:
    """A session as the store keeps it: its row and its head, no event."""

    id: str
    agent: str
    title: str
    agent_session_id: str | None
    created: float
    meta: SessionMeta
    head: LogHead


@dataclass(frozen=True)
class StoreSession(Effect):
    """Create the session's row (when `created`) or save its head (title, queue, options)."""

    session_id: str
    created: bool = False


@dataclass(frozen=True)
class StartSession(Effect):
    """Start the session's agent and open (or load) its ACP session."""

    session_id: str


@dataclass(frozen=True)
class RunTurn(Effect):
    session_id: str
    text: str


@dataclass(frozen=True)
class CancelTurn(Effect):
    session_id: str


@dataclass(frozen=True)
class SetConfig(Effect):
    session_id: str
    config_id: str
    value: str | bool


@dataclass(frozen=True)
class ResolvePermission(Effect):
    """Hand the answer to the agent, which waits for it."""

    session_id: str
    request_id: str
    choice: Choice | None


@dataclass(frozen=True)
class StopSession(Effect):
    session_id: str


# -- state -----------------------------------------------------------------------------------


REFUSED = (
    "A permission rule refused this call{because}. Each agent takes a refusal its own way: "
    "some end the turn, some say it was cancelled by the user."
)


class _TurnGiven(TypedDict, total=False):
    """The optional fields of a `turn` event that hold something: the store keeps what it was given."""

    as_written: str
    by_host: bool


@dataclass
class Session:
    id: str
    agent: str
    agent_label: str
    title: str
    created: float
    head: LogHead = field(default_factory=LogHead)
    queued: list[QueuedPrompt] = field(default_factory=list)
    options: list[ConfigOption] = field(default_factory=list)
    commands: list[AvailableCommand] = field(default_factory=list)
    pending: dict[str, Pending] = field(default_factory=dict)
    turn_from: int | None = None
    """The seq of the running turn's `turn` event (a turn begun before a restart has none)."""
    turn_started: float | None = None
    """When the running turn began, by the clock (a turn begun before a restart has none)."""
    named_prompts: bool = True
    """A guest's prompt reaches the agent with its author named; the host switches it off here."""

    @property
    def last_seq(self) -> int:
        return self.head.last_seq

    @property
    def next_seq(self) -> int:
        """The seq of the event appended next."""
        return self.head.last_seq + 1

    @property
    def status(self) -> SessionStatus:
        return self.head.status

    @property
    def turn_open(self) -> bool:
        """A turn runs (from its `turn` to its `turn-end`); a permission asked after it ended
        does not make one, so it neither holds the queue nor outlives a cancel."""
        return self.head.turn_open

    def frame_head(self) -> SessionHead:
        return SessionHead(
            id=self.id,
            agent=self.agent,
            agent_label=self.agent_label,
            title=self.title,
            status=self.status,
            queued=list(self.queued),
            options=list(self.options),
            commands=list(self.commands),
            created=self.created,
            last_seq=self.last_seq,
            turn_open=self.turn_open,
            open_permissions=list(self.head.open),
            named_prompts=self.named_prompts,
        )

    def meta(self) -> SessionMeta:
        """What the store keeps beside the log, so a restart restores the queue and options."""
        return SessionMeta(
            agent_label=self.agent_label,
            queued=list(self.queued),
            options=list(self.options),
            commands=list(self.commands),
            named_prompts=self.named_prompts,
        )


class Sessions:
    def __init__(self, agents: Mapping[str, AgentInfo], clock: Callable[[], float] = time.time, root: str = ""):
        self.agents = agents
        self.clock = clock
        self.root = root
        """The project folder, so a permission's preview names paths inside it relatively."""
        self.sessions: dict[str, Session] = {}
        self.reading: dict[str, int] = {}
        self.next_read: dict[str, float] = {}
        """When each peer's next page may be read."""
        """Peer id → history pages it asked for that are still being read."""
        self._requests = 0

    # -- restoring ---------------------------------------------------------------------------

    def feature(self) -> Feature:
        return Feature(
            "the agents",
            routes={
                AgentCreate: Route(in_order(self.create)),
                AgentPrompt: Route(in_order(self.prompt)),
                AgentCancel: Route(in_order(self.cancel)),
                AgentConfig: Route(in_order(self.configure)),
                AgentPermission: Route(in_order(self.answer)),
                AgentRename: Route(in_order(self.rename_frame)),
                PromptAttribution: Route(in_order(self.name_prompts)),
                AgentHistoryRequest: Route(in_order(self.history)),
            },
            heads=self.heads,
            live=lambda ref: ref in self.sessions,
            joined=lambda peer: [Ordered(self.joined(peer))],
            left=self.left,
        )

    def restore(self, row: StoredSession) -> list[AnyEffect]:
        """A stored session, from its row and head, at server start: no event is read. A turn that
        was running is closed as interrupted."""
        meta = row.meta
        label = meta.agent_label or row.agent
        session = Session(
            id=row.id,
            agent=row.agent,
            agent_label=label,
            title=row.title or self._numbered(label),
            created=row.created,
            head=row.head,
            queued=list(meta.queued),
            options=list(meta.options),
            commands=list(meta.commands),
            named_prompts=meta.named_prompts,
        )
        self.sessions[session.id] = session
        if session.status == "idle":
            return []
        return self._append(session, self._turn_end(session, interrupted=True))

    def next_queued(self, session_id: str) -> list[AnyEffect]:
        """Run the next queued prompt if the session is idle (after a turn ends, or at start)."""
        session = self.sessions.get(session_id)
        if session is None or session.turn_open or not session.queued:
            return []
        prompt = session.queued.pop(0)
        return self._start_turn(session, prompt)

    # -- frames ------------------------------------------------------------------------------

    def create(self, peer: Peer, frame: AgentCreate) -> list[AnyEffect]:
        if frame.id in self.sessions:
            raise Refused("conflict", "That session exists already.")
        agent = self.agents.get(frame.agent)
        if agent is None:
            raise Refused("not-found", f"unknown agent {frame.agent[:64]!r}")
        if len(self.sessions) >= MAX_SESSIONS:
            raise Refused("conflict", f"too many sessions (limit {MAX_SESSIONS})")
        title = frame.title or self._numbered(agent.label)
        session = Session(frame.id, agent.id, agent.label, title, self.clock())
        self.sessions[session.id] = session
        return [StoreSession(session.id, created=True), self._meta(session), StartSession(session.id)]

    def prompt(self, peer: Peer, frame: AgentPrompt) -> list[AnyEffect]:
        session = self.sessions.get(frame.session_id)
        if session is None:
            raise _no_such_session()
        author = (frame.author or peer.name or peer.id) if peer.is_host else (peer.name or peer.id)
        prompt = QueuedPrompt(text=frame.text, author=author, as_written=frame.written, by_host=peer.is_host)
        if session.turn_open or session.queued:
            if len(session.queued) >= MAX_QUEUE:
                raise Refused("conflict", f"The queue is full: {MAX_QUEUE} prompts wait already.")
            if sum(len(q.text) for q in session.queued) + len(frame.text) > MAX_QUEUE_CHARS:
                raise Refused("conflict", "The queue is full: the prompts waiting are too long in all.")
            session.queued.append(prompt)
            return [StoreSession(session.id), self._meta(session)]
        return self._start_turn(session, prompt)

    def cancel(self, peer: Peer, frame: AgentCancel) -> list[AnyEffect]:
        session = self.sessions.get(frame.session_id)
        if session is None:
            raise _no_such_session()
        effects: list[AnyEffect] = []
        for request_id in list(session.pending):
            effects += self._resolve(session, request_id, None, "cancelled")
        if not session.turn_open:
            return effects
        return [*effects, CancelTurn(session.id)]

    def configure(self, peer: Peer, frame: AgentConfig) -> list[AnyEffect]:
        session = self.sessions.get(frame.session_id)
        if session is None:
            raise _no_such_session()
        return [SetConfig(session.id, frame.config_id, frame.value)]

    def _numbered(self, label: str) -> str:
        """A name for a new session: the agent's label as it is ("Demo agent"), numbered only when
        another session has that name already ("Demo agent 2")."""
        taken = {s.title for s in self.sessions.values()}
        names = itertools.chain([label], (f"{label} {n}" for n in itertools.count(2)))
        return next(name for name in names if name not in taken)

    def name_prompts(self, peer: Peer, frame: PromptAttribution) -> list[AnyEffect]:
        session = self.sessions.get(frame.session_id)
        if session is None:
            raise _no_such_session()
        session.named_prompts = frame.on
        return [StoreSession(session.id), self._meta(session)]

    def names_prompts(self, session_id: str) -> bool:
        """Whether a guest's prompt to this session reaches its agent named (an unknown session's is)."""
        session = self.sessions.get(session_id)
        return session is None or session.named_prompts

    def rename_frame(self, peer: Peer, frame: AgentRename) -> list[AnyEffect]:
        if frame.session_id not in self.sessions:
            raise _no_such_session()
        return self.rename(frame.session_id, frame.title.strip() or frame.title)

    def answer(self, peer: Peer, frame: AgentPermission) -> list[AnyEffect]:
        """The first answer wins; a later one is told, and everyone saw `permission-resolved`."""
        session = self.sessions.get(frame.session_id)
        if session is None:
            raise _no_such_session()
        pending = session.pending.get(frame.request_id)
        if pending is None:
            raise Refused("conflict", ANSWERED)
        pick = chosen(pending, frame.answer, frame.option_id)
        by = frame.by or peer.name or peer.id
        return [
            RecordAnswer(session.id, pending.tool_call, frame.answer, pick.option_id, by, pick.kind),
            *self._resolve(session, frame.request_id, pick.option_id, by, answer=frame.answer),
        ]

    def permission_words(self, session_id: str, request_id: str) -> str:
        """What a waiting permission asks to run, for the room's record: the command, or the paths."""
        session = self.sessions.get(session_id)
        pending = session.pending.get(request_id) if session is not None else None
        if session is None or pending is None:
            return ""
        shown = preview(pending.tool_call, self.root)
        what = f"the command {shown.command}" if shown.command else ", ".join(shown.paths) or "a call it did not name"
        return f"{shown.kind} in {session.title or session.agent_label}: {what}"

    def history(self, peer: Peer, frame: AgentHistoryRequest) -> list[AnyEffect]:
        """One page, read from the store; the client asks for the next once this one came."""
        session = self.sessions.get(frame.session_id)
        if session is None:
            raise _no_such_session()
        if self.reading.get(peer.id, 0) >= MAX_READS_PER_PEER:
            raise Refused(
                "conflict", f"{MAX_READS_PER_PEER} history pages are on their way already: ask for more once they came"
            )
        self.reading[peer.id] = self.reading.get(peer.id, 0) + 1
        now = self.clock()
        # Never further ahead than the pages it may have asked for (a clock set back waits no longer).
        turn = min(max(now, self.next_read.get(peer.id, now)), now + MAX_READS_PER_PEER * HISTORY_PAGE_INTERVAL_S)
        self.next_read[peer.id] = turn + HISTORY_PAGE_INTERVAL_S
        return [ReadHistory(peer.id, session.id, after=frame.after, before=frame.before, asked=True, delay=turn - now)]

    def history_read(self, read: ReadHistory, page: HistoryPage) -> list[AnyEffect]:
        """The page a `ReadHistory` read, for its peer (called by the adapter)."""
        if read.asked:
            left = self.reading.pop(read.peer_id, 0) - 1
            if left > 0:
                self.reading[read.peer_id] = left
        if read.session_id not in self.sessions:
            return []
        frame = AgentHistory(session_id=read.session_id, events=page.events, after=page.after, through=page.through)
        return [Send(read.peer_id, frame)]

    def joined(self, peer: Peer) -> list[AnyEffect]:
        """Heads came with `welcome`; now the newest page of each history, shortest first (ADR 0010)."""
        ordered = sorted(self.sessions.values(), key=lambda s: s.last_seq)
        return [ReadHistory(peer.id, session.id) for session in ordered if session.last_seq > 0]

    def left(self, peer: Peer) -> list[AnyEffect]:
        self.reading.pop(peer.id, None)
        self.next_read.pop(peer.id, None)
        return []

    def heads(self, _peer: Peer) -> list[tuple[str, SessionHead]]:
        return [(s.id, s.frame_head()) for s in self.sessions.values()]

    # -- what the agent does (called by the adapter) -----------------------------------------

    def update(self, session_id: str, update: SessionUpdate) -> list[AnyEffect]:
        session = self.sessions.get(session_id)
        if session is None:
            return []
        if update.session_update == "available_commands_update":
            # Head state, like the options: kept and told with the head, not logged (a list no
            # model reads is dropped).
            if not isinstance(update, AvailableCommandsUpdate) or update.available_commands == session.commands:
                return []
            session.commands = list(update.available_commands)
            return [StoreSession(session.id), self._meta(session)]
        return self._append(session, ChunkEvent(seq=session.next_seq, kind="chunk", update=_bounded(update)))

    def options(self, session_id: str, options: list[ConfigOption]) -> list[AnyEffect]:
        """The agent's options changed: one `agent-options` per change, none for the same list."""
        session = self.sessions.get(session_id)
        if session is None or session.options == options:
            return []
        session.options = list(options)
        return [StoreSession(session.id), Broadcast(AgentOptions(session_id=session.id, options=list(options)))]

    def ask(
        self, session_id: str, request: PermissionAsk, announced: Mapping[str, Any] | None = None
    ) -> tuple[str, list[AnyEffect]]:
        """A permission request for the host; returns its request id. `announced` is the tool
        call as its earlier updates described it (what the rules judged), for the preview."""
        session = self.sessions[session_id]
        self._requests += 1
        request_id = f"p{self._requests}-{session.last_seq + 1}"
        tool_call = merge_announced(announced or {}, request["toolCall"])
        options = permission_options(request)
        call_id, title = tool_call.get("toolCallId"), tool_call.get("title")
        session.pending[request_id] = Pending(tool_call, options)
        event = PermissionEvent(
            seq=session.next_seq,
            kind="permission",
            request_id=request_id,
            tool_call_id=call_id if isinstance(call_id, str) else None,
            title=title if isinstance(title, str) else "",
            options=options,
            preview=preview(tool_call, self.root),
        )
        return request_id, self._append(session, event)

    def decided(
        self,
        session_id: str,
        request: PermissionAsk,
        choice: Choice | None,
        announced: Mapping[str, Any] | None = None,
    ) -> list[AnyEffect]:
        """The rules answered without the host: the log still shows the question and the answer."""
        request_id, effects = self.ask(session_id, request, announced)
        session = self.sessions[session_id]
        effects += self._resolve(session, request_id, choice.option_id if choice else None, RULES_BY, choice)
        kind = next((o.kind for o in permission_options(request) if choice and o.option_id == choice.option_id), "")
        if choice is None or kind.startswith("reject"):
            because = f" ({choice.reason})" if choice and choice.reason else ""
            effects += self._notice(session, REFUSED.format(because=because))
        return effects

    def abandon(self, session_id: str, request_id: str) -> list[AnyEffect]:
        """The agent stopped waiting (its turn ended or it died): the request resolves as cancelled."""
        session = self.sessions.get(session_id)
        if session is None or request_id not in session.pending:
            return []
        return self._resolve(session, request_id, None, "cancelled")

    def notice(self, session_id: str, text: str) -> list[AnyEffect]:
        """Canvas tells the thread something about the agent (a `notice` event)."""
        session = self.sessions.get(session_id)
        if session is None:
            return []
        return self._notice(session, text)

    def turn_ended(
        self, session_id: str, error_text: str | None = None, cancelled: bool = False, error_detail: str | None = None
    ) -> list[AnyEffect]:
        session = self.sessions.get(session_id)
        if session is None or not session.turn_open:
            return []
        effects: list[AnyEffect] = []
        for request_id in list(session.pending):
            effects += self._resolve(session, request_id, None, "cancelled")
        ended = {"cancelled": True} if cancelled else {}
        effects += self._append(session, self._turn_end(session, **_error(error_text, error_detail), **ended))
        if session.turn_from is not None:
            effects.append(CompactTurn(session.id, session.turn_from - 1, session.last_seq))
            session.turn_from = None
        return effects + self.next_queued(session_id)

    def compacted(self, session_id: str, after: int, through: int, events: list[SessionEvent]) -> list[AnyEffect]:
        """A finished turn, compacted (called by the adapter): store it, then tell every client."""
        if session_id not in self.sessions:
            return []
        notice = AgentCompacted(session_id=session_id, after=after, through=through)
        return [RewriteEvents(session_id, after, through, events), Broadcast(notice)]

    def interrupt(self) -> list[AnyEffect]:
        """The server stops: every running turn ends as interrupted, now, for everyone to see (a
        restart finds it ended and runs what was queued)."""
        effects: list[AnyEffect] = []
        for session in self.sessions.values():
            for request_id in list(session.pending):
                effects += self._resolve(session, request_id, None, "cancelled")
            if session.turn_open:
                # Not compacted: the store's reader stops with the server.
                effects += self._append(session, self._turn_end(session, interrupted=True))
                session.turn_from = None
        return effects

    def failed(self, session_id: str, error_text: str, error_detail: str | None = None) -> list[AnyEffect]:
        """The agent failed outside a turn (starting at create, or a config change): the log shows
        it as an ended turn with the error, the one place every screen shows errors; during a turn
        the hosts get an `error` instead, since the turn goes on."""
        session = self.sessions.get(session_id)
        if session is None:
            return []
        if not session.turn_open:
            return self._append(session, self._turn_end(session, **_error(error_text, error_detail)))
        return [Broadcast(ErrorFrame(message=error_text, ref="agent-config"), min_access=Access.HOST)]

    # -- removing ----------------------------------------------------------------------------

    def rename(self, session_id: str, title: str) -> list[AnyEffect]:
        session = self.sessions[session_id]
        session.title = title
        return [StoreSession(session.id), self._meta(session)]

    def remove(self, session_id: str) -> list[AnyEffect]:
        session = self.sessions.pop(session_id, None)
        if session is None:
            return []
        return [StopSession(session_id), Broadcast(AgentRemoved(session_id=session_id))]

    # -- inside ------------------------------------------------------------------------------

    def _start_turn(self, session: Session, prompt: QueuedPrompt) -> list[AnyEffect]:
        now = self.clock()
        text = prompt.text
        # Only the fields that hold something: the store keeps what an event was given.
        given: _TurnGiven = {"as_written": prompt.as_written} if prompt.as_written is not None else {}
        if prompt.by_host:
            given["by_host"] = True
        event = TurnEvent(
            seq=session.next_seq,
            kind="turn",
            text=text,
            sha256=text_sha256(text),
            author=prompt.author,
            time=now,
            **given,
        )
        appended = self._append(session, event)
        session.turn_from = session.last_seq
        session.turn_started = now
        return [
            *appended,
            StoreSession(session.id),
            self._meta(session),
            RunTurn(session.id, text),
        ]

    def _turn_end(self, session: Session, **ended: Any) -> TurnEndEvent:
        """A `turn-end` event, with the turn's elapsed seconds when its start was seen."""
        if session.turn_started is not None:
            ended["elapsed"] = round(self.clock() - session.turn_started, 3)
            session.turn_started = None
        return TurnEndEvent(seq=session.next_seq, kind="turn-end", **ended)

    def _notice(self, session: Session, text: str) -> list[AnyEffect]:
        return self._append(session, NoticeEvent(seq=session.next_seq, kind="notice", text=text))

    def _resolve(
        self,
        session: Session,
        request_id: str,
        option_id: str | None,
        by: str,
        choice: Choice | None = None,
        answer: HostAnswer | None = None,
    ) -> list[AnyEffect]:
        session.pending.pop(request_id, None)
        event = PermissionResolvedEvent(
            seq=session.next_seq,
            kind="permission-resolved",
            request_id=request_id,
            option_id=option_id,
            by=by,
            answer=answer,
        )
        chosen = choice if choice is not None else (Choice(option_id) if option_id is not None else None)
        return [*self._append(session, event), ResolvePermission(session.id, request_id, chosen)]

    def _append(self, session: Session, event: SessionEvent) -> list[AnyEffect]:
        """Log the event, made with `session.next_seq`: stored, then sent."""
        status = session.status
        session.head = session_log.advance(session.head, event)
        effects: list[AnyEffect] = [
            StoreEvent(session.id, event, session.head),
            Broadcast(AgentEvent(session_id=session.id, event=event)),
        ]
        if session.status != status:
            effects.append(self._meta(session))
        return effects

    def _meta(self, session: Session) -> Broadcast:
        return Broadcast(AgentMeta(meta=session.frame_head()))


@dataclass(frozen=True)
class RecordAnswer(Effect):
    """Tell the permission rules what the host answered (audit, and always/never rules)."""

    session_id: str
    tool_call: ToolCallJson
    answer: HostAnswer | None
    option_id: str | None
    by: str
    option_kind: str | None = None
    """The ACP kind of the agent's option picked (e.g. `allow_always`: the agent remembers)."""


def _bounded(update: SessionUpdate) -> SessionUpdate:
    """The update with each text of its tool content cut to `MAX_TOOL_TEXT_CHARS`."""
    if not isinstance(update, ToolCallUpdate) or not update.content:
        return update
    content = [_cut(block) for block in update.content]
    if all(cut is block for cut, block in zip(content, update.content, strict=True)):
        return update
    return update.model_copy(update={"content": content})


def _cut(block: ToolContent) -> ToolContent:
    if not (
        isinstance(block, ToolContentBlock)
        and isinstance(block.content, TextBlock)
        and len(block.content.text) > MAX_TOOL_TEXT_CHARS
    ):
        return block
    text = block.content.text
    cut = f"{text[:MAX_TOOL_TEXT_CHARS]}\n… ({len(text) - MAX_TOOL_TEXT_CHARS} more characters not kept)"
    return block.model_copy(update={"content": block.content.model_copy(update={"text": cut})})


def _no_such_session() -> Refused:
    return Refused("not-found", "There is no such session: it was deleted, or never started.")


def _error(text: str | None, detail: str | None) -> dict[str, str]:
    """An ended turn's error in words, and the agent's own words behind "Details"."""
    if not text:
        return {}
    return {"error": text, "error_detail": detail} if detail else {"error": text}
