"""`canvas join --json` against a real `canvas serve`, and a room signalled through `canvas signal`."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import HostClient, ServerProcess

TIMEOUT = 20.0


class JoinProcess:
    """`canvas join --json` as a script would drive it: JSON lines in, JSON lines out."""

    def __init__(self, link: str, name: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "canvasrelay", "join", link, "--name", name, "--json"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    async def expect(self, t: str) -> dict[str, Any]:
        assert self.proc.stdout is not None
        async with asyncio.timeout(TIMEOUT):
            while True:
                line = await asyncio.to_thread(self.proc.stdout.readline)
                if not line:
                    assert self.proc.stderr is not None
                    raise AssertionError(f"canvas join ended: {self.proc.stderr.read()}")
                frame: dict[str, Any] = json.loads(line)
                if frame["t"] == t:
                    return frame

    def send(self, frame: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(frame) + "\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


async def test_canvas_join_json(server: ServerProcess, host: HostClient) -> None:
    joiner = JoinProcess(server.room_link, "Terminal Tess")
    try:
        welcome = await joiner.expect("welcome")
        assert welcome["access"] == "view"
        joiner.send({"t": "ping"})
        await joiner.expect("pong")
        listing = await host.expect("guests")
        while not listing["guests"]:
            listing = await host.expect("guests")
        assert listing["guests"][0]["name"] == "Terminal Tess"
        await host.send({"t": "guest-set-access", "guestId": listing["guests"][0]["guestId"], "access": "edit"})
        assert (await joiner.expect("access"))["access"] == "edit"
    finally:
        joiner.stop()


@pytest.fixture
def signal_process() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "canvasrelay", "signal", "--host", "127.0.0.1", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    match = re.search(r"(ws://\S+/signal)", proc.stdout.readline())
    assert match, "canvas signal did not say where it listens"
    yield match.group(1)
    proc.terminate()
    proc.wait(timeout=10)


async def test_a_room_through_canvas_signal(project: Path, signal_process: str) -> None:
    base = signal_process.replace("ws://", "http://").removesuffix("/signal")
    served = ServerProcess(project).start("--signal", signal_process, "--base-url", base)
    try:
        assert served.room_link.startswith(base + "/#room=") and "signal=" in served.room_link
        joiner = JoinProcess(served.room_link, "Remote Rae")
        try:
            assert (await joiner.expect("welcome"))["access"] == "view"
        finally:
            joiner.stop()
    finally:
        served.stop()


async def test_canvas_join_says_why_and_exits_at_once_when_kicked(server: ServerProcess, host: HostClient) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "canvasrelay", "join", server.room_link, "--name", "Kicked Kim"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        first = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), TIMEOUT)
        assert first.startswith("joined project with view access"), first
        listing = await host.expect("guests")
        while not listing["guests"]:
            listing = await host.expect("guests")
        await host.send({"t": "guest-kick", "guestId": listing["guests"][0]["guestId"]})
        # It leaves by itself (the bug was a client that stayed until Ctrl-C): a wait this long
        # is a hang, not a slow machine.
        try:
            code = await asyncio.to_thread(proc.wait, TIMEOUT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"canvas join was still there {TIMEOUT:.0f} s after the kick")
        rest = proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0 and "The host removed you from this room." in rest, rest
