"""The hub's fan-out on each transport, side by side in one run: Chromium pages as the guests.

Run: `python -m tests.bench.transport_fanout [--guests 1,5,20,50] [--transports wrtc,aiortc,chromium]`.

For each guest count, one headless Chromium page holds that many peer connections, each offering a
data channel as the web app does; a sender process answers them all and streams to every guest
what a terminal streams to a room: small timestamped lines, paced, then a bulk of 16 KiB frames as
fast as the channels take them. Every guest's frames go through the hub's own `GuestStream`
(numbering, coalescing, deflating, the buffer's high-water mark), so only the transport under it
differs:

- `wrtc`: the hub now: libwebrtc through wrtc, one process, each larger frame deflated once;
- `aiortc`: the same on aiortc, the fallback where wrtc has no wheel;
- `chromium`: headless Chromium as the hub, one page answering every guest and writing each frame
  (as text) to every channel, waiting while one buffers more than the stream's high-water mark;
- `aiortc-text` (every frame as text, the hub before frames travelled deflated), `aiortc-workers`
  (aiortc over `--workers` processes, each frame crossing one pipe per worker) and `native`
  (libdatachannel through `pylibdatachannel` 0.2.0, which has no `bufferedAmount`), on request.

The bulk is canvas's own source text, as `cat` prints it: it deflates about 3 times.

Printed per row: the time until every channel was open; the sender's memory per guest (PSS, its
workers' or its Chromium's included); the sender's CPU per KB delivered to all guests, for the
small lines and for the bulk; the small lines' delivery p50/p99 (the sender's wall clock in each
line, against the page's on arrival); delivered bulk MB/s in all and per guest; how busy the
hub's and the guests' busiest threads were during the bulk. Unless the hub's was the bound (90 %
busy or more), the bulk's MB/s are the receivers' pace, a floor of the hub's, marked `>=`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol

from playwright.async_api import Page, async_playwright

import canvasrelay
from canvasrelay.net.channel import Channel
from canvasrelay.net.peer_connection import library
from canvasrelay.protocol import encode
from canvasrelay.protocol.terminals import TermData
from canvasrelay.server.transports.datachannel import GuestStream
from canvasrelay.server.transports.deflate_once import SHARED, DeflateOnce
from tests.bench.browser_hub import HUB_ARGS, HUB_JS, chromium_pids, descendants, pss_kb
from tests.bench.fanout_goals import THROUGHPUT_COLUMNS, Figures, goals, throughput
from tests.bench.process_cpu import BusiestThread, cpu_seconds, settled
from tests.support import CHROMIUM

BULK_FRAME = 16 * 1024
SMALL_EVERY_S = 0.02
PHASE_TIMEOUT_S = 300.0
OPEN_TIMEOUT_S = 60.0
ANSWER, FRAME = b"A", b"F"
"""What a worker's pipe carries: offers to answer (JSON), or a frame for all its guests."""

GUESTS_JS = """
const pcs = [];
const got = [];
const latencies = [];
const opened = [];
const stamp = /T (\\d+\\.\\d+) /g;
// A frame the hub deflated: its seq (8 bytes), then the frame (canvasrelay/protocol/framing.py).
const inflated = async (data) => {
  const stream = new Blob([data.slice(8)]).stream().pipeThrough(new DecompressionStream("deflate"));
  return `[0,${await new Response(stream).text()}]`;
};
const count = (i, text) => {
  const now = (performance.timeOrigin + performance.now()) / 1000;
  const [, ...frames] = JSON.parse(text);
  for (const frame of frames) {
    got[i] += frame.data.length;
    for (const match of frame.data.matchAll(stamp)) latencies.push((now - Number(match[1])) * 1000);
  }
};
window.offer = async () => {
  const i = pcs.length;
  const pc = new RTCPeerConnection();
  const channel = pc.createDataChannel("canvas");
  pcs.push(pc);
  got.push(0);
  channel.binaryType = "arraybuffer";
  let last = Promise.resolve();
  channel.onmessage = ({data}) => {
    last = last.then(() => typeof data === "string" ? data : inflated(data)).then((text) => count(i, text));
  };
  channel.onopen = () => opened.push(i);
  await pc.setLocalDescription(await pc.createOffer());
  while (pc.iceGatheringState !== "complete") {
    await new Promise((resolve) => pc.addEventListener("icegatheringstatechange", resolve, {once: true}));
  }
  return pc.localDescription.sdp;
};
window.accept = (i, sdp) => pcs[i].setRemoteDescription({type: "answer", sdp});
window.openCount = () => opened.length;
window.received = () => got;
window.takeLatencies = () => latencies.splice(0);
"""


