"""The HTTP API against a real `canvas serve`: schemathesis from the OpenAPI document, auth,
the error shape, the version header, CORS and the docs page."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from canvasrelay import __version__
from canvasrelay.core import session_log
from canvasrelay.core.permission_rules import Rule
from canvasrelay.protocol.session_events import LogHead, session_event
from canvasrelay.server.store import Store
from tests.support import ServerProcess

SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
SCHEMATHESIS_TIMEOUT = 400


@pytest.fixture(scope="module")
def api_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    root = tmp_path_factory.mktemp("api") / "project"
    (root / ".canvas").mkdir(parents=True)
    (root / ".canvas" / "config.toml").write_text('[api]\ncors_origins = ["https://tools.example"]\n')
    proc = ServerProcess(root).start()
    yield proc
    proc.stop()


@pytest.fixture
async def http(api_server: ServerProcess) -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(base_url=api_server.base_url) as session:
        yield session


def auth(server: ServerProcess) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.token}"}


async def error_of(response: aiohttp.ClientResponse, status: int) -> dict[str, Any]:
    assert response.status == status, await response.text()
    assert response.headers["X-Canvas-Version"] == __version__
    body = await response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert {"name", "message", "code"} <= set(error) <= {"name", "message", "code", "details"}
    assert error["code"] == status
    return error


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, from /proc."""
    children: dict[int, set[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), set()).add(int(stat.parent.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), set()) - found:
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


@pytest.mark.timeout(SCHEMATHESIS_TIMEOUT + 60)
def test_schemathesis_over_the_whole_api_finds_nothing_and_leaves_nothing(tmp_path: Path) -> None:
    if not SCHEMATHESIS.exists():
        pytest.skip("schemathesis is not installed (pip install -e '.[test]')")
    root = tmp_path / "project"
    root.mkdir()
    server = ServerProcess(root).start()
    assert server.proc is not None
    started: set[int] = set()
    try:
        result = subprocess.run(
            [
                str(SCHEMATHESIS),
                "--config-file",
                str(Path(__file__).with_name("schemathesis.toml")),
                "run",
                f"{server.base_url}/api/openapi.json",
                "--header",
                f"Authorization: Bearer {server.token}",
                "--checks",
                "all",
                "--max-examples",
                "15",
                "--request-timeout",
                "10",
                "--workers",
                "1",
                "--no-color",
            ],
            capture_output=True,
            text=True,
            timeout=SCHEMATHESIS_TIMEOUT,
            cwd=tmp_path,
            check=False,
        )
        started = descendants(server.proc.pid)
    finally:
        server.stop()
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert re.search(r"\d+ passed", result.stdout)
    log = "".join(server.output)
    assert "Traceback" not in log and "ERROR" not in log, log[-4000:]
    assert [pid for pid in started if alive(pid)] == [], "the server's children outlived it"


async def test_the_document_is_openapi_3_1_and_the_docs_page_is_self_contained(
    http: aiohttp.ClientSession,
) -> None:
    async with http.get("/api/openapi.json") as response:
        spec = await response.json()
    assert spec["openapi"].startswith("3.1")
    assert spec["info"]["version"] == __version__
    assert "/api/health" in spec["paths"]
    assert "ErrorOut" in spec["components"]["schemas"]
    async with http.get("/api/docs") as response:
        assert response.status == 200
        page = await response.text()
    assert "openapi.json" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "the docs page must not need the internet"


async def test_a_body_over_1_mib_is_a_documented_413(api_server: ServerProcess, http: aiohttp.ClientSession) -> None:
    async with http.get("/api/openapi.json") as response:
        spec = await response.json()
    with_body = [op for methods in spec["paths"].values() for op in methods.values() if "requestBody" in op]
    assert with_body and all("413" in op["responses"] for op in with_body)
    big = json.dumps({"agent": "demo", "title": "x" * (1 << 20)})
    async with http.post("/api/sessions", headers=auth(api_server), data=big) as response:
        error = await error_of(response, 413)
    assert error["name"] == "payload_too_large"
    events = spec["paths"]["/api/session/{sessionId}/events"]["get"]["responses"]["200"]["content"]
    assert events["text/event-stream"]["schema"]["properties"]["event"]["enum"][-1] == "deleted"


