"""The `canvas` command."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import os
import sys
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn
from urllib.parse import urlsplit

from canvasrelay import __version__
from canvasrelay.cli import guests as cli_guests
from canvasrelay.cli import invite as cli_invite
from canvasrelay.cli import page as cli_page
from canvasrelay.cli import replay as cli_replay
from canvasrelay.cli import terminals as cli_terminals
from canvasrelay.cli.stopping import say, stop_event
from canvasrelay.cli.usage import EXIT_USAGE, Parser, UsageError, check_port, listen_error, port
from canvasrelay.core.errors import ConfigError
from canvasrelay.net import public_relays
from canvasrelay.net.peer_connection import UnknownLibrary
from canvasrelay.server.canvas_dir import FolderInUse

if TYPE_CHECKING:
    from canvasrelay.server.app import CanvasServer


RELAYS_WAIT_S = 2.5
"""How long the room link waits, at most, for the public relays it will name to be chosen."""


def _parser() -> Parser:
    parser = Parser(prog="canvas", description="A shared board for coding agents and terminals.")
    parser.add_argument("--version", action="version", version=f"canvas {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="{serve,invite,attach,stop,signal,join,page,replay}")
    serve = commands.add_parser("serve", help="serve this folder's board, agents and terminals")
    serve.add_argument("--dir", type=Path, default=Path.cwd(), help="the project folder (default: here)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=port, default=8477, help="port (default 8477; 0 picks a free one)")
    serve.add_argument("--no-open", action="store_true", help="do not open the host link in a browser")
    serve.add_argument("--new-room", action="store_true", help="new room secrets: old links stop working")
    cli_guests.add_serve_options(serve)
    cli_invite.add_command(commands)
    cli_terminals.add_commands(commands)
    cli_guests.add_commands(commands)
    cli_page.add_command(commands)
    cli_replay.add_commands(commands)
    return parser


def _check_folder(path: Path) -> Path:
    try:
        if path.exists() and not path.is_dir():
            raise UsageError(f"{path} is a file, not a folder")
        if not path.is_dir():
            raise UsageError(f"folder not found: {path}")
        resolved = path.resolve()
    except OSError as exc:
        raise UsageError(f"cannot open folder {path}: {exc.strerror}") from None
    if not os.access(resolved, os.W_OK | os.X_OK):
        raise UsageError(f"folder is not writable: {resolved} (canvas keeps its state in .canvas/ there)")
    return resolved


async def _serve(args: argparse.Namespace) -> None:
    root = _check_folder(args.dir)
    # Before the port: a canvas already serving this folder is named, not just its port found busy.
    _check_not_serving(root)
    # Before anything starts: a port that cannot be had is said at once, not after the agents load.
    check_port(args.host, args.port)
    from canvasrelay.net.bounded_site import raise_file_limit

    raise_file_limit()
    # Handlers go in before the links are printed: whoever reads them may press Ctrl-C at once.
    stop = stop_event()
    # Start-up makes some 65,000 objects that live as long as the server: collecting among them
    # while they are made cost a sixth of the start-up, and frozen they are not scanned again in
    # every full collection (100 ms each) for the server's life.
    gc.disable()
    try:
        server = await _start(args, root)
        await _print_links(server, root)
    finally:
        gc.freeze()
        gc.enable()
    if not args.no_open:
        webbrowser.open(server.host_link)
    await stop.wait()
    say("canvas: stopping")
    await server.stop()


def _check_not_serving(root: Path) -> None:
    canvas_dir = root / ".canvas"
    if not canvas_dir.is_dir():
        return
    from canvasrelay.server.canvas_dir import FolderLock

    try:
        FolderLock(canvas_dir).release()
    except FolderInUse as exc:
        raise UsageError(str(exc)) from None


async def _start(args: argparse.Namespace, root: Path) -> CanvasServer:
    from canvasrelay.server.app import CanvasServer, ServeOptions

    relays = [] if args.lan_only else args.relays if args.relays is not None else public_relays.from_env()
    try:
        server = CanvasServer(
            ServeOptions(
                root=root,
                host=args.host,
                port=args.port,
                new_room=args.new_room,
                signal_url=args.signal,
                base_url=args.base_url,
                ice_servers=args.ice_server or (list(public_relays.PUBLIC_STUN) if relays != [] else []),
                relay_only=args.relay_only,
                relays=relays,
                turn=cli_guests.turn_config(args),
                turn_provider=cli_guests.turn_provider(args),
            )
        )
    except (ConfigError, FolderInUse, PermissionError, UnknownLibrary) as exc:
        raise UsageError(str(exc)) from None
    try:
        await server.start()
    except OSError as exc:
        await server.stop()
        raise listen_error(exc, args.host, args.port) from None
    return server


async def _print_links(server: CanvasServer, root: Path) -> None:
    say(f"canvas {__version__} serving {root}")
    say(f"Guests connect over {server.webrtc_library.describe()}")
    say(f"Host link (keep it to yourself): {server.host_link}")
    relays = await server.relays_chosen(RELAYS_WAIT_S)
    if relays:
        hosts = ", ".join(urlsplit(url).hostname or url for url in relays)
        say(f"Guests anywhere find the room through {len(relays)} Nostr relays: {hosts}")
        say("  (they see addresses, timing and an opaque topic; never the offer, the answer or the room's key)")
    else:
        say("Guests find the room on this network only (no public relay in use)")
    stun = [url for url in server.options.ice_servers if url.startswith("stun")]
    if stun:
        hosts = ", ".join(url.split(":")[1] for url in stun)
        say(f"Each side asks its public address of {hosts} (STUN: they learn that address and when, nothing else)")
    if server.page_check is not None:
        opens = "the published guest page" if server.links_leave else "this server"
        say(f"The room link opens {opens}: {server.page_check.words}")
    turn = server.options.turn
    provider = server.options.turn_provider
    if turn is not None or provider is not None:
        where = provider.where if provider is not None else ", ".join(turn.urls) if turn is not None else ""
        say(f"Guests whose networks cannot meet directly get short-lived TURN credentials for {where}")
    say(f"Room link (anyone who has it may join): {server.room_link}")
    say("Invite one person with a link of their own: canvas invite NAME")
    others = server.link_hosts[1:]
    if others:
        say(f"The links also work with {', '.join(others)} in place of {server.link_hosts[0]}")
    if sys.stdout.isatty():
        import segno

        with contextlib.suppress(OSError):
            segno.make(server.room_link, error="l").terminal(compact=True)


def _exit_now(code: int) -> NoReturn:
    """Exit without the interpreter's teardown: the server has stopped every process and flushed
    the store, and freeing its modules' objects one by one takes seconds on a busy machine."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parser().parse_command(argv)
    except UsageError as exc:
        print(f"canvas: {exc}", file=sys.stderr)
        return EXIT_USAGE
    # Warnings and errors only: libraries' INFO lines (ICE checks, requests) are noise at best.
    logging.basicConfig(level=logging.WARNING, format="canvas: %(levelname)s %(name)s: %(message)s")
    # A log line with nobody left on stderr is dropped, not reported (on stderr).
    logging.raiseExceptions = False
    try:
        if args.command == "serve":
            asyncio.run(_serve(args))
            _exit_now(0)
        elif args.command == "invite":
            return cli_invite.run(args)
        elif args.command in cli_terminals.COMMANDS:
            return cli_terminals.run(args)
        elif args.command in cli_replay.COMMANDS:
            return cli_replay.run(args)
        elif args.command in cli_guests.COMMANDS:
            return asyncio.run(cli_guests.run(args))
        elif args.command == "page":
            return cli_page.run(args)
    except UsageError as exc:
        print(f"canvas: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return 0


if __name__ == "__main__":
    sys.exit(main())
