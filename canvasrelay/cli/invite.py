"""`canvas invite`: invite one person to the room this folder serves, list the invitations, or revoke one.

It asks the running `canvas serve` through its API, as the host: the port from `.canvas/serve.lock`,
the host token from `.canvas/secrets.json` (both readable only by their owner).
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, NotRequired, TypedDict, get_args

from canvasrelay.cli.usage import UsageError
from canvasrelay.protocol.people import InviteAccess, InviteInfo, InviteState

ACCESS = get_args(InviteAccess)
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
TIMEOUT = 10.0


class InviteBody(TypedDict):
    """What `POST /api/invites` takes."""

    name: str
    access: InviteAccess
    singleUse: bool
    expiresInS: NotRequired[float]


def add_command(commands: Any) -> None:
    invite = commands.add_parser("invite", help="invite one person (a link of their own), list or revoke invitations")
    invite.add_argument("name", nargs="?", help="who the invitation is for")
    invite.add_argument("--access", choices=ACCESS, default="edit", help="what they may do (default edit)")
    invite.add_argument("--expires", type=duration, metavar="TIME", help="lapses after this long: 30m, 2h, 7d")
    invite.add_argument("--single-use", action="store_true", help="only the first person who joins with it may use it")
    invite.add_argument("--list", action="store_true", help="list the invitations")
    invite.add_argument("--revoke", metavar="ID", help="revoke one: whoever came with it leaves at once")
    invite.add_argument("--dir", type=Path, default=Path.cwd(), help="the project folder (default: here)")


def duration(text: str) -> float:
    unit = UNITS.get(text[-1:])
    number = text[:-1] if unit else text
    try:
        value = float(number) * (unit or 1)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a duration: {text} (say 30m, 2h or 7d)") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("a duration must be more than zero")
    return value


def _server(folder: Path) -> tuple[str, str]:
    canvas = folder.resolve() / ".canvas"
    try:
        holder = json.loads((canvas / "serve.lock").read_text(encoding="ascii") or "{}")
        token = json.loads((canvas / "secrets.json").read_text(encoding="utf-8"))["token"]
    except (OSError, ValueError, KeyError):
        raise UsageError(f"no canvas serve runs in {folder.resolve()}: start it there first") from None
    port = holder.get("port") if isinstance(holder, dict) else None
    if not isinstance(port, int):
        raise UsageError(f"no canvas serve runs in {folder.resolve()}: start it there first")
    return f"http://127.0.0.1:{port}", token


def _call(base: str, token: str, method: str, path: str, body: InviteBody | None = None) -> Any:
    data = json.dumps(body).encode("utf-8") if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        try:
            message = json.loads(exc.read()).get("error", {}).get("message") or exc.reason
        except (ValueError, AttributeError):
            message = exc.reason
        raise UsageError(str(message)) from None
    except OSError as exc:
        raise UsageError(f"could not reach canvas serve ({exc})") from None
    return json.loads(raw) if raw else None


def run(args: argparse.Namespace) -> int:
    base, token = _server(args.dir)
    if args.revoke:
        _call(base, token, "DELETE", f"/api/invites/{urllib.parse.quote(args.revoke, safe='')}")
        print("Revoked: whoever came with it has left, and its link no longer works.")
        return 0
    if args.list or not args.name:
        listed = _call(base, token, "GET", "/api/invites")
        print("\n".join(listing([InviteInfo.model_validate(invite) for invite in listed["invites"]])))
        return 0
    body: InviteBody = {"name": args.name, "access": args.access, "singleUse": args.single_use}
    if args.expires is not None:
        body["expiresInS"] = args.expires
    made = _call(base, token, "POST", "/api/invites", body)
    print(f"Invitation for {args.name}, with {args.access} access.")
    print(f"To revoke it: canvas invite --revoke {made['id']}")
    print("Give this link to them only:")
    print(made["link"])
    return 0


STATE_WORDS: dict[InviteState, str] = {
    "standing": "the link works",
    "off": "turned off: the link lets nobody in until it is turned on",
    "expired": "lapsed: the link no longer works",
    "revoked": "revoked: the link no longer works",
}


def listing(invites: list[InviteInfo]) -> list[str]:
    """The invitations in words, one person a paragraph; an id only where a command needs it, said so."""
    named = [invite for invite in invites if not invite.open]
    lines = [] if named else ["Nobody has an invitation of their own: make one with `canvas invite NAME`."]
    for invite in named:
        lines.append(f"{invite.name}: {invite.access} access; {_state(invite)}.")
        if invite.state == "standing":
            lines.append(f"  To revoke it: canvas invite --revoke {invite.id}")
    for invite in invites:
        if invite.open:
            lines.append(f"The open room link: guests get the room's default access; {_state(invite)}.")
    return lines


def _state(invite: InviteInfo) -> str:
    words = STATE_WORDS[invite.state]
    if invite.state != "standing":
        return words
    if invite.single_use:
        words += "; for one person, " + ("who has joined" if invite.used else "who has not joined yet")
    if invite.expires_at:
        words += "; lapses " + time.strftime("%Y-%m-%d %H:%M", time.localtime(invite.expires_at))
    return words
