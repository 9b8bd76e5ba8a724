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

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from canvasrelay.protocol.words import NETWORKS_DID_NOT_MEET
from tests.nat_net import STUN, NatNet, nat_net, require_a_net, turn_options
from tests.nat_relay_net import JOIN_S, REPO, chromium, events_sent, host, public_segment
from tests.services import _Output

pytestmark = [pytest.mark.services, pytest.mark.browser, pytest.mark.timeout(120)]

EVENTS_PER_JOIN = 4

@pytest.fixture(autouse=True)
def _can_build_a_net() -> None:
    require_a_net()


@pytest.fixture
def port_preserving(tmp_path: Path) -> Iterator[tuple[NatNet, _Output]]:
    with nat_net(hub=False, guest=False) as net:
        yield net, public_segment(net, tmp_path)


@pytest.fixture
def symmetric(tmp_path: Path) -> Iterator[NatNet]:
    with nat_net(hub=True, guest=True) as net:
        public_segment(net, tmp_path)
        yield net


def test_a_browser_in_another_home_opens_the_link_and_is_on_the_board_through_stun(
    port_preserving: tuple[NatNet, _Output], tmp_path: Path
) -> None:
    net, counting_relay = port_preserving
    link = host(net, tmp_path, "--ice-server", STUN)
    assert events_sent(counting_relay) == 0, "a host nobody joins sends nothing"
    joined = chromium(net, link)
    assert joined.get("project") == "project", joined
    # The page's question about the room and its offer, the host's reply and answer: no more,
    # but for one offer the page retried when a loaded machine kept the answer past its first wait
    # (answered once more). tests/bench/nat_join.py prints the figure per join.
    assert events_sent(counting_relay, at_least=EVENTS_PER_JOIN) in (EVENTS_PER_JOIN, EVENTS_PER_JOIN + 2)


def test_behind_two_symmetric_routers_the_browser_joins_relay_only_with_minted_credentials(
    symmetric: NatNet, tmp_path: Path
) -> None:
    link = host(symmetric, tmp_path, "--relay-only", *turn_options(tmp_path))
    assert "relay=1" in link and "turn-secret" not in link
    joined = chromium(symmetric, link)
    assert joined.get("project") == "project", joined


def test_with_no_turn_across_symmetric_routers_the_guest_is_told_what_would_help(
    symmetric: NatNet, tmp_path: Path
) -> None:
    link = host(symmetric, tmp_path, "--ice-server", STUN)
    join = [sys.executable, "-m", "canvasrelay", "join", link, "--name", "Behind a NAT"]
    # The page and `canvas join` try at once: each waits out its own handshake.
    with subprocess.Popen(
        ["ip", "netns", "exec", symmetric.built["guest"].machine, *join],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    ) as joining:
        told = chromium(symmetric, link)
        _, stderr = joining.communicate(timeout=JOIN_S)
    assert str(told.get("trouble", "")).startswith(NETWORKS_DID_NOT_MEET), told
    assert joining.returncode == 1 and stderr.strip() == f"canvas: {NETWORKS_DID_NOT_MEET}", stderr
