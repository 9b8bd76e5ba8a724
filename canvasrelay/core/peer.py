"""Who is in the room (a `Peer`, host or guest, with their access) and the room itself (`RoomInfo`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath

from canvasrelay.protocol.access import Access


@dataclass
class Peer:
    id: str
    access: Access
    name: str = ""
    color: str = ""
    granted_terminals: set[str] = field(default_factory=set)

    @property
    def is_host(self) -> bool:
        return self.access is Access.HOST


@dataclass(frozen=True)
class RoomInfo:
    room_id: str
    host_public_key: str
    cwd: str

    @property
    def project(self) -> str:
        return PurePath(self.cwd).name or self.cwd
