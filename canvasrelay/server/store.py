"""The store: one SQLite file in WAL mode at `<dir>/.canvas/canvas.db`, with one writer.

Every write commits before the caller sends anything on, so whatever a client was sent
survives a crash of the server process (WAL with synchronous=NORMAL is durable against that).
The hot writes (session events) are staged instead: the runtime commits them in groups, once
per turn of the event loop, and holds every frame until then. The board's updates are in a file
of their own (`board_log`). History pages are read by a second connection in a thread of its
own (`HistoryReader`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypedDict

from pydantic import ValidationError

from canvasrelay.core import session_log
from canvasrelay.core.agent_sessions import HistoryPage, StoredSession
from canvasrelay.core.permission_rules import Rule
from canvasrelay.protocol.agents import SessionMeta
from canvasrelay.protocol.json_value import JsonObject
from canvasrelay.protocol.session_events import LogHead, SessionEvent, stored_event, stored_json
from canvasrelay.server.board.log import BOARD_LOG, write_log
from canvasrelay.server.canvas_dir import create_private

log = logging.getLogger(__name__)

DB_FILE = "canvas.db"
CHECKPOINT_EVERY = 250
"""Commits between two checkpoints of the write-ahead log (a commit writes a few pages; SQLite's
own default is every thousand pages)."""


def _statements(db: sqlite3.Connection, script: str) -> None:
    """Run each statement inside the caller's transaction (executescript would commit first)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _v1(db: sqlite3.Connection) -> None:
    _statements(
        db,
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            agent TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            agent_session_id TEXT,
            created REAL NOT NULL,
            meta TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE session_events (
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            event TEXT NOT NULL,
            PRIMARY KEY (session_id, seq)
        );
        CREATE TABLE board_updates (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            data BLOB NOT NULL,
            checkpoint INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE audit (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            time REAL NOT NULL,
            actor TEXT NOT NULL,
            action TEXT NOT NULL,
            detail TEXT NOT NULL DEFAULT '{}'
        );
        """,
    )


def _v2_session_rules(db: sqlite3.Connection) -> None:
    """Permission rules a host's answers added to one session (see permission_rules)."""
    _statements(
        db,
        """
        CREATE TABLE session_rules (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            rule TEXT NOT NULL,
            created REAL NOT NULL
        );
        CREATE INDEX session_rules_by_session ON session_rules (session_id, id);
        """,
    )


def _v3_session_heads(db: sqlite3.Connection) -> None:
    """Each session's head (status, last seq, open permissions) beside its log, so a start reads
    heads and no log. The heads of an existing store are folded once, here."""
    db.execute("ALTER TABLE sessions ADD COLUMN head TEXT NOT NULL DEFAULT '{}'")
    for (session_id,) in db.execute("SELECT id FROM sessions").fetchall():
        rows = db.execute("SELECT event FROM session_events WHERE session_id = ? ORDER BY seq", (session_id,))
        head = LogHead()
        for event in _events(session_id, rows):
            head = session_log.advance(head, event)
        db.execute("UPDATE sessions SET head = ? WHERE id = ?", (stored_json(head), session_id))


def _v4_board_rows_without_autoincrement(db: sqlite3.Connection) -> None:
    """Board rows numbered by plain rowid: AUTOINCREMENT wrote a second page (sqlite_sequence) in
    every commit. Ids still only grow, since the newest row is never deleted (a checkpoint takes
    the id of the last row it replaces)."""
    _statements(
        db,
        """
        CREATE TABLE board_rows (
            id INTEGER PRIMARY KEY,
            data BLOB NOT NULL,
            checkpoint INTEGER NOT NULL DEFAULT 0
        );
        INSERT INTO board_rows (id, data, checkpoint) SELECT id, data, checkpoint FROM board_updates;
        DROP TABLE board_updates;
        ALTER TABLE board_rows RENAME TO board_updates
        """,
    )


def _v5_board_in_a_file_of_its_own(db: sqlite3.Connection) -> None:
    """The board's updates move to `board.log` beside the store (see `board_log`). The log is
    written whole before the table goes, so a crash in between leaves the rows, and this step
    runs again."""
    rows = [bytes(row[0]) for row in db.execute("SELECT data FROM board_updates ORDER BY id")]
    store_file = db.execute("PRAGMA database_list").fetchone()[2]
    write_log(Path(store_file).with_name(BOARD_LOG), rows)
    db.execute("DROP TABLE board_updates")


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _v1,
    _v2_session_rules,
    _v3_session_heads,
    _v4_board_rows_without_autoincrement,
    _v5_board_in_a_file_of_its_own,
]


def schema_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite3.Connection, migrations: list[Callable[[sqlite3.Connection], None]]) -> int:
    """Bring the schema up to date; each step runs in its own transaction with the version bump."""
    current = schema_version(db)
    if current > len(migrations):
        raise RuntimeError(f"store schema v{current} is newer than this canvas (v{len(migrations)})")
    for version, step in enumerate(migrations[current:], start=current + 1):
        with db:
            db.execute("BEGIN")
            step(db)
            db.execute(f"PRAGMA user_version = {version}")
    return schema_version(db)


