"""The board's server-side core: a Yjs document (pycrdt) that peers' updates are checked against.

Sans-I/O: the server stores and sends the bytes; this module only decides whether an update is
acceptable and keeps the document. Schema: adr/0003-board-schema.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pycrdt import Doc, Map, TransactionEvent
from pycrdt import get_state as decodes
from pycrdt import get_update as missing_from

from canvasrelay.protocol.board_items import ITEMS

LOCAL_ORIGIN = "server"
# No structs, empty delete set: what a transaction that changed nothing encodes to.
EMPTY_UPDATE = b"\x00\x00"


class BoardUpdateError(ValueError):
    """An update or state vector from a peer that the board refuses; the board is unchanged."""


RemovalGuard = Callable[[list[str]], str | None]
"""Given the ids of the items an update removes, why it may not (or None when it may)."""


@dataclass
class LocalChange:
    """Filled in when a `Board.change()` block ends: the exact update to store and broadcast."""

    update: bytes = EMPTY_UPDATE


def read_var_uint(data: bytes, pos: int) -> tuple[int, int]:
    value = 0
    shift = 0
    while True:
        if pos >= len(data):
            raise BoardUpdateError("state vector is truncated")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
        # Client ids are 53-bit and clocks fit in 64 bits; more means the bytes are not a varint.
        if shift > 63:
            raise BoardUpdateError("state vector has an oversized number")


def decode_state_vector(data: bytes) -> dict[int, int]:
    """Strictly decode a Yjs v1 state vector (client id -> clock); yrs alone ignores trailing bytes."""
    count, pos = read_var_uint(data, 0)
    if count > len(data):
        raise BoardUpdateError("state vector claims more entries than it has bytes")
    vector: dict[int, int] = {}
    for _ in range(count):
        client, pos = read_var_uint(data, pos)
        clock, pos = read_var_uint(data, pos)
        vector[client] = clock
    if pos != len(data):
        raise BoardUpdateError("state vector has trailing bytes")
    return vector


def _deleted_keys(event: Any) -> list[str]:
    """The keys a map event deleted (pycrdt's stubs do not declare `MapEvent.keys`)."""
    return [key for key, change in event.keys.items() if change["action"] == "delete"]


def _is_panic(error: BaseException) -> bool:
    # pyo3 raises Rust panics as pyo3_runtime.PanicException, a BaseException subclass that
    # cannot be imported before the first panic; a panic on bad input must become a refusal.
    return type(error).__name__ == "PanicException"


class Board:
    """The board document, plus a shadow copy that every peer update is tried on first.

    yrs can apply part of a malformed update and then raise, so trying it on the real document
    could leave that half-changed. The shadow takes the risk; the real document only gets
    updates the shadow accepted, which apply identically because both hold the same state.
    """

    def __init__(self) -> None:
        self.doc: Doc[Map] = Doc()
        self.items: Map = self.doc.get(ITEMS, type=Map)
        self._removed: list[str] = []
        """The item ids the last update tried on the shadow removed (its observer fills this)."""
        self._new_shadow(None)
        self.updates_since_checkpoint = 0

    def _new_shadow(self, state: bytes | None) -> None:
        # Observed once for its life, not per update: subscribing costs more than applying. The
        # subscription lives as long as the Map object that made it, so that is kept too.
        self._shadow: Doc[Map] = Doc()
        self._shadow_items = self._shadow.get(ITEMS, type=Map)
        if state is not None:
            self._shadow.apply_update(state)
        self._shadow_items.observe(self._note_removals)

    def _note_removals(self, event: Any) -> None:
        self._removed.extend(_deleted_keys(event))

    @classmethod
    def from_updates(cls, updates: Iterable[bytes]) -> Board:
        """Rebuild from the store's rows: the checkpoint (or first update) and the updates after it.

        `updates_since_checkpoint` becomes the number of rows after the first, so a compaction
        (one checkpoint row) resets it to 0.
        """
        board = cls()
        rows = 0
        for update in updates:
            board.apply_update(update, origin="store")
            rows += 1
        board.updates_since_checkpoint = max(rows - 1, 0)
        return board

    def apply_update(self, update: bytes, origin: str, guard: RemovalGuard | None = None) -> None:
        """Apply a peer's update, or raise BoardUpdateError and leave the board as it was.

        Refused: bytes that do not decode, updates yrs fails to integrate, updates that
        depend on changes the board lacks (an honest peer only builds on what it got from us,
        so those would sit pending forever in every rebuild), and removals `guard` refuses.
        """
        try:
            # Decoding alone rejects most garbage without touching the shadow.
            decodes(update)
        except BaseException as error:
            if not (isinstance(error, Exception) or _is_panic(error)):
                raise
            raise BoardUpdateError(f"board update does not decode: {error}") from None
        removed = self._removed = []
        try:
            # One transaction for the update and the state vector read after it.
            with self._shadow.transaction():
                self._shadow.apply_update(update)
                state = self._shadow.get_state()
            # Structs the shadow could not integrate are still "missing" from its state vector.
            leftover = missing_from(update, state)
        except BaseException as error:
            if not (isinstance(error, Exception) or _is_panic(error)):
                raise
            self._resync_shadow()
            raise BoardUpdateError(f"board update cannot be applied: {error}") from None
        if leftover[:1] != b"\x00":
            self._resync_shadow()
            raise BoardUpdateError("board update depends on changes the board does not have")
        refusal = guard(removed) if guard is not None and removed else None
        if refusal is not None:
            self._resync_shadow()
            raise BoardUpdateError(refusal)
        # The origin marks the peer, so observers can avoid echoing its own update back to it.
        with self.doc.transaction(origin=origin):
            self.doc.apply_update(update)
        self.updates_since_checkpoint += 1

    def _resync_shadow(self) -> None:
        self._new_shadow(self.doc.get_update())

    @contextmanager
    def change(self, origin: str = LOCAL_ORIGIN) -> Iterator[LocalChange]:
        """Edit the board locally in one transaction; the yielded object then holds its update."""
        result = LocalChange()

        def capture(event: TransactionEvent) -> None:
            result.update = event.update

        subscription = self.doc.observe(capture)
        try:
            with self.doc.transaction(origin=origin):
                yield result
        finally:
            # Also when the block raised: what it changed is committed, and the shadow must follow.
            self.doc.unobserve(subscription)
            if result.update != EMPTY_UPDATE:
                self._shadow.apply_update(result.update)
                self.updates_since_checkpoint += 1

    def state(self) -> bytes:
        """The whole board as one update: what a new client gets, and the compaction checkpoint."""
        return self.doc.get_update()

    def state_vector(self) -> bytes:
        return self.doc.get_state()

    def diff(self, state_vector: bytes) -> bytes:
        """The update a client with `state_vector` lacks."""
        decode_state_vector(state_vector)
        try:
            return self.doc.get_update(state_vector)
        except Exception as error:
            raise BoardUpdateError(f"bad state vector: {error}") from None

    def needs_compaction(self, count_threshold: int) -> bool:
        return self.updates_since_checkpoint >= count_threshold

    def checkpoint(self) -> bytes:
        """The state to store as the new checkpoint (replacing all older rows); resets the counter."""
        self.updates_since_checkpoint = 0
        return self.state()

    def to_json(self) -> dict[str, object]:
        """The items as plain JSON-able data (numbers as floats, texts as str)."""
        return self.items.to_py() or {}
