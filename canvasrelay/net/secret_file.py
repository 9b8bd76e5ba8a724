"""A secret the host keeps in a file of its own (a TURN secret, a provider's API token)."""

from __future__ import annotations

from pathlib import Path


def read_secret(path: Path, what: str, error: type[ValueError]) -> bytes:
    """The file's bytes, stripped; raises `error`, in words, when it cannot be read or is empty."""
    try:
        secret = path.read_bytes().strip()
    except OSError as exc:
        raise error(f"cannot read the {what} file {path}: {exc.strerror}") from None
    if not secret:
        raise error(f"the {what} file {path} is empty")
    return secret
