"""TURN from a provider's API key (Cloudflare's TURN keys): the host asks the provider for each
peer's short-lived credentials and seals them in its reply about the room; the guest crosses
relay-only through a real coturn with them and never holds the API token.

Cloudflare's API is the one edge these tests cannot reach, so a stand-in answers in its place
(`CloudflareStandIn`, named as such): it checks the bearer token as the API does and mints
credentials the test's real coturn accepts. A provider that refuses leaves guests without TURN,
and the host's log says why, once."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from aiohttp import web

from canvasrelay.client.guest import Guest, RoomLink
from canvasrelay.net.turn_provider import ProviderTurn, TurnProviderError, parse_ice_servers
from canvasrelay.signal.turn_credentials import mint
from tests.agent_support import serving
from tests.services import Coturn, NostrRelay, free_port

pytestmark = [pytest.mark.services, pytest.mark.timeout(90)]

KEY_ID = "a-test-turn-key"
TOKEN = "a-test-only-api-token"


class CloudflareStandIn:
    """A stand-in for Cloudflare's TURN key API (`POST /turn/keys/{id}/credentials/generate-ice-servers`)."""

    def __init__(self, coturn: Coturn) -> None:
        self.coturn = coturn
        self.asked = 0
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> CloudflareStandIn:
        app = web.Application()
        app.router.add_post("/v1/turn/keys/{key}/credentials/generate-ice-servers", self._generate)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        port = free_port()
        await web.TCPSite(self.runner, "127.0.0.1", port).start()
        self.url = f"http://127.0.0.1:{port}/v1"
        return self

    async def _generate(self, request: web.Request) -> web.Response:
        self.asked += 1
        if request.match_info["key"] != KEY_ID or request.headers.get("Authorization") != f"Bearer {TOKEN}":
            return web.json_response({"errors": [{"message": "Authentication error"}]}, status=401)
        ttl = int((await request.json())["ttl"])
        username, credential = mint(self.coturn.secret.encode(), ttl)
        servers = [{"urls": [self.coturn.url], "username": username, "credential": credential}]
        return web.json_response({"iceServers": servers}, status=201)


@pytest.fixture
async def stand_in(coturn: Coturn) -> AsyncIterator[CloudflareStandIn]:
    running = await CloudflareStandIn(coturn).start()
    yield running
    assert running.runner is not None
    await running.runner.cleanup()


@pytest.fixture(scope="module")
def relays(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[NostrRelay]]:
    running = [NostrRelay(workdir=tmp_path_factory.mktemp("relay")).start()]
    yield running
    running[0].stop()


def elsewhere(link: str) -> RoomLink:
    parsed = RoomLink.parse(link)
    nowhere = f"ws://127.0.0.1:{free_port()}/signal"
    return RoomLink(parsed.base, parsed.room_id, parsed.key, parsed.host_key, nowhere, [], parsed.relay, parsed.relays)


async def test_a_guest_crosses_relay_only_with_the_credentials_the_provider_made(
    project: Path, relays: list[NostrRelay], coturn: Coturn, stand_in: CloudflareStandIn
) -> None:
    provider = ProviderTurn(KEY_ID, TOKEN, api=stand_in.url)
    before = coturn.allocations()
    async with serving(project, relays=[relays[0].url], relay_only=True, turn_provider=provider) as served:
        assert await served.server.relays_chosen(10) == [relays[0].url]
        link = served.room_link
        guest = Guest(elsewhere(link), reconnect=False)
        about = await guest.about()
        servers = json.dumps(about.model_dump(by_alias=True)["iceServers"])
        assert coturn.url in servers and TOKEN not in servers and TOKEN not in link
        await guest.connect()
        await guest.expect("welcome")
        assert coturn.allocations() >= before + 2, "the page and the hub each took a relay"
        assert stand_in.asked >= 2
        await guest.close()


async def test_a_provider_that_refuses_leaves_guests_without_turn_and_says_so_once(
    project: Path, relays: list[NostrRelay], stand_in: CloudflareStandIn, caplog: pytest.LogCaptureFixture
) -> None:
    provider = ProviderTurn(KEY_ID, "not-the-token", api=stand_in.url)
    async with serving(project, relays=[relays[0].url], turn_provider=provider) as served:
        assert await served.server.relays_chosen(10) == [relays[0].url]
        with caplog.at_level(logging.WARNING, logger="canvasrelay.net.turn_provider"):
            for _ in range(2):
                about = await Guest(elsewhere(served.room_link), reconnect=False).about()
                assert about.model_dump(by_alias=True)["iceServers"] == []
        said = [r.getMessage() for r in caplog.records if r.name == "canvasrelay.net.turn_provider"]
        why = "gave no credentials (it answered HTTP 401): guests join without TURN meanwhile"
        assert said == [f"Cloudflare's TURN (key {KEY_ID}) {why}"], said
        assert "not-the-token" not in caplog.text


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"<html>", "not the JSON canvas expects"),
        (b'{"iceServers": []}', "names no ICE server"),
        (b'{"iceServers": [{"urls": ["http://evil.example"]}]}', "not a STUN or TURN URL"),
        (b'{"iceServers": [{"urls": "turn:a.example:3478", "username": 5}]}', "a field canvas cannot use"),
        (b'{"iceServers": {"urls": []}}', "has no URL"),
    ],
)
def test_a_providers_answer_is_checked_before_any_guest_gets_it(body: bytes, words: str) -> None:
    with pytest.raises(TurnProviderError, match=words):
        parse_ice_servers(body)


def test_the_object_form_of_an_answer_is_read_too() -> None:
    one = b'{"iceServers": {"urls": ["turn:a.example:3478?transport=udp"], "username": "u", "credential": "c"}}'
    [server] = parse_ice_servers(one)
    assert server.urls == ("turn:a.example:3478?transport=udp",) and server.username == "u"
