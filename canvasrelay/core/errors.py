"""Errors the core raises for what a user wrote."""

from __future__ import annotations


class ConfigError(ValueError):
    """A config file (`.canvas/config.toml`, `permissions.toml`) that cannot be used; the message names where."""
