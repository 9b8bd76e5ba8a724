"""The agent sessions and waiting approvals a welcome lists, in pages of bounded size.

However many sessions a store holds and however much the guests' requests hold, the welcome
carries only the first page of them; the client asks `heads-more` for each next one. So neither
a welcome nor any part can meet a host socket's backlog (16 MiB) or a guest channel's (8 MiB),
and a page that reloads always loads. Sans-I/O, like the Room.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from canvasrelay.core.effects import AnyEffect, Send
from canvasrelay.protocol.agents import SessionHead
from canvasrelay.protocol.core import ErrorFrame, HeadsMore, HeadsPart
from canvasrelay.protocol.guests import ApprovalRequest

HEADS_PAGE_CHARS = 1 << 20
"""The JSON one page of heads holds at most (but always one head, itself bounded): the welcome's
page, then each part's."""

Head = SessionHead | ApprovalRequest
HeadSource = Callable[[Any], Iterable[tuple[str, Head]]]
"""A feature's heads for a peer, each with a key that orders it within that feature."""
Position = tuple[int, str]
"""Which source (in the order they were added) and the key within it."""


class WelcomeHeads:
    """Pages the heads of every source in one order: a cursor names the last head a page held,
    so a page resumes after it whatever came or went meanwhile (those are told live anyway)."""

    def __init__(self) -> None:
        self._sources: list[HeadSource] = []

    def add(self, source: HeadSource) -> None:
        self._sources.append(source)

    def welcome(self, peer: Any) -> dict[str, object]:
        """The welcome's fields: the first page, and a cursor when more follow."""
        sessions, approvals, after = self._page(peer, None)
        return {"sessions": sessions, "approvals": approvals, "heads_after": after}

    def on_more(self, peer: Any, frame: HeadsMore) -> list[AnyEffect]:
        position = _parse(frame.after)
        if position is None:
            refusal = ErrorFrame(message="that is not a place in the list of sessions and requests", ref=frame.t)
            return [Send(peer.id, refusal)]
        sessions, approvals, after = self._page(peer, position)
        return [Send(peer.id, HeadsPart(sessions=sessions, approvals=approvals, after=after))]

    def _page(self, peer: Any, after: Position | None) -> tuple[list[SessionHead], list[ApprovalRequest], str | None]:
        heads = sorted(
            (((index, key), head) for index, source in enumerate(self._sources) for key, head in source(peer)),
            key=lambda pair: pair[0],
        )
        sessions: list[SessionHead] = []
        approvals: list[ApprovalRequest] = []
        used = 0
        last: Position | None = None
        for position, head in heads:
            if after is not None and position <= after:
                continue
            size = len(head.model_dump_json(by_alias=True))
            if last is not None and used + size > HEADS_PAGE_CHARS:
                return sessions, approvals, f"{last[0]}:{last[1]}"
            if isinstance(head, SessionHead):
                sessions.append(head)
            else:
                approvals.append(head)
            used += size
            last = position
        return sessions, approvals, None


def _parse(after: str) -> Position | None:
    index, colon, key = after.partition(":")
    if not colon or not index.isdigit() or len(index) > 3:
        return None
    return int(index), key
