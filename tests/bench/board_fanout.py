"""Board fan-out benchmark: `canvas serve` against pycrdt-websocket and y-websocket (the Yjs
reference server, Node), same workload, side by side.

    (cd tests/bench/yjs && npm ci)   # once, for y-websocket; without it that column is skipped
    .venv/bin/pip install pycrdt-websocket   # once
    .venv/bin/python -m tests.bench.board_fanout [--rate 10] [--seconds 5] [--clients 1,5,20,50]

N clients each send small board updates (a move of their note, then one typed character, in
turn) at a steady rate. Both servers run in their own process, so their CPU time is read from
/proc; the clients share this process. Printed per N: server CPU per update and per delivery,
p50/p99 delivery latency (sent → received by another client), and for canvas the store's size
against the sum of the updates (before and after the compaction at shutdown). The ratio is
pycrdt-websocket's CPU per update over canvas's: above 1.0, canvas sustains more updates per core.

Each server's idle cost is measured in the same run: started on its own, no client, for the same
`--seconds` (after a second to settle), giving its idle CPU per second (timers, keepalives, a
file watcher). Every figure is printed twice: raw, and per update with that server's own idle
rate times the run's duration subtracted. The idle-corrected ratio is the one that compares the
per-update paths; the raw ratio is what a machine running the server pays in all. `/proc`'s CPU
clock ticks every 10 ms, so short runs at N = 1 are coarse: use `--seconds 20` or more.

pycrdt-websocket and y-websocket run with no store (they would write in the background, after
sending), while canvas appends every update to its board log before it sends it on. The machine's
load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import aiohttp
from pycrdt import Decoder, Doc, Map, Text, TransactionEvent, create_update_message

from canvasrelay.core.board import read_var_uint
from canvasrelay.server.board.log import BOARD_LOG
from tests.bench.process_cpu import cpu_seconds, settled
from tests.support import ServerProcess, serving_an_empty_project

T = TypeVar("T")
DRAIN_TIMEOUT = 15.0
Y_WEBSOCKET = Path(__file__).parent / "yjs" / "node_modules" / "y-websocket" / "bin" / "server.js"

PYCRDT_WEBSOCKET_SERVER = """
import asyncio, sys
from aiohttp import WSMsgType, web
from pycrdt.websocket import WebsocketServer

class Channel:
    def __init__(self, ws, path):
        self.ws, self._path = ws, path
    @property
    def path(self):
        return self._path
    def __aiter__(self):
        return self
    async def __anext__(self):
        msg = await self.ws.receive()
        if msg.type is WSMsgType.BINARY:
            return bytes(msg.data)
        raise StopAsyncIteration
    async def send(self, message):
        await self.ws.send_bytes(message)
    async def recv(self):
        return await self.__anext__()

async def main():
    async with WebsocketServer(auto_clean_rooms=False) as server:
        async def handler(request):
            ws = web.WebSocketResponse(max_msg_size=0)
            await ws.prepare(request)
            await server.serve(Channel(ws, request.path))
            return ws
        app = web.Application()
        app.router.add_get("/{room}", handler)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        print("PORT", runner.addresses[0][1], flush=True)
        await asyncio.Event().wait()

asyncio.run(main())
"""


@dataclass
class Results:
    updates: int = 0
    update_bytes: int = 0
    latencies: list[float] = field(default_factory=list)
    expected_deliveries: int = 0
    cpu: float = 0.0
    elapsed: float = 0.0
    store_before: int = 0
    store_after: int = 0
    idle_rate: float = 0.0
    """The server's CPU seconds per second with no client, measured in the same run."""

    @property
    def busy_cpu(self) -> float:
        """CPU beyond what the server spends idle over the same time."""
        return max(self.cpu - self.idle_rate * self.elapsed, 0.0)


