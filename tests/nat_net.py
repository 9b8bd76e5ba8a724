"""A test net of network namespaces: a 'public' segment, and homes behind routers that masquerade.

Needs root and Debian's `nftables` (and `iproute2`). The public segment is a bridge in a namespace
of its own, where the servers run (the rendezvous, coturn); each home is a router's namespace (a
WAN leg on the bridge, a LAN leg, forwarding, nftables `masquerade`) and a machine's behind it.
`masquerade` keeps a connection's source port where it is free (port-preserving, what STUN alone
crosses); `masquerade random,fully-random` picks a new port for every destination (symmetric: only
a relay crosses it). Each router drops unsolicited packets to itself before conntrack confirms
them, as home routers do: otherwise the far side's first punch would take the very port the near
side's mapping needs, and no hole could be punched at all.

Build the net first and start servers in it after: a server started in a namespace that is then
deleted and made again listens where nobody can reach it. Leaving the `with` ends every process
started through `spawn` and deletes every namespace, whatever happened inside.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.services import _Output
from tests.support import missing, require

PUBLIC = "203.0.113.1"
"""The servers' address on the public segment (TEST-NET-3, never routed anywhere real)."""
TURN_PORT = 3478
TURN_SECRET = "a-test-only-turn-secret"
STUN = f"stun:{PUBLIC}:{TURN_PORT}"


def turn_options(folder: Path) -> list[str]:
    """`canvas serve`'s options for the net's coturn, its secret written to a file of `folder`'s."""
    secret = folder / "turn-secret"
    secret.write_text(TURN_SECRET + "\n")
    secret.chmod(0o600)
    return [f"--turn-secret-file={secret}", f"--turn-url=turn:{PUBLIC}:{TURN_PORT}"]


def missing_tools() -> str | None:
    """Why this machine cannot build the net, or None when it can."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool, package in (("ip", "iproute2"), ("nft", "nftables")):
        if shutil.which(tool) is None:
            return f"{tool} is missing (apt-get install {package})"
    return None


def require_a_net() -> None:
    """Skip (fail, under CI) a test this machine cannot build its net or coturn for, saying why."""
    lacking = missing_tools()
    if lacking is not None:
        missing("a network namespace test net", f"run as root with iproute2 and nftables ({lacking})")
    require("turnserver", "coturn")


@dataclass(frozen=True)
class Home:
    machine: str
    """The namespace of the machine behind the router: run a hub or a guest there."""
    router: str
    public: str
    """The router's address on the public segment, which the machine's traffic leaves from."""
    symmetric: bool


def _nat_rules(symmetric: bool) -> str:
    mapping = "masquerade random,fully-random" if symmetric else "masquerade"
    return f"""
