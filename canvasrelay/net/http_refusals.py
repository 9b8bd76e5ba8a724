"""aiohttp's log of requests it refused before any handler ran, as one line each.

A client that sends a malformed request (a NUL in a header, a broken request line) gets aiohttp's
400, and aiohttp logs the parser's exception at ERROR with its traceback. That is the client's
mistake, not a failure here: it becomes one WARNING line that names it.
"""

from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError

LOGGER = "aiohttp.server"


class _RefusedRequests(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            reason = (error.message or "").strip().splitlines()
            record.msg = "refused a malformed HTTP request (%s: %s)"
            record.args = (error.code, reason[0].rstrip(":") if reason else "unreadable")
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def one_line_refusals() -> None:
    """Install the filter (once) on aiohttp's server logger."""
    logger = logging.getLogger(LOGGER)
    if not any(isinstance(f, _RefusedRequests) for f in logger.filters):
        logger.addFilter(_RefusedRequests())
