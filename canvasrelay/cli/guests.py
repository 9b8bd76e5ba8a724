"""`canvas signal` (the rendezvous alone, with the guest page) and `canvas join` (a guest in the terminal)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from canvasrelay.cli.stopping import stop_event
from canvasrelay.cli.usage import (
    UsageError,
    check_port,
    colour,
    guest_name,
    ice_url,
    listen_error,
    page_url,
    port,
    signal_list,
)
from canvasrelay.net import public_relays
from canvasrelay.net.turn_provider import ProviderTurn, TurnProviderError
from canvasrelay.signal.turn_credentials import TurnConfig, TurnConfigError

COMMANDS = ("signal", "join")
NO_SUCH_ROOM_S = 6.0
"""How long `join` waits for the room's hub to answer before it says there is no such room."""
REDIS_START_WAIT = 3.0


def add_serve_options(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--signal",
        type=signal_list,
        metavar="URL",
        help="an outside rendezvous (wss://…/signal) run by `canvas signal` (default: this server's own)",
    )
    serve.add_argument(
        "--base-url",
        type=page_url,
        metavar="URL",
        help="where the room link sends guests, the guest page (default: this server)",
    )
    serve.add_argument(
        "--ice-server",
        action="append",
        type=ice_url,
        default=[],
        metavar="URL",
        help="STUN/TURN server for the hub and the guests (repeatable; turn:user:pass@host:port)",
    )
    serve.add_argument(
        "--relay-only",
        action="store_true",
        help="the hub and the guests connect only through TURN relays, never exposing their addresses",
    )
    serve.add_argument(
        "--relays",
        type=relay_list,
        metavar="URL,…",
        help="Nostr relays guests find the room through (default: the first three public ones that answer)",
    )
    add_turn_options(serve)
    serve.add_argument(
        "--cloudflare-turn-key",
        metavar="ID",
        help="a Cloudflare TURN key: the host asks Cloudflare for each guest's short-lived credentials",
    )
    serve.add_argument(
        "--cloudflare-turn-token-file",
        type=Path,
        metavar="FILE",
        help="the API token of that TURN key (it never leaves this machine)",
    )
    serve.add_argument(
        "--lan-only",
        action="store_true",
        help="no public relays: the room link works on this network only",
    )


def add_turn_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--turn-secret-file",
        type=Path,
        metavar="FILE",
        help="the secret coturn's use-auth-secret checks; room-link holders get 10-minute TURN credentials",
    )
    parser.add_argument(
        "--turn-url",
        action="append",
        default=[],
        metavar="URL",
        help="a TURN server those credentials are for (repeatable; turn:host:3478, turns:host:5349)",
    )


def turn_config(args: argparse.Namespace) -> TurnConfig | None:
    """The TURN server and secret the options name, or None; raises UsageError, in words."""
    if args.turn_secret_file is None:
        if args.turn_url:
            raise UsageError("--turn-url needs --turn-secret-file (the secret coturn shares)")
        return None
    try:
        return TurnConfig.load(args.turn_secret_file, args.turn_url)
    except TurnConfigError as exc:
        raise UsageError(str(exc)) from None


def turn_provider(args: argparse.Namespace) -> ProviderTurn | None:
    """The provider's TURN key the options name, or None; raises UsageError, in words."""
    key, token_file = args.cloudflare_turn_key, args.cloudflare_turn_token_file
    if key is None and token_file is None:
        return None
    if key is None or token_file is None:
        raise UsageError("--cloudflare-turn-key and --cloudflare-turn-token-file go together")
    if args.turn_secret_file is not None:
        raise UsageError("name one TURN server: --turn-secret-file or --cloudflare-turn-key, not both")
    try:
        return ProviderTurn.load(key, token_file)
    except TurnProviderError as exc:
        raise UsageError(str(exc)) from None


