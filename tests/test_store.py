import json
import sqlite3
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.core import session_log
from canvasrelay.core.agent_sessions import HistoryPage
from canvasrelay.protocol.agents import QueuedPrompt
from canvasrelay.protocol.session_events import (
    LogHead,
    SessionEvent,
    ToolCallUpdate,
    session_event,
    stored_json,
)
from canvasrelay.server import store as store_module
from canvasrelay.server.board.log import BOARD_LOG, read_updates
from canvasrelay.server.store import MIGRATIONS, Store, migrate, schema_version


def test_fresh_store_is_migrated_to_latest_in_wal_mode(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    assert schema_version(store.db) == len(MIGRATIONS)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sessions", "session_events", "audit"} <= tables
    assert stat.S_IMODE((tmp_path / "canvas.db").stat().st_mode) == 0o600
    store.close()


def test_migrations_run_once_and_in_order(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "x.db")
    ran: list[int] = []
    steps = [lambda d: ran.append(1), lambda d: ran.append(2)]
    assert migrate(db, steps[:1]) == 1
    assert migrate(db, steps) == 2
    assert migrate(db, steps) == 2
    assert ran == [1, 2]


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "x.db")
    db.execute("PRAGMA user_version = 99")
    with pytest.raises(RuntimeError, match="newer"):
        migrate(db, MIGRATIONS)


def test_a_failed_migration_leaves_the_version_alone(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "x.db")

    def broken(d: sqlite3.Connection) -> None:
        d.execute("CREATE TABLE t (x)")
        raise ValueError("boom")

    with pytest.raises(ValueError):
        migrate(db, [broken])
    assert schema_version(db) == 0
    assert db.execute("SELECT name FROM sqlite_master WHERE name='t'").fetchone() is None


