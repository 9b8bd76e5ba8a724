import copy
import json
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.core import session_log

VECTORS = sorted((Path(__file__).parent / "vectors" / "session_log").glob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def test_vectors_present() -> None:
    assert len(VECTORS) >= 8


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_fold_matches_vector(path: Path) -> None:
    vector = _load(path)
    assert vector["name"] == path.stem
    assert session_log.fold(vector["events"]) == vector["thread"]


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_apply_step_by_step_equals_fold_of_prefix(path: Path) -> None:
    events = _load(path)["events"]
    thread = session_log.empty()
    for i, event in enumerate(events):
        session_log.apply(thread, copy.deepcopy(event))
        assert thread == session_log.fold(copy.deepcopy(events[: i + 1]))
    assert json.loads(json.dumps(thread)) == thread


def test_status_follows_turn_and_permissions() -> None:
    thread = session_log.empty()
    assert thread["status"] == "idle"
    session_log.apply(thread, {"seq": 1, "kind": "turn", "text": "t", "author": "host", "time": 0})
    assert thread["status"] == "running"
    session_log.apply(
        thread,
        {"seq": 2, "kind": "permission", "requestId": "r", "toolCallId": "c", "title": "T", "options": []},
    )
    assert thread["status"] == "waiting"
    session_log.apply(
        thread, {"seq": 3, "kind": "permission-resolved", "requestId": "r", "optionId": "x", "by": "host"}
    )
    assert thread["status"] == "running"
    session_log.apply(thread, {"seq": 4, "kind": "turn-end"})
    assert thread["status"] == "idle"
    assert [item["type"] for item in thread["items"]] == ["user", "permission"]


def test_replayed_overlap_is_ignored() -> None:
    events = _load(VECTORS[0])["events"]
    once = session_log.fold(events)
    assert session_log.fold(events + events) == once
