"""Control messages some agents send as if they were their own words, told as notices instead.

Gemini CLI tells a change of its approval mode as an `agent_message_chunk` reading
`[MODE_UPDATE] autoEdit`; shown as the agent's reply it reads as if the model said it."""

from __future__ import annotations

import re

from canvasrelay.protocol.session_events import MessageChunk, SessionUpdate, TextBlock

_MODE_UPDATE = re.compile(r"\s*\[MODE_UPDATE\]\s*(\S{1,100})\s*")


def control_notice(update: SessionUpdate) -> str | None:
    """The notice an update stands for, in words, or None for an ordinary update."""
    if not (
        isinstance(update, MessageChunk)
        and update.session_update == "agent_message_chunk"
        and isinstance(update.content, TextBlock)
    ):
        return None
    match = _MODE_UPDATE.fullmatch(update.content.text)
    return f"The agent's approval mode is now “{match.group(1)}”." if match else None
