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


class FrameError(Exception):
    """An inbound frame that cannot be accepted; the message is safe to send back."""


class Model(BaseModel):
    """Wire models: camelCase on the wire, snake_case in Python, unknown fields refused."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        json_schema_serialization_defaults_required=True,
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


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item["loc"]) or "frame"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_client_frame(raw: str | bytes, max_bytes: int = MAX_FRAME_BYTES) -> ClientFrame:
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > max_bytes:
        raise FrameError(f"frame too large: {size} bytes (limit {max_bytes})")
    try:
        data: Any = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FrameError(f"frame is not JSON: {exc}") from None
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
        raise FrameError(f"bad {kind} frame: {_describe(exc)}") from None


def encode(frame: Frame) -> str:
    return frame.model_dump_json(by_alias=True)
