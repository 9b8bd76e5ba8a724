"""Mounting the API on the server: the operation wrapper (auth, parsing, JSON), CORS and the
version header, the document and its docs page."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ValidationError

from canvasrelay import __version__
from canvasrelay.page.policy import self_contained_policy
from canvasrelay.protocol.base import MAX_ELEMENTS, FrameError, load_bounded
from canvasrelay.server.http.api.errors import ApiError, Handler, error_response, errors_middleware, invalid
from canvasrelay.server.http.api.openapi import VERSION_HEADER, Call, Operation, spec
from canvasrelay.server.http.api.services import ApiServices

DOCS_PAGE = Path(__file__).with_name("docs.html")
CORS_MAX_AGE = "600"
CORS_HEADERS = "Authorization, Content-Type, Last-Event-ID"
BODY_ELEMENTS = 10 * MAX_ELEMENTS
"""Values in one request body: bodies are bounded by their size and their models; this bounds the parse."""


def _bearer(request: web.Request) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _unauthorized() -> ApiError:
    return ApiError(
        401, "send the host token as `Authorization: Bearer <token>`", headers={"WWW-Authenticate": "Bearer"}
    )


def _parse(model: type[BaseModel], data: Any, where: str) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise invalid(exc, where) from None


def wrap(op: Operation, services: ApiServices) -> Handler:
    async def handle(request: web.Request) -> web.StreamResponse:
        if not op.public:
            token = _bearer(request)
            if token is None or not services.token_matches(token):
                raise _unauthorized()
        body = query = None
        if op.query is not None:
            query = _parse(op.query, dict(request.query), "query")
        elif request.query:
            raise ApiError(422, f"unknown query parameter: {next(iter(request.query))[:64]}")
        if op.body is not None:
            raw = await request.read()
            try:
                data = load_bounded(raw, max_elements=BODY_ELEMENTS) if raw else None
            except FrameError as exc:
                raise ApiError(400, f"the body is not JSON: {exc}") from None
            if data is None and not raw:
                raise ApiError(400, "a JSON body is required")
            body = _parse(op.body, data, "body")
        result = await op.handler(Call(request, dict(request.match_info), body, query))
        if isinstance(result, web.StreamResponse):
            return result
        if result is None:
            return web.Response(status=204 if op.status == 200 else op.status)
        return web.Response(
            status=op.status, text=result.model_dump_json(by_alias=True), content_type="application/json"
        )

    handle.__name__ = op.operation_id
    return handle


def cors_and_version(services: ApiServices) -> Any:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        is_api = request.path == "/api" or request.path.startswith("/api/")
        if is_api and request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            # A preflight: answered here (the routes have no OPTIONS), refused for other origins.
            if "Access-Control-Allow-Origin" not in response_headers(services, request):
                response: web.StreamResponse = error_response(ApiError(403, "origin not allowed"))
            else:
                response = web.Response(status=204)
                response.headers["Access-Control-Allow-Methods"] = "GET, POST, PUT, PATCH, DELETE"
                response.headers["Access-Control-Allow-Headers"] = CORS_HEADERS
                response.headers["Access-Control-Max-Age"] = CORS_MAX_AGE
        else:
            response = await handler(request)
        if not response.prepared:
            response.headers.update(response_headers(services, request))
        return response

    return middleware


def response_headers(services: ApiServices, request: web.Request) -> dict[str, str]:
    """The version, and CORS for an allowed origin; a streaming handler sets them before it starts."""
    headers = {VERSION_HEADER: __version__}
    origin = request.headers.get("Origin")
    is_api = request.path == "/api" or request.path.startswith("/api/")
    if is_api and origin is not None and origin in services.allowed_origins():
        headers["Access-Control-Allow-Origin"] = origin
        headers["Vary"] = "Origin"
    return headers


def mount(app: web.Application, services: ApiServices, operations: Iterable[Operation]) -> None:
    ops = list(operations)
    document = spec(ops)
    for op in ops:
        app.router.add_route(op.method, op.path, wrap(op, services))

    async def openapi(_request: web.Request) -> web.Response:
        return web.json_response(document)

    page = DOCS_PAGE.read_text(encoding="utf-8")
    policy = {"Content-Security-Policy": self_contained_policy(page)}

    async def docs(_request: web.Request) -> web.Response:
        return web.Response(text=page, content_type="text/html", headers=policy)

    app.router.add_get("/api/openapi.json", openapi)
    app.router.add_get("/api/docs", docs)
    app.middlewares.append(cors_and_version(services))
    app.middlewares.append(errors_middleware)
