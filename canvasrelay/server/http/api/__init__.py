"""The HTTP API under `/api`: JSON in and out, the host token as a Bearer token, one error
shape, and an OpenAPI 3.1 document generated from the pydantic models (`/api/openapi.json`,
docs at `/api/docs`)."""

from __future__ import annotations

from aiohttp import web

from canvasrelay.server.http.api import people, replay, routes, session_writes, sessions
from canvasrelay.server.http.api.app import mount
from canvasrelay.server.http.api.services import ApiServices


def mount_api(app: web.Application, services: ApiServices) -> None:
    mount(
        app,
        services,
        [
            *routes.operations(services),
            *sessions.operations(services),
            *session_writes.operations(services),
            *people.operations(services),
            *replay.operations(services),
        ],
    )


__all__ = ["ApiServices", "mount_api"]
