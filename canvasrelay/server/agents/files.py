"""The agent's file system: the shared set, seen from the agent.

An agent's ACP `fs/read_text_file` and `fs/write_text_file` come here. A path is refused when
it leaves the project folder (`../x`, an absolute path elsewhere, a link pointing out), when the
shared set never shares it (`.canvas/`, `.env*`, keys, credentials, `.git/`…) or leaves it out
(`.gitignore`, `.canvasignore`), and when a permission rule denies the call (kind `read` or
`edit`, with the path). The agent is told why in the ACP error; every attempt is audited.

The rules are consulted for their deny rules only: an fs call is the agent carrying out a tool
call it already asked permission for (or one its own policy lets it make), so a rule that says
"ask" does not ask a second time. A write to a file that runs code later (`core/runs_later.py`)
is the exception: the agent's client asks the host first (`confirm`), as a tool call.

A write walks the path one folder at a time from the project's folder, opening each without
following a link, and writes the file through that last folder: a folder swapped for a link
after the check writes nothing outside. A file with more than one name (a hard link, maybe to a
secret outside) is not written.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import posixpath
import stat
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from canvasrelay.core.permission_rules import Decision, ToolCallJson
from canvasrelay.core.runs_later import runs_later_reason
from canvasrelay.protocol.json_value import JsonObject
from canvasrelay.server.files.reader import read_shared_file
from canvasrelay.server.files.shared_set import Denied, Missing, SharedSet, syntax_reason

FsKind = Literal["read", "edit"]
Confirm = Callable[[str, str | None], Awaitable[bool]]
"""Asks the host whether a write to a file that runs code later may go ahead: `(why, the text
it replaces)`."""
Audit = Callable[[str, str, JsonObject], None]
"""`(actor, action, detail)`, as `Store.audit`."""


class FileRefused(Exception):
    """The call is refused; the message says why (it is what the agent is told)."""


class FsRules(Protocol):
    def fs_decision(self, session_id: str, tool_call: ToolCallJson) -> Decision: ...


@dataclass(frozen=True)
class _Target:
    rel: str
    absolute: Path


class AgentFiles:
    """Reads and writes for the agents of one project folder, through its shared set."""

    def __init__(self, root: str | Path, rules: FsRules | None = None, audit: Audit | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self._rules = rules
        self._audit = audit
        self._shared: SharedSet | None = None
        self._lock = asyncio.Lock()
        self._ids = itertools.count(1)

    async def read(self, session_id: str, path: str) -> str:
        """The file's text; raises `FileRefused` or `FileNotFoundError`."""
        target = await self._admit(session_id, "read", path)
        read = await asyncio.to_thread(read_shared_file, await self._shared_set(), target.rel)
        kind = read["kind"]
        if kind == "missing":
            self._record(session_id, "read", path, "missing")
            raise FileNotFoundError(path)
        if kind != "text":
            reason = {"binary": "not a text file", "too-large": "larger than 1 MiB"}.get(str(kind))
            reason = reason or str(read.get("reason") or "cannot be read")
            self._record(session_id, "read", path, "refused", reason)
            raise FileRefused(reason)
        self._record(session_id, "read", path, "done")
        return str(read["text"])

    async def on_disk(self, path: str) -> str | None:
        """The file's text as it is now, for the host to see what a change replaces; None for a
        file that is missing, outside the shared set, binary or too large. Canvas's own read, so
        it is not an agent's in the record."""
        try:
            rel = self._relative(path)
        except FileRefused:
            return None
        read = await asyncio.to_thread(read_shared_file, await self._shared_set(), rel)
        return str(read["text"]) if read["kind"] == "text" else None

    async def write(self, session_id: str, path: str, content: str, confirm: Confirm | None = None) -> None:
        """Write the file (its folders made as needed); raises `FileRefused`. A file that runs
        code later is written only once `confirm(why, text it replaces)` says yes."""
        target = await self._admit(session_id, "edit", path)
        why = runs_later_reason(target.rel)
        if why is not None:
            current = await asyncio.to_thread(read_shared_file, await self._shared_set(), target.rel)
            replaced = str(current["text"]) if current["kind"] == "text" else None
            if confirm is None or not await confirm(why, replaced):
                reason = f"{why}, and the host did not allow this change"
                self._record(session_id, "edit", path, "refused", reason)
                raise FileRefused(reason)
        try:
            await asyncio.to_thread(write_beneath, self.root, target.rel, content.encode("utf-8"))
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            self._record(session_id, "edit", path, "failed", reason)
            raise FileRefused(f"could not write: {reason}") from None
        self._record(session_id, "edit", path, "done")

    async def _admit(self, session_id: str, kind: FsKind, path: str) -> _Target:
        try:
            rel = self._relative(path)
            shared = await self._shared_set()
            resolution = await asyncio.to_thread(shared.check, rel)
            new_folder = kind == "edit" and resolution == Denied("no such file")
            if isinstance(resolution, Denied) and not new_folder:
                raise FileRefused(_plain(resolution.reason))
            self._deny_by_rules(session_id, kind, rel)
            if new_folder:
                # The rules passed and the path stays inside: only its folders are missing.
                await asyncio.to_thread(make_folders_beneath, self.root, rel)
                resolution = await asyncio.to_thread(shared.check, rel)
                if isinstance(resolution, Denied):
                    raise FileRefused(_plain(resolution.reason))
        except FileRefused as refused:
            self._record(session_id, kind, path, "refused", str(refused))
            raise
        if isinstance(resolution, Denied) or (isinstance(resolution, Missing) and kind == "read"):
            self._record(session_id, kind, path, "missing")
            raise FileNotFoundError(path)
        return _Target(rel, resolution.path)

    def _relative(self, path: str) -> str:
        """The path as a plain name relative to the folder, or refused for leaving it."""
        if not isinstance(path, str) or not path:
            raise FileRefused("no path given")
        joined = path if posixpath.isabs(path) else posixpath.join(str(self.root), path)
        normal = posixpath.normpath(joined)
        root = str(self.root)
        if normal == root or not normal.startswith(root.rstrip("/") + "/"):
            raise FileRefused("outside the project folder")
        rel = posixpath.relpath(normal, root)
        reason = syntax_reason(rel)
        if reason is not None:
            raise FileRefused(reason)
        return rel

    def _deny_by_rules(self, session_id: str, kind: FsKind, rel: str) -> None:
        if self._rules is None:
            return
        tool_call: ToolCallJson = {
            "toolCallId": f"fs-{next(self._ids)}",
            "kind": kind,
            "locations": [{"path": str(self.root / rel)}],
        }
        decision = self._rules.fs_decision(session_id, tool_call)
        if decision.action == "deny":
            raise FileRefused(decision.reason or f"a {decision.layer} permission rule denies it")

    async def close(self) -> None:
        """Ends the `git check-ignore` the shared set keeps running, if it started one."""
        async with self._lock:
            shared, self._shared = self._shared, None
        if shared is not None:
            await asyncio.to_thread(shared.close)

    async def _shared_set(self) -> SharedSet:
        async with self._lock:
            if self._shared is None:
                self._shared = await asyncio.to_thread(SharedSet, self.root)
            return self._shared

    def _record(self, session_id: str, kind: FsKind, path: str, outcome: str, reason: str | None = None) -> None:
        if self._audit is None:
            return
        detail: JsonObject = {"session": session_id, "path": path, "outcome": outcome}
        if reason is not None:
            detail["reason"] = reason
        self._audit("agent", f"agent-fs-{'read' if kind == 'read' else 'write'}", detail)


