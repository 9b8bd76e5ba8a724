"""JSON that canvas passes on without reading its shape: typed as JSON, not as `Any`.

Used only where the object comes from a program canvas does not write (an ACP agent's raw
messages and updates, a JSON Schema document) and canvas keeps it verbatim; data canvas reads
has a model.
"""

from __future__ import annotations

from pydantic import JsonValue

JsonObject = dict[str, JsonValue]
"""One JSON object, as parsed by `json.loads`."""

__all__ = ["JsonObject", "JsonValue"]