def _log_failed_checkpoint(done: Future[tuple[int, int, int]]) -> None:
    if done.exception() is not None:
        log.error("checkpointing the store's write-ahead log failed: %s", done.exception())


class AuditRow(TypedDict):
    """One line of the audit table. `detail` is the JSON its writer gave, which differs by `action`
    (a rule's fields, a permission's answer, a file the agent was refused)."""

    time: float
    actor: str
    action: str
    detail: JsonObject


class HistoryReader:
    """Reads history pages on a connection of its own in one worker thread: a page never holds up
    the event loop, and WAL lets it read while the loop's connection writes."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._db.execute("PRAGMA query_only = ON")
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="canvas-history")

    def checkpoint(self) -> Future[tuple[int, int, int]]:
        """Copy the write-ahead log into the database, in this thread: with two `fsync`s it stalled
        the event loop 20 to 25 ms every thousand pages when SQLite did it on the writer's commit.
        PASSIVE: it never blocks the writer, and copies what it can."""
        done = self._pool.submit(lambda: self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone())
        done.add_done_callback(_log_failed_checkpoint)
        return done

    async def page(
        self, session_id: str, after: int | None, before: int | None, limit: int, max_chars: int
    ) -> HistoryPage:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, read_page, self._db, session_id, after, before, limit, max_chars)

    async def compacted(self, session_id: str, after: int, through: int) -> list[SessionEvent] | None:
        """The events with `after` < seq ≤ `through`, compacted, or None if that saves nothing."""
        return await asyncio.get_running_loop().run_in_executor(
            self._pool, compact_range, self._db, session_id, after, through
        )

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        self._db.close()


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        create_private(path)
        self.db = sqlite3.connect(path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        # The history reader's thread checkpoints instead (`HistoryReader.checkpoint`).
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        migrate(self.db, MIGRATIONS)
        self.history = HistoryReader(path)
        self._commits = 0
        self.checkpointing: Future[tuple[int, int, int]] | None = None
        """The newest checkpoint asked of the reader's thread."""
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                os.chmod(side, 0o600)

    def close(self) -> None:
        self.commit()
        self.history.close()
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()

    # sessions

    def create_session(self, session_id: str, agent: str, title: str = "", meta: SessionMeta | None = None) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO sessions (id, agent, title, created, meta) VALUES (?, ?, ?, ?, ?)",
                (session_id, agent, title, time.time(), _meta_json(meta or SessionMeta())),
            )

    def update_session(self, session_id: str, **fields: Any) -> None:
        allowed = {"title", "agent_session_id", "meta"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"unknown session fields: {sorted(unknown)}")
        values = {k: _meta_json(v) if k == "meta" else v for k, v in fields.items()}
        assignments = ", ".join(f"{k} = ?" for k in values)
        with self.db:
            self.db.execute(f"UPDATE sessions SET {assignments} WHERE id = ?", (*values.values(), session_id))

    def delete_session(self, session_id: str) -> None:
        with self.db:
            self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    _SESSION_COLUMNS = "id, agent, title, agent_session_id, created, meta, head"

    def sessions(self) -> list[StoredSession]:
        """Every session's row with its head: no event is read."""
        rows = self.db.execute(f"SELECT {self._SESSION_COLUMNS} FROM sessions ORDER BY created").fetchall()
        return [_session_row(r) for r in rows]

    def session(self, session_id: str) -> StoredSession | None:
        """One session's row with its head, or None."""
        row = self.db.execute(f"SELECT {self._SESSION_COLUMNS} FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return None if row is None else _session_row(row)

    def append_event(self, session_id: str, event: SessionEvent, head: LogHead | None = None) -> None:
        self.stage_event(session_id, event, head)
        self.commit()

    def stage_event(self, session_id: str, event: SessionEvent, head: LogHead | None = None) -> None:
        """Write one event and the session's head after it, to be committed together by `commit`."""
        self.db.execute(
            "INSERT INTO session_events (session_id, seq, event) VALUES (?, ?, ?)",
            (session_id, event.seq, stored_json(event)),
        )
        if head is not None:
            self.db.execute("UPDATE sessions SET head = ? WHERE id = ?", (stored_json(head), session_id))

    def commit(self) -> None:
        """Make every staged write durable."""
        self.db.commit()
        self._commits += 1
        if self._commits % CHECKPOINT_EVERY == 0:
            self.checkpointing = self.history.checkpoint()

    def events(self, session_id: str, after: int = 0, limit: int | None = None) -> list[SessionEvent]:
        rows = self.db.execute(
            "SELECT event FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (session_id, after, -1 if limit is None else limit),
        ).fetchall()
        return _events(session_id, rows)

    def page(self, session_id: str, after: int | None, before: int | None, limit: int, max_chars: int) -> HistoryPage:
        return read_page(self.db, session_id, after, before, limit, max_chars)

    def rewrite_events(self, session_id: str, after: int, through: int, events: list[SessionEvent]) -> None:
        """Replace the events with `after` < seq ≤ `through` by `events` (a compacted turn)."""
        with self.db:
            self.db.execute(
                "DELETE FROM session_events WHERE session_id = ? AND seq > ? AND seq <= ?", (session_id, after, through)
            )
            self.db.executemany(
                "INSERT INTO session_events (session_id, seq, event) VALUES (?, ?, ?)",
                [(session_id, e.seq, stored_json(e)) for e in events],
            )

    def add_session_rule(self, session_id: str, rule: Rule) -> int:
        with self.db:
            cur = self.db.execute(
                "INSERT INTO session_rules (session_id, rule, created) VALUES (?, ?, ?)",
                (session_id, rule.model_dump_json(exclude_none=True), time.time()),
            )
        return int(cur.lastrowid or 0)

    def session_rules(self, session_id: str) -> list[tuple[int, Rule]]:
        rows = self.db.execute(
            "SELECT id, rule FROM session_rules WHERE session_id = ? ORDER BY id", (session_id,)
        ).fetchall()
        return [(int(r[0]), Rule.model_validate_json(r[1])) for r in rows]

    def delete_session_rules(self, session_id: str, rule_id: int | None = None) -> int:
        """Delete one of the session's rules, or all of them; returns how many went."""
        with self.db:
            if rule_id is None:
                cur = self.db.execute("DELETE FROM session_rules WHERE session_id = ?", (session_id,))
            else:
                cur = self.db.execute(
                    "DELETE FROM session_rules WHERE session_id = ? AND id = ?", (session_id, rule_id)
                )
        return cur.rowcount

    # audit

    def audit(self, actor: str, action: str, detail: JsonObject | None = None) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO audit (time, actor, action, detail) VALUES (?, ?, ?, ?)",
                (time.time(), actor, action, json.dumps(detail or {})),
            )

    def audit_log(self, limit: int = 100) -> list[AuditRow]:
        rows = self.db.execute(
            "SELECT time, actor, action, detail FROM audit ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
        return [AuditRow(time=r[0], actor=r[1], action=r[2], detail=json.loads(r[3])) for r in rows]


def read_page(
    db: sqlite3.Connection, session_id: str, after: int | None, before: int | None, limit: int, max_chars: int
) -> HistoryPage:
    """One bounded page of a session's log, with the range it covers (see `HistoryPage`).

    With `after`: the oldest events after it. Otherwise the newest events before `before` (or
    the newest of all). At most `limit` events and, past the first, `max_chars` of their JSON.
    """
    if after is not None:
        rows = db.execute(
            "SELECT seq, event FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (session_id, after, limit),
        ).fetchall()
        kept = _within(rows, max_chars)
        through = kept[-1][0] if kept else after
        return HistoryPage(_events(session_id, [(r[1],) for r in kept]), after, through)
    rows = db.execute(
        "SELECT seq, event FROM session_events WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?",
        (session_id, 2**63 - 1 if before is None else before, limit + 1),
    ).fetchall()
    newest = rows[0][0] if rows else 0
    kept = _within(rows[:limit], max_chars)
    # Every event after the first one left out is in the page.
    start = rows[len(kept)][0] if len(rows) > len(kept) else 0
    through = newest if before is None else before - 1
    return HistoryPage(_events(session_id, [(r[1],) for r in reversed(kept)]), start, through)


def compact_range(db: sqlite3.Connection, session_id: str, after: int, through: int) -> list[SessionEvent] | None:
    rows = db.execute(
        "SELECT event FROM session_events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
        (session_id, after, through),
    ).fetchall()
    events = _events(session_id, rows)
    smaller = session_log.compact(events)
    if len(smaller) == len(events):
        return None
    if session_log.fold(smaller) != session_log.fold(events):
        raise RuntimeError(f"compacting session {session_id} would change its thread")
    return smaller


def _within(rows: list[tuple[int, str]], max_chars: int) -> list[tuple[int, str]]:
    total = 0
    for i, (_, text) in enumerate(rows):
        total += len(text)
        if total > max_chars and i > 0:
            return rows[:i]
    return rows


def stored_logs(path: Path) -> list[tuple[StoredSession, list[SessionEvent]]]:
    """Every session's row and log, read without writing (beside a running server, or none)."""
    if not path.exists():
        return []
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        rows = db.execute(f"SELECT {Store._SESSION_COLUMNS} FROM sessions ORDER BY created").fetchall()
        return [
            (
                _session_row(row),
                _events(
                    row[0], db.execute("SELECT event FROM session_events WHERE session_id = ? ORDER BY seq", (row[0],))
                ),
            )
            for row in rows
        ]
    finally:
        db.close()


def open_store(canvas_dir: Path) -> Store:
    return Store(canvas_dir / DB_FILE)


def _session_row(r: tuple[Any, ...]) -> StoredSession:
    return StoredSession(
        id=r[0],
        agent=r[1],
        title=r[2],
        agent_session_id=r[3],
        created=r[4],
        meta=SessionMeta.model_validate_json(r[5]),
        head=LogHead.model_validate_json(r[6]),
    )


def _meta_json(meta: SessionMeta) -> str:
    return meta.model_dump_json(by_alias=True, exclude_unset=True)


def _events(session_id: str, rows: Iterable[tuple[str]]) -> list[SessionEvent]:
    """The stored log's rows as events: the one place they are parsed. A row no model reads (none
    canvas wrote: it checks every event it sends) is left out, and said in the log."""
    events = []
    for (text,) in rows:
        try:
            events.append(stored_event(text))
        except ValidationError as exc:
            log.warning("session %s: a stored event no model reads was left out: %s", session_id, exc)
    return events
