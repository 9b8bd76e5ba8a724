"""Real services for the rendezvous tests, each a subprocess on a free loopback port: Debian's
`redis-server` and `turnserver` (coturn), and `canvas signal` instances as an operator runs them."""

from __future__ import annotations

import dataclasses
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from canvasrelay.client.guest import RoomLink

START_TIMEOUT = 20.0


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def link_via(room_link: str, *signal_urls: str) -> RoomLink:
    """The room link, as a guest would hold it if the room were reached through these rendezvous."""
    return dataclasses.replace(RoomLink.parse(room_link), signal=",".join(signal_urls))


class _Output:
    """A subprocess's merged output, read by a thread, so a test can wait for a line without polling."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.lines: list[str] = []
        self.changed = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with self.changed:
                self.lines.append(line)
                self.changed.notify_all()
        with self.changed:
            self.lines.append("")  # end of output
            self.changed.notify_all()

    def wait_for(self, pattern: str, timeout: float = START_TIMEOUT, after: int = 0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        seen = after
        with self.changed:
            while True:
                for line in self.lines[seen:]:
                    if line == "":
                        raise RuntimeError("the process ended:\n" + "".join(self.lines))
                    match = re.search(pattern, line)
                    if match:
                        return match
                seen = len(self.lines)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no line matching {pattern!r}:\n" + "".join(self.lines))
                self.changed.wait(left)


@dataclass
class Service:
    args: list[str] = field(default_factory=list)
    proc: subprocess.Popen[str] | None = None
    output: _Output | None = None

    def _spawn(self, args: list[str]) -> _Output:
        self.proc = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,
        )
        self.output = _Output(self.proc)
        return self.output

    def kill(self) -> None:
        """SIGKILL, as a crash or an OOM kill would end it."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class RedisServer(Service):
    """`redis-server` with nothing on disk, on a port of its own."""

    port: int = field(default_factory=free_port)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        args = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self._spawn(args).wait_for("Ready to accept connections")
        return self

    def restart(self) -> None:
        self.kill()
        self.start()


@dataclass
class SignalInstance(Service):
    """`canvas signal` on a free loopback port, as an operator would start one of several."""

    extra: list[str] = field(default_factory=list)
    url: str = ""

    def start(self) -> SignalInstance:
        args = [sys.executable, "-m", "canvasrelay", "signal", "--host", "127.0.0.1", "--port", "0", *self.extra]
        output = self._spawn(args)
        self.url = output.wait_for(r"(ws://\S+/signal)").group(1)
        output.wait_for("Put it behind TLS")  # its last word on starting: Redis is joined or known to be away
        return self

    @property
    def http(self) -> str:
        return self.url.replace("ws://", "http://").removesuffix("/signal")

    def status(self, path: str) -> int:
        try:
            with urllib.request.urlopen(self.http + path, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return exc.code

    def metrics(self) -> dict[str, float]:
        """`/metrics` as {"name{label=value}": value}."""
        with urllib.request.urlopen(self.http + "/metrics", timeout=5) as response:
            text = response.read().decode()
        figures = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
                figures[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
        return figures


@dataclass
class Coturn(Service):
    """coturn with `use-auth-secret`, listening and relaying on 127.0.0.1 only."""

    workdir: Path = field(default_factory=Path)
    secret: str = "a-test-only-turn-secret"
    port: int = field(default_factory=lambda: free_port(socket.SOCK_DGRAM))

    @property
    def url(self) -> str:
        return f"turn:127.0.0.1:{self.port}"

    def start(self) -> Coturn:
        args = [
            "turnserver",
            "-n",  # not /etc/turnserver.conf: everything is on this line
            "--use-auth-secret",
            f"--static-auth-secret={self.secret}",
            "--realm=canvas.test",
            "--listening-ip=127.0.0.1",
            "--relay-ip=127.0.0.1",
            f"--listening-port={self.port}",
            "--allow-loopback-peers",
            "--no-tls",
            "--no-dtls",
            "--no-cli",
            "--verbose",
            "--log-file=stdout",
            f"--pidfile={self.workdir / 'turnserver.pid'}",
            f"--db={self.workdir / 'turndb'}",
        ]
        self._spawn(args).wait_for("Total General servers")
        return self

    def allocations(self) -> int:
        """How many relay allocations coturn has made so far, from its own log."""
        assert self.output is not None
        with self.output.changed:
            return sum("ALLOCATE processed, success" in line for line in self.output.lines)


@dataclass
class NostrRelay(Service):
    """A real Nostr relay (PyPI `nostr-relay`, NIP-01), on a loopback port of its own, keeping its
    events in a folder of the test's."""

    workdir: Path = field(default_factory=Path)
    port: int = field(default_factory=free_port)

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> NostrRelay:
        config = self.workdir / "relay.yaml"
        config.write_text(
            "DEBUG: false\n"
            f"storage:\n  sqlalchemy.url: sqlite+aiosqlite:///{self.workdir / 'events.sqlite3'}\n"
            f"gunicorn:\n  bind: 127.0.0.1:{self.port}\n  workers: 1\n"
            "authentication:\n  enabled: false\n"
        )
        relay = Path(sys.executable).with_name("nostr-relay")
        self._spawn([str(relay), "-c", str(config), "serve"]).wait_for("Starting garbage collector")
        return self
