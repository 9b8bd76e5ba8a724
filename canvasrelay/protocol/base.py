"""The frame base classes, the registries of frame types, and the one parser for inbound frames.

Parsing never raises anything but `FrameError`, whose message names what was wrong, so a
transport can always answer with an `error` frame and keep the connection.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from canvasrelay.protocol.access import Action

MAX_FRAME_BYTES = 1 << 20
"""A WebSocket frame over 1 MiB is refused before it is parsed."""
MAX_DEPTH = 16
"""No client frame nests deeper than a few levels; JSON parsers recurse, so deeper is refused unparsed."""
MAX_ELEMENTS = 10_000
"""Values (array items and object members) in one client frame; none needs more than a few hundred."""

_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{},"')


class FrameError(Exception):
    """An inbound frame that cannot be accepted; the message is safe to send back. `ref` is the
    frame's type when it was read that far (so the answer can say which frame it refuses)."""

    def __init__(self, message: str, ref: str | None = None) -> None:
        super().__init__(message)
        self.ref = ref


class Model(BaseModel):
    """Wire models: camelCase on the wire, snake_case in Python, unknown fields refused."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        json_schema_serialization_defaults_required=True,
        # Each model's validator is built when first used, a few ms, not all at start-up.
        defer_build=True,
    )


class Frame(Model):
    t: str


class ClientFrame(Frame):
    """A frame a browser or a peer sends; `action` is what it asks of the policy.

    There is no default: a new frame that forgot to say what it asks for must not fail open.
    Frozen, so a frame waiting for the host's approval is exactly the frame that runs.
    """

    model_config = ConfigDict(**Model.model_config, frozen=True)
    action: ClassVar[Action]


class ServerFrame(Frame):
    pass


CLIENT_FRAMES: dict[str, type[ClientFrame]] = {}
SERVER_FRAMES: dict[str, type[ServerFrame]] = {}

C = TypeVar("C", bound=type[ClientFrame])
S = TypeVar("S", bound=type[ServerFrame])


def _frame_type(cls: type[Frame]) -> str:
    default = cls.model_fields["t"].default
    if not isinstance(default, str):
        raise TypeError(f"{cls.__name__} needs a literal default for t")
    return default


def client_frame(cls: C) -> C:
    if not isinstance(vars(cls).get("action"), Action):
        raise TypeError(f"{cls.__name__} must declare the action it asks of the policy")
    CLIENT_FRAMES[_frame_type(cls)] = cls
    return cls


def server_frame(cls: S) -> S:
    SERVER_FRAMES[_frame_type(cls)] = cls
    return cls


def check_structure(data: bytes, max_depth: int = MAX_DEPTH, max_elements: int = MAX_ELEMENTS) -> None:
    """Refuse JSON holding more than `max_elements` values or nested deeper than `max_depth`,
    looking only at its brackets and commas outside strings, before any parser recurses into it.

    Only bytes methods that run in C: a 1 MiB frame costs a few milliseconds, about what parsing it does."""
    if b"\\" in data:
        # Escaped backslashes, then escaped quotes, go: every quote left opens or closes a string.
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    bare = b"".join(data.translate(None, _NOT_STRUCTURE).split(b'"')[::2])
    # Arrays and objects open, values but the first in each are preceded by a comma.
    if len(bare) - bare.count(b"]") - bare.count(b"}") > max_elements:
        raise FrameError(f"frame has too many values (limit {max_elements})")
    brackets = bare.replace(b",", b"")
    # Each round takes away the innermost pairs (marked first, so a pair that only closes once
    # they are gone waits for the next round): the rounds a text needs are its depth.
    for _ in range(max_depth):
        if not brackets:
            return
        marked = brackets.replace(b"[]", b"\0").replace(b"{}", b"\0")
        if len(marked) == len(brackets):
            raise FrameError("frame is not JSON: unbalanced brackets")
        brackets = marked.replace(b"\0", b"")
    if brackets:
        raise FrameError(f"frame nested too deep (limit {max_depth} levels)")


def utf8(raw: str | bytes) -> tuple[str, bytes]:
    """Untrusted input as text and as its UTF-8, strictly: bytes that are not UTF-8, and text holding
    a lone surrogate, are refused. `json.loads` would guess UTF-16 or UTF-32 from bytes by itself,
    so bounds checked on the bytes as UTF-8 would not bound what it parses: it only ever gets the text."""
    try:
        if isinstance(raw, str):
            return raw, raw.encode("utf-8")
        return raw.decode("utf-8"), raw
    except UnicodeError:
        raise FrameError("frame is not UTF-8 text") from None


def load_bounded(raw: str | bytes, max_depth: int = MAX_DEPTH, max_elements: int = MAX_ELEMENTS) -> Any:
    """`json.loads` for untrusted text, its structure bounded first; raises only `FrameError`."""
    return _load(*utf8(raw), max_depth, max_elements)


def _load(text: str, data: bytes, max_depth: int = MAX_DEPTH, max_elements: int = MAX_ELEMENTS) -> Any:
    check_structure(data, max_depth, max_elements)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise FrameError(f"frame is not JSON: {str(exc)[:200]}") from None


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "frame"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_client_frame(raw: str | bytes, max_bytes: int = MAX_FRAME_BYTES) -> ClientFrame:
    text, encoded = utf8(raw)
    if len(encoded) > max_bytes:
        raise FrameError(f"frame too large: {len(encoded)} bytes (limit {max_bytes})")
    data: Any = _load(text, encoded)
    if not isinstance(data, dict):
        raise FrameError("frame must be a JSON object")
    kind = data.get("t")
    if not isinstance(kind, str):
        raise FrameError("frame has no string field 't'")
    model = CLIENT_FRAMES.get(kind)
    if model is None:
        raise FrameError(f"unknown frame type {kind[:64]!r}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise FrameError(f"bad {kind} frame: {_describe(exc)}", ref=kind) from None


def frame_type(raw: str | bytes) -> str:
    """The `t` a raw frame names, for a log line or an error's `ref`; "frame" when it names none."""
    try:
        data = load_bounded(raw)
    except FrameError:
        return "frame"
    kind = data.get("t") if isinstance(data, dict) else None
    return kind[:64] if isinstance(kind, str) else "frame"


def encode(frame: Frame) -> str:
    return frame.model_dump_json(by_alias=True)
