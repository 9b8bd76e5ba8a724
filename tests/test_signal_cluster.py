"""Two `canvas signal --redis` instances and a Redis carry rooms as one: a hub on A, guests on B, and
what happens when Redis restarts, an instance dies, or Redis is not there yet. All real processes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import redis.asyncio as aioredis

from canvasrelay.client.guest import Guest
from canvasrelay.protocol import signal_crypto
from canvasrelay.signal.redis_bus import CHANNEL_PREFIX
from tests.conftest import Cluster
from tests.services import RedisServer, SignalInstance, link_via
from tests.support import HostClient, ServerProcess, require

pytestmark = pytest.mark.services

JOIN_AFTER_RESTART = 10.0


@pytest.fixture
def serve_on(project: Path) -> Iterator[Callable[..., ServerProcess]]:
    """`canvas serve --signal <instance>`: the hub listens on that rendezvous."""
    started: list[ServerProcess] = []

    def start(instance: SignalInstance, *extra: str) -> ServerProcess:
        started.append(ServerProcess(project).start("--signal", instance.url, "--base-url", instance.http, *extra))
        return started[-1]

    yield start
    for served in started:
        served.stop()


async def wait_for_guest(host: HostClient, name: str) -> dict[str, Any]:
    while True:
        listing = await host.expect("guests")
        for guest in listing["guests"]:
            if guest["name"] == name and guest["connected"]:
                return guest  # type: ignore[no-any-return]


async def test_a_guest_on_b_joins_a_hub_on_a(cluster: Cluster, serve_on: Callable[..., ServerProcess]) -> None:
    served = serve_on(cluster.a)
    host = await HostClient.connect(served)
    from_redis = cluster.b.metrics().get("canvas_signal_envelopes_relayed_total{source=redis}", 0.0)
    guest = await Guest(link_via(served.room_link, cluster.b.url), name="Bea").connect()
    # connect() returns only once the channel opened, the hub's proof verified and the hub took the join.
    assert (await guest.expect("welcome"))["access"] == "view"
    await wait_for_guest(host, "Bea")
    assert cluster.b.metrics()["canvas_signal_envelopes_relayed_total{source=redis}"] > from_redis, (
        "the hub's answer reached B through Redis"
    )
    await guest.close()
    await host.close()


async def test_a_redis_restart_mid_handshake_delays_the_join_only_briefly(
    own_cluster: Callable[..., Cluster], serve_on: Callable[..., ServerProcess]
) -> None:
    cluster = own_cluster()
    served = serve_on(cluster.a)
    link = link_via(served.room_link, cluster.b.url)
    watcher = aioredis.from_url(cluster.redis.url)
    pubsub = watcher.pubsub()
    await pubsub.subscribe(CHANNEL_PREFIX + signal_crypto.topic(link.key))
    guest = Guest(link, name="Rae")
    joining = asyncio.get_running_loop().create_task(guest.connect())
    # The first envelope on the room's channel is the guest's offer, crossing from B to A: cut Redis now.
    async with asyncio.timeout(10):
        while (message := await pubsub.get_message(timeout=5)) is None or message["type"] != "message":
            pass
    restarted = time.monotonic()
    await asyncio.to_thread(cluster.redis.restart)
    await asyncio.wait_for(joining, JOIN_AFTER_RESTART - (time.monotonic() - restarted))
    assert (await guest.expect("welcome"))["access"] == "view"
    for instance in (cluster.a, cluster.b):
        assert instance.output is not None
        instance.output.wait_for("Redis is reachable again")
        logged = [line for line in instance.output.lines if "Redis is unreachable" in line]
        assert len(logged) == 1, "an outage is logged once, not once per retry"
    await guest.close()
    await watcher.aclose()


async def test_a_guest_whose_instance_dies_reconnects_through_the_other(
    own_cluster: Callable[..., Cluster], serve_on: Callable[..., ServerProcess]
) -> None:
    cluster = own_cluster()
    served = serve_on(cluster.a)
    host = await HostClient.connect(served)
    guest = await Guest(link_via(served.room_link, cluster.b.url, cluster.a.url), name="Kit").connect()
    await guest.expect("welcome")
    await wait_for_guest(host, "Kit")
    cluster.b.kill()
    await guest.drop()
    await host.send({"t": "guest-set-access", "guestId": guest.guest_id, "access": "edit"})
    # The guest hears of it only once it is back: B is gone, so it came back through A.
    await guest.expect("access", access="edit", timeout=30)
    assert guest.connections == 2
    assert not any(frame["t"] == "gap" for frame in guest.seen), "it resumed where it was"
    await guest.close()
    await host.close()


async def test_an_instance_without_redis_is_alive_not_ready_and_recovers() -> None:
    require("redis-server", "redis-server")
    redis = RedisServer()
    instances = [SignalInstance(extra=["--redis", redis.url]).start() for _ in range(2)]
    try:
        for instance in instances:
            assert instance.output is not None
            instance.output.wait_for("is not reachable yet")
            assert instance.status("/healthz") == 200
            assert instance.status("/readyz") == 503
            assert instance.metrics()["canvas_signal_redis_ready"] == 0
        redis.start()
        for instance in instances:
            assert instance.output is not None
            instance.output.wait_for("Redis is reachable again")
            assert instance.status("/readyz") == 200
            assert instance.metrics()["canvas_signal_redis_ready"] == 1
        topic = "R" * 43
        async with aiohttp.ClientSession() as session:
            on_a = await session.ws_connect(f"{instances[0].url}?topic={topic}")
            on_b = await session.ws_connect(f"{instances[1].url}?topic={topic}")
            await on_a.send_str("across, now that Redis is up")
            assert (await on_b.receive(timeout=5)).data == "across, now that Redis is up"
    finally:
        for service in (*instances, redis):
            service.stop()


async def test_rendezvous_and_redis_see_only_ciphertext_and_topics_stay_apart(
    cluster: Cluster, serve_on: Callable[..., ServerProcess]
) -> None:
    served = serve_on(cluster.a)
    link = link_via(served.room_link, cluster.b.url)
    key = signal_crypto.signal_key(link.key)
    commands: list[str] = []
    monitor_client = aioredis.from_url(cluster.redis.url)
    async with monitor_client.monitor() as monitor, aiohttp.ClientSession() as session:

        async def record() -> None:
            async for info in monitor.listen():
                commands.append(str(info["command"]))

        recording = asyncio.get_running_loop().create_task(record())
        elsewhere = await session.ws_connect(f"{cluster.b.url}?topic={'E' * 43}")
        guest = await Guest(link, name="Secretive Sam").connect()
        await guest.expect("welcome")
        marker = await session.ws_connect(f"{cluster.a.url}?topic={'E' * 43}")
        await marker.send_str("the first thing on this topic")
        assert (await elsewhere.receive(timeout=5)).data == "the first thing on this topic", (
            "a socket on another topic heard nothing of the room's signalling"
        )
        await guest.close()
        recording.cancel()
    await monitor_client.aclose()

    published = [c.split(" ", 3) for c in commands if c.startswith("PUBLISH " + CHANNEL_PREFIX)]
    room_channel = CHANNEL_PREFIX + signal_crypto.topic(link.key)
    # Each is "<instance> <sender's tag> <envelope>": the tag is the rendezvous's, for the hub's pacing.
    envelopes = [parts[3].rsplit(" ", 1)[-1] for parts in published if parts[1] == room_channel]
    assert len(envelopes) >= 2, "the offer and the answer crossed Redis"
    kinds = {signal_crypto.open_envelope(key, envelope)["kind"] for envelope in envelopes}
    assert kinds == {"offer", "answer"}, "what Redis carried is exactly the sealed envelopes"
    secrets = [link.room_id, link.key, link.host_key, signal_crypto.turn_proof(link.key)]
    # Words of the SDP and the frames; none can turn up by chance in base64url ciphertext ("=" and " " are not in it).
    clear = ["v=0", "a=fingerprint", "a=candidate", '"kind":', "guest-join", "Secretive Sam"]
    everything = "\n".join(commands)
    for word in secrets + clear:
        assert word not in everything, f"{word!r} reached Redis in the clear"
