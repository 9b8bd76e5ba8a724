"""The rendezvous alone, on one Redis-backed instance, and across two instances and Redis: side by side.

Run: `python -m tests.bench.signal_cluster [--pairs 20,100] [--seconds 5] [--joins 20]`. It starts a
Redis, two `canvas signal --redis` instances (A, B) and one `canvas signal` without Redis, each in
its own process. For each load it opens that many sender/receiver pairs, each pair on a topic of its
own, and every sender sends 1.5 KB envelopes (an SDP's size) at 18 a second, under the per-socket
bound of 20, for the given time. Three layouts: both ends on the lone instance; both on A (A still
publishes each envelope to Redis, but delivers locally); sender on A, receiver on B (every envelope
crosses Redis). It prints envelopes delivered per second and the relay latency p50/p99 (each
envelope carries its send time; sender and receiver share this process's clock), then the B/A
latency ratio: what Redis costs. Last, joins per second through the cluster: `canvas serve` with
its hub on A, aiortc guests signalling through B, a few at a time, each closing once joined.

The senders and receivers share this process, so at the larger loads its CPU, not the rendezvous,
may bound the figures; `client %` says how busy it was (100 = one core).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp

from canvasrelay.client.guest import Guest
from tests.bench.process_cpu import cpu_seconds, settled
from tests.services import RedisServer, Service, SignalInstance, link_via
from tests.support import ServerProcess

RATE = 18.0
ENVELOPE_BYTES = 1500
JOIN_CONCURRENCY = 4


@dataclass
class Figures:
    delivered: int
    seconds: float
    latencies_ms: list[float]
    client_cpu: float
    service_cpu: float
    """CPU seconds the rendezvous processes (and Redis) spent, all together."""

    def row(self, name: str, pairs: int) -> str:
        ordered = sorted(self.latencies_ms) or [float("nan")]
        p50 = statistics.median(ordered)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        rate = self.delivered / self.seconds
        cpu = 100 * self.client_cpu / self.seconds
        per_envelope = 1e6 * self.service_cpu / max(1, self.delivered)
        return f"{name:<28} {pairs:>5} {rate:>8.0f} {p50:>8.2f} {p99:>8.2f} {per_envelope:>10.0f} {cpu:>8.0f}"


HEADER = f"{'layout':<28} {'pairs':>5} {'env/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'µs CPU/env':>10} {'client%':>8}"


def service_cpu(services: list[Service]) -> float:
    return sum(cpu_seconds(service.proc.pid) for service in services if service.proc is not None)


def random_topic() -> str:
    return os.urandom(32).hex()[:43]


async def relay_load(
    sender: SignalInstance, receiver: SignalInstance, others: list[Service], pairs: int, seconds: float
) -> Figures:
    services = list({id(s): s for s in [sender, receiver, *others]}.values())
    latencies: list[float] = []
    delivered = 0
    pad = "x" * ENVELOPE_BYTES
    # No pool limit: every WebSocket holds its connection (aiohttp's default limit is 100).
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        ends = []
        for _ in range(pairs):
            topic = random_topic()
            ends.append(
                (
                    await session.ws_connect(f"{sender.url}?topic={topic}"),
                    await session.ws_connect(f"{receiver.url}?topic={topic}"),
                )
            )
        stop_at = time.perf_counter() + seconds
        cpu_before = time.process_time()
        services_before = service_cpu(services)

        async def send(ws: aiohttp.ClientWebSocketResponse) -> None:
            await asyncio.sleep(os.urandom(1)[0] / 255 / RATE)  # spread the senders over one period
            while time.perf_counter() < stop_at:
                await ws.send_str(f"{time.perf_counter_ns()} {pad}")
                await asyncio.sleep(1 / RATE)

        async def receive(ws: aiohttp.ClientWebSocketResponse) -> None:
            nonlocal delivered
            async for msg in ws:
                stamp = int(msg.data.split(" ", 1)[0])
                latencies.append((time.perf_counter_ns() - stamp) / 1e6)
                delivered += 1

        started = time.perf_counter()
        receivers = [asyncio.create_task(receive(r)) for _, r in ends]
        await asyncio.gather(*(send(s) for s, _ in ends))
        await asyncio.sleep(0.5)  # the last envelopes in flight
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu_before
        spent = service_cpu(services) - services_before
        for task in receivers:
            task.cancel()
        for ws_pair in ends:
            for ws in ws_pair:
                await ws.close()
    return Figures(delivered, elapsed, latencies, cpu, spent)


async def joins(a: SignalInstance, b: SignalInstance, count: int) -> str:
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "README.md").write_text("# bench\n")
        served = ServerProcess(project).start("--signal", a.url, "--base-url", a.http)
        try:
            assert served.proc is not None
            await settled(served.proc.pid)
            link = link_via(served.room_link, b.url)
            gate = asyncio.Semaphore(JOIN_CONCURRENCY)
            took: list[float] = []

            async def one(n: int) -> None:
                async with gate:
                    began = time.perf_counter()
                    guest = await Guest(link, name=f"bench {n}", reconnect=False).connect()
                    took.append(time.perf_counter() - began)
                    await guest.close()

            started = time.perf_counter()
            await asyncio.gather(*(one(n) for n in range(count)))
            elapsed = time.perf_counter() - started
        finally:
            served.stop()
    return (
        f"{count} joins through B to a hub on A, {JOIN_CONCURRENCY} at a time: {count / elapsed:.1f} joins/s, "
        f"join p50 {statistics.median(took) * 1000:.0f} ms, max {max(took) * 1000:.0f} ms"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", default="20,100", help="sender/receiver pairs per run, comma-separated")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--joins", type=int, default=20)
    args = parser.parse_args()
    redis = RedisServer().start()
    lone = SignalInstance().start()
    a = SignalInstance(extra=["--redis", redis.url]).start()
    b = SignalInstance(extra=["--redis", redis.url]).start()
    try:
        print(HEADER)
        for pairs in [int(n) for n in args.pairs.split(",")]:
            rows = {}
            for name, sender, receiver, others in [
                ("alone, no Redis", lone, lone, []),
                ("one instance (A to A)", a, a, [redis]),
                ("two instances (A to B)", a, b, [redis]),
            ]:
                figures = await relay_load(sender, receiver, others, pairs, args.seconds)
                rows[name] = figures
                print(figures.row(name, pairs), flush=True)
            local = statistics.median(rows["one instance (A to A)"].latencies_ms)
            crossed = statistics.median(rows["two instances (A to B)"].latencies_ms)
            print(f"{'':<28} {pairs:>5}  p50 ratio A-to-B / A-to-A: {crossed / local:.2f}", flush=True)
        if args.joins:
            print(await joins(a, b, args.joins), flush=True)
    finally:
        for service in (a, b, lone, redis):
            service.stop()


if __name__ == "__main__":
    asyncio.run(main())