def test_data_survives_reopening(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    store.create_session("s1", "demo", "first")
    store.append_event("s1", _turn(1))
    store.audit("host", "test", {"n": 1})
    store.close()
    again = Store(tmp_path / "canvas.db")
    assert [s.id for s in again.sessions()] == ["s1"]
    assert again.events("s1") == [_turn(1)]
    assert again.audit_log()[0]["action"] == "test"


def _turn(seq: int, text: str = "hi") -> SessionEvent:
    return session_event({"seq": seq, "kind": "turn", "text": text, "author": "host", "time": 1})


def _chunk(seq: int, text: str) -> SessionEvent:
    return session_event(
        {
            "seq": seq,
            "kind": "chunk",
            "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}},
        }
    )


def _end(seq: int) -> SessionEvent:
    return session_event({"seq": seq, "kind": "turn-end"})


def _log(store: Store, session_id: str, events: list[SessionEvent]) -> None:
    store.create_session(session_id, "demo")
    head = LogHead()
    for event in events:
        head = session_log.advance(head, event)
        store.append_event(session_id, event, head)


def test_a_v2_store_gets_each_sessions_head_folded_once(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "canvas.db")
    migrate(db, MIGRATIONS[:2])
    db.execute("INSERT INTO sessions (id, agent, created) VALUES ('s', 'demo', 1), ('empty', 'demo', 2)")
    turn = {"seq": 1, "kind": "turn", "text": "hi", "author": "host", "time": 1}
    permission = {"seq": 2, "kind": "permission", "requestId": "r1", "toolCallId": "t", "title": "T", "options": []}
    for event in (turn, permission):
        db.execute("INSERT INTO session_events VALUES ('s', ?, ?)", (event["seq"], json.dumps(event)))
    db.commit()
    db.close()
    store = Store(tmp_path / "canvas.db")
    heads = {row.id: row.head for row in store.sessions()}
    assert heads == {
        "s": LogHead(status="waiting", last_seq=2, open=("r1",), turn_open=True),
        "empty": LogHead(),
    }
    store.close()


def test_append_event_saves_the_head_with_the_event(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    _log(store, "s", [_turn(1), _end(2)])
    assert store.sessions()[0].head == LogHead(status="idle", last_seq=2, open=(), turn_open=False)
    stored = store.db.execute("SELECT head FROM sessions").fetchone()[0]
    assert json.loads(stored) == {"status": "idle", "lastSeq": 2, "open": [], "turnOpen": False}
    store.close()


def test_pages_cover_exact_ranges_newest_first_and_never_exceed_their_bounds(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    events = [_turn(1)] + [_chunk(n, f"w{n} ") for n in range(2, 11)]
    _log(store, "s", events)
    newest = store.page("s", None, None, limit=4, max_chars=10_000)
    assert ([e.seq for e in newest.events], newest.after, newest.through) == ([7, 8, 9, 10], 6, 10)
    older = store.page("s", None, newest.after + 1, limit=4, max_chars=10_000)
    assert ([e.seq for e in older.events], older.after, older.through) == ([3, 4, 5, 6], 2, 6)
    oldest = store.page("s", None, older.after + 1, limit=4, max_chars=10_000)
    assert ([e.seq for e in oldest.events], oldest.after, oldest.through) == ([1, 2], 0, 2)
    forward = store.page("s", 8, None, limit=4, max_chars=10_000)
    assert ([e.seq for e in forward.events], forward.after, forward.through) == ([9, 10], 8, 10)
    last_two = sum(len(stored_json(e)) for e in events[-2:])
    small = store.page("s", None, None, limit=200, max_chars=last_two)
    assert ([e.seq for e in small.events], small.after) == ([9, 10], 8)
    assert store.page("s", None, None, limit=200, max_chars=1).events == [events[-1]]
    assert store.page("nobody", None, None, limit=4, max_chars=100) == HistoryPage([], 0, 0)
    store.close()


async def test_a_finished_turn_compacts_in_the_reader_and_pages_cover_its_gaps(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    first = [_turn(1, "one"), *(_chunk(n, "a") for n in range(2, 6)), _end(6)]
    second = [_turn(7, "two"), *(_chunk(n, "b") for n in range(8, 12)), _end(12)]
    _log(store, "s", first + second)
    smaller = await store.history.compacted("s", 6, 12)
    assert smaller is not None and [e.seq for e in smaller] == [7, 8, 12]
    store.rewrite_events("s", 6, 12, smaller)
    assert [e.seq for e in store.events("s")] == [*range(1, 7), 7, 8, 12]
    assert session_log.fold(store.events("s")) == session_log.fold(first + second)
    assert await store.history.compacted("s", 6, 12) is None
    page = store.page("s", None, 12, limit=2, max_chars=10_000)
    assert ([e.seq for e in page.events], page.after, page.through) == ([7, 8], 6, 11)
    store.close()


async def test_the_history_reader_reads_pages_in_its_own_thread(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    _log(store, "s", [_turn(1)])
    threads: list[str] = []
    original = store_module.read_page

    def spy(*args: Any) -> HistoryPage:
        threads.append(threading.current_thread().name)
        return original(*args)

    store_module.read_page = spy  # type: ignore[assignment]
    try:
        page = await store.history.page("s", None, None, 10, 10_000)
    finally:
        store_module.read_page = original  # type: ignore[assignment]
    assert page == HistoryPage([_turn(1)], 0, 1)
    assert threads and threads[0].startswith("canvas-history")
    store.close()


def test_a_v4_stores_board_rows_move_to_the_board_log(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "canvas.db")
    migrate(db, MIGRATIONS[:4])
    db.executemany("INSERT INTO board_updates (data) VALUES (?)", [(b"a",), (b"b",), (b"c",)])
    db.commit()
    db.close()
    store = Store(tmp_path / "canvas.db")
    tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "board_updates" not in tables
    store.close()
    assert read_updates(tmp_path / BOARD_LOG) == [b"a", b"b", b"c"]
    assert stat.S_IMODE((tmp_path / BOARD_LOG).stat().st_mode) == 0o600


def test_the_write_ahead_log_is_checkpointed_in_the_readers_thread(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    store.create_session("s", "demo")
    for seq in range(1, store_module.CHECKPOINT_EVERY + 1):
        store.stage_event("s", _turn(seq, "x" * 500))
        store.commit()
    assert store.checkpointing is not None
    busy, frames, copied = store.checkpointing.result(timeout=30)
    assert busy == 0 and frames >= store_module.CHECKPOINT_EVERY and copied == frames
    store.close()
    assert len(Store(tmp_path / "canvas.db").events("s")) == store_module.CHECKPOINT_EVERY


def test_a_log_and_a_session_written_by_the_previous_canvas_load_and_are_written_back_the_same(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Rows as canvas wrote them before its events were typed: an agent's update with fields no
    model names, a rules' answer, a queue written with snake_case names, options as the agent sent."""
    update = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "status": "completed",
        "content": [{"type": "diff", "path": "/w/a.py", "oldText": "x = 1\n", "newText": "x = 2\n"}],
        "rawOutput": {"exit_code": 0},
        "_meta": {"claudeCode": {"toolName": "Edit"}},
    }
    rows = [
        {"seq": 1, "kind": "turn", "text": "go", "sha256": "ab", "author": "Ann", "time": 1700000000.5},
        {"seq": 2, "kind": "chunk", "update": update},
        {
            "seq": 3,
            "kind": "permission-resolved",
            "requestId": "p1-3",
            "optionId": None,
            "by": "the rules",
            "answer": None,
        },
        {"seq": 4, "kind": "turn-end", "elapsed": 1.25},
    ]
    meta = {
        "agentLabel": "Demo agent",
        "queued": [{"text": "next", "author": "Ann", "as_written": None}],
        "options": [{"id": "mode", "name": "Mode", "type": "select", "currentValue": "a", "options": [{"value": "a"}]}],
        "commands": [{"name": "run", "description": "Run a command", "input": {"hint": "a command"}}],
        "namedPrompts": False,
    }
    db = sqlite3.connect(tmp_path / "canvas.db")
    migrate(db, MIGRATIONS)
    db.execute(
        "INSERT INTO sessions (id, agent, title, created, meta, head) VALUES ('s', 'demo', 'T', 1, ?, ?)",
        (json.dumps(meta), json.dumps({"status": "idle", "lastSeq": 5, "open": [], "turnOpen": False})),
    )
    texts = [json.dumps(row, separators=(",", ":"), ensure_ascii=False) for row in rows]
    db.executemany("INSERT INTO session_events VALUES ('s', ?, ?)", enumerate(texts, start=1))
    db.execute("INSERT INTO session_events VALUES ('s', 5, ?)", (json.dumps({"seq": 5, "kind": "mystery"}),))
    db.commit()
    db.close()

    store = Store(tmp_path / "canvas.db")
    [row] = store.sessions()
    assert (row.head.last_seq, row.meta.agent_label, row.meta.named_prompts) == (5, "Demo agent", False)
    assert row.meta.queued == [QueuedPrompt(text="next", author="Ann")]
    assert [o.current_value for o in row.meta.options] == ["a"] and row.meta.commands[0].input is not None
    with caplog.at_level("WARNING"):
        events = store.events("s")
    assert "a stored event no model reads was left out" in caplog.text
    assert [e.seq for e in events] == [1, 2, 3, 4]
    chunk = events[1]
    assert isinstance(chunk.update, ToolCallUpdate)  # type: ignore[union-attr]
    assert chunk.update.raw_output == {"exit_code": 0}  # type: ignore[union-attr]
    assert [json.loads(stored_json(e)) for e in events] == rows
    thread = session_log.fold(events)
    assert [item.type for item in thread.items] == ["user", "tool", "turn-end"]
    store.rewrite_events("s", 0, 4, events)
    rewritten = [json.loads(r[0]) for r in store.db.execute("SELECT event FROM session_events ORDER BY seq")]
    assert rewritten[:4] == rows
    store.close()
