"""The replay file: one gzip'd tar, written and read in memory (adr/0031-the-room-replayable.md).

`manifest.json` first, naming every other part with its SHA-256 and size and the format's version;
then `room.json` and one asciicast v3 per terminal. Reading refuses, in words, a file from a newer
canvas, a file cut short, a part whose bytes are not those the manifest names, and any part the
manifest does not name, before anything of it is used.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
import zlib

from pydantic import ValidationError

from canvasrelay.core.asciicast import Cast, CastError, read_cast, write_cast
from canvasrelay.protocol.replay import (
    MANIFEST,
    REPLAY_FORMAT,
    REPLAY_VERSION,
    ROOM,
    ReplayManifest,
    ReplayPart,
    ReplayRoom,
)

MAX_PARTS = 4096
MAX_PART_BYTES = 1 << 31


class ReplayRefused(ValueError):
    """Why a file cannot be opened, in words a person reads."""


def write_replay(room: ReplayRoom, casts: dict[str, Cast], canvas: str, made: float) -> bytes:
    parts = {ROOM: room.model_dump_json(by_alias=True).encode("utf-8")}
    for terminal in room.terminals:
        parts[terminal.cast] = write_cast(casts[terminal.id]).encode("utf-8")
    manifest = ReplayManifest(
        format="canvas-replay",
        version=REPLAY_VERSION,
        canvas=canvas,
        made=made,
        start=room.start,
        end=room.end,
        parts={
            name: ReplayPart(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data)) for name, data in parts.items()
        },
    )
    out = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=out, mode="wb", compresslevel=6, mtime=int(made)) as packed,
        tarfile.open(fileobj=packed, mode="w", format=tarfile.USTAR_FORMAT) as tar,
    ):
        for name, data in {MANIFEST: manifest.model_dump_json(by_alias=True).encode("utf-8"), **parts}.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), int(made), 0o600
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def read_replay(blob: bytes) -> tuple[ReplayManifest, ReplayRoom, dict[str, Cast]]:
    parts = _unpack(blob)
    manifest = _manifest(parts.pop(MANIFEST, None))
    for name in parts.keys() - manifest.parts.keys():
        raise ReplayRefused(
            f"This replay file holds a part its manifest does not name ({name}): it was changed after it was made."
        )
    for name, part in manifest.parts.items():
        data = parts.get(name)
        if data is None:
            raise ReplayRefused(f"This replay file lacks its part {name}: it is incomplete.")
        if len(data) != part.bytes or hashlib.sha256(data).hexdigest() != part.sha256:
            raise ReplayRefused(f"This replay file was changed after it was made: {name} does not match its checksum.")
    try:
        room = ReplayRoom.model_validate_json(parts[ROOM])
    except (KeyError, ValidationError):
        raise ReplayRefused("This replay file's room.json cannot be read, though its checksum matches.") from None
    casts: dict[str, Cast] = {}
    for terminal in room.terminals:
        try:
            casts[terminal.id] = read_cast(parts[terminal.cast].decode("utf-8"))
        except (KeyError, UnicodeDecodeError, CastError) as exc:
            raise ReplayRefused(f"This replay file's terminal {terminal.name} cannot be read: {exc}.") from None
    return manifest, room, casts


def _unpack(blob: bytes) -> dict[str, bytes]:
    if blob[:2] != b"\x1f\x8b":
        raise ReplayRefused("This is not a canvas replay file (it is not a gzip'd archive).")
    parts: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
            for member in tar:
                if not member.isfile() or len(parts) >= MAX_PARTS or member.size > MAX_PART_BYTES:
                    raise ReplayRefused(f"This replay file holds something a canvas replay does not ({member.name}).")
                extracted = tar.extractfile(member)
                assert extracted is not None
                parts[member.name] = extracted.read()
    except EOFError:
        raise ReplayRefused("This replay file is cut short: it ends before its last part does.") from None
    except (tarfile.ReadError, gzip.BadGzipFile, zlib.error, OSError) as exc:
        if "ended before" in str(exc) or "unexpected end" in str(exc):
            raise ReplayRefused("This replay file is cut short: it ends before its last part does.") from None
        raise ReplayRefused("This replay file is damaged: it was changed or cut after it was made.") from None
    return parts


def _manifest(data: bytes | None) -> ReplayManifest:
    if data is None:
        raise ReplayRefused("This replay file has no manifest: it was not made by canvas, or it is damaged.")
    try:
        raw = json.loads(data)
    except ValueError:
        raise ReplayRefused("This replay file's manifest cannot be read: it is damaged.") from None
    if not isinstance(raw, dict) or raw.get("format") != REPLAY_FORMAT:
        raise ReplayRefused("This is not a canvas replay file (its manifest names another format).")
    version = raw.get("version")
    if isinstance(version, int) and version > REPLAY_VERSION:
        raise ReplayRefused(
            f"This replay was made by a newer canvas (replay format {version}; this canvas reads format "
            f"{REPLAY_VERSION} and older). Update canvas to open it."
        )
    try:
        return ReplayManifest.model_validate(raw)
    except ValidationError:
        raise ReplayRefused("This replay file's manifest cannot be read: it is damaged.") from None
