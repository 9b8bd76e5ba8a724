"""The API's operations and the OpenAPI 3.1 document generated from them.

Each operation names its pydantic models; `spec` turns them into JSON Schema (pydantic's
2020-12 dialect is OpenAPI 3.1's) so the document cannot drift from what the handlers accept
and return.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema

from canvasrelay import __version__
from canvasrelay.server.http.api.models import ID_MAX, ErrorOut

VERSION_HEADER = "X-Canvas-Version"
PATH_PARAM = re.compile(r"{(\w+)}")
ERROR_TEXT = {
    400: "The request is malformed (e.g. the body is not JSON).",
    401: "The host token is missing or wrong.",
    404: "No such thing.",
    409: "It conflicts with the current state.",
    413: "The body is larger than 1 MiB.",
    422: "A field is invalid; `details` lists each.",
    500: "Something failed inside canvas.",
}


@dataclass(frozen=True)
class Call:
    request: web.Request
    params: dict[str, str]
    body: Any
    query: Any


Handler = Callable[[Call], Awaitable[BaseModel | web.StreamResponse | None]]


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    handler: Handler
    summary: str
    tag: str
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    response: type[BaseModel] | None = None
    """None: 204 No Content."""
    status: int = 200
    public: bool = False
    errors: tuple[int, ...] = ()
    stream: str | None = None
    """A streamed response's media type (its body is not JSON)."""
    stream_item: dict[str, Any] | None = None
    """JSON Schema of one item of the stream (for `text/event-stream`, one event: its `event`, `id`
    and `data` fields), as OpenAPI 3.2's `itemSchema`; 3.1 tools read `schema` so."""

    @property
    def operation_id(self) -> str:
        return self.handler.__name__.lstrip("_")

    @property
    def path_params(self) -> list[str]:
        return PATH_PARAM.findall(self.path)


def spec(operations: list[Operation]) -> dict[str, Any]:
    models: list[tuple[type[BaseModel], JsonSchemaMode]] = [(ErrorOut, "serialization")]
    for op in operations:
        if op.body is not None:
            models.append((op.body, "validation"))
        if op.query is not None:
            models.append((op.query, "validation"))
        if op.response is not None:
            models.append((op.response, "serialization"))
    refs, top = models_json_schema(models, ref_template="#/components/schemas/{model}")
    schemas: dict[str, Any] = top.get("$defs", {})

    def ref(model: type[BaseModel], mode: JsonSchemaMode) -> dict[str, Any]:
        return refs[(model, mode)]

    paths: dict[str, dict[str, Any]] = {}
    for op in operations:
        entry: dict[str, Any] = {"operationId": op.operation_id, "summary": op.summary, "tags": [op.tag]}
        parameters: list[dict[str, Any]] = [
            {"name": name, "in": "path", "required": True, "schema": {"type": "string", "maxLength": ID_MAX}}
            for name in op.path_params
        ]
        if op.query is not None:
            query_schema = schemas[ref(op.query, "validation")["$ref"].rsplit("/", 1)[1]]
            required = set(query_schema.get("required", []))
            for name, prop in query_schema.get("properties", {}).items():
                parameters.append({"name": name, "in": "query", "required": name in required, "schema": prop})
        if op.stream == "text/event-stream":
            parameters.append(
                {
                    "name": "Last-Event-ID",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string", "pattern": "^[0-9]{1,15}$"},
                    "description": "Resume after this seq (browsers send it when they reconnect).",
                }
            )
        if parameters:
            entry["parameters"] = parameters
        if op.body is not None:
            entry["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": ref(op.body, "validation")}},
            }
        version = {VERSION_HEADER: {"$ref": "#/components/headers/Version"}}
        responses: dict[str, Any] = {}
        if op.stream is not None:
            responses[str(op.status)] = {
                "description": "A stream.",
                "headers": version,
                "content": {op.stream: {"schema": op.stream_item or {"type": "string"}}},
            }
        elif op.response is None:
            responses[str(op.status)] = {"description": "Done.", "headers": version}
        else:
            responses[str(op.status)] = {
                "description": "OK.",
                "headers": version,
                "content": {"application/json": {"schema": ref(op.response, "serialization")}},
            }
        codes = {500, *op.errors}
        if not op.public:
            codes.add(401)
        if op.body is not None:
            codes |= {400, 413, 422}
        if op.query is not None or op.body is not None:
            codes.add(422)
        if op.path_params:
            codes.add(404)
        for code in sorted(codes):
            responses[str(code)] = {
                "description": ERROR_TEXT[code],
                "headers": version,
                "content": {"application/json": {"schema": ref(ErrorOut, "serialization")}},
            }
        entry["responses"] = responses
        if op.public:
            entry["security"] = []
        paths.setdefault(op.path, {})[op.method.lower()] = entry
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "canvas",
            "version": __version__,
            "description": "Drive canvas without a browser: agent sessions, guests, the board. "
            "Send the host token (the `#token=` of the host link) as a Bearer token.",
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"hostToken": {"type": "http", "scheme": "bearer"}},
            "headers": {"Version": {"description": "The canvas version.", "schema": {"type": "string"}}},
        },
        "security": [{"hostToken": []}],
    }
