"""Test support: a real `canvas serve` subprocess and a real host WebSocket client."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

import aiohttp
import pytest
from pydantic import BaseModel

from canvasrelay.core import session_log
from canvasrelay.protocol.session_events import SessionEvent, session_event
from canvasrelay.server.http.lan import interface_addresses

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    # no sandbox as root, and no background traffic on a machine that reaches only package registries
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
MISSING = re.compile(r"(?P<thing>\S+) is missing here; install it: (?P<install>.+)")
"""How a test says what it lacks; the run's summary lists each once (see conftest)."""


def missing(thing: str, install: str) -> None:
    """Skip the test for lack of `thing`; with CI set, fail it: CI installs everything."""
    reason = f"{thing} is missing here; install it: {install}"
    if os.environ.get("CI"):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def require(program: str, package: str) -> None:
    """The Debian program a test drives, or a skip (a failure in CI) naming its package."""
    if shutil.which(program) is None:
        missing(program, f"apt-get install -y {package}")


# Shells kept by tmux outlive the server that started them: only the tests that mean to keep
# them (and end them themselves) let canvas use tmux.
os.environ.setdefault("CANVAS_NO_TMUX", "1")
SERVER_OUTPUT_CHARS = 6000
STARTED: list[ServerProcess] = []
"""The servers the running test started: a failing test's report shows what they printed."""
LINK = re.compile(r"^(Host|Room) link[^:]*: (\S+)$")
START_TIMEOUT = 30.0
FRAME_TIMEOUT = 10.0


def _limit_files(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


@dataclass
class ServerProcess:
    """`canvas serve` in a subprocess on a free port, as a user would run it."""

    root: Path
    extra_args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    """Where it runs; `python -m` puts this first on its path, ahead of PYTHONPATH."""
    proc: subprocess.Popen[str] | None = None
    host_link: str = ""
    room_link: str = ""
    output: list[str] = field(default_factory=list)
    file_limit: int | None = None
    """The most files it may open (soft and hard), as on a machine that allows no more."""
    keep_reading: bool = True
    """Read its output as it comes (a pipe nobody reads fills, and then the server stops in its next
    log line); off for a test that closes the pipe itself."""
    reader: threading.Thread | None = None

    def start(self, *more_args: str) -> ServerProcess:
        args = [sys.executable, "-m", "canvasrelay", "serve", "--dir", str(self.root), "--port", "0", "--no-open"]
        self.proc = subprocess.Popen(
            [*args, *self.extra_args, *more_args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **self.env},
            cwd=self.cwd,
            start_new_session=True,
            preexec_fn=None if self.file_limit is None else functools.partial(_limit_files, self.file_limit),
        )
        self.host_link = self.room_link = ""
        deadline = time.monotonic() + START_TIMEOUT
        assert self.proc.stdout is not None
        while not (self.host_link and self.room_link):
            if time.monotonic() > deadline:
                raise TimeoutError("canvas serve did not print its links:\n" + "".join(self.output))
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("canvas serve exited:\n" + "".join(self.output))
            self.output.append(line)
            match = LINK.match(line.strip())
            if match:
                if match.group(1) == "Host":
                    self.host_link = match.group(2)
                else:
                    self.room_link = match.group(2)
        STARTED.append(self)
        if self.keep_reading:
            self.reader = threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True)
            self.reader.start()
        return self

    def _read(self, stdout: IO[str]) -> None:
        for line in stdout:
            self.output.append(line)

    @property
    def base_url(self) -> str:
        return self.host_link.split("#", 1)[0].rstrip("/")

    @property
    def token(self) -> str:
        return self.host_link.split("#token=", 1)[1]

    @property
    def ws_url(self) -> str:
        return self.base_url.replace("http://", "ws://") + "/ws"

    def stop(self, timeout: float = 15.0) -> int:
        """Ctrl-C, as a user would; returns the exit code."""
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=timeout)
        finally:
            self._drain()
        return code

    def kill9(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self._drain()

    def _drain(self) -> None:
        if self.proc is None or self.proc.stdout is None:
            return
        if self.reader is not None:
            self.reader.join(timeout=10)
        elif not self.proc.stdout.closed:
            self.output.append(self.proc.stdout.read())
        self.proc.stdout.close()


@dataclass
class ServerThread(ServerProcess):
    """The same server as `canvas serve`, started in a thread of the test's process with an event
    loop of its own: for tests that reach it only by its links (pages, sockets, HTTP), it saves a
    subprocess's second of start and stop. Tests of the process itself (its output, signals,
    restarts) ask for `ServerProcess` (the `serve_subprocess` marker)."""

    server: Any = None
    loop: asyncio.AbstractEventLoop | None = None
    thread: threading.Thread | None = None

    def start(self, *more_args: str) -> ServerThread:
        assert not (self.extra_args or more_args or self.env or self.cwd), "options need a ServerProcess"
        from canvasrelay.server.app import CanvasServer, ServeOptions

        async def start() -> Any:
            server = CanvasServer(ServeOptions(root=self.root))
            await server.start()
            return server

        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="canvas serve", daemon=True)
        self.thread.start()
        self.server = asyncio.run_coroutine_threadsafe(start(), self.loop).result(START_TIMEOUT)
        self.host_link, self.room_link = self.server.host_link, self.server.room_link
        return self

    def stop(self, timeout: float = 15.0) -> int:
        if self.loop is None or self.thread is None:
            return 0
        try:
            asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(timeout)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout)
            self.loop.close()
            self.loop = self.thread = None
        return 0


