"""A stretch of the room's recording made into a replay, sans-I/O: the board as it was at the
start and its changes after, each session's events, each terminal's output as an asciicast, the
record's entries and the marks a timeline shows (adr/0031-the-room-replayable.md)."""

from __future__ import annotations

import base64
from collections.abc import Iterable
from dataclasses import dataclass, field

from pycrdt import Doc

from canvasrelay.core.asciicast import DEFAULT_SIZE, RESET, Cast, CastEvent
from canvasrelay.core.audit import AGENT_PREFIX
from canvasrelay.core.recording import AGENT, Entry, Kind, agent_author, parse_size
from canvasrelay.core.terminal_output import Scrollback
from canvasrelay.protocol.people import AuditEntry
from canvasrelay.protocol.replay import (
    CASTS,
    BoardChange,
    Mark,
    MarkKind,
    ReplayPerson,
    ReplayRoom,
    ReplaySession,
    ReplayTerminal,
    TimedEvent,
)
from canvasrelay.protocol.session_events import SessionEvent, TurnEvent, stored_event

BOARD_MARK_GAP_S = 30.0
"""One person's board changes closer together than this are one mark."""
MARK_TEXT = 80
APPROVALS = ("approved", "denied", "trusted", "answered an agent's permission request", "gave control of a terminal")
NOT_PEOPLE = {AGENT, "canvas"}


@dataclass(frozen=True)
class StoredSession:
    """A session as the store keeps it: its row and its (compacted) log."""

    id: str
    title: str
    agent: str
    created: float
    events: list[SessionEvent]


@dataclass
class RoomSources:
    """Everything a replay is made from, read by the adapter from `.canvas/`."""

    project: str
    entries: list[Entry]
    sessions: list[StoredSession] = field(default_factory=list)
    record: list[AuditEntry] = field(default_factory=list)
    people: dict[str, ReplayPerson] = field(default_factory=dict)
    terminal_names: dict[str, str] = field(default_factory=dict)


def span(entries: list[Entry]) -> tuple[float, float] | None:
    """When the recording begins and ends."""
    return (entries[0].at, entries[-1].at) if entries else None


def board_at(entries: Iterable[Entry], at: float) -> bytes:
    """The board as it was at `at` (the whole state, a Yjs update), from the recording."""
    doc: Doc = Doc()
    for entry in entries:
        if entry.at > at:
            break
        if entry.kind in (Kind.BOARD_BASE, Kind.BOARD):
            doc.apply_update(entry.data)
    return doc.get_update()


def window(
    sources: RoomSources, start: float | None = None, end: float | None = None
) -> tuple[ReplayRoom, dict[str, Cast]]:
    """The replay of `start`…`end` (the whole recording when not given), and each terminal's cast."""
    entries = sources.entries
    whole = span(entries) or (0.0, 0.0)
    begin = max(whole[0], start if start is not None else whole[0])
    finish = min(whole[1], end if end is not None else whole[1])
    # From the recording's own start, every entry is inside; from a moment in it, those then are the start.
    before = [e for e in entries if e.at <= begin] if start is not None else []
    inside = [e for e in entries[len(before) :] if e.at <= finish]
    changes = _changes(inside)
    sessions = _sessions(sources.sessions, [*before, *inside], begin, finish)
    names = {**sources.terminal_names, **_names([*before, *inside])}
    casts = _casts(names, before, inside, begin)
    terminals = [
        ReplayTerminal(id=tid, name=names.get(tid) or "A terminal", cast=f"{CASTS}{tid}.cast") for tid in casts
    ]
    record = [entry for entry in sources.record if begin <= entry.at <= finish]
    people = _people(sources.people, record, changes, sessions)
    room = ReplayRoom(
        project=sources.project,
        start=begin,
        end=finish,
        board_base=_b64(board_at(before, begin)),
        board=changes,
        sessions=sessions,
        terminals=terminals,
        record=record,
        people=people,
        marks=marks(changes, sessions, record, people),
    )
    return room, casts


