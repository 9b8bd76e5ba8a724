"""A client's side of the board's parts: the welcome holds the first, `board-part`s the rest.

Shared by `canvas join`'s guest and the tests' clients; the web app has the same logic in
`web/src/board/boardParts.ts`. A welcome that comes again with the same version (a guest that
fell behind and was sent the state anew) continues from what was already put together.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from canvasrelay.protocol.board import BoardMore
from canvasrelay.protocol.json_value import JsonObject


class BoardAssembly:
    def __init__(self) -> None:
        self.version = -1
        self.size = 0
        self.data = bytearray()

    @property
    def complete(self) -> bool:
        return self.version >= 0 and len(self.data) >= self.size

    def welcome(self, frame: Mapping[str, Any]) -> JsonObject | None:
        """Start (or continue) from a welcome (as JSON); the `board-more` to send, if any."""
        version, size = int(frame.get("boardVersion", 0)), int(frame.get("boardSize", 0))
        first = base64.b64decode(frame.get("board", ""))
        if not (version == self.version and size == self.size and len(self.data) >= len(first)):
            self.version, self.size, self.data = version, size or len(first), bytearray(first)
        return self._next()

    def part(self, frame: Mapping[str, Any]) -> JsonObject | None:
        """Take a `board-part` (as JSON); the `board-more` to send, if any."""
        if frame["version"] != self.version:
            self.version, self.size, self.data = frame["version"], frame["size"], bytearray()
        if frame["offset"] != len(self.data):
            return None
        self.data += base64.b64decode(frame["data"])
        return self._next() if frame["ask"] else None

    def _next(self) -> JsonObject | None:
        if self.complete:
            return None
        return BoardMore(version=self.version, offset=len(self.data)).model_dump(by_alias=True)