@contextlib.contextmanager
def serving_an_empty_project() -> Iterator[ServerProcess]:
    """`canvas serve` in a fresh, empty project folder; stopped, and the folder gone, afterwards."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        root.mkdir()
        server = ServerProcess(root).start()
        try:
            yield server
        finally:
            server.stop()


class HostClient:
    """A host page's WebSocket, driven from a test: send frames, wait for the ones you expect."""

    def __init__(self, session: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.session = session
        self.ws = ws
        self.welcome: dict[str, Any] = {}
        self.seen: list[dict[str, Any]] = []

    @classmethod
    async def connect(cls, server: ServerProcess | InProcessServer, token: str | None = None) -> HostClient:
        session = aiohttp.ClientSession()
        ws = await session.ws_connect(server.ws_url, headers={"Origin": server.base_url}, max_msg_size=0)
        client = cls(session, ws)
        await client.send({"t": "auth", "token": server.token if token is None else token})
        client.welcome = await client.expect("welcome")
        return client

    async def send(self, frame: dict[str, Any] | str) -> None:
        await self.ws.send_str(frame if isinstance(frame, str) else json.dumps(frame))

    async def next_frame(self, timeout: float = FRAME_TIMEOUT) -> dict[str, Any]:
        msg = await self.ws.receive(timeout=timeout)
        if msg.type is not aiohttp.WSMsgType.TEXT:
            raise ConnectionError(f"socket closed: {msg.type} {msg.data!r} {msg.extra!r}")
        frame: dict[str, Any] = json.loads(msg.data)
        self.seen.append(frame)
        return frame

    async def expect(self, t: str, timeout: float = FRAME_TIMEOUT, **match: Any) -> dict[str, Any]:
        """The next frame of type `t` whose fields equal `match`; others are kept in `seen`."""
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.next_frame(timeout)
                if frame.get("t") == t and all(frame.get(k) == v for k, v in match.items()):
                    return frame

    async def close(self) -> None:
        await self.ws.close()
        await self.session.close()


@dataclass
class InProcessServer:
    """A `CanvasServer` run in the test's own event loop, for tests that reach into its parts;
    it answers to the same names as `ServerProcess`, so `HostClient.connect` takes either."""

    server: Any

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.server.port}/ws"

    @property
    def token(self) -> str:
        return str(self.server.secrets.token)

    @property
    def room_link(self) -> str:
        return str(self.server.room_link)


def serve_on_every_interface(root: Path) -> ServerProcess:
    """`canvas serve --host 0.0.0.0`, once its links are checked to name one of this machine's
    network addresses (skipped on a machine that has none but loopback)."""
    ours = interface_addresses()
    if not ours:
        pytest.skip("this machine has no network address but loopback")
    served = ServerProcess(root).start("--host", "0.0.0.0")
    lan = urlsplit(served.room_link).hostname
    if lan not in ours or urlsplit(served.host_link).hostname != lan:
        served.stop()
        raise AssertionError(f"the links name {lan}, not one of this machine's addresses {ours}")
    return served


OPEN_RATE = 90.0
"""Opens per second: just under a guest's inbound gate, so none is dropped."""
OPEN_WINDOW = 32


async def open_paced(guest: Any, names: list[str], rate: float = OPEN_RATE, window: int = OPEN_WINDOW) -> int:
    """A guest opens each of `names` (at `rate`, at most `window` unanswered); returns how many were answered."""
    waiting: set[str] = set()
    answered = 0
    changed = asyncio.Event()

    def on_frame(frame: dict[str, Any]) -> None:
        nonlocal answered
        if frame.get("t") == "file" and frame.get("path") in waiting:
            waiting.discard(frame["path"])
            answered += 1
            changed.set()

    guest.listeners.append(on_frame)
    start = time.monotonic()
    try:
        for i, name in enumerate(names):
            while len(waiting) >= window:
                changed.clear()
                await asyncio.wait_for(changed.wait(), 30)
            waiting.add(name)
            await guest.send({"t": "file-open", "path": name})
            await asyncio.sleep(max(0.0, start + (i + 1) / rate - time.monotonic()))
        while waiting:
            changed.clear()
            await asyncio.wait_for(changed.wait(), 30)
    finally:
        guest.listeners.remove(on_frame)
    return answered


def as_sent(events: Iterable[SessionEvent]) -> list[dict[str, Any]]:
    """Stored events as frames carry them: every field of their model, defaults included."""
    return [event.model_dump(mode="json", by_alias=True) for event in events]


def thread_of(events: Iterable[Mapping[str, Any] | SessionEvent]) -> dict[str, Any]:
    """The thread that events fold to, as JSON with every field: events from frames (JSON) and from
    the store (typed) fold to the same."""
    typed = [event if isinstance(event, BaseModel) else session_event(event) for event in events]
    return session_log.fold(typed).model_dump(mode="json", by_alias=True)


@contextlib.asynccontextmanager
async def board_tools(served: InProcessServer, session_id: str = "s1") -> AsyncIterator[Any]:
    """An MCP client on the server's board tools, initialised, with agent session `session_id`'s secret."""
    # Imported here: the MCP SDK takes a second to import, and few tests need it.
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

    headers = {"Authorization": f"Bearer {served.server.board_mcp.secret_for(session_id)}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(f"{served.base_url}/mcp/board", http_client=http) as (read, write, *_),
        ClientSession(read, write) as mcp,
    ):
        await mcp.initialize()
        yield mcp
