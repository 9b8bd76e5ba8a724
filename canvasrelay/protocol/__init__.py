"""The wire contract: every frame in both directions, as pydantic models.

Importing this package registers every frame type; `web/src/protocol.gen.ts` is generated
from these models (`python -m canvasrelay.protocol.typescript`).
"""

from canvasrelay.protocol import agents, board, core, files, guests, people, terminals
from canvasrelay.protocol.base import (
    CLIENT_FRAMES,
    MAX_FRAME_BYTES,
    SERVER_FRAMES,
    ClientFrame,
    FrameError,
    Model,
    ServerFrame,
    encode,
    parse_client_frame,
)

__all__ = [
    "CLIENT_FRAMES",
    "MAX_FRAME_BYTES",
    "SERVER_FRAMES",
    "ClientFrame",
    "FrameError",
    "Model",
    "ServerFrame",
    "agents",
    "board",
    "core",
    "encode",
    "files",
    "guests",
    "parse_client_frame",
    "people",
    "terminals",
]
