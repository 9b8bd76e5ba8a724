"""The room link that works anywhere, in a test net of homes behind routers (tests/nat_net.py): the
host runs `canvas serve` behind one router with nothing but relays named, the guest page is the
exported copy a static server on the public segment serves, and the guest is real Chromium (and
`canvas join`) behind another router. Of the link's three relays one is a real relay, one takes
every event and passes none on, one is not there at all.

- Behind port-preserving routers the page joins through the relays and STUN alone.
- Behind two symmetric routers it joins relay-only through coturn, with the credentials the host
  minted for it and sealed in its reply.
- Behind two symmetric routers with no TURN server the page and `canvas join` say, in words, that
  the two networks could not meet and what the host can add, within a bounded time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from canvasrelay import __version__
from canvasrelay.protocol.words import NETWORKS_DID_NOT_MEET
from canvasrelay.server.http.page_bundle import ENV as PAGE_ENV
from tests.nat_net import PUBLIC, STUN, NatNet, missing_tools, nat_net, turn_options
from tests.support import missing, require

pytestmark = [pytest.mark.services, pytest.mark.browser, pytest.mark.timeout(120)]

RELAY_PORT, DROPPING_PORT, DEAD_PORT, PAGE_PORT = 7447, 7448, 7449, 8080
RELAYS = [f"ws://{PUBLIC}:{port}" for port in (RELAY_PORT, DROPPING_PORT, DEAD_PORT)]
PAGE = f"http://{PUBLIC}:{PAGE_PORT}/canvas/v{__version__}/"
JOIN_S = 40.0
REPO = Path(__file__).parents[1]


@pytest.fixture(autouse=True)
def _can_build_a_net() -> None:
    lacking = missing_tools()
    if lacking is not None:
        missing("a network namespace test net", f"run as root with iproute2 and nftables ({lacking})")
    require("turnserver", "coturn")


def _public_segment(net: NatNet, folder: Path) -> None:
    """On the public segment: coturn, a real relay, one that drops every event, and the exported page."""
    net.start_coturn(folder)
    config = folder / "relay.yaml"
    config.write_text(
        "DEBUG: false\n"
        f"storage:\n  sqlalchemy.url: sqlite+aiosqlite:///{folder / 'events.sqlite3'}\n"
        f"gunicorn:\n  bind: {PUBLIC}:{RELAY_PORT}\n  workers: 1\n"
        "authentication:\n  enabled: false\n"
    )
    relay = str(Path(sys.executable).with_name("nostr-relay"))
    net.run(net.public, [relay, "-c", str(config), "serve"]).wait_for("Starting garbage collector")
    dropping = [sys.executable, "-m", "tests.bad_relays", "dropping", PUBLIC, str(DROPPING_PORT)]
    net.run(net.public, dropping, PYTHONPATH=str(REPO)).wait_for("relay dropping on")
    site = folder / "site"
    exported = subprocess.run(
        [sys.executable, "-m", "canvasrelay", "page", "export", str(site / "canvas" / f"v{__version__}")],
        capture_output=True,
        text=True,
    )
    assert exported.returncode == 0, exported.stderr
    static = [sys.executable, "-m", "http.server", str(PAGE_PORT), "--bind", PUBLIC, "--directory", str(site)]
    net.run(net.public, static).wait_for("Serving HTTP")


def _host(net: NatNet, folder: Path, *options: str) -> str:
    """`canvas serve` behind the host's router, told only its relays (and STUN, TURN): the room link."""
    project = folder / "project"
    project.mkdir()
    serve = [sys.executable, "-m", "canvasrelay", "serve", "--dir", str(project), "--port", "0", "--no-open"]
    hub = net.run(net.built["hub"].machine, [*serve, "--relays", ",".join(RELAYS), *options], **{PAGE_ENV: PAGE})
    opens = hub.wait_for(r"The room link opens (.*)").group(1)
    assert opens.startswith("the published guest page: ") and "byte for byte" in opens, opens
    link = hub.wait_for(r"Room link[^:]*: (\S+)").group(1)
    assert link.startswith(PAGE + "#room="), link
    return link


def _chromium(net: NatNet, link: str) -> dict[str, object]:
    browser = [sys.executable, "-m", "tests.nat_browser", link, str(JOIN_S)]
    done = subprocess.run(
        ["ip", "netns", "exec", net.built["guest"].machine, *browser],
        capture_output=True,
        text=True,
        timeout=JOIN_S + 30,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    joined: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"Chromium guest: {joined}")
    return joined


@pytest.fixture
def port_preserving(tmp_path: Path) -> Iterator[NatNet]:
    with nat_net(hub=False, guest=False) as net:
        _public_segment(net, tmp_path)
        yield net


@pytest.fixture
def symmetric(tmp_path: Path) -> Iterator[NatNet]:
    with nat_net(hub=True, guest=True) as net:
        _public_segment(net, tmp_path)
        yield net


def test_a_browser_in_another_home_opens_the_link_and_is_on_the_board_through_stun(
    port_preserving: NatNet, tmp_path: Path
) -> None:
    joined = _chromium(port_preserving, _host(port_preserving, tmp_path, "--ice-server", STUN))
    assert joined.get("project") == "project", joined


def test_behind_two_symmetric_routers_the_browser_joins_relay_only_with_minted_credentials(
    symmetric: NatNet, tmp_path: Path
) -> None:
    link = _host(symmetric, tmp_path, "--relay-only", *turn_options(tmp_path))
    assert "relay=1" in link and "turn-secret" not in link
    joined = _chromium(symmetric, link)
    assert joined.get("project") == "project", joined


def test_with_no_turn_across_symmetric_routers_the_guest_is_told_what_would_help(
    symmetric: NatNet, tmp_path: Path
) -> None:
    link = _host(symmetric, tmp_path, "--ice-server", STUN)
    told = _chromium(symmetric, link)
    assert str(told.get("trouble", "")).startswith(NETWORKS_DID_NOT_MEET), told
    join = [sys.executable, "-m", "canvasrelay", "join", link, "--name", "Behind a NAT"]
    done = subprocess.run(
        ["ip", "netns", "exec", symmetric.built["guest"].machine, *join],
        capture_output=True,
        text=True,
        timeout=JOIN_S,
        cwd=REPO,
    )
    assert done.returncode == 1 and done.stderr.strip() == f"canvas: {NETWORKS_DID_NOT_MEET}", done.stderr
