"""`canvas serve` as a subprocess: links, auth, the welcome, bad frames, restarts, file modes."""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import aiohttp
import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from tests.support import HostClient, ServerProcess, serve_on_every_interface


async def close_code(server: ServerProcess, origin: str | None, first: str | None) -> tuple[int | None, list[str]]:
    """Connect, optionally send a first frame, and report the close code and anything received."""
    headers = {"Origin": origin} if origin else {}
    received: list[str] = []
    async with aiohttp.ClientSession() as session, session.ws_connect(server.ws_url, headers=headers) as ws:
        if first is not None:
            await ws.send_str(first)
        async for msg in ws:
            if msg.type is aiohttp.WSMsgType.TEXT:
                received.append(msg.data)
        return ws.close_code, received


@pytest.mark.parametrize(
    ("origin", "first"),
    [
        ("own", None),
        ("own", json.dumps({"t": "auth", "token": "wrong"})),
        ("own", json.dumps({"t": "ping"})),
        ("own", "garbage"),
        ("http://evil.example", "RIGHT"),
        ("null", "RIGHT"),
    ],
    ids=["no-token", "wrong-token", "no-auth-frame", "garbage", "foreign-origin", "null-origin"],
)
async def test_unauthorised_sockets_are_closed_with_4401_and_told_nothing(
    server: ServerProcess, origin: str, first: str | None
) -> None:
    if first == "RIGHT":
        first = json.dumps({"t": "auth", "token": server.token})
    code, received = await close_code(server, server.base_url if origin == "own" else origin, first)
    assert code == 4401
    assert received == []


async def test_right_token_gets_welcome_with_a_valid_p256_key(host: HostClient, server: ServerProcess) -> None:
    welcome = host.welcome
    assert welcome["roomId"] and "key" not in welcome, "no room key travels in a welcome"
    assert welcome["cwd"] == str(server.root.resolve())
    raw = base64.urlsafe_b64decode(welcome["hostPublicKey"] + "==")
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    assert key.curve.name == "secp256r1"
    assert f"host={welcome['hostPublicKey']}" in server.room_link
    invites = await host.expect("invites")
    assert invites["openLink"] and invites["openLink"] in server.room_link
    assert any(agent["id"] == "demo" and agent["available"] for agent in welcome["agents"])
    assert isinstance(welcome["board"], str) and isinstance(welcome["sessions"], list)


BAD_FRAMES = [
    "",
    "not json",
    "{",
    "[]",
    "null",
    "42",
    '"string"',
    "{}",
    '{"t": null}',
    '{"t": 7}',
    '{"t": ""}',
    '{"t": "no-such-frame"}',
    '{"t": "auth", "token": "again"}',
    '{"t": "ping", "x": 1}',
    '{"T": "ping"}',
    json.dumps({"t": "x" * 10_000}),
    json.dumps({"t": "ping", "pad": "y" * (1 << 20)}),
    '{"t": "ping"}garbage',
    "\u0000",
    '{"t": {"nested": "ping"}}',
]


async def test_twenty_bad_frames_each_get_an_error_and_the_socket_stays(host: HostClient) -> None:
    assert len(BAD_FRAMES) == 20
    for raw in BAD_FRAMES:
        await host.send(raw)
        frame = await host.expect("error")
        assert frame["message"], raw[:40]
        await host.send({"t": "ping"})
        await host.expect("pong")


@pytest.mark.serve_subprocess
async def test_the_token_never_reaches_the_output(server: ServerProcess, host: HostClient) -> None:
    await host.send({"t": "ping"})
    await host.expect("pong")
    server.stop()
    printed = "".join(server.output)
    assert printed.count(server.token) == 1, "the token appears only in the printed host link"


def test_restart_keeps_the_links_and_new_room_changes_them(project: Path) -> None:
    first = ServerProcess(project).start()
    links = (first.host_link.split("#")[1], first.room_link.split("#")[1])
    assert first.stop() == 0
    second = ServerProcess(project).start()
    assert (second.host_link.split("#")[1], second.room_link.split("#")[1]) == links
    second.stop()
    third = ServerProcess(project).start("--new-room")
    assert third.room_link.split("#")[1] != links[1]
    assert third.host_link.split("#")[1] != links[0]
    third.stop()


def test_canvas_dir_modes(server: ServerProcess) -> None:
    canvas = server.root / ".canvas"
    assert stat.S_IMODE(canvas.stat().st_mode) == 0o700
    files = [p for p in canvas.iterdir() if p.is_file()]
    assert {p.name for p in files} >= {"secrets.json", "canvas.db"}
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path.name


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "canvasrelay", *args], capture_output=True, text=True, timeout=30)


def test_missing_folder_is_one_line_and_exit_2(tmp_path: Path) -> None:
    result = run_cli("serve", "--dir", str(tmp_path / "nope"), "--no-open")
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "folder not found" in result.stderr
    assert "Traceback" not in result.stderr


def test_port_in_use_is_one_line_and_exit_2(project: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("serve", "--dir", str(project), "--port", str(port), "--no-open")
    assert result.returncode == 2
    assert f"port {port} is in use" in result.stderr and "Traceback" not in result.stderr


NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run as another user")
def test_unwritable_folder_is_one_line_and_exit_2() -> None:
    # Another user must be able to reach the folder but not write it; pytest's tmp_path is private.
    outer = Path(tempfile.mkdtemp(prefix="canvas-locked-"))
    outer.chmod(0o755)
    locked = outer / "locked"
    locked.mkdir(mode=0o555)
    try:
        result = subprocess.run(
            [*NOBODY, sys.executable, "-m", "canvasrelay", "serve", "--dir", str(locked), "--no-open"],
            capture_output=True,
            text=True,
            timeout=30,
            cwd="/",
        )
    finally:
        shutil.rmtree(outer)
    assert result.returncode == 2, result.stderr
    assert "not writable" in result.stderr and "Traceback" not in result.stderr


def test_version_and_help() -> None:
    version = run_cli("--version")
    assert version.returncode == 0 and version.stdout.startswith("canvas ")
    helped = run_cli("serve", "--help")
    assert helped.returncode == 0 and "--new-room" in helped.stdout


@pytest.mark.serve_subprocess
def test_ctrl_c_stops_cleanly(server: ServerProcess) -> None:
    assert server.stop() == 0
    assert "stopping" in "".join(server.output)


async def test_bound_to_every_interface_the_links_name_this_machines_network_address(project: Path) -> None:
    served = serve_on_every_interface(project)
    try:
        # What the link names works: the page loads there and its socket is welcomed (its origin is ours).
        async with aiohttp.ClientSession() as session, session.get(served.base_url + "/") as page:
            assert page.status in (200, 503)
        host = await HostClient.connect(served)
        assert host.welcome["access"] == "host"
        await host.close()
    finally:
        served.stop()
