"""Headless Chromium as the hub, for the side-by-side in `guest_fanout`: browser to browser.

One page holds one `RTCPeerConnection` per guest and answers each guest's offer, which is handed
over with `page.evaluate`: no rendezvous, no proof, no Room. The page then replays, frame for
frame, the terminal output the Python hub delivered in the same run, in the same wire format
(`[seq, {"t":"term-data", …}]`), so the guests cannot tell the hubs apart. The page does only
what a browser hub must: encode each frame once and write it to every channel, waiting while a
channel buffers more than the Python hub's high-water mark.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from playwright.async_api import Browser, Page, async_playwright

from canvasrelay.net.channel import Channel, PeerLink
from canvasrelay.server.transports.datachannel import HIGH_WATER
from tests.support import CHROMIUM, CHROMIUM_ARGS

# Real host addresses instead of mDNS names, which aiortc waits ~1 s on (ADR 0004).
HUB_ARGS = [*CHROMIUM_ARGS, "--disable-features=WebRtcHideLocalIpsWithMdns"]
TICKS = os.sysconf("SC_CLK_TCK")

HUB_JS = """
const HIGH_WATER = $HIGH_WATER;
const channels = [];
const wallSeconds = () => (performance.timeOrigin + performance.now()) / 1000;
const encode = (seq, data) => JSON.stringify([seq, {t: "term-data", id: "bench", data}]);

window.answer = async (offer) => {
  const pc = new RTCPeerConnection();
  pc.ondatachannel = ({channel}) => {
    channel.bufferedAmountLowThreshold = 256 * 1024;
    if (channel.readyState === "open") channels.push(channel);
    else channel.onopen = () => channels.push(channel);
  };
  await pc.setRemoteDescription({type: "offer", sdp: offer});
  await pc.setLocalDescription(await pc.createAnswer());
  // canvas's signalling does not trickle: the answer must carry the candidates.
  while (pc.iceGatheringState !== "complete") {
    await new Promise((resolve) => pc.addEventListener("icegatheringstatechange", resolve, {once: true}));
  }
  return pc.localDescription.sdp;
};
window.openChannels = () => channels.filter((c) => c.readyState === "open").length;

// Paced: each frame leaves when its last line was written in the Python run (shifted to startAt).
// All timers are armed from here, one level deep, so none is clamped to 4 ms as nested timers are.
// Frame i's timer sends every frame up to i not yet sent: order holds even if two timers swap, and
// a timer that fires a little early (Chromium rounds delays to whole ms) still sends its frame.
// Returns at once: the guests' arrivals, under a timeout, say when it is done.
window.playPaced = (frames, firstSeq, startAt) => {
  const base = wallSeconds();
  let next = 0;
  frames.forEach(([offset], last) => setTimeout(() => {
    for (; next <= last; next += 1) {
      const message = encode(firstSeq + next, frames[next][1]);
      for (const channel of channels) channel.send(message);
    }
  }, Math.max(0, (startAt + offset - base) * 1000)));
};

// Bulk: loaded before the clock starts (the hand-over is Playwright's cost, not the hub's); then sent
// as fast as each channel takes it, encoded once for all guests. Returns at once, as above.
window.loadBulk = (datas) => { window.bulk = datas; };
window.playBulk = (firstSeq) => {
  const messages = window.bulk.map((data, i) => encode(firstSeq + i, data));
  channels.forEach(async (channel) => {
    for (const message of messages) {
      if (channel.bufferedAmount > HIGH_WATER) {
        await new Promise((resolve) => channel.addEventListener("bufferedamountlow", resolve, {once: true}));
      }
      channel.send(message);
    }
  });
};
""".replace("$HIGH_WATER", str(HIGH_WATER))


def descendants(root: int) -> set[int]:
    """Every process started, directly or not, by `root`."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
    ours = {root}
    grew = True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in ours} - ours
        ours |= found
        grew = bool(found)
    return ours - {root}


def chromium_pids(root: int | None = None) -> list[int]:
    """Our Chromium's processes (browser, renderers, utility and network service), found as
    descendants of this process (or of `root`), so another Chromium on the machine is not counted."""
    pids = []
    for pid in descendants(os.getpid() if root is None else root):
        try:
            if os.readlink(f"/proc/{pid}/exe").startswith("/usr/lib/chromium/"):
                pids.append(pid)
        except OSError:
            continue
    return pids


def cpu_by_pid(pids: list[int]) -> dict[int, float]:
    seconds = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        seconds[pid] = (int(fields[11]) + int(fields[12])) / TICKS
    return seconds


def pss_kb(pids: list[int]) -> int:
    """Proportional set size: shared pages are split between Chromium's processes, not counted in each."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


class ChromiumCpu:
    """CPU seconds of all Chromium processes; a process that starts in between counts from zero."""

    def __init__(self) -> None:
        self.start = cpu_by_pid(chromium_pids())

    def seconds(self) -> float:
        now = cpu_by_pid(chromium_pids())
        return sum(value - self.start.get(pid, 0.0) for pid, value in now.items())


class BrowserHub:
    def __init__(self) -> None:
        self._playwright = None
        self.browser: Browser | None = None
        self.page: Page | None = None

    async def __aenter__(self) -> BrowserHub:
        self._playwright = await async_playwright().start()
        self.browser = await self._playwright.chromium.launch(executable_path=CHROMIUM, args=HUB_ARGS)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.browser is not None and self._playwright is not None
        await self.browser.close()
        await self._playwright.stop()

    async def new_page(self) -> Page:
        """A fresh hub page (one per guest count), so no earlier peer connection stays alive."""
        assert self.browser is not None
        if self.page is not None:
            await self.page.close()
        self.page = await self.browser.new_page()
        await self.page.set_content("<!doctype html><title>hub</title>")
        await self.page.add_script_tag(content=HUB_JS)
        return self.page

    async def connect(self, peer: PeerLink) -> Channel:
        """Offer from a guest's peer, answered by the page; returns the guest's channel once open."""
        assert self.page is not None
        answer = await asyncio.wait_for(self.page.evaluate("(offer) => answer(offer)", await peer.offer()), 15)
        await peer.accept(answer)
        return await asyncio.wait_for(peer.opened(), 15)