async def test_auth_is_required_everywhere_but_health(api_server: ServerProcess, http: aiohttp.ClientSession) -> None:
    async with http.get("/api/openapi.json") as response:
        spec = await response.json()
    checked = 0
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            url = re.sub(r"{\w+}", "x", path)
            for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": api_server.token}):
                async with http.request(method, url, headers=headers, json={}) as response:
                    if path == "/api/health":
                        assert response.status == 200
                        assert op["security"] == []
                        continue
                    error = await error_of(response, 401)
                    assert error["name"] == "unauthorized"
                    assert response.headers["WWW-Authenticate"] == "Bearer"
                    checked += 1
    assert checked >= 3 * 5
    async with http.get("/api/health") as response:
        health = await response.json()
    assert health["version"] == __version__
    assert health["uptimeSeconds"] >= 0
    assert (health["sessions"], health["guests"]) == (0, 0)


async def test_one_error_shape(api_server: ServerProcess, http: aiohttp.ClientSession) -> None:
    headers = auth(api_server)
    async with http.get("/api/nowhere", headers=headers) as response:
        assert (await error_of(response, 404))["name"] == "not_found"
    async with http.put("/api/guest/nobody/access", headers=headers, json={"access": "edit"}) as response:
        assert (await error_of(response, 404))["message"] == "guest not found"
    async with http.put("/api/guest/nobody/access", headers=headers, data=b"{not json") as response:
        assert (await error_of(response, 400))["name"] == "bad_request"
    async with http.put("/api/guest/nobody/access", headers=headers, json={"access": 3, "extra": 1}) as response:
        error = await error_of(response, 422)
    assert error["name"] == "validation_error"
    assert {d["field"] for d in error["details"]} == {"body.access", "body.extra"}
    async with http.get("/api/board/items", headers=headers, params={"surprise": "1"}) as response:
        await error_of(response, 422)
    async with http.post("/api/health") as response:
        assert (await error_of(response, 405))["name"] == "method_not_allowed"
    async with http.get("/api/board/items", headers=headers) as response:
        assert response.status == 200
        assert response.headers["X-Canvas-Version"] == __version__
        assert await response.json() == {"items": []}
    async with http.get("/api/guests", headers=headers) as response:
        assert await response.json() == {"defaultAccess": "view", "guests": []}


async def test_cors_only_for_the_servers_own_origin_unless_configured(
    api_server: ServerProcess, http: aiohttp.ClientSession
) -> None:
    own = api_server.base_url
    for origin, allowed in ((own, True), ("https://tools.example", True), ("https://evil.example", False)):
        async with http.get("/api/health", headers={"Origin": origin}) as response:
            assert response.status == 200
            assert response.headers.get("Access-Control-Allow-Origin") == (origin if allowed else None)
        preflight = {"Origin": origin, "Access-Control-Request-Method": "POST"}
        async with http.options("/api/sessions", headers=preflight) as response:
            if allowed:
                assert response.status == 204
                assert response.headers["Access-Control-Allow-Origin"] == origin
                assert "Authorization" in response.headers["Access-Control-Allow-Headers"]
            else:
                await error_of(response, 403)
                assert "Access-Control-Allow-Origin" not in response.headers


def seed_session(server: ServerProcess, session_id: str, events: int) -> None:
    """Write a session and its log into the server's store, as the session manager does."""
    store = Store(server.root / ".canvas" / "canvas.db")
    try:
        store.create_session(session_id, "demo", "seeded")
        head = LogHead()
        for seq in range(1, events + 1):
            event = session_event(chunk_event(seq))
            head = session_log.advance(head, event)
            store.append_event(session_id, event, head)
    finally:
        store.db.close()