def relay_list(text: str) -> list[str]:
    try:
        return public_relays.parse_list(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_commands(commands: Any) -> None:
    sig = commands.add_parser("signal", help="run the rendezvous alone, with the guest page, on a public machine")
    sig.add_argument("--host", default="0.0.0.0", help="address to bind (default 0.0.0.0)")
    sig.add_argument("--port", type=port, default=8478, help="port (default 8478; 0 picks a free one)")
    sig.add_argument(
        "--redis", metavar="URL", help="share topics with other instances through this Redis (redis://host:6379/0)"
    )
    add_turn_options(sig)
    sig.add_argument(
        "--forwarded-for",
        action="store_true",
        help="behind a load balancer (at a loopback or private address): count by the address it puts last"
        " in X-Forwarded-For",
    )
    sig.add_argument(
        "--page-origin",
        action="append",
        default=[],
        metavar="URL",
        type=page_url,
        help="a guest page elsewhere that may open /signal (repeatable; this server's own page always may)",
    )
    join = commands.add_parser("join", help="join a room from its link, as a guest in this terminal")
    join.add_argument("link", help="the room link (…#room=…&key=…&host=…)")
    join.add_argument(
        "--name", type=guest_name, default="terminal guest", help="the name the host sees (default terminal guest)"
    )
    join.add_argument("--color", type=colour, default="#8a8a8a", help="your colour, #rrggbb (default #8a8a8a)")
    join.add_argument(
        "--json", action="store_true", help="print every frame as a JSON line; send JSON lines from stdin"
    )
    join.add_argument("--relay-only", action="store_true", help="connect only through a TURN relay (hide addresses)")


async def run(args: argparse.Namespace) -> int:
    if args.command == "signal":
        return await _signal(args)
    return await _join(args)


async def _until_stopped() -> None:
    await stop_event().wait()


async def _signal(args: argparse.Namespace) -> int:
    check_port(args.host, args.port)
    from canvasrelay.signal import redis_bus
    from canvasrelay.signal.serve import start

    try:
        turn = turn_config(args)
    except UsageError as exc:
        print(f"canvas: {exc}", file=sys.stderr)
        return 2
    try:
        site = await start(args.host, args.port, turn, args.redis, args.forwarded_for, args.page_origin)
    except OSError as exc:
        raise listen_error(exc, args.host, args.port) from None
    address = f"{args.host}:{site.port}"
    print(f"canvas rendezvous on ws://{address}/signal, guest page at http://{address}/", flush=True)
    if site.bus is not None:
        where = redis_bus.describe(args.redis)
        if await site.bus.wait_up(REDIS_START_WAIT):
            print(f"Sharing topics through Redis at {where}", flush=True)
        else:
            print(f"Redis at {where} is not reachable yet: /readyz answers 503 until it is", flush=True)
    if turn is not None:
        print(f"Handing out TURN credentials for {', '.join(turn.urls)}", flush=True)
    print("Put it behind TLS, then: canvas serve --signal wss://<name>/signal --base-url https://<name>/", flush=True)
    await _until_stopped()
    await site.close()
    return 0


OUTCOMES = {
    "approved": "was approved",
    "trusted": "was approved, and the host now trusts you",
    "denied": "was turned down by the host",
    "expired": "expired: the host did not answer in time",
    "withdrawn": "was withdrawn",
}


def _summary(frame: Mapping[str, Any], names: dict[str, str]) -> str | None:
    """One readable line for a frame, or None for frames a reader does not need to see.
    `names` are the sessions' and terminals' human names, by id."""
    from canvasrelay.protocol.words import request_noun

    kind = frame.get("t")
    if kind == "welcome":
        return f"joined {frame.get('project')} with {frame.get('access')} access"
    if kind == "access":
        return f"your access is now {frame.get('access')}"
    if kind in ("error", "bye"):
        return str(frame.get("message") or frame.get("reason"))
    if kind == "request-pending":
        return f"your {request_noun(str(frame.get('ref')), names.get(str(frame.get('subject'))))} waits for the host"
    if kind == "approval-resolved":
        outcome = OUTCOMES.get(str(frame.get("outcome")), "ended")
        subject = names.get(ASKED + str(frame.get("id")))
        return f"your {request_noun(str(frame.get('ref')), names.get(str(subject)))} {outcome}"
    if kind == "gap":
        return f"catching up with the room ({frame.get('reason')})"
    if kind == "restarting":
        return "the host is restarting; reconnecting"
    return None


ASKED = "asked "
"""Key prefix in `names` for what each waiting request is about."""


def _learn_names(frame: Mapping[str, Any], names: dict[str, str]) -> None:
    if frame.get("t") == "request-pending":
        names[ASKED + str(frame.get("id"))] = str(frame.get("subject"))
    elif frame.get("t") == "terminals":
        names.update({t["id"]: t["name"] for t in frame.get("terminals") or []})
    elif frame.get("t") == "agent-meta":
        meta = frame.get("meta") or {}
        names[str(meta.get("id"))] = str(meta.get("title") or meta.get("agentLabel"))
    elif frame.get("t") == "welcome":
        names.update({s["id"]: str(s.get("title") or s.get("agentLabel")) for s in frame.get("sessions") or []})


async def _join(args: argparse.Namespace) -> int:
    from aiohttp import ClientError

    from canvasrelay.client import identity
    from canvasrelay.client.guest import Guest, HubRefused, NetworksDidNotMeet
    from canvasrelay.client.join_view import ThreadView

    try:
        guest = Guest(
            args.link,
            name=args.name,
            color=args.color,
            identity=identity.load_or_create(identity.config_dir()),
            record=False,
            relay_only=args.relay_only or None,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None

    threads = ThreadView()
    names: dict[str, str] = {}
    ended = asyncio.Event()

    def show(frame: Mapping[str, Any]) -> None:
        if frame.get("t") == "bye":
            # Kicked, or the room closed: the hub will not take us back, so there is nothing to wait for.
            ended.set()
        if args.json:
            print(json.dumps(frame, ensure_ascii=False), flush=True)
            return
        _learn_names(frame, names)
        line = _summary(frame, names)
        text = (threads.line(line) if line else "") + threads.feed(frame)
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()

    guest.listeners.append(show)
    try:
        # Asked first, briefly: a link whose room nobody serves is said in seconds, not after the join's deadline.
        async with asyncio.timeout(NO_SUCH_ROOM_S):
            await guest.about()
        await guest.connect()
    except HubRefused as exc:
        raise UsageError(str(exc)) from None
    except NetworksDidNotMeet as exc:
        print(f"canvas: {exc}", file=sys.stderr)
        return 1
    except TimeoutError:
        print(
            "canvas: no such room: no host answers for this link (is its canvas serve running? was the room renewed?)",
            file=sys.stderr,
        )
        return 1
    except (ClientError, ConnectionError, OSError) as exc:
        where = guest.signal_url
        print(f"canvas: could not reach the rendezvous at {where} ({_reason(exc)})", file=sys.stderr)
        return 1
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(_until_stopped()), loop.create_task(ended.wait())]
    if args.json:
        tasks.append(asyncio.get_running_loop().create_task(_pump_stdin(guest)))
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in tasks:
        task.cancel()
    await guest.close()
    return 0


def _reason(exc: BaseException) -> str:
    """What went wrong reaching a server, in a few words rather than a library's message."""
    from aiohttp import ClientConnectorError

    status = getattr(exc, "status", None)
    if isinstance(status, int):
        return f"it answered HTTP {status}"
    if isinstance(exc, ClientConnectorError | ConnectionRefusedError):
        return "nothing answers there"
    return type(exc).__name__


async def _pump_stdin(guest: Any) -> None:
    from canvasrelay.protocol import MAX_FRAME_BYTES

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2 * MAX_FRAME_BYTES)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        text = line.decode("utf-8", "replace").strip()
        if not text:
            continue
        try:
            await guest.send(text)
        except ConnectionError as exc:
            print(json.dumps({"t": "error", "message": f"not sent: {exc}"}), flush=True)