# -- the sender side, in a process of its own ---------------------------------------------------


class Senders(Protocol):
    async def answer(self, offers: list[str]) -> list[str]: ...

    def broadcast(self, text: str) -> None: ...

    async def bulk(self, texts: list[str]) -> None:
        """Every frame to every guest, as fast as the channels take them."""


class TextOnly(DeflateOnce):
    """The hub before frames travelled deflated."""

    def deflated(self, frames: Sequence[str]) -> bytes | None:
        return None


class OnePerTurn:
    """A bulk as the hub gets a terminal's output: one frame per turn of the loop, the streams
    (or the workers) writing meanwhile."""

    def broadcast(self, text: str) -> None:
        raise NotImplementedError

    async def bulk(self, texts: list[str]) -> None:
        for text in texts:
            self.broadcast(text)
            await asyncio.sleep(0)


class StreamsOver(OnePerTurn):
    """Guests on one transport, each behind the hub's `GuestStream`: a broadcast is one `send` each."""

    def __init__(self, open_channel: Callable[[str], Any], deflater: DeflateOnce = SHARED) -> None:
        self.open_channel = open_channel
        self.deflater = deflater
        self.streams: list[GuestStream] = []

    async def answer(self, offers: list[str]) -> list[str]:
        answers = []
        for offer in offers:
            answer, channel_opened = await self.open_channel(offer)
            answers.append(answer)
            stream = GuestStream(lambda _stream: print("a guest overflowed", file=sys.stderr), deflater=self.deflater)
            self.streams.append(stream)

            def attach(channel: Channel, stream: GuestStream = stream) -> None:
                stream.attach(channel)
                channel.on_buffer_low(256 * 1024, stream.buffer_low)

            channel_opened.add_done_callback(lambda done, attach=attach: attach(done.result()))
        return answers

    def broadcast(self, text: str) -> None:
        for stream in self.streams:
            stream.send(text)


def link_channel(name: str) -> Callable[[str], Any]:
    """Answers on canvas's own `PeerLink` over the library `name`, as the hub does."""
    importlib.import_module(library(name).module)  # imported before the first guest, as the hub does

    async def open_channel(offer: str) -> tuple[str, asyncio.Future[Channel]]:
        peer = library(name).peer([], False)
        answer = await peer.answer(offer)
        return answer, asyncio.ensure_future(peer.opened())

    return open_channel


SENDER_JS = """
let seq = 1;
window.sendAll = (frame) => {
  const message = `[${seq++},${frame}]`;
  for (const channel of channels) channel.send(message);
};
// Each channel takes the bulk at its own pace; the call returns at once.
window.bulkAll = (frames) => {
  const first = seq;
  seq += frames.length;
  const messages = frames.map((frame, i) => `[${first + i},${frame}]`);
  for (const channel of channels) {
    (async () => {
      for (const message of messages) {
        if (channel.bufferedAmount > HIGH_WATER) {
          await new Promise((resolve) => channel.addEventListener("bufferedamountlow", resolve, {once: true}));
        }
        channel.send(message);
      }
    })();
  }
};
"""


class ChromiumHub:
    """Headless Chromium as the hub: one page answers every guest and writes each frame, as text,
    to every channel. Small frames reach the page one call each, in order."""

    async def start(self) -> ChromiumHub:
        self._playwright = await async_playwright().start()
        browser = await self._playwright.chromium.launch(executable_path=CHROMIUM, args=HUB_ARGS)
        self.page = await browser.new_page()
        await self.page.set_content("<!doctype html><title>hub</title>")
        await self.page.add_script_tag(content=HUB_JS + SENDER_JS)
        self._sending: asyncio.Queue[str] = asyncio.Queue()
        self._writer = asyncio.get_running_loop().create_task(self._write())
        return self

    async def answer(self, offers: list[str]) -> list[str]:
        return [await self.page.evaluate("(offer) => answer(offer)", offer) for offer in offers]

    def broadcast(self, text: str) -> None:
        self._sending.put_nowait(text)

    async def bulk(self, texts: list[str]) -> None:
        await self.page.evaluate("(frames) => bulkAll(frames)", texts)

    async def _write(self) -> None:
        while True:
            await self.page.evaluate("(frame) => sendAll(frame)", await self._sending.get())


