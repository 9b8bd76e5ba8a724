"""One error shape for the whole API: `{"error": {"name", "message", "code", "details"?}}`.

Handlers raise `ApiError`; the middleware turns it, aiohttp's own HTTP errors and anything
unexpected into that shape. An unexpected exception is logged here and answered with a plain
500 that names nothing inside the server.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from pydantic import ValidationError

from canvasrelay.core.errors import Refused
from canvasrelay.protocol.core import ErrorKind
from canvasrelay.server.http.api.models import ErrorBody, ErrorOut, FieldError

log = logging.getLogger(__name__)

NAMES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    500: "internal_error",
}
MESSAGE_MAX = 500


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        message: str,
        details: list[FieldError] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message[:MESSAGE_MAX]
        self.details = details
        self.headers = headers or {}


STATUS_OF_KIND: dict[ErrorKind, int] = {"invalid": 422, "not-found": 404, "conflict": 409}


def refused(refusal: Refused) -> ApiError:
    """The core's refusal as the API's answer: its kind decides the status, its message is the words."""
    return ApiError(STATUS_OF_KIND[refusal.kind], refusal.message)


def not_found(what: str) -> ApiError:
    return ApiError(404, f"{what} not found")


def invalid(error: ValidationError, where: str) -> ApiError:
    details = [
        FieldError(field=".".join(str(p) for p in (where, *item["loc"])), message=item["msg"][:MESSAGE_MAX])
        for item in error.errors()[:20]
    ]
    return ApiError(422, f"invalid {where}: " + "; ".join(f"{d.field}: {d.message}" for d in details[:3]), details)


def error_response(error: ApiError) -> web.Response:
    body = ErrorOut(
        error=ErrorBody(
            name=NAMES.get(error.status, "error"), message=error.message, code=error.status, details=error.details
        )
    )
    return web.Response(
        status=error.status,
        text=body.model_dump_json(by_alias=True, exclude_none=True),
        content_type="application/json",
        headers=error.headers,
    )


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@web.middleware
async def errors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    if not request.path.startswith("/api"):
        return await handler(request)
    try:
        return await handler(request)
    except ApiError as exc:
        return error_response(exc)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        headers = {k: v for k, v in exc.headers.items() if k.lower() in ("allow", "www-authenticate")}
        return error_response(ApiError(exc.status, exc.reason or "error", headers=headers))
    except Exception:
        log.exception("API %s %s failed", request.method, request.path)
        return error_response(ApiError(500, "internal server error"))
