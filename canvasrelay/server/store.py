"""The store: one SQLite file in WAL mode at `<dir>/.canvas/canvas.db`, with one writer.

Every write commits before the caller sends anything on, so whatever a client was sent
survives a crash of the server process (WAL with synchronous=NORMAL is durable against that).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from canvasrelay.server.canvas_dir import create_private

DB_FILE = "canvas.db"


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


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_v1, _v2_session_rules]


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


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        create_private(path)
        self.db = sqlite3.connect(path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        migrate(self.db, MIGRATIONS)
        for suffix in ("-wal", "-shm"):
            side = path.with_name(path.name + suffix)
            if side.exists():
                os.chmod(side, 0o600)

    def close(self) -> None:
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()

    # sessions

    def create_session(self, session_id: str, agent: str, title: str = "", meta: dict[str, Any] | None = None) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO sessions (id, agent, title, created, meta) VALUES (?, ?, ?, ?, ?)",
                (session_id, agent, title, time.time(), json.dumps(meta or {})),
            )

    def update_session(self, session_id: str, **fields: Any) -> None:
        allowed = {"title", "agent_session_id", "meta"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"unknown session fields: {sorted(unknown)}")
        values = {k: json.dumps(v) if k == "meta" else v for k, v in fields.items()}
        assignments = ", ".join(f"{k} = ?" for k in values)
        with self.db:
            self.db.execute(f"UPDATE sessions SET {assignments} WHERE id = ?", (*values.values(), session_id))

    def delete_session(self, session_id: str) -> None:
        with self.db:
            self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def sessions(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT id, agent, title, agent_session_id, created, meta FROM sessions ORDER BY created"
        ).fetchall()
        return [
            {
                "id": r[0],
                "agent": r[1],
                "title": r[2],
                "agentSessionId": r[3],
                "created": r[4],
                "meta": json.loads(r[5]),
            }
            for r in rows
        ]

    def append_event(self, session_id: str, seq: int, event: dict[str, Any]) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO session_events (session_id, seq, event) VALUES (?, ?, ?)",
                (session_id, seq, json.dumps(event, separators=(",", ":"))),
            )

    def events(self, session_id: str, after: int = 0, limit: int | None = None) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT event FROM session_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            (session_id, after, -1 if limit is None else limit),
        ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def add_session_rule(self, session_id: str, rule: dict[str, Any]) -> int:
        with self.db:
            cur = self.db.execute(
                "INSERT INTO session_rules (session_id, rule, created) VALUES (?, ?, ?)",
                (session_id, json.dumps(rule), time.time()),
            )
        return int(cur.lastrowid or 0)

    def session_rules(self, session_id: str) -> list[tuple[int, dict[str, Any]]]:
        rows = self.db.execute(
            "SELECT id, rule FROM session_rules WHERE session_id = ? ORDER BY id", (session_id,)
        ).fetchall()
        return [(int(r[0]), json.loads(r[1])) for r in rows]

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

    # board

    def append_board_update(self, data: bytes) -> int:
        with self.db:
            cur = self.db.execute("INSERT INTO board_updates (data) VALUES (?)", (data,))
        return int(cur.lastrowid or 0)

    def board_updates(self) -> list[bytes]:
        """The checkpoint (if any) first, then every update after it, in order."""
        return [bytes(r[0]) for r in self.db.execute("SELECT data FROM board_updates ORDER BY id")]

    def checkpoint_board(self, state: bytes, upto_id: int) -> None:
        """Replace every update up to `upto_id` by one checkpoint holding the state they made."""
        with self.db:
            self.db.execute("DELETE FROM board_updates WHERE id <= ?", (upto_id,))
            self.db.execute("INSERT INTO board_updates (id, data, checkpoint) VALUES (?, ?, 1)", (upto_id, state))

    def board_last_id(self) -> int | None:
        """The id of the newest row, which a checkpoint of the whole board may replace everything up to."""
        row = self.db.execute("SELECT MAX(id) FROM board_updates").fetchone()
        return None if row[0] is None else int(row[0])

    def board_size(self) -> int:
        return int(self.db.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM board_updates").fetchone()[0])

    # audit

    def audit(self, actor: str, action: str, detail: dict[str, Any] | None = None) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO audit (time, actor, action, detail) VALUES (?, ?, ?, ?)",
                (time.time(), actor, action, json.dumps(detail or {})),
            )

    def audit_log(self, limit: int = 100) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT time, actor, action, detail FROM audit ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
        return [{"time": r[0], "actor": r[1], "action": r[2], "detail": json.loads(r[3])} for r in rows]


def open_store(canvas_dir: Path) -> Store:
    return Store(canvas_dir / DB_FILE)
