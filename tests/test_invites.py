"""Guests as people, end to end: named invites, the open link, identities that survive a restart, asking
for more, the room's record, and who speaks to the agent.

Real `canvas serve` parts in this process, the real rendezvous and hub, real aiortc guests
(`canvasrelay.client.guest`, what `canvas join` runs), the real demo agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import pytest

from canvasrelay.client.guest import Guest, HubRefused
from canvasrelay.core.invites import TURNED_OFF, WITHDRAWN
from canvasrelay.protocol import signal_crypto
from canvasrelay.protocol.encoding import b64url
from tests.support import HostClient, InProcessServer, ServerProcess

pytestmark = pytest.mark.timeout(180)

TURN_TIMEOUT = 30.0


async def api(served: InProcessServer | ServerProcess, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {served.token}"}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, served.base_url + path, json=body, headers=headers) as response,
    ):
        text = await response.text()
        return response.status, json.loads(text) if text else None


async def invite(served: InProcessServer, name: str, access: str = "edit") -> str:
    status, made = await api(served, "POST", "/api/invites", {"name": name, "access": access})
    assert status == 201, made
    return str(made["link"])


async def joined(link: str, name: str, **kwargs: Any) -> Guest:
    guest = await Guest(link, name=name, color="#3366aa", **kwargs).connect()
    await guest.expect("access")
    return guest


def everything_received(guest: Guest) -> str:
    return json.dumps(guest.seen)


async def test_a_revoked_invite_ends_its_guest_and_its_link_and_opens_nothing_else(
    served: InProcessServer, host_client: HostClient
) -> None:
    ada_link, bo_link = await invite(served, "Ada"), await invite(served, "Bo", "view")
    ada, bo = await joined(ada_link, "Ada"), await joined(bo_link, "Bo")
    assert ada.welcome["access"] == "edit" and bo.welcome["access"] == "view", "each invite's own access"
    assert "key" not in ada.welcome, "a guest's welcome carries no room key"

    status, listed = await api(served, "GET", "/api/invites")
    ada_invite = next(i for i in listed["invites"] if i["name"] == "Ada")
    assert ada_invite["state"] == "standing" and "secret" not in json.dumps(listed)

    started = time.monotonic()
    status, _ = await api(served, "DELETE", f"/api/invites/{ada_invite['id']}")
    assert status == 204
    bye = await ada.expect("bye", timeout=2.0)
    out_in = time.monotonic() - started
    assert out_in < 2.0 and bye["reason"] == WITHDRAWN

    started = time.monotonic()
    with pytest.raises(HubRefused, match="withdrawn"):
        await Guest(ada_link, name="Ada again").connect()
    refused_in = time.monotonic() - started
    print(f"revoke: the guest was out in {out_in:.2f} s, its link refused in {refused_in:.2f} s")
    assert refused_in < 5.0
    with pytest.raises(HubRefused, match="withdrawn"):
        await Guest(ada_link, name="Ada again", identity=ada.identity).connect()

    await bo.send({"t": "ping"})
    await bo.expect("pong")
    assert bo.state == "connected", "another invite's guest is untouched"

    # Nothing Ada received names a secret that opens the room another way.
    received = everything_received(ada) + ada_link
    for other in served.server.invites:
        if other.id != ada_invite["id"]:
            assert other.secret not in received and other.room not in received
    await bo.close()
    await ada.close()


async def test_the_open_link_turned_off_and_rotated_leaves_named_invites_working(
    served: InProcessServer, host_client: HostClient
) -> None:
    named = await invite(served, "Cy")
    old_open = served.room_link
    first = await joined(old_open, "Early")

    await host_client.send({"t": "open-link", "change": "off"})
    listing = await host_client.expect("invites", openLink=None)
    assert next(i for i in listing["invites"] if i["open"])["state"] == "off"
    with pytest.raises(HubRefused, match="turned this room link off"):
        await Guest(old_open, name="Late").connect()
    cy = await joined(named, "Cy")
    await cy.close()

    await host_client.send({"t": "open-link", "change": "on"})
    await host_client.expect("invites")
    await host_client.send({"t": "open-link", "change": "rotate"})
    listing = await host_client.expect("invites")
    assert listing["openLink"] and listing["openLink"] not in old_open
    with pytest.raises(HubRefused, match="withdrawn"):
        await Guest(old_open, name="Late").connect()
    cy = await joined(named, "Cy")
    new_open = await joined(served.room_link, "New")
    assert first.state == "connected", "whoever came through the old link stays until the host removes them"
    assert TURNED_OFF and served.room_link != old_open
    for guest in (cy, new_open, first):
        await guest.close()


async def test_removing_an_open_link_guest_blocks_its_identity_and_says_so(
    served: InProcessServer, host_client: HostClient
) -> None:
    eve = await joined(served.room_link, "Eve")
    await host_client.send({"t": "guest-kick", "guestId": eve.guest_id})
    removed = await host_client.expect("guest-removed")
    assert removed["how"] == "blocked" and removed["openLink"] is True
    await eve.expect("bye")
    with pytest.raises(HubRefused, match="removed"):
        await Guest(served.room_link, name="Eve", identity=eve.identity).connect()
    await eve.close()


async def test_the_join_page_asks_with_its_key_and_hears_the_access_its_person_would_get(
    served: InProcessServer, host_client: HostClient
) -> None:
    ada_link = await invite(served, "Ada", "edit")
    ada = await joined(ada_link, "Ada")
    # The open link's default is view; asked with Ada's key, the room says the edit she keeps.
    through_open = Guest(served.room_link, name="Ada", identity=ada.identity)
    assert (await through_open.about()).access == "edit"
    assert (await Guest(served.room_link, name="Bo").about()).access == "view"
    await host_client.send({"t": "guest-set-access", "guestId": ada.guest_id, "access": "trusted"})
    await ada.expect("access", access="trusted")
    assert (await Guest(ada_link, name="Ada", identity=ada.identity).about()).access == "trusted"
    await host_client.send({"t": "guest-kick", "guestId": ada.guest_id})
    await ada.expect("bye")
    with pytest.raises(HubRefused, match="removed"):
        await through_open.about()
    await ada.close()


async def test_a_view_guest_asks_for_edit_and_gets_it(served: InProcessServer, host_client: HostClient) -> None:
    vi = await joined(await invite(served, "Vi", "view"), "Vi")
    await vi.send({"t": "access-ask", "access": "edit"})
    pending = await vi.expect("request-pending", ref="access-ask")
    request = await host_client.expect("approval-request", id=pending["id"])
    assert request["name"] == "Vi" and request["what"] == "access-ask"
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "approve"})
    await vi.expect("access", access="edit")
    stored = served.server.guests.identities.get(vi.guest_id)
    assert stored is not None and stored.own_access == "edit", "kept with the person, for the next join"
    await vi.close()


async def test_a_denied_request_keeps_its_text_for_the_guest_and_a_line_for_the_host(
    served: InProcessServer, host_client: HostClient
) -> None:
    ed = await joined(await invite(served, "Ed"), "Ed")
    await host_client.send({"t": "agent-create", "id": "s-deny", "agent": "demo"})
    await host_client.expect("agent-options", timeout=TURN_TIMEOUT, sessionId="s-deny")
    await ed.send({"t": "agent-prompt", "sessionId": "s-deny", "text": "please run this"})
    request = await host_client.expect("approval-request")
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "deny"})
    resolved = await ed.expect("approval-resolved", id=request["id"])
    assert resolved["outcome"] == "denied" and resolved["text"] == "please run this", "as Ed wrote it, to send again"
    line = await host_client.expect("approval-resolved", id=request["id"])
    assert line["name"] == "Ed" and line["outcome"] == "denied"
    await ed.close()


async def test_a_guests_prompt_reaches_the_agent_named_as_the_host_approved_it(
    served: InProcessServer, host_client: HostClient
) -> None:
    await host_client.send({"t": "agent-create", "id": "s-named", "agent": "demo"})
    await host_client.expect("agent-options", timeout=TURN_TIMEOUT, sessionId="s-named")
    ada = await joined(await invite(served, "Ada"), "Ada")
    await ada.send({"t": "agent-prompt", "sessionId": "s-named", "text": "hello"})
    pending = await ada.expect("request-pending", ref="agent-prompt")
    request = await host_client.expect("approval-request", id=pending["id"])
    assert request["text"] == "Ada (guest, edit): hello" and pending["text"] == "hello"
    await host_client.send(
        {"t": "approval-answer", "id": request["id"], "answer": "approve", "sha256": request["sha256"]}
    )
    turn = await turn_of(host_client, "s-named")
    assert (turn["text"], turn["asWritten"]) == ("Ada (guest, edit): hello", "hello")
    said = await reply_of(host_client, "s-named")
    assert said == f"You said: {request['text']}", "the agent got exactly what the host approved"

    # A command goes as written, so the agent still takes it for one.
    await ada.send({"t": "agent-prompt", "sessionId": "s-named", "text": "/slow 2"})
    request = await host_client.expect("approval-request", text="/slow 2")
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "approve"})
    turn = await turn_of(host_client, "s-named")
    assert (turn["text"], turn["asWritten"]) == ("/slow 2", None)
    assert "chunk 2/2" in await reply_of(host_client, "s-named")

    await host_client.send({"t": "prompt-attribution", "sessionId": "s-named", "on": False})
    await switched_off(host_client, "s-named")
    # A guest cannot fill in what it "wrote": the server sets that, and here leaves it empty.
    await ada.send({"t": "agent-prompt", "sessionId": "s-named", "text": "plain", "written": "forged"})
    request = await host_client.expect("approval-request", text="plain")
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "approve"})
    turn = await turn_of(host_client, "s-named")
    assert (turn["text"], turn["asWritten"]) == ("plain", None)
    assert await reply_of(host_client, "s-named") == "You said: plain"
    await ada.close()


async def host_with_a_session(server: ServerProcess, session_id: str) -> HostClient:
    host = await HostClient.connect(server)
    await host.send({"t": "agent-create", "id": session_id, "agent": "demo"})
    await host.expect("agent-options", timeout=TURN_TIMEOUT, sessionId=session_id)
    return host


async def restarted(server: ServerProcess) -> None:
    """SIGTERM, then the server again on its port (so the guests' links still reach it)."""
    port = urlsplit(server.base_url).port
    assert server.proc is not None
    server.proc.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(server.proc.wait, 30) == 0
    server.start("--port", str(port))


async def test_the_hosts_switch_for_named_prompts_is_kept_with_the_session_through_a_restart(project: Path) -> None:
    server = ServerProcess(project).start()
    try:
        host = await host_with_a_session(server, "s-plain")
        await host.send({"t": "prompt-attribution", "sessionId": "s-plain", "on": False})
        await switched_off(host, "s-plain")
        await host.close()
        await restarted(server)

        host = await HostClient.connect(server)
        (head,) = [s for s in host.welcome["sessions"] if s["id"] == "s-plain"]
        assert head["namedPrompts"] is False, "the welcome says the switch as the host left it"
        ada = await invited_ada(server)
        assert [s["namedPrompts"] for s in ada.welcome["sessions"] if s["id"] == "s-plain"] == [False]
        await ada.send({"t": "agent-prompt", "sessionId": "s-plain", "text": "as I wrote it"})
        request = await host.expect("approval-request", timeout=TURN_TIMEOUT)
        assert request["text"] == "as I wrote it"
        await host.send({"t": "approval-answer", "id": request["id"], "answer": "approve"})
        assert await reply_of(host, "s-plain") == "You said: as I wrote it"
        await host.close()
        await ada.close()
    finally:
        server.stop()


async def turn_of(host: HostClient, session_id: str) -> dict[str, Any]:
    """The next `turn` event of `session_id`: what the agent got, and the guest's own words."""
    while True:
        frame = await host.expect("agent-event", timeout=TURN_TIMEOUT, sessionId=session_id)
        if frame["event"]["kind"] == "turn":
            return dict(frame["event"])


async def switched_off(host: HostClient, session_id: str) -> None:
    """Until the session's head says its guests' prompts reach the agent as written."""
    while True:
        frame = await host.expect("agent-meta", timeout=TURN_TIMEOUT)
        if frame["meta"]["id"] == session_id and frame["meta"]["namedPrompts"] is False:
            return


async def reply_of(host: HostClient, session_id: str) -> str:
    """The agent's message text of the next turn of `session_id`, once it ended."""
    text = ""
    async with asyncio.timeout(TURN_TIMEOUT):
        while True:
            frame = await host.expect("agent-event", timeout=TURN_TIMEOUT, sessionId=session_id)
            event = frame["event"]
            if event["kind"] == "chunk" and event["update"]["sessionUpdate"] == "agent_message_chunk":
                text += event["update"]["content"]["text"]
            if event["kind"] == "turn-end":
                return text


async def test_the_record_lists_what_two_guests_did_in_order_and_guests_cannot_read_it(
    served: InProcessServer, host_client: HostClient
) -> None:
    ada = await joined(await invite(served, "Ada"), "Ada")
    bo = await joined(await invite(served, "Bo", "view"), "Bo")
    await host_client.send({"t": "agent-create", "id": "s-rec", "agent": "demo"})
    await host_client.expect("agent-options", timeout=TURN_TIMEOUT, sessionId="s-rec")
    await ada.send({"t": "agent-prompt", "sessionId": "s-rec", "text": "count the files"})
    request = await host_client.expect("approval-request")
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "approve"})
    await ada.send({"t": "file-open", "path": "README.md"})
    await ada.expect("file")
    await bo.send({"t": "access-ask", "access": "edit"})
    asked = await host_client.expect("approval-request", what="access-ask")
    await host_client.send({"t": "approval-answer", "id": asked["id"], "answer": "deny"})
    await bo.expect("approval-resolved", id=asked["id"])
    await bo.send({"t": "audit-read"})
    refused = await bo.expect("error", ref="audit-read")
    assert "does not allow" in refused["message"]
    await host_client.send({"t": "guest-set-access", "guestId": bo.guest_id, "access": "edit"})
    await bo.expect("access", access="edit")
    await bo.close()
    await guests_until(host_client, lambda guests: any(g["name"] == "Bo" and not g["connected"] for g in guests))

    status, page = await api(served, "GET", "/api/audit?limit=100")
    assert status == 200
    lines = [(e["name"], e["action"]) for e in reversed(page["entries"])]
    expected = [
        ("the host's terminal", "made an invitation"),
        ("Ada", "joined"),
        ("the host's terminal", "made an invitation"),
        ("Bo", "joined"),
        ("the host", "started an agent session"),
        ("Ada", "asked to send a prompt to the agent"),
        ("the host", "approved Ada's prompt to the agent"),
        ("Ada", "sent a prompt"),
        ("Ada", "opened a file"),
        ("Bo", "asked for edit access"),
        ("the host", "denied Bo's request for edit access"),
        ("the host", "changed access"),
        ("Bo", "left"),
    ]
    assert lines == expected, lines
    started = next(e for e in page["entries"] if e["action"] == "started an agent session")
    assert started["detail"] == "Demo agent", started
    allowed = next(e for e in page["entries"] if e["action"] == "approved Ada's prompt to the agent")
    sent = next(e for e in page["entries"] if e["action"] == "sent a prompt")
    assert "fingerprint" in allowed["detail"] and allowed["detail"] == sent["detail"], "it names what it let run"
    status, page = await api(served, "GET", f"/api/audit?who={ada.guest_id}&limit=2")
    assert [e["action"] for e in page["entries"]] == ["opened a file", "sent a prompt"] and page["more"]
    status, _ = await api(served, "GET", "/api/audit?who=x&limit=9999")
    assert status == 422
    async with aiohttp.ClientSession() as session, session.get(served.base_url + "/api/audit") as response:
        assert response.status == 401
    await ada.close()


