"""A guest behind a home router joins a hub behind another: through STUN alone when both routers
keep ports (port-preserving NATs), through coturn when both pick a new port per destination
(symmetric NATs). The hub is a real `canvas serve`, the rendezvous a real `canvas signal`, the guest
the library `canvas join` uses, each in its own network namespace (tests/nat_net.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from canvasrelay.net.channel import Route
from canvasrelay.net.peer_connection import CHOICE
from tests.nat_net import PUBLIC, STUN, NatNet, nat_net, require_a_net, turn_options

pytestmark = [pytest.mark.services, pytest.mark.timeout(90)]

SIGNAL_PORT = 8478
JOIN_S = 30.0


@pytest.fixture(autouse=True)
def _can_build_a_net() -> None:
    require_a_net()


def _serve(net: NatNet, folder: Path, hub_library: str, turn: bool) -> str:
    """coturn and the rendezvous on the public segment, the hub behind its router: the room link."""
    relay = turn_options(folder) if turn else []
    net.start_coturn(folder)
    rendezvous = [sys.executable, "-m", "canvasrelay", "signal", "--host", PUBLIC, "--port", str(SIGNAL_PORT), *relay]
    net.run(net.public, rendezvous).wait_for("Put it behind TLS")
    project = folder / "project"
    project.mkdir()
    serve = [sys.executable, "-m", "canvasrelay", "serve", "--dir", str(project), "--port", "0", "--no-open"]
    signal = f"ws://{PUBLIC}:{SIGNAL_PORT}/signal"
    hub_args = [*serve, "--signal", signal, "--ice-server", STUN]
    hub = net.run(net.built["hub"].machine, hub_args, **{CHOICE: hub_library})
    assert f"Guests connect over {hub_library} " in hub.wait_for(r"Guests connect over .*").group(0)
    return hub.wait_for(r"Room link[^:]*: (\S+)").group(1)


def _join(net: NatNet, link: str, guest_library: str) -> dict[str, object]:
    guest = [sys.executable, "-m", "tests.nat_guest", link, guest_library]
    done = subprocess.run(
        ["ip", "netns", "exec", net.built["guest"].machine, *guest],
        capture_output=True,
        text=True,
        timeout=JOIN_S,
        cwd=Path(__file__).parents[1],
    )
    assert done.returncode == 0, done.stderr
    joined: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{guest_library} guest: {joined}")
    return joined


@pytest.fixture
def symmetric() -> Iterator[NatNet]:
    with nat_net(hub=True, guest=True) as net:
        yield net


@pytest.fixture
def port_preserving() -> Iterator[NatNet]:
    with nat_net(hub=False, guest=False) as net:
        yield net


@pytest.mark.parametrize(("hub", "guest"), [("wrtc", "wrtc"), ("wrtc", "aiortc"), ("aiortc", "aiortc")])
def test_a_guest_behind_a_symmetric_nat_joins_through_coturn(
    symmetric: NatNet, tmp_path: Path, hub: str, guest: str
) -> None:
    joined = _join(symmetric, _serve(symmetric, tmp_path, hub, turn=True), guest)
    assert "error" not in joined, "the guest did not get in"
    assert isinstance(joined["route"], list) and Route(*joined["route"]).relayed, "only a relay crosses both NATs"


@pytest.mark.parametrize(("hub", "guest"), [("wrtc", "wrtc"), ("aiortc", "aiortc")])
def test_a_guest_behind_a_port_preserving_nat_joins_through_stun_alone(
    port_preserving: NatNet, tmp_path: Path, hub: str, guest: str
) -> None:
    joined = _join(port_preserving, _serve(port_preserving, tmp_path, hub, turn=False), guest)
    assert "error" not in joined, "the guest did not get in"
    assert isinstance(joined["route"], list)
    route = Route(*joined["route"])
    assert not route.relayed and {"srflx", "prflx"} & set(route), "the pair crosses both NATs, not a LAN"