table ip nat {{
  chain postrouting {{ type nat hook postrouting priority srcnat; policy accept; oifname "wan" {mapping}; }}
}}
table inet filter {{
  chain input {{ type filter hook input priority filter; policy accept; iifname "wan" ct state new drop; }}
}}
"""


@dataclass
class NatNet:
    homes: dict[str, bool]
    """Each home's name, and whether its router's NAT is symmetric."""
    prefix: str = field(default_factory=lambda: f"cn{os.getpid() % 100000}")
    public: str = ""
    built: dict[str, Home] = field(default_factory=dict)
    _namespaces: list[str] = field(default_factory=list)
    _processes: list[subprocess.Popen[Any]] = field(default_factory=list)

    def __enter__(self) -> NatNet:
        try:
            self._build()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_exc: object) -> None:
        for process in self._processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        for namespace in reversed(self._namespaces):
            subprocess.run(["ip", "netns", "delete", namespace], check=False, capture_output=True)

    def spawn(self, namespace: str, args: list[str], **popen: Any) -> subprocess.Popen[Any]:
        """`args` run in `namespace`, in a process group of their own that leaving the net kills."""
        process = subprocess.Popen(["ip", "netns", "exec", namespace, *args], start_new_session=True, **popen)
        self._processes.append(process)
        return process

    def run(self, namespace: str, args: list[str], **env: str) -> _Output:
        """`args` in `namespace`, their output read as it comes (to wait for a line of it)."""
        process = self.spawn(
            namespace,
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
        )
        return _Output(process)

    def start_coturn(self, folder: Path) -> None:
        """coturn (STUN and TURN, checking `TURN_SECRET`'s credentials) on the public segment."""
        coturn = [
            "turnserver",
            "-n",
            "--use-auth-secret",
            f"--static-auth-secret={TURN_SECRET}",
            "--realm=canvas.test",
            f"--listening-ip={PUBLIC}",
            f"--relay-ip={PUBLIC}",
            f"--listening-port={TURN_PORT}",
            "--no-tls",
            "--no-dtls",
            "--no-cli",
            "--log-file=stdout",
            f"--pidfile={folder / 'turnserver.pid'}",
            f"--db={folder / 'turndb'}",
        ]
        self.run(self.public, coturn).wait_for("Total General servers")

    def _namespace(self, name: str) -> str:
        namespace = f"{self.prefix}-{name}"
        _ip("netns", "add", namespace)
        self._namespaces.append(namespace)
        _in(namespace, "ip", "link", "set", "lo", "up")
        # IPv4 alone: the NATs are IPv4, and link-local IPv6 addresses would only add candidates that go nowhere.
        _in(namespace, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1")
        return namespace

    def _build(self) -> None:
        self.public = self._namespace("pub")
        _ip("-n", self.public, "link", "add", "br0", "type", "bridge")
        _ip("-n", self.public, "addr", "add", f"{PUBLIC}/24", "dev", "br0")
        _ip("-n", self.public, "link", "set", "br0", "up")
        # Everything else is routed away, as on the internet: a relay's send to a peer's private
        # address leaves and is lost. Without a route it fails, and coturn then closes the whole
        # allocation (ADR 0027).
        _ip("-n", self.public, "link", "add", "out0", "type", "veth", "peer", "name", "out1")
        for leg in ("out0", "out1"):
            _ip("-n", self.public, "link", "set", leg, "up")
        _ip("-n", self.public, "route", "add", "default", "dev", "out0")
        for number, (name, symmetric) in enumerate(self.homes.items(), start=1):
            router, machine = self._namespace(f"{name}-r"), self._namespace(name)
            wan = f"203.0.113.{10 + number}"
            uplink = f"up{number}"
            _ip("link", "add", "wan", "netns", router, "type", "veth", "peer", "name", uplink, "netns", self.public)
            _ip("-n", self.public, "link", "set", uplink, "master", "br0", "up")
            _ip("-n", router, "addr", "add", f"{wan}/24", "dev", "wan")
            _ip("-n", router, "link", "set", "wan", "up")
            _ip("link", "add", "lan", "netns", router, "type", "veth", "peer", "name", "eth0", "netns", machine)
            _ip("-n", router, "addr", "add", f"10.{number}.0.1/24", "dev", "lan")
            _ip("-n", router, "link", "set", "lan", "up")
            _ip("-n", machine, "addr", "add", f"10.{number}.0.2/24", "dev", "eth0")
            _ip("-n", machine, "link", "set", "eth0", "up")
            _ip("-n", machine, "route", "add", "default", "via", f"10.{number}.0.1")
            _in(router, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
            subprocess.run(
                ["ip", "netns", "exec", router, "nft", "-f", "-"], input=_nat_rules(symmetric), text=True, check=True
            )
            self.built[name] = Home(machine, router, wan, symmetric)


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def _in(namespace: str, *args: str) -> None:
    subprocess.run(["ip", "netns", "exec", namespace, *args], check=True, capture_output=True)


@contextlib.contextmanager
def nat_net(**homes: bool) -> Iterator[NatNet]:
    """A net with the given homes (`hub=True` for a home behind a symmetric NAT)."""
    with NatNet(homes) as net:
        yield net