async def guests_until(host: HostClient, done: Callable[[list[dict[str, Any]]], bool]) -> None:
    """Until the host's guest list is as `done` wants it."""
    while not done((await host.expect("guests", timeout=TURN_TIMEOUT))["guests"]):
        pass


FLOOD_ADDRESSES = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
"""The flood comes from addresses of its own, each up to its share of handshakes: together they ask
for more handshakes than the hub runs at once."""


async def flood_offers(flooder: Guest, count: int) -> list[Any]:
    """Real offers (each from its own peer connection, so each its own source) on the flooder's
    invite, sealed with its key: the hub starts a handshake for each it lets through. Returns the
    peer connections, which never answer, so each handshake holds its slot until it times out."""
    from aiortc import RTCPeerConnection

    async def offer() -> Any:
        pc = RTCPeerConnection()
        pc.createDataChannel("canvas")
        await pc.setLocalDescription(await pc.createOffer())
        return pc

    pcs = await asyncio.gather(*(offer() for _ in range(count)))
    url = f"{flooder.rendezvous[0]}?topic={signal_crypto.topic(flooder.link.key)}"
    for n, pc in enumerate(pcs):
        address = FLOOD_ADDRESSES[n % len(FLOOD_ADDRESSES)]
        connector = aiohttp.TCPConnector(local_addr=(address, 0))
        async with aiohttp.ClientSession(connector=connector) as own, own.ws_connect(url) as ws:
            nonce = b64url(os.urandom(signal_crypto.GUEST_NONCE_BYTES))
            message = {"kind": "offer", "from": f"flood{n}", "sdp": pc.localDescription.sdp, "nonce": nonce}
            await ws.send_str(signal_crypto.seal(flooder.key, message))
    return list(pcs)