def _plain(reason: str) -> str:
    """The shared set's reason, in words an agent's user reads."""
    if reason == "resolves outside the shared folder":
        return "a link pointing outside the project folder"
    if reason == "not in the shared set":
        return "not in the shared set (ignored by .gitignore)"
    return reason


DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_folder(root: Path, parts: list[str], make: bool) -> int:
    """A descriptor of the folder `parts` under `root`, reached without following a link (each
    made when `make` and missing); the caller closes it. Raises OSError (ELOOP for a link)."""
    fd = os.open(root, DIR_FLAGS)
    try:
        for part in parts:
            if make:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
            inner = os.open(part, DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_folders_beneath(root: Path, rel: str) -> None:
    os.close(_open_folder(root, rel.split("/")[:-1], make=True))


def write_beneath(root: Path, rel: str, data: bytes) -> None:
    """Write `data` to `root/rel` without following a link anywhere on the way (see the module's
    words); the file is emptied only once it is known to be a regular file with one name."""
    *folders, name = rel.split("/")
    folder = _open_folder(root, folders, make=False)
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
        fd = os.open(name, flags, 0o644, dir_fd=folder)
    finally:
        os.close(folder)
    with os.fdopen(fd, "wb") as handle:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise IsADirectoryError(0, "not a regular file")
        if found.st_nlink > 1:
            raise PermissionError(0, "the file has other names (a hard link)")
        os.ftruncate(fd, 0)
        handle.write(data)
