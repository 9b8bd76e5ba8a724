import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from canvasrelay.core import session_log
from canvasrelay.protocol.session_events import (
    LogHead,
    SessionEvent,
    Thread,
    readable_events,
    session_event,
    stored_json,
)

VECTORS = sorted((Path(__file__).parent / "vectors" / "session_log").glob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _typed(events: list[dict[str, Any]]) -> list[SessionEvent]:
    """The events as they enter the core (from the store, from a frame): one no model reads is left
    out (the vector of unknown things holds a few, which every fold passes over)."""
    return readable_events(events)


def _json(thread: Thread) -> dict[str, Any]:
    """The thread as the vectors write it: every item's fields, the agent's objects as it sent them."""
    return thread.model_dump(by_alias=True, exclude_unset=True)


def _vector_events(path: Path) -> list[SessionEvent]:
    return _typed(_load(path)["events"])


def _dumps(events: list[SessionEvent]) -> list[dict[str, Any]]:
    return [json.loads(stored_json(event)) for event in events]


def test_vectors_present() -> None:
    assert len(VECTORS) >= 8


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_fold_matches_vector(path: Path) -> None:
    vector = _load(path)
    assert vector["name"] == path.stem
    assert _json(session_log.fold(_typed(vector["events"]))) == vector["thread"]


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_apply_step_by_step_equals_fold_of_prefix(path: Path) -> None:
    events = _vector_events(path)
    thread = session_log.empty()
    for i, event in enumerate(events):
        session_log.apply(thread, event)
        assert thread == session_log.fold(_vector_events(path)[: i + 1])
    assert Thread.model_validate_json(thread.model_dump_json()) == thread


def test_status_follows_turn_and_permissions() -> None:
    thread = session_log.empty()
    assert thread.status == "idle"
    session_log.apply(thread, session_event({"seq": 1, "kind": "turn", "text": "t", "author": "host", "time": 0}))
    assert thread.status == "running"
    session_log.apply(
        thread,
        session_event(
            {"seq": 2, "kind": "permission", "requestId": "r", "toolCallId": "c", "title": "T", "options": []}
        ),
    )
    assert thread.status == "waiting"
    session_log.apply(
        thread,
        session_event({"seq": 3, "kind": "permission-resolved", "requestId": "r", "optionId": "x", "by": "host"}),
    )
    assert thread.status == "running"
    session_log.apply(thread, session_event({"seq": 4, "kind": "turn-end"}))
    assert thread.status == "idle"
    assert [item.type for item in thread.items] == ["user", "permission", "turn-end"]


def test_replayed_overlap_is_ignored() -> None:
    events = _vector_events(VECTORS[0])
    once = session_log.fold(events)
    assert session_log.fold(events + events) == once


# -- the head and compaction ------------------------------------------------------------------

TOOL_IDS = st.sampled_from(["t1", "t2", "t3"])
TEXT = st.text(alphabet="ab é😀", max_size=4)


def _update() -> st.SearchStrategy[dict[str, Any]]:
    text = st.builds(
        lambda k, t: {"sessionUpdate": k, "content": {"type": "text", "text": t}},
        st.sampled_from(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]),
        TEXT,
    )
    link = st.builds(
        lambda n: {"sessionUpdate": "agent_message_chunk", "content": {"type": "resource_link", "name": n, "uri": "u"}},
        TEXT,
    )
    tool = st.builds(
        lambda k, i, status, title: {
            "sessionUpdate": k,
            "toolCallId": i,
            **({"status": status} if status else {}),
            **({"title": title} if title else {}),
        },
        st.sampled_from(["tool_call", "tool_call_update"]),
        TOOL_IDS,
        st.sampled_from([None, "pending", "in_progress", "completed", "failed"]),
        st.one_of(st.none(), TEXT),
    )
    plan = st.builds(lambda n: {"sessionUpdate": "plan", "entries": [{"content": str(n)}]}, st.integers(0, 9))
    other = st.just({"sessionUpdate": "available_commands_update", "availableCommands": []})
    return st.one_of(text, link, tool, plan, other)


