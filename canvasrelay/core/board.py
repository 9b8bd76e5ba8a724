"""The board's server-side core: a Yjs document (pycrdt) that peers' updates are checked against.

Sans-I/O: the server stores and sends the bytes; this module only decides whether an update is
acceptable and keeps the document. Schema: adr/0003-board-schema.md.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from pycrdt import Doc, Map, TransactionEvent
from pycrdt import get_state as decodes
from pycrdt import get_update as missing_from

from canvasrelay.core.board_values import item_problem
from canvasrelay.protocol.board_items import ITEMS

LOCAL_ORIGIN = "server"
# No structs, empty delete set: what a transaction that changed nothing encodes to.
EMPTY_UPDATE = b"\x00\x00"


MAX_BOARD_BYTES = 12 << 20
"""The board's state, in bytes of its Yjs encoding: what every page that opens the room loads."""
MAX_BOARD_ITEMS = 20_000
COMPACT_BYTES = 8 << 20
"""Bytes of updates after the checkpoint before the store is compacted, whatever their count."""


@dataclass(frozen=True)
class BoardBounds:
    """What the board may hold; a peer's update that would take it past either is refused."""

    max_bytes: int = MAX_BOARD_BYTES
    max_items: int = MAX_BOARD_ITEMS


class BoardUpdateError(ValueError):
    """An update or state vector from a peer that the board refuses; the board is unchanged."""


class BoardFullError(BoardUpdateError):
    """An update that would take the board past its bound: sound, but not taken (a client keeps it
    to itself rather than sending it again)."""


class BoardValueError(BoardUpdateError):
    """An update that would give an item a value of the wrong type (a colour that is not one): it
    decodes, but no sending it again makes it fit, so a client drops it as it drops a full board's."""


RemovalGuard = Callable[[list[str]], str | None]
"""Given the ids of the items an update removes, why it may not (or None when it may)."""


@dataclass
class LocalChange:
    """Filled in when a `Board.change()` block ends: the exact update to store and broadcast."""

    update: bytes = EMPTY_UPDATE


def _mb(size: int) -> str:
    return f"{size / (1 << 20):.1f} MiB"


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