def following(sources: RoomSources, after: float) -> tuple[ReplayRoom, dict[str, Cast]]:
    """What the room did after `after`, as a replay of only that, for a timeline that ends at `after`
    to take in: its board changes, sessions' events, terminals' output and marks (no board or screen
    at its start: the timeline has them). `sources.entries` may begin up to `BOARD_MARK_GAP_S` before
    `after`: a person's run of board changes that began before goes on, and is not a new mark. The
    terminals' names are the room's now (`sources.terminal_names`) unless the entries rename them."""
    inside = [e for e in sources.entries if e.at > after]
    finish = inside[-1].at if inside else after
    changes = _changes(inside)
    sessions = _sessions(sources.sessions, inside, after, finish)
    names = {**sources.terminal_names, **_names(sources.entries)}
    # A screen's recent output at a new segment's start was shown before: the timeline has it.
    shown = {e.source for e in inside if e.kind is Kind.TERM_BASE}
    casts = _casts(names, [], inside, after, shown)
    terminals = [
        ReplayTerminal(id=tid, name=names.get(tid) or "A terminal", cast=f"{CASTS}{tid}.cast") for tid in casts
    ]
    record = [entry for entry in sources.record if after < entry.at <= finish]
    people = _people(sources.people, record, changes, sessions)
    looked_back = _changes([e for e in sources.entries if e.at <= after])
    found = [mark for mark in marks([*looked_back, *changes], sessions, record, people) if mark.at > after]
    room = ReplayRoom(
        project=sources.project,
        start=after,
        end=finish,
        board_base=_b64(Doc().get_update()),
        board=changes,
        sessions=sessions,
        terminals=terminals,
        record=record,
        people=people,
        marks=found,
    )
    return room, casts


def _changes(entries: list[Entry]) -> list[BoardChange]:
    return [
        BoardChange(at=e.at, by=e.source or "canvas", update=_b64(e.data))
        for e in entries
        if e.kind in (Kind.BOARD, Kind.BOARD_BASE)
    ]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _sessions(stored: list[StoredSession], entries: list[Entry], begin: float, finish: float) -> list[ReplaySession]:
    recorded: dict[str, list[tuple[float, SessionEvent]]] = {}
    for entry in entries:
        if entry.kind is Kind.EVENT:
            try:
                recorded.setdefault(entry.source, []).append((entry.at, stored_event(entry.data)))
            except ValueError:
                continue
    out: list[ReplaySession] = []
    known = {s.id: s for s in stored}
    for sid in [*known, *(sid for sid in recorded if sid not in known)]:
        session = known.get(sid)
        if session is not None and session.created > finish:
            continue
        timed = recorded.get(sid, [])
        first_recorded = timed[0][1].seq if timed else None
        # What the store kept from before the recording, then what the recording saw before the start.
        base = [e for e in (session.events if session else []) if first_recorded is None or e.seq < first_recorded]
        base += [event for at, event in timed if at <= begin]
        events = [TimedEvent(at=at, event=event) for at, event in timed if begin < at <= finish]
        if not base and not events:
            continue
        title = session.title if session else "A session that has gone"
        out.append(
            ReplaySession(
                id=sid, title=title or "Agent session", agent=session.agent if session else "", base=base, events=events
            )
        )
    return out


def _names(entries: list[Entry]) -> dict[str, str]:
    """Each terminal's name as the recording last had it: without tmux, canvas keeps no file of them."""
    return {e.source: e.data.decode("utf-8", "replace") for e in entries if e.kind is Kind.TERM_NAME and e.data}


def _casts(
    names: dict[str, str], before: list[Entry], inside: list[Entry], begin: float, shown: Iterable[str] = ()
) -> dict[str, Cast]:
    """Each terminal's output from `begin`: first its screen's recent output as a late joiner got it
    replayed (bounded as the live ring is), then what came after, as it came. A terminal `shown`
    before has its screen already: its recent output at a segment's start is not output again."""
    screens: dict[str, Scrollback] = {}
    sizes: dict[str, tuple[int, int]] = {}
    ended: set[str] = set()
    for entry in before:
        if entry.kind not in _TERMINAL_KINDS:
            continue
        tid = entry.source
        if entry.kind is Kind.TERM_START:
            screens[tid] = Scrollback()
            ended.discard(tid)
        elif entry.kind is Kind.TERM_BASE and tid not in screens:
            screens[tid] = Scrollback()
            screens[tid].append(entry.data)
        elif entry.kind is Kind.TERM_OUT:
            screens.setdefault(tid, Scrollback()).append(entry.data)
        elif entry.kind is Kind.TERM_SIZE and (size := parse_size(entry.data)):
            sizes[tid] = size
        elif entry.kind is Kind.TERM_EXIT:
            ended.add(tid)
    events: dict[str, list[CastEvent]] = {
        tid: [CastEvent(begin, "o", screen.snapshot().decode("utf-8", "replace"))]
        for tid, screen in screens.items()
        if tid not in ended and len(screen)
    }
    seen = {*screens, *shown}
    for entry in inside:
        if entry.kind not in _TERMINAL_KINDS:
            continue
        tid = entry.source
        out = events.setdefault(tid, [])
        if entry.kind is Kind.TERM_START:
            out.append(CastEvent(entry.at, "o", RESET))
        elif (entry.kind is Kind.TERM_BASE and tid not in seen) or entry.kind is Kind.TERM_OUT:
            out.append(CastEvent(entry.at, "o", entry.data.decode("utf-8", "replace")))
        elif entry.kind is Kind.TERM_SIZE and (size := parse_size(entry.data)):
            if tid not in sizes:
                sizes[tid] = size
            out.append(CastEvent(entry.at, "r", f"{size[0]}x{size[1]}"))
        elif entry.kind is Kind.TERM_EXIT:
            out.append(CastEvent(entry.at, "x", entry.data.decode("ascii", "replace")))
        seen.add(tid)
    return {
        tid: Cast(*sizes.get(tid, DEFAULT_SIZE), start=begin, title=names.get(tid) or "A terminal", events=out)
        for tid, out in events.items()
        if out
    }