class Client:
    """One pycrdt doc with one note, producing the workload's updates."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.doc = Doc()
        self.items = self.doc.get("items", type=Map)
        self.last = b""
        self.doc.observe(self._capture)
        self.step = 0

    def _capture(self, event: TransactionEvent) -> None:
        self.last = event.update

    def create(self) -> bytes:
        fields = {"kind": "note", "x": 0.0, "y": float(self.index * 220), "w": 200.0, "h": 200.0, "z": 1.0}
        self.items[f"note{self.index}"] = Map({**fields, "text": Text("")})
        return self.last

    def next_update(self) -> bytes:
        note = self.items[f"note{self.index}"]
        self.step += 1
        with self.doc.transaction():
            if self.step % 2:
                note["x"] = float(self.step)
                note["y"] = float(self.index * 220 + self.step % 7)
            else:
                text = note["text"]
                text.insert(len(text), "x")
        return self.last


def key_of(update: bytes) -> tuple[int, int]:
    """The first struct's (client, clock): the same for the bytes a client sent and any re-encoding."""
    _, pos = read_var_uint(update, 0)  # number of struct groups
    _, pos = read_var_uint(update, pos)  # structs in the first group
    client, pos = read_var_uint(update, pos)
    clock, _ = read_var_uint(update, pos)
    return client, clock


class Transport:
    """How the workload talks to one server: connect a client, send an update, decode what arrives."""

    connect: Callable[[aiohttp.ClientSession], Awaitable[aiohttp.ClientWebSocketResponse]]
    encode: Callable[[bytes], str | bytes]
    decode: Callable[[aiohttp.WSMessage], bytes | None]


def canvas_transport(server: ServerProcess) -> Transport:
    transport = Transport()

    async def connect(session: aiohttp.ClientSession) -> aiohttp.ClientWebSocketResponse:
        ws = await session.ws_connect(server.ws_url, headers={"Origin": server.base_url}, max_msg_size=0)
        await ws.send_str(json.dumps({"t": "auth", "token": server.token}))
        while True:
            msg = await ws.receive(timeout=10)
            if json.loads(msg.data).get("t") == "welcome":
                return ws

    def decode(msg: aiohttp.WSMessage) -> bytes | None:
        if msg.type is not aiohttp.WSMsgType.TEXT:
            return None
        frame = json.loads(msg.data)
        if frame.get("t") == "error":
            raise RuntimeError(f"canvas refused an update: {frame}")
        return base64.b64decode(frame["update"]) if frame.get("t") == "board-update" else None

    transport.connect = connect
    transport.encode = lambda update: json.dumps({"t": "board-update", "update": base64.b64encode(update).decode()})
    transport.decode = decode
    return transport


def pycrdt_transport(url: str) -> Transport:
    transport = Transport()

    async def connect(session: aiohttp.ClientSession) -> aiohttp.ClientWebSocketResponse:
        return await session.ws_connect(url, max_msg_size=0)

    def decode(msg: aiohttp.WSMessage) -> bytes | None:
        data = msg.data
        # y-protocols: [SYNC=0, UPDATE=2 | STEP2=1, varbytes]; STEP1 and awareness carry no update.
        if msg.type is not aiohttp.WSMsgType.BINARY or data[0] != 0 or data[1] not in (1, 2):
            return None
        return Decoder(data[2:]).read_message()

    transport.connect = connect
    transport.encode = create_update_message
    transport.decode = decode
    return transport


async def send(ws: aiohttp.ClientWebSocketResponse, payload: str | bytes) -> None:
    if isinstance(payload, str):
        await ws.send_str(payload)
    else:
        await ws.send_bytes(payload)