KEPT: list[Any] = []
"""Every pylibdatachannel object: freeing one closes it from the loop's thread, which can deadlock."""


class NativeChannel:
    """The part of `Channel` a sender needs, over a pylibdatachannel channel (no `bufferedAmount`)."""

    buffered = 0
    is_open = True

    def __init__(self, channel: Any) -> None:
        self.channel = channel

    def send(self, message: str) -> None:
        self.channel.send(message)

    def on_buffer_low(self, threshold: int, handler: Callable[[], None]) -> None:
        """Never: nothing is counted as buffered."""


async def native_channel(offer: str) -> tuple[str, asyncio.Future[NativeChannel]]:
    import pylibdatachannel as ldc

    loop = asyncio.get_running_loop()
    peer = ldc.PeerConnection(ldc.Configuration([]))
    KEPT.append(peer)
    gathered: asyncio.Future[None] = loop.create_future()
    opened: asyncio.Future[NativeChannel] = loop.create_future()

    def on_gathering(state: Any) -> None:
        if state == ldc.GatheringState.COMPLETE:
            loop.call_soon_threadsafe(lambda: gathered.done() or gathered.set_result(None))

    def on_channel(channel: Any) -> None:
        KEPT.append(channel)
        loop.call_soon_threadsafe(lambda: opened.done() or opened.set_result(NativeChannel(channel)))

    peer.on_gathering_state_change(on_gathering)
    peer.on_data_channel(on_channel)
    peer.set_remote_description(ldc.Description(offer, ldc.DescriptionType.OFFER))
    await gathered
    return str(peer.local_description), opened


class Workers(OnePerTurn):
    """aiortc guests spread over worker processes; each broadcast crosses one pipe per worker."""

    def __init__(self, count: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        for _ in range(count):
            ours, theirs = context.Pipe()
            context.Process(target=run_worker, args=(theirs,), daemon=True).start()
            self.pipes.append(ours)

    async def answer(self, offers: list[str]) -> list[str]:
        shares = [offers[i :: len(self.pipes)] for i in range(len(self.pipes))]
        for pipe, share in zip(self.pipes, shares, strict=True):
            pipe.send_bytes(ANSWER + json.dumps(share).encode())
        answered = [json.loads(await asyncio.to_thread(pipe.recv_bytes)) for pipe in self.pipes]
        # Back in the offers' order: worker i answered offers i, i + n, i + 2n, …
        answers = [""] * len(offers)
        for i, share in enumerate(answered):
            answers[i :: len(self.pipes)] = share
        return answers

    def broadcast(self, text: str) -> None:
        data = FRAME + text.encode()
        for pipe in self.pipes:
            pipe.send_bytes(data)


def run_worker(pipe: Connection) -> None:
    asyncio.run(worker(pipe))


async def worker(pipe: Connection) -> None:
    loop = asyncio.get_running_loop()
    senders = StreamsOver(link_channel("aiortc"))
    answered: asyncio.Queue[list[str]] = asyncio.Queue()

    def readable() -> None:
        while pipe.poll():
            try:
                data = pipe.recv_bytes()
            except EOFError:  # the sender is gone
                os._exit(0)
            if data.startswith(ANSWER):
                task = loop.create_task(senders.answer(json.loads(data[1:])))
                task.add_done_callback(lambda done: answered.put_nowait(done.result()))
            else:
                senders.broadcast(data[1:].decode())

    loop.add_reader(pipe.fileno(), readable)
    while True:
        pipe.send_bytes(json.dumps(await answered.get()).encode())


async def sender_of(kind: str, workers: int) -> Senders:
    if kind in ("wrtc", "aiortc"):
        return StreamsOver(link_channel(kind))
    if kind == "aiortc-text":
        return StreamsOver(link_channel("aiortc"), TextOnly())
    if kind == "native":
        return StreamsOver(native_channel)
    if kind == "chromium":
        return await ChromiumHub().start()
    return Workers(workers)


async def sender(kind: str, workers: int) -> None:
    """Says it is ready, answers the offers on stdin, then sends what each command line asks for
    and says when it is done."""
    senders = await sender_of(kind, workers)
    print(json.dumps("ready"), flush=True)
    lines = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(lines), sys.stdin)
    while raw := await lines.readline():
        command = json.loads(raw)
        if command["do"] == "answer":
            reply: object = await senders.answer(command["offers"])
        elif command["do"] == "small":
            reply = 0
            for n in range(command["lines"]):
                line = f"T {time.time():.6f} agent chunk {n}: the quick brown fox jumps\r\n"
                senders.broadcast(encode(TermData(id="bench", data=line)))
                reply += len(line)
                await asyncio.sleep(SMALL_EVERY_S)
        else:
            datas = bulk_output(command["frames"])
            await senders.bulk([encode(TermData(id="bench", data=data)) for data in datas])
            reply = sum(len(data) for data in datas)
        print(json.dumps(reply), flush=True)