def _event() -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(
        st.builds(lambda t: {"kind": "turn", "text": t, "author": "host", "time": 1}, TEXT),
        st.builds(lambda u: {"kind": "chunk", "update": u}, _update()),
        st.builds(
            lambda r: {"kind": "permission", "requestId": r, "toolCallId": "t1", "title": "T", "options": []},
            st.sampled_from(["r1", "r2"]),
        ),
        st.builds(
            lambda r, o: {"kind": "permission-resolved", "requestId": r, "optionId": o, "by": "host"},
            st.sampled_from(["r1", "r2", "r9"]),
            st.sampled_from([None, "allow_once"]),
        ),
        st.builds(
            lambda flags: {"kind": "turn-end", **flags},
            st.sampled_from([{}, {"cancelled": True}, {"error": "boom"}, {"interrupted": True}]),
        ),
        st.builds(lambda t: {"kind": "notice", "text": t}, TEXT),
    )


@st.composite
def logs(draw: st.DrawFn) -> list[SessionEvent]:
    """Event logs as the server writes them (seq 1, 2, …), now and then with a replayed seq."""
    events: list[SessionEvent] = []
    for i, event in enumerate(draw(st.lists(_event(), max_size=60)), start=1):
        seq = i if not events or draw(st.integers(0, 19)) else events[-1].seq
        events.append(session_event({"seq": seq, **event}))
    return events


def _head(events: list[SessionEvent]) -> LogHead:
    head = LogHead()
    for event in events:
        head = session_log.advance(head, event)
    return head


@settings(max_examples=200, deadline=None)
@given(logs())
def test_the_head_says_what_the_fold_says_of_status_and_last_seq(events: list[SessionEvent]) -> None:
    thread = session_log.fold(events)
    head = _head(events)
    assert (head.status, head.last_seq, head.turn_open) == (thread.status, max(thread.last_seq, 0), thread.turn_open)
    assert len(head.open) == sum(1 for i in thread.items if i.type == "permission" and not i.resolution)


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_the_head_of_each_vector_has_its_threads_status(path: Path) -> None:
    vector = _load(path)
    head = _head(_typed(vector["events"]))
    assert (head.status, head.turn_open) == (vector["thread"]["status"], vector["thread"]["turnOpen"])


@settings(max_examples=200, deadline=None)
@given(logs())
def test_a_compacted_log_folds_to_the_same_thread(events: list[SessionEvent]) -> None:
    before = _dumps(events)
    compacted = session_log.compact(events)
    assert _dumps(events) == before
    assert session_log.fold(compacted) == session_log.fold(events)
    assert _head(compacted) == _head(events)
    assert len(compacted) <= len(events)
    assert session_log.fold(session_log.compact(compacted)) == session_log.fold(events)


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_the_vectors_compacted_log_is_compact_of_its_events_and_folds_to_its_thread(path: Path) -> None:
    vector = _load(path)
    compacted = session_log.compact(_typed(vector["events"]))
    assert _dumps(compacted) == _dumps(_typed(vector["compacted"]))
    assert _json(session_log.fold(compacted)) == vector["thread"]


def test_a_streamed_message_of_many_chunks_compacts_to_one_event() -> None:
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "word "}}
    events = [{"seq": 1, "kind": "turn", "text": "go", "author": "host", "time": 0}]
    events += [{"seq": n, "kind": "chunk", "update": chunk} for n in range(2, 5002)]
    events.append({"seq": 5002, "kind": "turn-end"})
    typed = _typed(events)
    compacted = _dumps(session_log.compact(typed))
    assert [e["seq"] for e in compacted] == [1, 2, 5002]
    assert compacted[1]["update"]["content"]["text"] == "word " * 5000
    assert session_log.fold(session_log.compact(typed)) == session_log.fold(typed)


@settings(max_examples=200, deadline=None)
@given(logs(), st.integers(0, 59))
def test_the_log_from_any_turn_on_compacts_alone(events: list[SessionEvent], pick: int) -> None:
    """What the store's compaction since the last one relies on: from a turn on, nothing older is needed."""
    turns = [i for i, e in enumerate(events) if e.kind == "turn"]
    start = turns[pick % len(turns)] if turns else len(events)
    if any(e.seq <= max((p.seq for p in events[:start]), default=0) for e in events[start:]):
        return  # the store's seqs only grow
    rewritten = events[:start] + session_log.compact(events[start:])
    assert session_log.fold(rewritten) == session_log.fold(events)