HUB_LOG = "canvasrelay.server.guests.hub"
PER_INVITE_REFUSAL = "too many handshakes at once on one invitation"


@contextlib.contextmanager
def heard(logger: str, words: str) -> Iterator[asyncio.Event]:
    """An event set when `logger` logs a line holding `words`."""
    loop = asyncio.get_running_loop()
    event = asyncio.Event()

    class Heard(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if words in record.getMessage():
                loop.call_soon_threadsafe(event.set)

    handler = Heard(logging.WARNING)
    logging.getLogger(logger).addHandler(handler)
    try:
        yield event
    finally:
        logging.getLogger(logger).removeHandler(handler)


async def test_one_invites_flood_does_not_delay_another_invites_join(
    served: InProcessServer, host_client: HostClient
) -> None:
    _, made = await api(served, "POST", "/api/invites", {"name": "Flood", "access": "edit"})
    flooder, other_link = Guest(made["link"], name="Flood"), await invite(served, "Calm")
    hub = served.server.hub
    # The hub turns the flood away once it runs as many of its handshakes as it lets one invite have.
    with heard(HUB_LOG, PER_INVITE_REFUSAL) as turned_away:
        pcs = await flood_offers(flooder, 6 * len(FLOOD_ADDRESSES))
        await asyncio.wait_for(turned_away.wait(), TURN_TIMEOUT)
    held = len(hub.admission.handshakes)
    started = time.monotonic()
    calm = await joined(other_link, "Calm")
    took = time.monotonic() - started
    print(f"flood: another invite's guest joined in {took:.2f} s while one invite held {held} handshakes")
    assert hub.refusals[PER_INVITE_REFUSAL] > 0, "the flood asked for more than its share"
    await calm.close()
    await asyncio.gather(*(pc.close() for pc in pcs))


async def test_canvas_invite_and_canvas_join_with_a_revoked_link(
    served: InProcessServer, tmp_path: Path, host_client: HostClient
) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    root = str(served.server.root)
    made = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "canvasrelay", "invite", "Dee", "--access", "view", "--dir", root],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert made.returncode == 0, made.stderr
    link = made.stdout.strip().splitlines()[-1]
    assert link.startswith("http://") and "#room=" in link
    invite_id = made.stdout.split("canvas invite --revoke ", 1)[1].split()[0]
    listed = await canvas_invite(env, "--list", "--dir", root)
    assert listed.splitlines()[:2] == [
        "Dee: view access; the link works.",
        f"  To revoke it: canvas invite --revoke {invite_id}",
    ]
    assert "The open room link: guests get the room's default access; the link works." in listed
    join = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "canvasrelay",
        "join",
        link,
        "--name",
        "Dee",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    listing = await host_client.expect("guests", timeout=TURN_TIMEOUT)
    while not any(g["name"] == "Dee" and g["connected"] for g in listing["guests"]):
        listing = await host_client.expect("guests", timeout=TURN_TIMEOUT)
    assert (tmp_path / "config" / "canvas" / "identity.pem").stat().st_mode & 0o777 == 0o600
    revoked = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "canvasrelay", "invite", "--revoke", invite_id, "--dir", root],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert revoked.returncode == 0, revoked.stderr
    listed = await canvas_invite(env, "--list", "--dir", root)
    assert "Dee: view access; revoked: the link no longer works." in listed, "a revoked invitation says so"
    assert invite_id not in listed, "and offers no command to revoke it again"
    assert await asyncio.wait_for(join.wait(), 10) == 0, "canvas join ends when its invitation is withdrawn"
    again = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "canvasrelay", "join", link, "--name", "Dee"],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert again.returncode != 0 and "withdrawn" in again.stderr


