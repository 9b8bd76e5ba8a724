"""Control messages some agents send as if they were their own words, told as notices instead.

Gemini CLI tells a change of its approval mode as an `agent_message_chunk` reading
`[MODE_UPDATE] autoEdit`; shown as the agent's reply it reads as if the model said it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_MODE_UPDATE = re.compile(r"\s*\[MODE_UPDATE\]\s*(\S{1,100})\s*")


def control_notice(update: Mapping[str, Any]) -> str | None:
    """The notice an update stands for, in words, or None for an ordinary update."""
    if update.get("sessionUpdate") != "agent_message_chunk":
        return None
    content = update.get("content")
    text = content.get("text") if isinstance(content, Mapping) else None
    match = _MODE_UPDATE.fullmatch(text) if isinstance(text, str) else None
    return f"The agent's approval mode is now “{match.group(1)}”." if match else None
