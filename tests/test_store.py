import sqlite3
import stat
from pathlib import Path

import pytest

from canvasrelay.server.store import MIGRATIONS, Store, migrate, schema_version


def test_fresh_store_is_migrated_to_latest_in_wal_mode(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    assert schema_version(store.db) == len(MIGRATIONS)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"sessions", "session_events", "board_updates", "audit"} <= tables
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
    store.append_event("s1", 1, {"kind": "turn", "text": "hi"})
    store.append_board_update(b"\x01\x02")
    store.audit("host", "test", {"n": 1})
    store.close()
    again = Store(tmp_path / "canvas.db")
    assert [s["id"] for s in again.sessions()] == ["s1"]
    assert again.events("s1") == [{"kind": "turn", "text": "hi"}]
    assert again.board_updates() == [b"\x01\x02"]
    assert again.audit_log()[0]["action"] == "test"


def test_board_checkpoint_replaces_older_updates(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    first = store.append_board_update(b"a")
    second = store.append_board_update(b"b")
    store.append_board_update(b"c")
    store.checkpoint_board(b"AB", second)
    assert first < second
    assert store.board_updates() == [b"AB", b"c"]