def bulk_output(frames: int) -> list[str]:
    """What `cat` of canvas's own sources prints, in frames of 16 KiB: real text, which deflates about
    3 times (a listing or a build log deflates more, numbers less)."""
    text = "".join(path.read_text() for path in sorted(Path(canvasrelay.__file__).parent.rglob("*.py")))
    text = text.replace("\n", "\r\n")
    return [text[(n * BULK_FRAME) % (len(text) - BULK_FRAME) :][:BULK_FRAME] for n in range(frames)]


def run_sender(kind: str, workers: int) -> None:
    asyncio.run(sender(kind, workers))
    # Skips interpreter shutdown, where pylibdatachannel's peers would be closed from this thread.
    os._exit(0)


# -- the measuring side -------------------------------------------------------------------------


def hub_pids(kind: str, pid: int) -> list[int]:
    """The hub's processes: the sender and its workers, or Chromium's processes for a Chromium hub
    (not the Python that hands it the frames, nor Playwright's driver)."""
    return chromium_pids(pid) if kind == "chromium" else [pid, *descendants(pid)]


def hub_cpu(kind: str, pid: int) -> float:
    total = 0.0
    for process in hub_pids(kind, pid):
        with contextlib.suppress(OSError):
            total += cpu_seconds(process)
    return total


class Sender:
    def __init__(self, kind: str, workers: int) -> None:
        command = [sys.executable, "-m", "tests.bench.transport_fanout", "--sender", kind, "--workers", str(workers)]
        # A session of its own: stopping it ends its workers, or its Chromium and Playwright's driver.
        self.proc = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True
        )

    async def started(self) -> None:
        assert self.proc.stdout is not None
        assert json.loads(await asyncio.to_thread(self.proc.stdout.readline)) == "ready"

    async def ask(self, **command: object) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        return json.loads(await asyncio.to_thread(self.proc.stdout.readline))

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


async def until(page: Page, condition: str, timeout: float) -> None:
    await page.wait_for_function(condition, timeout=timeout * 1000, polling=50)