def chunk_event(seq: int) -> dict[str, Any]:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": f"w{seq} "}}
    return {"seq": seq, "kind": "chunk", "update": update}


async def read_sse(response: aiohttp.ClientResponse, count: int) -> list[tuple[str, str, dict[str, Any]]]:
    events: list[tuple[str, str, dict[str, Any]]] = []
    fields: dict[str, str] = {}
    async with asyncio.timeout(10):
        while len(events) < count:
            line = (await response.content.readline()).decode().rstrip("\n")
            if line:
                key, _, value = line.partition(": ")
                fields[key] = value
            elif "data" in fields:
                events.append((fields.get("id", ""), fields.get("event", ""), json.loads(fields["data"])))
                fields = {}
    return events


async def test_sessions_pages_events_and_the_event_stream(
    api_server: ServerProcess, http: aiohttp.ClientSession
) -> None:
    headers = auth(api_server)
    seed_session(api_server, "paged", 450)
    async with http.get("/api/sessions", headers=headers, params={"limit": "1"}) as response:
        page = await response.json()
    assert [s["id"] for s in page["sessions"]] == ["paged"]
    async with http.get("/api/session/paged", headers=headers, params={"limit": "3", "after": "2"}) as response:
        body = await response.json()
    assert [e["seq"] for e in body["events"]] == [3, 4, 5]
    assert body["nextAfter"] == 5
    assert (body["session"]["status"], body["session"]["lastSeq"]) == ("idle", 450)
    async with http.get("/api/session/paged", headers=headers, params={"after": "445"}) as response:
        assert (await response.json())["nextAfter"] is None
    async with http.get("/api/session/nope", headers=headers) as response:
        await error_of(response, 404)

    stream_headers = {**headers, "Last-Event-ID": "5", "Origin": api_server.base_url}
    async with http.get("/api/session/paged/events", headers=stream_headers) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        assert response.headers["X-Canvas-Version"] == __version__
        assert response.headers["Access-Control-Allow-Origin"] == api_server.base_url
        # What the store holds after Last-Event-ID, in pages, in order; new events come from the
        # broadcast (tests/test_api_sessions.py streams a prompt's).
        streamed = await read_sse(response, 445)
        assert [(i, k) for i, k, _ in streamed] == [(str(seq), "chunk") for seq in range(6, 451)]
        assert streamed[-1][2] == chunk_event(450)
    async with http.get("/api/session/paged/events", headers={**headers, "Last-Event-ID": "x"}) as response:
        await error_of(response, 422)


async def test_session_rules_through_the_api(api_server: ServerProcess, http: aiohttp.ClientSession) -> None:
    headers = auth(api_server)
    seed_session(api_server, "ruled", 0)
    store = Store(api_server.root / ".canvas" / "canvas.db")
    first = store.add_session_rule("ruled", Rule(permission="edit", pattern="a.md", action="allow"))
    store.add_session_rule("ruled", Rule(permission="execute", pattern="rm *", action="deny", reason="no"))
    store.add_session_rule("ruled", Rule(permission="read", pattern="*", action="allow"))
    store.db.close()
    async with http.get("/api/session/ruled/rules", headers=headers) as response:
        rules = await response.json()
    assert [r["rule"]["pattern"] for r in rules["session"]] == ["a.md", "rm *", "*"]
    assert (rules["user"], rules["project"]) == ([], [])
    async with http.delete(f"/api/session/ruled/rules/{first}", headers=headers) as response:
        assert response.status == 204
    async with http.delete(f"/api/session/ruled/rules/{first}", headers=headers) as response:
        await error_of(response, 404)
    async with http.delete("/api/session/ruled/rules", headers=headers) as response:
        assert await response.json() == {"removed": 2}
    async with http.get("/api/session/ruled/rules", headers=headers) as response:
        assert (await response.json())["session"] == []
