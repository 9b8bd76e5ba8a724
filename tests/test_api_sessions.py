"""The API's session writes against a real server with the demo agent: a prompt sent through
the API streams to a host WebSocket and to the SSE stream alike; permissions, config, rename,
delete."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.support import HostClient, ServerProcess
from tests.test_agents_serve import events_until
from tests.test_api import error_of, read_sse


@pytest.fixture
async def http(server: ServerProcess) -> AsyncIterator[aiohttp.ClientSession]:
    headers = {"Authorization": f"Bearer {server.token}"}
    async with aiohttp.ClientSession(base_url=server.base_url, headers=headers) as session:
        yield session


async def create(http: aiohttp.ClientSession, **body: Any) -> dict[str, Any]:
    async with http.post("/api/sessions", json={"agent": "demo", **body}) as response:
        assert response.status == 201, await response.text()
        return await response.json()  # type: ignore[no-any-return]


async def test_a_prompt_through_the_api_streams_to_the_socket_and_the_sse_stream(
    http: aiohttp.ClientSession, host: HostClient
) -> None:
    session = await create(http, id="api1", title="from a script")
    assert (session["id"], session["title"], session["status"]) == ("api1", "from a script", "idle")
    async with http.get("/api/session/api1/events") as stream:
        async with http.post("/api/session/api1/prompt", json={"text": "streamed twice"}) as response:
            assert response.status == 202
            assert (await response.json())["status"] == "running"
        on_socket = await events_until(host, "api1", "turn-end")
        on_sse: list[dict[str, Any]] = []
        while not on_sse or on_sse[-1]["kind"] != "turn-end":
            on_sse += [event for _, _, event in await read_sse(stream, 1)]
    assert on_socket == on_sse
    assert on_socket[0] == {**on_socket[0], "kind": "turn", "text": "streamed twice", "author": "api"}


async def test_the_event_stream_resumes_after_its_last_event_and_ends_when_the_session_goes(
    http: aiohttp.ClientSession, host: HostClient
) -> None:
    await create(http, id="api3")
    async with http.post("/api/session/api3/prompt", json={"text": "first"}) as response:
        assert response.status == 202
    first = await events_until(host, "api3", "turn-end")
    async with http.get("/api/session/api3/events", headers={"Last-Event-ID": str(first[-1]["seq"])}) as stream:
        async with http.post("/api/session/api3/prompt", json={"text": "second"}) as response:
            assert response.status == 202
        second = await events_until(host, "api3", "turn-end")
        streamed = [event for _, _, event in await read_sse(stream, len(second))]
        assert streamed == second and streamed[0]["text"] == "second"
        async with http.delete("/api/session/api3") as response:
            assert response.status == 204
        assert (await stream.content.read()).decode() == "event: deleted\ndata: {}\n\n"


async def test_permission_config_rename_delete(
    http: aiohttp.ClientSession, host: HostClient, server: ServerProcess
) -> None:
    await create(http, id="api2")
    await host.expect("agent-options", sessionId="api2")
    async with http.get("/api/session/api2/config") as response:
        assert [o["id"] for o in (await response.json())["options"]] == ["mode"]
    async with http.put("/api/session/api2/config/mode", json={"value": "verbose"}) as response:
        assert (await response.json())["options"][0]["currentValue"] == "verbose"
    async with http.put("/api/session/api2/config/nope", json={"value": "x"}) as response:
        await error_of(response, 404)

    async with http.post("/api/session/api2/prompt", json={"text": "/write api.txt by the api"}) as response:
        assert response.status == 202
    asked = (await events_until(host, "api2", "permission"))[-1]
    async with http.post(f"/api/session/api2/permission/{asked['requestId']}", json={"optionId": "x"}) as response:
        assert "offered no option 'x'" in (await error_of(response, 422))["message"]
    async with http.post(f"/api/session/api2/permission/{asked['requestId']}", json={"answer": "once"}) as response:
        assert response.status == 200, await response.text()
    async with http.post(f"/api/session/api2/permission/{asked['requestId']}", json={"answer": "reject"}) as response:
        await error_of(response, 409)
    await events_until(host, "api2", "turn-end")
    assert (server.root / "api.txt").read_text() == "by the api"

    async with http.post("/api/session/api2/cancel") as response:
        assert (await response.json())["status"] == "idle"
    async with http.patch("/api/session/api2", json={"title": "renamed"}) as response:
        assert (await response.json())["title"] == "renamed"
    while (await host.expect("agent-meta"))["meta"]["title"] != "renamed":
        pass
    async with http.post("/api/sessions", json={"agent": "demo", "id": "api2"}) as response:
        await error_of(response, 409)
    async with http.post("/api/sessions", json={"agent": "nobody"}) as response:
        await error_of(response, 404)
    async with http.delete("/api/session/api2") as response:
        assert response.status == 204
    await host.expect("agent-removed", sessionId="api2")
    async with http.get("/api/session/api2") as response:
        await error_of(response, 404)
    async with http.post("/api/session/api2/prompt", json={"text": "gone"}) as response:
        await error_of(response, 404)