async def trial(page: Page, kind: str, guests: int, workers: int, small: int, bulk_frames: int) -> dict[str, float]:
    sender = Sender(kind, workers)
    try:
        await sender.started()
        pid = sender.proc.pid
        hub = set(descendants(pid))
        receivers = BusiestThread(lambda: [p for p in chromium_pids() if p not in hub])
        hub_threads = BusiestThread(lambda: hub_pids(kind, pid))
        memory0 = pss_kb(hub_pids(kind, pid))
        offers = [await page.evaluate("() => offer()") for _ in range(guests)]
        answers = await asyncio.wait_for(sender.ask(do="answer", offers=offers), OPEN_TIMEOUT_S)
        opening = time.monotonic()
        for i, answer in enumerate(answers):
            await page.evaluate("([i, sdp]) => accept(i, sdp)", [i, answer])
        await until(page, f"() => openCount() === {guests}", OPEN_TIMEOUT_S)
        opened = time.monotonic() - opening
        await settled(pid, lambda pid: hub_cpu(kind, pid))  # after the handshakes
        memory = (pss_kb(hub_pids(kind, pid)) - memory0) / guests
        cpu0 = hub_cpu(kind, pid)
        small_bytes = await sender.ask(do="small", lines=small)
        await until(page, f"() => received().every((n) => n >= {small_bytes})", PHASE_TIMEOUT_S)
        latencies = sorted(await page.evaluate("() => takeLatencies()"))
        cpu1, t1 = hub_cpu(kind, pid), time.monotonic()
        receivers.start()
        hub_threads.start()
        whole = small_bytes + await sender.ask(do="bulk", frames=bulk_frames)
        await until(page, f"() => received().every((n) => n >= {whole})", PHASE_TIMEOUT_S)
        cpu2, t2 = hub_cpu(kind, pid), time.monotonic()
        busiest, hub_busy = receivers.share(), hub_threads.share()
    finally:
        sender.stop()
    bulk_bytes = guests * (whole - small_bytes)
    return {
        "open_ms": opened * 1000,
        "kb_per_guest": memory,
        "small_cpu_ms_per_kb": (cpu1 - cpu0) * 1000 / (guests * small_bytes / 1024),
        "bulk_cpu_ms_per_kb": (cpu2 - cpu1) * 1000 / (bulk_bytes / 1024),
        "small_p50_ms": statistics.median(latencies),
        "small_p99_ms": latencies[int(len(latencies) * 0.99)],
        "bulk_mb_per_s": bulk_bytes / (t2 - t1) / 1e6,
        "receivers_busy": busiest,
        "hub_busy": hub_busy,
    }


def row(guests: int, kind: str, r: dict[str, float]) -> str:
    return (
        f"{guests:>6} {kind:>15} {r['open_ms']:>8.0f} {r['kb_per_guest']:>8.0f} {r['small_cpu_ms_per_kb']:>9.3f} "
        f"{r['bulk_cpu_ms_per_kb']:>9.3f} {r['small_p50_ms']:>7.1f} {r['small_p99_ms']:>7.1f} "
        f"{throughput(r, guests)}  load {os.getloadavg()[0]:.2f}"
    )


async def main(counts: list[int], kinds: list[str], workers: int, small: int, bulk_mb: float) -> None:
    print(
        f"{'guests':>6} {'sender':>15} {'open ms':>8} {'KB/guest':>8} {'small ms/KB':>9} {'bulk ms/KB':>9} "
        f"{'p50 ms':>7} {'p99 ms':>7} {THROUGHPUT_COLUMNS}"
    )
    bulk_frames = int(bulk_mb * 1e6 / BULK_FRAME)
    figures: Figures = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=HUB_ARGS)
        for guests in counts:
            for kind in kinds:
                page = await browser.new_page()
                await page.set_content("<!doctype html><title>guests</title>")
                await page.add_script_tag(content=GUESTS_JS)
                try:
                    figures[(guests, kind)] = await trial(page, kind, guests, workers, small, bulk_frames)
                    print(row(guests, kind, figures[(guests, kind)]), flush=True)
                except Exception as exc:  # a row that fails is reported, and the next runs
                    print(f"{guests:>6} {kind:>15} no figures: {type(exc).__name__}: {exc}"[:200], flush=True)
                await page.close()
        await browser.close()
    print()
    print("\n".join(goals(figures, "the guests' Chromium page")))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--guests", default="1,5,20,50", help="guest counts, comma-separated")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--small", type=int, default=200, help="small lines, one every 20 ms")
    parser.add_argument("--bulk-mb", type=float, default=1.0, help="bulk per guest, MB")
    parser.add_argument(
        "--transports",
        default="wrtc,aiortc,chromium",
        help="of wrtc, aiortc, chromium, aiortc-text, aiortc-workers, native (default wrtc,aiortc,chromium)",
    )
    parser.add_argument("--sender", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sender:
        run_sender(args.sender, args.workers)
    kinds = args.transports.split(",")
    asyncio.run(main([int(n) for n in args.guests.split(",")], kinds, args.workers, args.small, args.bulk_mb))