async def run_workload(transport: Transport, n: int, rate: float, seconds: float, pid: int) -> Results:
    await settled(pid)
    results = Results()
    sent: dict[tuple[int, int], tuple[float, int]] = {}
    received = 0
    done = asyncio.Event()
    clients = [Client(i) for i in range(n)]
    async with aiohttp.ClientSession() as session:
        sockets = [await transport.connect(session) for _ in clients]

        async def read(index: int, ws: aiohttp.ClientWebSocketResponse) -> None:
            nonlocal received
            async for msg in ws:
                update = transport.decode(msg)
                if update is None:
                    continue
                origin = sent.get(key_of(update))
                if origin is None or origin[1] == index:
                    continue
                results.latencies.append(time.perf_counter() - origin[0])
                received += 1
                if received >= results.expected_deliveries > 0:
                    done.set()

        readers = [asyncio.create_task(read(i, ws)) for i, ws in enumerate(sockets)]
        for client, ws in zip(clients, sockets, strict=True):
            await send(ws, transport.encode(client.create()))
        await asyncio.sleep(0.5)
        results.latencies.clear()
        received = 0
        per_client = int(rate * seconds)
        results.updates = per_client * n
        results.expected_deliveries = results.updates * (n - 1)

        async def produce(client: Client, ws: aiohttp.ClientWebSocketResponse) -> None:
            start = time.perf_counter() + client.index / (n * rate)
            for i in range(per_client):
                delay = start + i / rate - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                update = client.next_update()
                results.update_bytes += len(update)
                sent[key_of(update)] = (time.perf_counter(), client.index)
                await send(ws, transport.encode(update))

        cpu_start = cpu_seconds(pid)
        began = time.perf_counter()
        await asyncio.gather(*(produce(c, ws) for c, ws in zip(clients, sockets, strict=True)))
        if results.expected_deliveries:
            try:
                await asyncio.wait_for(done.wait(), DRAIN_TIMEOUT)
            except TimeoutError:
                print(f"  (only {received} of {results.expected_deliveries} deliveries arrived)")
        else:
            await asyncio.sleep(0.2)
        results.elapsed = time.perf_counter() - began
        results.cpu = cpu_seconds(pid) - cpu_start
        for reader in readers:
            reader.cancel()
        for ws in sockets:
            await ws.close()
    return results


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def report(name: str, n: int, r: Results) -> None:
    per_update = r.cpu / r.updates * 1e6
    busy_per_update = r.busy_cpu / r.updates * 1e6
    per_delivery = r.cpu / (r.updates * (n - 1)) * 1e6 if n > 1 else float("nan")
    p50, p99 = percentile(r.latencies, 50) * 1e3, percentile(r.latencies, 99) * 1e3
    print(
        f"  {name:<18} N={n:<3} updates={r.updates:<5} cpu={r.cpu:6.2f}s in {r.elapsed:5.1f}s  "
        f"cpu/update={per_update:8.1f}µs  cpu/update/client={per_update / n:7.1f}µs  "
        f"cpu/delivery={per_delivery:7.1f}µs  p50={p50:6.2f}ms  p99={p99:6.2f}ms"
    )
    print(
        f"  {'':<18} idle {r.idle_rate * 1e3:5.2f} ms/s over {r.elapsed:4.1f}s = {r.idle_rate * r.elapsed:5.2f}s; "
        f"idle-corrected cpu/update={busy_per_update:8.1f}µs"
    )
    if r.store_before or r.store_after:
        print(
            f"  {'':<18} store: {r.store_before} B before compaction, {r.store_after} B after; "
            f"sum of updates {r.update_bytes} B"
        )


def store_size(root: Path) -> int:
    return (root / ".canvas" / BOARD_LOG).stat().st_size


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def idle_rate(pid: int, seconds: float) -> float:
    """CPU seconds per second a started server spends with no client, after it settled."""
    await settled(pid)
    start = cpu_seconds(pid)
    began = time.perf_counter()
    await asyncio.sleep(seconds)
    return (cpu_seconds(pid) - start) / (time.perf_counter() - began)


async def canvas_idle(seconds: float) -> float:
    with serving_an_empty_project() as canvas:
        return await idle_rate(canvas.proc.pid, seconds)  # type: ignore[union-attr]


async def run_canvas(n: int, rate: float, seconds: float) -> Results:
    with serving_an_empty_project() as canvas:
        ours = await run_workload(canvas_transport(canvas), n, rate, seconds, canvas.proc.pid)  # type: ignore[union-attr]
        ours.store_before = store_size(canvas.root)
        canvas.stop()
        ours.store_after = store_size(canvas.root)
    return ours