async def canvas_invite(env: dict[str, str], *args: str) -> str:
    """What `canvas invite` prints, once it succeeded."""
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "canvasrelay", "invite", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def invited_ada(server: ServerProcess) -> Guest:
    """Ada, joined with an edit invitation made through the API."""
    status, made = await api(server, "POST", "/api/invites", {"name": "Ada", "access": "edit"})
    assert status == 201
    return await joined(made["link"], "Ada")


async def test_an_edit_guest_and_its_waiting_prompt_survive_a_restart(project: Path) -> None:
    server = ServerProcess(project).start()
    try:
        host = await host_with_a_session(server, "s-restart")
        ada = await invited_ada(server)
        await ada.send({"t": "agent-prompt", "sessionId": "s-restart", "text": "after the restart"})
        pending = await ada.expect("request-pending", ref="agent-prompt")
        await host.expect("approval-request", id=pending["id"])
        await host.close()

        await restarted(server)

        welcome = await ada.expect("welcome", timeout=TURN_TIMEOUT)
        assert welcome["access"] == "edit", "the guest came back by itself, as edit"
        again = await ada.expect("request-pending", id=pending["id"])
        assert again["text"] == pending["text"], "still waiting, on the guest's page"
        host = await HostClient.connect(server)
        assert [a["id"] for a in host.welcome["approvals"]] == [pending["id"]], "and on the host's"
        await host.send({"t": "approval-answer", "id": pending["id"], "answer": "approve"})
        said = await reply_of(host, "s-restart")
        assert said == "You said: Ada (guest, edit): after the restart"
        await host.close()
        await ada.close()
    finally:
        server.stop()


async def test_a_request_after_a_restart_never_takes_the_id_of_one_answered_before(project: Path) -> None:
    server = ServerProcess(project).start()
    try:
        host = await host_with_a_session(server, "s-ids")
        ada = await invited_ada(server)
        await ada.send({"t": "agent-prompt", "sessionId": "s-ids", "text": "before"})
        before = await host.expect("approval-request", timeout=TURN_TIMEOUT)
        await host.send({"t": "approval-answer", "id": before["id"], "answer": "approve"})
        await reply_of(host, "s-ids")
        await host.close()

        await restarted(server)

        await ada.expect("welcome", timeout=TURN_TIMEOUT)
        host = await HostClient.connect(server)
        await ada.send({"t": "agent-prompt", "sessionId": "s-ids", "text": "after"})
        after = await host.expect("approval-request", timeout=TURN_TIMEOUT)
        # A page that saw the first answered hides that id: the second must not come under it.
        assert after["id"] != before["id"]
        await host.close()
        await ada.close()
    finally:
        server.stop()
