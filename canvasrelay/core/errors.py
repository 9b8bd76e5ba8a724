"""Errors the core raises for what a user wrote."""

from __future__ import annotations

from canvasrelay.protocol.core import ErrorKind


class ConfigError(ValueError):
    """A config file (`.canvas/config.toml`, `permissions.toml`) that cannot be used; the message names where."""


class Refused(Exception):
    """A handler declines a frame: the Room tells the peer with one `error` frame of this kind,
    the HTTP API answers with the kind's status code. Nothing has changed when it is raised."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
