"""TURN through a real coturn (`use-auth-secret`): credentials only for room-link holders, refused once
expired, minted by every instance again as soon as a restarted Redis is back, and a relay-only hub and
guest that meet through the relay and stream a terminal over it."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis.asyncio as aioredis
from aiohttp import web
from aioice.stun import TransactionFailed
from aioice.turn import create_turn_endpoint

from canvasrelay.client.guest import Guest
from canvasrelay.protocol import signal_crypto
from canvasrelay.server.room_secrets import RoomSecrets
from canvasrelay.signal import rendezvous
from canvasrelay.signal.redis_bus import VERIFIER_PREFIX
from canvasrelay.signal.turn_credentials import (
    LIFETIME_SECONDS,
    PER_SOURCE_BURST,
    PER_TOPIC_BURST,
    TurnConfig,
    mint,
)
from tests.conftest import Cluster
from tests.services import Coturn, link_via
from tests.support import HostClient, ServerProcess

pytestmark = pytest.mark.services

TIMEOUT = 20.0
AFTER_REDIS_RESTART = 10.0
"""Well under the 30 s of an instance's periodic refresh: the verifiers come back on reconnecting."""


async def ask(session: aiohttp.ClientSession, http: str, body: Any) -> tuple[int, dict[str, Any]]:
    text = body if isinstance(body, str) else json.dumps(body)
    async with session.post(f"{http}/turn", data=text) as response:
        return response.status, await response.json()


async def allocate(coturn: Coturn, username: str, password: str) -> None:
    """One TURN allocation, as aiortc makes it: raises TransactionFailed when coturn refuses."""
    transport, _ = await create_turn_endpoint(asyncio.DatagramProtocol, ("127.0.0.1", coturn.port), username, password)
    transport.close()


async def test_credentials_go_to_holders_of_the_room_link_only(turn_cluster: Cluster, coturn: Coturn) -> None:
    room = RoomSecrets.generate()
    topic = signal_crypto.topic(room.room_key)
    proof = signal_crypto.turn_proof(room.room_key)
    stranger = signal_crypto.turn_proof(RoomSecrets.generate().room_key)
    async with aiohttp.ClientSession() as session:
        status, _ = await ask(session, turn_cluster.b.http, {"topic": topic, "proof": proof})
        assert status == 403, "no host has registered this room: nothing to hand out"
        host = await session.ws_connect(f"{turn_cluster.a.url}?topic={topic}&turn={signal_crypto.turn_verifier(proof)}")
        status, answer = await ask(session, turn_cluster.b.http, {"topic": topic, "proof": proof})
        assert status == 200, "the host registered on A; B hands out credentials for it"
        server = answer["iceServers"][0]
        assert server["urls"] == [coturn.url] and answer["ttl"] == LIFETIME_SECONDS
        expiry = int(server["username"].split(":")[0])
        assert time.time() + LIFETIME_SECONDS - 60 < expiry <= time.time() + LIFETIME_SECONDS + 1
        await allocate(coturn, server["username"], server["credential"])

        assert (await ask(session, turn_cluster.b.http, {"topic": topic, "proof": stranger}))[0] == 403
        assert (await ask(session, turn_cluster.b.http, {"topic": topic}))[0] == 400
        assert (await ask(session, turn_cluster.b.http, "not json"))[0] == 400
        await host.close()
        # The host left: A withdraws its registration (what B sees of it is eventually consistent).
        async with asyncio.timeout(TIMEOUT):
            while (await ask(session, turn_cluster.b.http, {"topic": topic, "proof": proof}))[0] != 403:
                await asyncio.sleep(0.1)
    for instance in (turn_cluster.a, turn_cluster.b):
        assert instance.output is not None
        assert coturn.secret not in "".join(instance.output.lines), "the TURN secret is never printed"


async def test_coturn_refuses_credentials_past_their_expiry(coturn: Coturn) -> None:
    expired = mint(coturn.secret.encode(), lifetime=-60)
    with pytest.raises(TransactionFailed) as refused:
        await allocate(coturn, *expired)
    assert refused.value.response.attributes["ERROR-CODE"][0] == 401
    await allocate(coturn, *mint(coturn.secret.encode(), lifetime=60))


@pytest.fixture
async def in_process_turn() -> AsyncIterator[tuple[str, rendezvous.Rendezvous]]:
    relay = rendezvous.Rendezvous(turn=TurnConfig(b"secret", ("turn:127.0.0.1:3478",)), forwarded_for=True)
    app = web.Application()
    rendezvous.add_routes(app, relay)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}", relay
    await runner.cleanup()


async def test_credential_requests_are_rate_limited_per_source(
    in_process_turn: tuple[str, rendezvous.Rendezvous],
) -> None:
    http, relay = in_process_turn
    body = json.dumps({"topic": "T" * 43, "proof": "p" * 43})

    async def status(session: aiohttp.ClientSession, hops: str) -> int:
        async with session.post(f"{http}/turn", data=body, headers={"X-Forwarded-For": hops}) as response:
            return response.status

    async with aiohttp.ClientSession() as session:
        # The client may claim any first hop; the load balancer's own, last, entry is what counts.
        seen = [await status(session, f"claimed-{n}, 198.51.100.7") for n in range(int(PER_SOURCE_BURST) + 1)]
        assert seen[:-1] == [403] * int(PER_SOURCE_BURST) and seen[-1] == 429
        assert await status(session, "claimed, 198.51.100.8") == 403, "another address has its own budget"
    sample = relay.metrics.registry.get_sample_value
    assert sample("canvas_signal_turn_credentials_total", {"outcome": "throttled"}) == 1


