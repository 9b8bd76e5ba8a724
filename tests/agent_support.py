"""Helpers for tests that drive agent sessions through a host socket."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from canvasrelay.server.app import CanvasServer, ServeOptions
from tests.support import HostClient, InProcessServer

TURN_TIMEOUT = 60.0
"""Generous: the machines that run these tests are often loaded, and an agent takes seconds to start."""
_ids = itertools.count(1)


@asynccontextmanager
async def serving(root: Path, **options: Any) -> AsyncIterator[InProcessServer]:
    """A server on `root` in the test's loop; `options` are `ServeOptions`' others."""
    server = CanvasServer(ServeOptions(root=root, **options))
    await server.start()
    try:
        yield InProcessServer(server)
    finally:
        await server.stop()


async def create(host: HostClient, agent: str = "demo", options: bool = True) -> str:
    """A new session; with `options`, once the agent runs and told its options."""
    session_id = f"a{next(_ids)}"
    await host.send({"t": "agent-create", "id": session_id, "agent": agent})
    if options:
        await host.expect("agent-options", timeout=TURN_TIMEOUT, sessionId=session_id)
    return session_id


async def frames_until(
    host: HostClient, done: Callable[[dict[str, Any]], bool], timeout: float = TURN_TIMEOUT
) -> list[dict[str, Any]]:
    """Every frame up to and including the first for which `done` is true."""
    seen: list[dict[str, Any]] = []
    async with asyncio.timeout(timeout):
        while True:
            frame = await host.next_frame(timeout)
            seen.append(frame)
            if done(frame):
                return seen


async def events_until(host: HostClient, session_id: str, kind: str, **match: Any) -> list[dict[str, Any]]:
    """The session's events up to the first of `kind` whose fields equal `match`."""

    def done(frame: dict[str, Any]) -> bool:
        event = frame.get("event") or {}
        return (
            frame.get("t") == "agent-event"
            and frame.get("sessionId") == session_id
            and event.get("kind") == kind
            and all(event.get(k) == v for k, v in match.items())
        )

    frames = await frames_until(host, done)
    return [f["event"] for f in frames if f.get("t") == "agent-event" and f.get("sessionId") == session_id]


async def status_becomes(host: HostClient, session_id: str, status: str) -> dict[str, Any]:
    def done(frame: dict[str, Any]) -> bool:
        meta = frame.get("meta") or {}
        return frame.get("t") == "agent-meta" and meta.get("id") == session_id and meta.get("status") == status

    return (await frames_until(host, done))[-1]["meta"]


async def prompt(host: HostClient, session_id: str, text: str) -> list[dict[str, Any]]:
    """Prompt and wait for the turn's end; returns its events."""
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": text})
    return await events_until(host, session_id, "turn-end")


def said(events: list[dict[str, Any]]) -> str:
    """What the agent said in these events."""
    return "".join(
        e["update"]["content"].get("text", "")
        for e in events
        if e["kind"] == "chunk" and e["update"].get("sessionUpdate") == "agent_message_chunk"
    )


def store_dump(root: Path) -> str:
    """Every row of every table of the store, as text."""
    with sqlite3.connect(root / ".canvas" / "canvas.db") as db:
        return "\n".join(db.iterdump())


def audit(root: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(root / ".canvas" / "canvas.db") as db:
        rows = db.execute("SELECT actor, action, detail FROM audit ORDER BY id").fetchall()
    return [{"actor": a, "action": b, "detail": json.loads(c)} for a, b, c in rows]


def config(root: Path, text: str) -> None:
    folder = root / ".canvas"
    folder.mkdir(mode=0o700, exist_ok=True)
    (folder / "config.toml").write_text(text)


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, _, pgrp = stat.read_text().rsplit(")", 1)[1].split()[:3]
        except (OSError, IndexError, ValueError):
            continue
        if int(pgrp) == pgid and state != "Z":
            found.append(int(stat.parent.name))
    return found


def demo_children() -> list[int]:
    """This process's children that run the demo agent."""
    me = os.getpid()
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            state, ppid = (proc / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            cmdline = (proc / "cmdline").read_bytes()
        except (OSError, ValueError):
            continue
        if int(ppid) == me and state != "Z" and b"canvasrelay.agents.demo" in cmdline:
            found.append(int(proc.name))
    return found