@dataclass
class Reference:
    """A Yjs server run as a process of its own, which prints a `ready` line holding its port."""

    name: str
    command: list[str]
    env: dict[str, str]
    ready: str

    async def serve(self, use: Callable[[str, int], Awaitable[T]]) -> T:
        """Start it, call `use(its url, its pid)`, stop it."""
        env = {**self.env, "PORT": str(free_port())} if "PORT" in self.env else self.env
        peer = subprocess.Popen(self.command, stdout=subprocess.PIPE, text=True, env={**os.environ, **env})
        try:
            assert peer.stdout is not None
            line = peer.stdout.readline()
            while self.ready not in line:
                line = peer.stdout.readline()
                if not line:
                    raise RuntimeError(f"{self.name} did not start")
            port = env.get("PORT") or line.split()[1]
            return await use(f"ws://127.0.0.1:{port}/bench", peer.pid)
        finally:
            peer.terminate()
            peer.wait(timeout=10)

    async def idle(self, seconds: float) -> float:
        return await self.serve(lambda _url, pid: idle_rate(pid, seconds))

    async def run(self, n: int, rate: float, seconds: float) -> Results:
        return await self.serve(lambda url, pid: run_workload(pycrdt_transport(url), n, rate, seconds, pid))


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


async def bench(ns: list[int], rate: float, seconds: float) -> None:
    print(f"board_fanout: {rate:g} updates/s per client for {seconds:g} s; CPU is the server process's; {load()}")
    references = [Reference("pycrdt-websocket", [sys.executable, "-c", PYCRDT_WEBSOCKET_SERVER], {}, "PORT")]
    node = shutil.which("node")
    if node is not None and Y_WEBSOCKET.exists():
        references.append(
            Reference("y-websocket", [node, str(Y_WEBSOCKET)], {"HOST": "127.0.0.1", "PORT": ""}, "running at")
        )
    else:
        print("  (y-websocket skipped: run `npm ci` in tests/bench/yjs)")
    idle = {"canvas": await canvas_idle(seconds)}
    for reference in references:
        idle[reference.name] = await reference.idle(seconds)
    print("  idle, no client, " + ", ".join(f"{name} {r * 1e3:.2f} ms CPU/s" for name, r in idle.items()))
    ratios: dict[str, dict[str, list[float]]] = {r.name: {"raw": [], "idle-corrected": []} for r in references}
    for n in ns:
        ours = await run_canvas(n, rate, seconds)
        ours.idle_rate = idle["canvas"]
        others = {}
        for reference in references:
            others[reference.name] = await reference.run(n, rate, seconds)
            others[reference.name].idle_rate = idle[reference.name]
        report("canvas", n, ours)
        for name, theirs in others.items():
            report(name, n, theirs)
            raw = _ratio(theirs.cpu / theirs.updates, ours.cpu / ours.updates)
            corrected = _ratio(theirs.busy_cpu / theirs.updates, ours.busy_cpu / ours.updates)
            ratios[name]["raw"].append(raw)
            ratios[name]["idle-corrected"].append(corrected)
            print(f"  ratio N={n}: {name} CPU per update / canvas's = {raw:.2f} raw, {corrected:.2f} idle-corrected")
        print(f"  ({load()})")
    for name, kinds in ratios.items():
        for kind, values in kinds.items():
            figures = ", ".join(f"N={n}: {r:.2f}" for n, r in zip(ns, values, strict=True))
            print(f"ratios against {name}, {kind}: {figures}; geometric mean {statistics.geometric_mean(values):.2f}")
    print(f"({load()})")


def _ratio(theirs: float, ours: float) -> float:
    return theirs / ours if ours else float("inf")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=float, default=10.0, help="updates per second per client")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", default="1,5,20,50")
    args = parser.parse_args()
    asyncio.run(bench([int(n) for n in args.clients.split(",")], args.rate, args.seconds))


if __name__ == "__main__":
    main()
