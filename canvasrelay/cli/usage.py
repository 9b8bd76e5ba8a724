"""What the user typed, checked: one line naming the problem and exit code 2, never a traceback.

Kept free of heavy imports, so a mistake is answered before the server's modules load.
"""

from __future__ import annotations

import argparse
import errno
import re
import socket
from typing import NoReturn
from urllib.parse import urlsplit

EXIT_USAGE = 2
COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
PRIVILEGED_BELOW = 1024


class UsageError(Exception):
    """A problem the user can fix; printed as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """argparse, but a mistake is a `UsageError` (one line) rather than usage text and an exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def parse_command(self, argv: list[str] | None = None) -> argparse.Namespace:
        args, extra = self.parse_known_args(argv)
        if extra:
            word = extra[0]
            what = f"unknown option {word}" if word.startswith("-") else f"unexpected argument {word!r}"
            raise UsageError(f"{what} (see canvas --help)")
        if getattr(args, "command", None) is None:
            raise UsageError("say what to do: canvas serve, canvas join <room link> or canvas signal (see --help)")
        return args


def port(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = -1
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError(f"{text} is not a port: use 0 to 65535 (0 picks a free one)")
    return number


def colour(text: str) -> str:
    if not COLOR.match(text):
        raise argparse.ArgumentTypeError(f"{text} is not a colour; write it as #rrggbb, e.g. #3366aa")
    return text


def guest_name(text: str) -> str:
    from canvasrelay.protocol.guests import NAME_MAX

    if not 1 <= len(text) <= NAME_MAX:
        raise argparse.ArgumentTypeError(f"a name is 1 to {NAME_MAX} characters")
    return text


def _url(text: str, schemes: tuple[str, ...], what: str, example: str) -> str:
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 (reading it checks it)
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in schemes or not parts.hostname:
        raise argparse.ArgumentTypeError(f"{text} is not {what}; write it as {example}")
    return text


def page_url(text: str) -> str:
    """`--base-url`: where guests open the room, an http(s) address."""
    return _url(text, ("http", "https"), "a web address", "https://canvas.example/")


def signal_list(text: str) -> str:
    """`--signal`: one rendezvous or several, comma-separated, each a ws(s) address."""
    urls = [url.strip() for url in text.split(",") if url.strip()]
    if not urls:
        raise argparse.ArgumentTypeError("--signal needs a rendezvous address, e.g. wss://signal.example/signal")
    for url in urls:
        _url(url, ("ws", "wss"), "a rendezvous address", "wss://signal.example/signal")
    return text


ICE_URL = re.compile(r"^(stun|stuns|turn|turns):([^@\s]+@)?[A-Za-z0-9.\-\[\]:]+(:\d{1,5})?(\?transport=(udp|tcp))?$")


def ice_url(text: str) -> str:
    """`--ice-server`: a STUN or TURN server."""
    if not ICE_URL.match(text):
        raise argparse.ArgumentTypeError(
            f"{text} is not a STUN or TURN server; write stun:host:port or turn:user:password@host:port"
        )
    return text


def listen_error(exc: OSError, host: str, number: int) -> UsageError:
    """What a failed bind means, in words."""
    if exc.errno == errno.EADDRINUSE:
        return UsageError(f"port {number} is in use on {host}; pick another with --port")
    if exc.errno == errno.EACCES and 0 < number < PRIVILEGED_BELOW:
        return UsageError(f"port {number} is privileged (below {PRIVILEGED_BELOW}); pick another with --port")
    if exc.errno == errno.EADDRNOTAVAIL:
        return UsageError(f"{host} is not an address of this machine; check --host")
    if isinstance(exc, socket.gaierror):
        return UsageError(f"cannot listen on {host}: no such address; check --host")
    return UsageError(f"cannot listen on {host}:{number}: {exc.strerror or exc}")


def check_port(host: str, number: int) -> None:
    """Bind and let go at once, as the server will bind: a port that cannot be had is said now."""
    if number == 0:
        return
    try:
        addresses = socket.getaddrinfo(host or None, number, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in addresses:
            with socket.socket(family, kind, proto) as probe:
                # As asyncio's server does, so a port in TIME_WAIT is not reported busy.
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                probe.bind(address)
    except OSError as exc:
        raise listen_error(exc, host, number) from None