def _written_keys(event: Any) -> list[str]:
    """The keys a map event added or changed; none for a text's or a list's event."""
    changes = getattr(event, "keys", None)
    if not isinstance(changes, dict):
        return []
    return [key for key, change in changes.items() if change["action"] != "delete"]


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

    def __init__(self, bounds: BoardBounds | None = None) -> None:
        self.doc: Doc[Map] = Doc()
        self.items: Map = self.doc.get(ITEMS, type=Map)
        self.bounds = bounds or BoardBounds()
        self._removed: list[str] = []
        """The item ids the last update tried on the shadow removed (its observer fills this)."""
        self._touched: dict[str, set[str] | None] = {}
        """The items the last update tried on the shadow wrote, with the keys it wrote (None: all of
        them, for an item it added or replaced whole)."""
        self._drafts: list[bytes] | None = None
        """The updates local edits made on the shadow, while `within_bounds()` runs."""
        self._new_shadow(None)
        self.updates_since_checkpoint = 0
        self.bytes_since_checkpoint = 0
        self.version = secrets.randbits(40)
        """Counts the changes: a state taken at one version is the same bytes for every reader. It
        starts anywhere, so a client never takes a restarted server's state for the one it had."""
        self._size_at_most = 0
        """The state's bytes, or more: the last exact figure plus every update since. An update
        adds at most its own length to the state, so only near the bound is the state measured."""
        self._items_at_most = 0
        """The items, or more, by the same reasoning: an update adds at most one item per byte."""

    def _new_shadow(self, state: bytes | None) -> None:
        # Observed once for its life, not per update: subscribing costs more than applying. The
        # subscription lives as long as the Map object that made it, so that is kept too.
        self._shadow: Doc[Map] = Doc()
        self._shadow_items = self._shadow.get(ITEMS, type=Map)
        if state is not None:
            self._shadow.apply_update(state)
        self._shadow_items.observe_deep(self._note_changes)

    def _note_changes(self, events: list[Any]) -> None:
        for event in events:
            path = event.path
            if not path:
                self._removed.extend(_deleted_keys(event))
                self._touched.update(dict.fromkeys(_written_keys(event)))
                continue
            keys = self._touched.setdefault(str(path[0]), set())
            if keys is not None:
                # A change inside a key (a text, `holds`, `points`) is checked as that key.
                keys.update(_written_keys(event) if len(path) == 1 else [str(path[1])])

    @classmethod
    def from_updates(cls, updates: Iterable[bytes], bounds: BoardBounds | None = None) -> Board:
        """Rebuild from the store's rows: the checkpoint (or first update) and the updates after it.
        Raises BoardUpdateError at a row that cannot be applied (`load` sets such rows aside)."""
        board, unusable = cls.load(updates, bounds)
        if unusable:
            raise BoardUpdateError(f"stored update {unusable[0]} cannot be applied")
        return board

    @classmethod
    def load(cls, updates: Iterable[bytes], bounds: BoardBounds | None = None) -> tuple[Board, list[int]]:
        """Rebuild from the store's rows, and say which rows (by position) could not be applied:
        those are left out and the rest loads, so no stored row can keep the room from opening.

        Stored rows pass no bound: what an older version (or a larger bound) stored still loads.
        `updates_since_checkpoint` becomes the number of rows after the first, so a compaction
        (one checkpoint row) resets it to 0.
        """
        board = cls(bounds)
        rows = 0
        unusable: list[int] = []
        for index, update in enumerate(updates):
            try:
                board.apply_update(update, origin="store", bounded=False)
            except BoardUpdateError:
                unusable.append(index)
                continue
            rows += 1
        board.updates_since_checkpoint = max(rows - 1, 0) + len(unusable)
        board.bytes_since_checkpoint = 0
        board.size()
        return board, unusable

    def size(self) -> int:
        """The state's bytes, measured (a few ms for megabytes)."""
        self._size_at_most = len(self.doc.get_update())
        return self._size_at_most

    def over_bounds(self) -> str | None:
        """How the board exceeds its bounds, if it does (a store written under a larger bound)."""
        size, items = self.size(), len(self.items)
        if size > self.bounds.max_bytes:
            return f"the board holds {_mb(size)} (its bound is {_mb(self.bounds.max_bytes)})"
        if items > self.bounds.max_items:
            return f"the board holds {items} items (its bound is {self.bounds.max_items})"
        return None

    def _items_before(self, added: int) -> int | None:
        """The shadow's items before `added` bytes of updates, if those could take it past the bound."""
        if self._items_at_most + added <= self.bounds.max_items:
            return None
        return len(self._shadow_items)

    def _check_bounds(self, added: int, items_before: int | None) -> None:
        """Refuse an update the shadow took that would grow the board past a bound; one that
        shrinks a board already past it (a store from a larger bound) passes, so it can be cleared."""
        items: int | None = None
        if items_before is not None:
            items = len(self._shadow_items)
            if items > self.bounds.max_items and items > items_before:
                raise BoardFullError(
                    f"the board is full: it holds at most {self.bounds.max_items} items; remove some first"
                )
        if self._size_at_most + added > self.bounds.max_bytes:
            after = len(self._shadow.get_update())
            if after > self.bounds.max_bytes and after > self.size():
                raise BoardFullError(
                    f"the board is full: it holds at most {_mb(self.bounds.max_bytes)}; remove some items first"
                )
        if items is not None:
            # Exact again: the updates about to be taken add `added` back.
            self._items_at_most = items - added

    def apply_update(self, update: bytes, origin: str, guard: RemovalGuard | None = None, bounded: bool = True) -> None:
        """Apply a peer's update, or raise BoardUpdateError and leave the board as it was.

        Refused: bytes that do not decode, updates yrs fails to integrate, updates that
        depend on changes the board lacks (an honest peer only builds on what it got from us,
        so those would sit pending forever in every rebuild), removals `guard` refuses, and
        values of the wrong type (`board_values`). Unbounded (stored) rows are not held to the
        types either: what an older version stored still loads, and readers check what they draw.
        """
        try:
            # Decoding alone rejects most garbage without touching the shadow.
            decodes(update)
        except BaseException as error:
            if not (isinstance(error, Exception) or _is_panic(error)):
                raise
            raise BoardUpdateError(f"board update does not decode: {error}") from None
        removed = self._removed = []
        touched = self._touched = {}
        items_before = self._items_before(len(update))
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
        problem = self._value_problem(touched) if bounded else None
        if problem is not None:
            self._resync_shadow()
            raise BoardValueError(problem)
        if bounded:
            try:
                self._check_bounds(len(update), items_before)
            except BoardUpdateError:
                self._resync_shadow()
                raise
        # The origin marks the peer, so observers can avoid echoing its own update back to it.
        with self.doc.transaction(origin=origin):
            self.doc.apply_update(update)
        self._changed(update)

    def _value_problem(self, touched: dict[str, set[str] | None]) -> str | None:
        """What is wrong with a value the update wrote into the shadow's items, if anything."""
        for item_id, keys in touched.items():
            item = self._shadow_items.get(item_id)
            problem = item_problem(item, keys) if isinstance(item, Map) else None
            if problem is not None:
                return problem
        return None

    def _changed(self, update: bytes) -> None:
        self._touched = {}
        self.updates_since_checkpoint += 1
        self.bytes_since_checkpoint += len(update)
        self._size_at_most += len(update)
        self._items_at_most += len(update)
        self.version += 1

    def _resync_shadow(self) -> None:
        self._new_shadow(self.doc.get_update())

    @contextmanager
    def change(self, origin: str = LOCAL_ORIGIN) -> Iterator[LocalChange]:
        """Edit the board locally in one transaction; the yielded object then holds its update.
        Within `within_bounds()` the transaction is the shadow's, for the board to take after."""
        result = LocalChange()
        doc = self._shadow if self._drafts is not None else self.doc

        def capture(event: TransactionEvent) -> None:
            result.update = event.update

        subscription = doc.observe(capture)
        try:
            with doc.transaction(origin=origin):
                yield result
        finally:
            # Also when the block raised: what it changed is committed, and the other doc must follow.
            doc.unobserve(subscription)
            if result.update != EMPTY_UPDATE and self._drafts is not None:
                self._drafts.append(result.update)
            elif result.update != EMPTY_UPDATE:
                self._shadow.apply_update(result.update)
                self._changed(result.update)

    @contextmanager
    def within_bounds(self, origin: str = LOCAL_ORIGIN) -> Iterator[None]:
        """Local edits made within (reads included) are drafted on the shadow; when the block ends
        the board takes them, or raises BoardFullError if they would take it past its bounds and
        stays as it was, as for a peer's update. A block that raises leaves the board as it was too.

        The whole block, not only its `change()`, runs on the shadow: an edit holds on to the
        items it read before changing them.
        """
        # Local edits are few: their items are counted whatever their size.
        items, items_before = self.items, len(self._shadow_items)
        self._drafts, self.items = [], self._shadow_items
        try:
            yield
            drafts = self._drafts
        except BaseException:
            # Most refusals come before the edit changed anything: then the shadow is as it was.
            if self._drafts:
                self._resync_shadow()
            raise
        finally:
            self._drafts, self.items = None, items
        try:
            self._check_bounds(sum(map(len, drafts)), items_before)
        except BoardUpdateError:
            self._resync_shadow()
            raise
        for update in drafts:
            with self.doc.transaction(origin=origin):
                self.doc.apply_update(update)
            self._changed(update)

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

    def needs_compaction(self, count_threshold: int, bytes_threshold: int = COMPACT_BYTES) -> bool:
        """Enough updates since the checkpoint, or enough bytes of them (churn that adds and
        deletes leaves a small board behind a long log)."""
        return self.updates_since_checkpoint >= count_threshold or self.bytes_since_checkpoint >= bytes_threshold

    def checkpoint(self) -> bytes:
        """The state to store as the new checkpoint (replacing all older rows); resets the counters."""
        self.updates_since_checkpoint = 0
        self.bytes_since_checkpoint = 0
        state = self.state()
        self._size_at_most = len(state)
        return state

    def to_json(self) -> dict[str, object]:
        """The items as plain JSON-able data (numbers as floats, texts as str)."""
        return self.items.to_py() or {}