async def test_a_relay_only_guest_streams_a_terminal_through_coturn(
    turn_cluster: Cluster, coturn: Coturn, project: Path
) -> None:
    served = ServerProcess(project).start(
        "--signal", turn_cluster.a.url, "--base-url", turn_cluster.a.http, "--relay-only"
    )
    try:
        assert "relay=1" in served.room_link
        before = coturn.allocations()
        host = await HostClient.connect(served)
        guest = await Guest(link_via(served.room_link, turn_cluster.b.url), name="Hidden Hal").connect()
        await guest.expect("welcome")
        assert guest.pc is not None
        route = await guest.pc.route()
        assert route is not None and route.local == "relay", "the guest reaches the hub only through its relay"
        assert coturn.allocations() >= before + 2, "the hub and the guest each took a relay"

        await host.send({"t": "term-open", "id": "t1", "cols": 80, "rows": 24})
        await host.expect("term-data", id="t1")
        await guest.send({"t": "term-open", "id": "t1"})
        await host.send({"t": "term-input", "id": "t1", "data": "echo relayed-$((6*7))\r"})
        async with asyncio.timeout(TIMEOUT):
            while "relayed-42" not in json.dumps(await guest.expect("term-data", id="t1")):
                pass
        await host.send({"t": "term-close", "id": "t1"})
        await guest.close()
        await host.close()
    finally:
        served.stop()


async def test_strangers_cannot_spend_a_rooms_budget(in_process_turn: tuple[str, rendezvous.Rendezvous]) -> None:
    http, relay = in_process_turn
    room = RoomSecrets.generate()
    topic = signal_crypto.topic(room.room_key)
    proof = signal_crypto.turn_proof(room.room_key)
    await relay.verifiers.add(topic, signal_crypto.turn_verifier(proof))
    wrong = json.dumps({"topic": topic, "proof": signal_crypto.turn_proof(RoomSecrets.generate().room_key)})
    async with aiohttp.ClientSession() as session:
        sources = int(PER_TOPIC_BURST / PER_SOURCE_BURST) + 1
        for source in range(sources):
            for _ in range(int(PER_SOURCE_BURST)):
                headers = {"X-Forwarded-For": f"198.51.100.{source}"}
                async with session.post(f"{http}/turn", data=wrong, headers=headers) as response:
                    assert response.status == 403
        right = json.dumps({"topic": topic, "proof": proof})
        async with session.post(f"{http}/turn", data=right, headers={"X-Forwarded-For": "198.51.100.99"}) as response:
            assert response.status == 200, "more wrong proofs than the topic's burst, and the room still gets in"


async def test_after_a_redis_restart_the_other_instance_mints_for_a_registered_room_at_once(
    own_cluster: Callable[..., Cluster], coturn: Coturn, tmp_path: Path
) -> None:
    secret_file = tmp_path / "turn-secret"
    secret_file.write_text(coturn.secret + "\n")
    secret_file.chmod(0o600)
    running = own_cluster("--turn-secret-file", str(secret_file), "--turn-url", coturn.url)
    room = RoomSecrets.generate()
    topic, proof = signal_crypto.topic(room.room_key), signal_crypto.turn_proof(room.room_key)
    verifier = signal_crypto.turn_verifier(proof)
    async with aiohttp.ClientSession() as session:
        host = await session.ws_connect(f"{running.a.url}?topic={topic}&turn={verifier}")
        assert (await ask(session, running.b.http, {"topic": topic, "proof": proof}))[0] == 200
        # Redis comes back empty: the verifier A holds for its host must be there again at once,
        # not at A's next periodic refresh.
        await asyncio.to_thread(running.redis.restart)
        restarted = time.monotonic()
        key = f"{VERIFIER_PREFIX}{topic}:{verifier}"
        async with aioredis.from_url(running.redis.url) as redis, asyncio.timeout(AFTER_REDIS_RESTART):
            # Redis's own notice of the key being written, listened for before looking at it.
            await redis.config_set("notify-keyspace-events", "KA")
            async with redis.pubsub() as notices:
                await notices.subscribe(f"__keyspace@0__:{key}")
                if not await redis.exists(key):
                    async for notice in notices.listen():
                        if notice["type"] == "message":
                            break
        back = time.monotonic() - restarted
        status, answer = await ask(session, running.b.http, {"topic": topic, "proof": proof})
        took = time.monotonic() - restarted
        print(f"after a Redis restart: the verifier was back in {back:.2f} s, B minted in {took:.2f} s")
        assert status == 200, answer
        await allocate(coturn, answer["iceServers"][0]["username"], answer["iceServers"][0]["credential"])
        await host.close()
