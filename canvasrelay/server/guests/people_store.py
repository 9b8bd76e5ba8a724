"""Where the room keeps its people in `.canvas/`: invites, guest identities, waiting requests, the record.

Each is a file of mode 0600: `invites.json`, `guests.json` and `requests.json` rewritten whole
(atomically) when they changed, `audit.jsonl` appended to, and rewritten once it passes its
size bound with the newest half. They are written each second and when the server stops, so a
restart finds every invite, every guest's access and every request still waiting.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from canvasrelay.core.audit import CANVAS_ID, Audit
from canvasrelay.core.guest_identity import Identities, Identity
from canvasrelay.core.guests import Approval, Guests, peer_id_of
from canvasrelay.core.invites import Invite, Invites
from canvasrelay.net.tasks import cancelled
from canvasrelay.protocol import FrameError, parse_client_frame
from canvasrelay.protocol.people import AuditEntry
from canvasrelay.server.room_secrets import write_private_file

log = logging.getLogger(__name__)
Row = TypeVar("Row")

INVITES = "invites.json"
GUESTS = "guests.json"
REQUESTS = "requests.json"
AUDIT = "audit.jsonl"
AUDIT_MAX_BYTES = 8 * 1024 * 1024
SAVE_EVERY = 1.0

# Each file is the list of its dataclasses' fields, as written by the previous run.
INVITE_ROWS = TypeAdapter(list[Invite])
GUEST_ROWS = TypeAdapter(list[Identity])


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        log.warning("%s cannot be read; starting without it", path.name)
        return None


def _rows(rows: TypeAdapter[list[Row]], saved: object, name: str) -> list[Row]:
    if saved is None:
        return []
    try:
        return rows.validate_python(saved)
    except ValidationError:
        log.warning("%s cannot be read; starting without it", name)
        return []


class PeopleStore:
    def __init__(self, canvas_dir: Path, open_secret: str, fresh: bool = False) -> None:
        """`fresh` (a new room): every invite, identity and request of the old room is forgotten."""
        self.dir = canvas_dir
        if fresh:
            for name in (INVITES, GUESTS, REQUESTS):
                (canvas_dir / name).unlink(missing_ok=True)
        saved_invites = _read_json(canvas_dir / INVITES)
        self.invites = Invites(time.time, _rows(INVITE_ROWS, saved_invites, INVITES), open_secret)
        self.identities = Identities(time.time, _rows(GUEST_ROWS, _read_json(canvas_dir / GUESTS), GUESTS))
        self.audit = Audit(time.time)
        self.audit.load(read_audit(canvas_dir))
        if self.audit.entries and not fresh:
            self.audit.note(CANVAS_ID, "canvas", "started again", "guests come back with the access they had")
        self._dirty = {INVITES: saved_invites is None, GUESTS: False}
        self.invites.listeners.append(lambda: self._dirty.__setitem__(INVITES, True))
        self.identities.listeners.append(lambda: self._dirty.__setitem__(GUESTS, True))
        self._saved_requests: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self.guests: Guests | None = None

    # -- waiting requests ---------------------------------------------------------------------

    def restore_requests(self, guests: Guests) -> None:
        """Put back the requests that were waiting when the server stopped, with the time they had left."""
        self.guests = guests
        saved = _read_json(self.dir / REQUESTS)
        now_wall, now = time.time(), guests.clock()
        for item in saved if isinstance(saved, list) else []:
            try:
                frame = parse_client_frame(json.dumps(item["frame"]))
                approval = Approval(
                    id=str(item["id"]),
                    guest_id=str(item["guestId"]),
                    peer_id=peer_id_of(str(item["guestId"])),
                    frame=frame,
                    expires_at=now + float(item["expiresAt"]) - now_wall,
                    text=str(item["text"]),
                    sha256=str(item["sha256"]),
                )
            except (KeyError, TypeError, ValueError, FrameError):
                continue
            guests.restore(approval)
        self._saved_requests = set(guests.pending)

    def _requests_json(self, guests: Guests) -> str:
        now_wall, now = time.time(), guests.clock()
        return json.dumps(
            [
                {
                    "id": a.id,
                    "guestId": a.guest_id,
                    "frame": a.frame.model_dump(mode="json", by_alias=True),
                    "expiresAt": now_wall + a.expires_at - now,
                    "text": a.text,
                    "sha256": a.sha256,
                }
                for a in guests.pending.values()
            ]
        )

    # -- the record ---------------------------------------------------------------------------

    def _append_audit(self) -> None:
        new = self.audit.take_new()
        path = self.dir / AUDIT
        pruned = self.audit.prune()
        too_big = path.exists() and path.stat().st_size > AUDIT_MAX_BYTES
        if pruned or too_big:
            if too_big:
                self.audit.keep_newest(len(self.audit.entries) // 2)
            text = "".join(e.model_dump_json(by_alias=True) + "\n" for e in self.audit.entries)
            write_private_file(path, text)
            return
        if not new:
            return
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as handle:
            handle.write("".join(e.model_dump_json(by_alias=True) + "\n" for e in new))

    # -- writing ------------------------------------------------------------------------------

    def save(self) -> None:
        if self._dirty[INVITES]:
            self._dirty[INVITES] = False
            write_private_file(self.dir / INVITES, INVITE_ROWS.dump_json(list(self.invites)).decode())
        if self._dirty[GUESTS]:
            self._dirty[GUESTS] = False
            write_private_file(self.dir / GUESTS, GUEST_ROWS.dump_json(list(self.identities.known.values())).decode())
        if self.guests is not None and set(self.guests.pending) != self._saved_requests:
            self._saved_requests = set(self.guests.pending)
            write_private_file(self.dir / REQUESTS, self._requests_json(self.guests))
        self.invites.prune()
        self.audit.tick()
        self._append_audit()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._every_second())

    async def _every_second(self) -> None:
        while True:
            await asyncio.sleep(SAVE_EVERY)
            try:
                self.save()
            except OSError as exc:
                log.warning("could not write the room's people to .canvas/ (%s)", type(exc).__name__)

    async def stop(self) -> None:
        await cancelled(self._task)
        waiting = len(self.guests.pending) if self.guests is not None else 0
        kept = f"{waiting} request{'' if waiting == 1 else 's'} still wait" if waiting else "nothing waits"
        self.audit.note(CANVAS_ID, "canvas", "stopped", f"guests' access and hand-overs are kept; {kept}")
        self.save()


def read_audit(canvas_dir: Path) -> list[AuditEntry]:
    """The record's entries as `.canvas/audit.jsonl` holds them (a line no model reads is left out)."""
    entries: list[AuditEntry] = []
    try:
        lines = (canvas_dir / AUDIT).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return entries
    for line in lines:
        try:
            entries.append(AuditEntry.model_validate_json(line))
        except ValidationError:
            continue
    return entries
