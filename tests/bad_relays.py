"""Relays that misbehave as public ones do, for the rendezvous's tests: written here (not a real
relay with a setting) because no relay program misbehaves on request. Each is a WebSocket
server on a loopback port (or, run as `python -m tests.bad_relays MODE HOST PORT`, on any address:
the NAT tests run one in their public segment):

- `rate-limited`: answers every event `OK false "rate-limited: …"`;
- `silent`: takes every message and answers none;
- `dropping`: says `OK true` and passes nothing on;
- `junk`: on every subscription, says it holds nothing (`EOSE`), then sends events that are not
  events, or are signed wrongly, and then one good event (a stranger's, on the topic), so a test
  knows the junk was all read.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass, field
from typing import Literal, cast

from aiohttp import WSMsgType, web

from canvasrelay.net.nostr_event import NostrKey, signal_event

Mode = Literal["rate-limited", "silent", "dropping", "junk"]


@dataclass
class BadRelay:
    mode: Mode
    runner: web.AppRunner | None = None
    port: int = 0
    received: list[object] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> BadRelay:
        app = web.Application()
        app.router.add_get("/", self._relay)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, host, port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    async def _relay(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for message in ws:
            if message.type is not WSMsgType.TEXT:
                continue
            frame = json.loads(message.data)
            self.received.append(frame)
            if self.mode == "silent":
                continue
            if frame[0] == "EVENT" and self.mode in ("rate-limited", "dropping"):
                accepted = self.mode == "dropping"
                words = "" if accepted else "rate-limited: slow down"
                await ws.send_str(json.dumps(["OK", frame[1]["id"], accepted, words]))
            elif frame[0] == "REQ" and self.mode == "junk":
                # Nothing held: what follows comes live, as a stranger's flood would.
                await ws.send_str(json.dumps(["EOSE", frame[1]]))
                for junk in _junk(frame[2]):
                    await ws.send_str(json.dumps(["EVENT", frame[1], junk]))
        return ws


def _junk(query: dict[str, object]) -> list[object]:
    """What a stranger floods a topic with: not events, a forged signature, a changed content;
    then a well-formed event of the stranger's."""
    topics = query.get("#x") or ["nothing"]
    assert isinstance(topics, list)
    good = signal_event(NostrKey.fresh(), "a stranger's words", topic=str(topics[0]))
    forged = {**good, "sig": "0" * 128}
    changed = {**good, "content": "changed after signing"}
    return ["not an event", {"id": 1}, forged, changed, good]


async def _serve(mode: Mode, host: str, port: int) -> None:
    await BadRelay(mode).start(host, port)
    print(f"relay {mode} on {host}:{port}", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(_serve(cast(Mode, sys.argv[1]), sys.argv[2], int(sys.argv[3])))
