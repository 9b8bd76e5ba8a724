"""The HTTP API under `/api`: JSON in and out, the host token as a Bearer token, one error
shape, and an OpenAPI 3.1 document generated from the pydantic models (`/api/openapi.json`,
docs at `/api/docs`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from canvasrelay.server.http.api import people, routes, session_writes, sessions
from canvasrelay.server.http.api.app import mount

if TYPE_CHECKING:
    from canvasrelay.server.app import CanvasServer


def mount_api(server: CanvasServer) -> None:
    mount(
        server,
        [
            *routes.operations(server),
            *sessions.operations(server),
            *session_writes.operations(server),
            *people.operations(server),
        ],
    )