_TERMINAL_KINDS = {Kind.TERM_START, Kind.TERM_BASE, Kind.TERM_OUT, Kind.TERM_SIZE, Kind.TERM_EXIT}


def _people(
    known: dict[str, ReplayPerson],
    record: list[AuditEntry],
    changes: list[BoardChange],
    sessions: list[ReplaySession],
) -> dict[str, ReplayPerson]:
    people = {
        "host": ReplayPerson(name="the host"),
        AGENT: ReplayPerson(name="an agent"),
        "api": ReplayPerson(name="the host's terminal"),
    }
    # An agent's board edits are its session's, by the name its frame shows.
    people.update({agent_author(session.id): ReplayPerson(name=session.title) for session in sessions})
    for entry in record:
        people.setdefault(entry.who, ReplayPerson(name=entry.name))
    people.update(known)
    for change in changes:
        people.setdefault(change.by, ReplayPerson(name="a guest"))
    return people


def marks(
    changes: list[BoardChange], sessions: list[ReplaySession], record: list[AuditEntry], people: dict[str, ReplayPerson]
) -> list[Mark]:
    """Prompts (from the threads), approvals, joins and leaves (from the record) and the board's
    changes (one mark per person's run of them), in time order."""
    found: list[Mark] = []
    for session in sessions:
        for timed in session.events:
            event = timed.event
            if isinstance(event, TurnEvent):
                who = "host" if event.by_host else _id_of(people, event.author)
                name = people["host"].name if event.by_host else (event.author or "someone")
                words = (event.as_written or event.text).strip().replace("\n", " ")
                found.append(
                    Mark(
                        at=timed.at,
                        kind="prompt",
                        who=who,
                        name=name,
                        text=_cut(f"{name} asked {session.title}: {words}"),
                    )
                )
    for entry in record:
        kind: MarkKind | None = "join" if entry.action == "joined" else "leave" if entry.action == "left" else None
        if kind is None and entry.action.startswith(APPROVALS):
            kind = "approval"
        if kind is not None:
            detail = f" ({entry.detail})" if entry.detail else ""
            found.append(
                Mark(
                    at=entry.at,
                    kind=kind,
                    who=entry.who,
                    name=entry.name,
                    text=_cut(f"{entry.name} {entry.action}{detail}"),
                )
            )
    run: tuple[str, float, float, int] | None = None
    for change in changes:
        if change.by == "canvas":
            continue
        if run is not None and run[0] == change.by and change.at - run[2] < BOARD_MARK_GAP_S:
            run = (run[0], run[1], change.at, run[3] + 1)
            continue
        if run is not None:
            found.append(_board_mark(run, people))
        run = (change.by, change.at, change.at, 1)
    if run is not None:
        found.append(_board_mark(run, people))
    found.sort(key=lambda mark: mark.at)
    return found


def _board_mark(run: tuple[str, float, float, int], people: dict[str, ReplayPerson]) -> Mark:
    who, first, _, count = run
    name = people[who].name if who in people else "someone"
    plural = "change" if count == 1 else "changes"
    return Mark(at=first, kind="board", who=who, name=name, text=f"{name} changed the board ({count} {plural})")


def _id_of(people: dict[str, ReplayPerson], name: str | None) -> str:
    return next(
        (
            who
            for who, person in people.items()
            if person.name == name and who not in NOT_PEOPLE and not who.startswith(AGENT_PREFIX)
        ),
        "guest",
    )


def _cut(text: str) -> str:
    return text if len(text) <= MARK_TEXT else text[: MARK_TEXT - 1] + "…"
