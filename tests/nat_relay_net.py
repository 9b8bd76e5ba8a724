"""The test net's public segment for the room link that works anywhere (tests/nat_net.py): coturn,
a real Nostr relay, one that takes every event and passes none on, one that is not there, and the
exported guest page on a static server; `canvas serve` behind the host's router, and real Chromium
behind the guest's. Used by the NAT journeys and their benchmark."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from canvasrelay import __version__
from canvasrelay.page.bundle import ENV as PAGE_ENV
from tests.nat_net import PUBLIC, NatNet
from tests.services import _Output

RELAY_PORT, DROPPING_PORT, DEAD_PORT, PAGE_PORT = 7447, 7448, 7449, 8080
RELAYS = [f"ws://{PUBLIC}:{port}" for port in (RELAY_PORT, DROPPING_PORT, DEAD_PORT)]
PAGE = f"http://{PUBLIC}:{PAGE_PORT}/canvas/v{__version__}/"
JOIN_S = 40.0
REPO = Path(__file__).parents[1]


def public_segment(net: NatNet, folder: Path) -> _Output:
    """On the public segment: coturn, a real relay, one that drops every event, and the exported page.
    Returns the dropping relay's output: a line for each event it is sent (`event <pubkey>`)."""
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
    counted = net.run(net.public, dropping, PYTHONPATH=str(REPO))
    counted.wait_for("relay dropping on")
    site = folder / "site"
    exported = subprocess.run(
        [sys.executable, "-m", "canvasrelay", "page", "export", str(site / "canvas" / f"v{__version__}")],
        capture_output=True,
        text=True,
    )
    assert exported.returncode == 0, exported.stderr
    static = [sys.executable, "-m", "http.server", str(PAGE_PORT), "--bind", PUBLIC, "--directory", str(site)]
    net.run(net.public, static).wait_for("Serving HTTP")
    return counted


def host(net: NatNet, folder: Path, *options: str) -> str:
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


def chromium(net: NatNet, link: str) -> dict[str, object]:
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




def events_sent(relay: _Output, at_least: int = 0, timeout: float = 10.0) -> int:
    """How many events the relay was sent so far (once it has been sent `at_least`)."""
    with relay.changed:
        relay.changed.wait_for(lambda: _count(relay) >= at_least, timeout)
        return _count(relay)


def _count(relay: _Output) -> int:
    return sum(line.startswith("event ") for line in relay.lines)
