"""The words people read for what a request asks: one table for the server's messages,
`canvas join` and the web app (generated into `web/src/protocol.gen.ts`), so every screen says
"send a prompt to Demo agent" and none says `agent-prompt`.

`{name}` in a phrase is the human name of what the request is about (a session or a terminal);
`subject` is what stands in for it when the name is not known.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict

from canvasrelay.protocol.access import Access, Action
from canvasrelay.protocol.session_events import PermissionOption, Resolution


class RequestWords(TypedDict):
    verb: str
    """As in "Ada asks to …" and "you may not …"."""
    noun: str
    """As in "your … is waiting for the host"."""
    subject: str
    """What `{name}` becomes when the session or terminal has no known name."""
    asks: NotRequired[str]
    """As in "Ada asks …", when that is not "to " and the verb."""


REQUESTS: dict[str, RequestWords] = {
    "agent-prompt": {"verb": "send a prompt to {name}", "noun": "prompt to {name}", "subject": "the agent"},
    "agent-create": {"verb": "start a new agent session", "noun": "request to start an agent", "subject": ""},
    "agent-cancel": {"verb": "stop the turn of {name}", "noun": "request to stop {name}", "subject": "the agent"},
    "agent-config": {
        "verb": "change the settings of {name}",
        "noun": "settings change for {name}",
        "subject": "the agent",
    },
    "agent-rename": {"verb": "rename {name}", "noun": "new name for {name}", "subject": "the session"},
    "agent-permission": {"verb": "answer a permission request", "noun": "answer", "subject": ""},
    "term-open": {"verb": "open a new terminal", "noun": "request for a new terminal", "subject": ""},
    "term-control": {"verb": "take control of {name}", "noun": "request to control {name}", "subject": "a terminal"},
    "term-input": {"verb": "type in {name}", "noun": "typing in {name}", "subject": "this terminal"},
    "term-resize": {"verb": "resize {name}", "noun": "resize of {name}", "subject": "this terminal"},
    "term-close": {"verb": "end {name}", "noun": "request to end {name}", "subject": "this terminal"},
    "term-rename": {"verb": "rename {name}", "noun": "new name for {name}", "subject": "the terminal"},
    "file-open": {"verb": "open a file", "noun": "request to open a file", "subject": ""},
    "tree-watch": {"verb": "browse the files", "noun": "request to browse the files", "subject": ""},
    "access-ask": {
        "verb": "get edit access",
        "noun": "request for edit access",
        "subject": "",
        "asks": "for edit access",
    },
    "board-update": {"verb": "edit the board", "noun": "board edit", "subject": ""},
}

ACTIONS: dict[str, str] = {
    Action.READ: "watching the room",
    Action.EDIT_BOARD: "editing the board",
    Action.BROWSE_FILES: "browsing the files",
    Action.RUN_ON_HOST: "running things on the host's machine",
    Action.TYPE_TERMINAL: "typing in a terminal the host has not handed over",
    Action.ANSWER_PERMISSION: "answering an agent's permission requests",
    Action.ASK: "asking the host",
    Action.ADMIN: "managing the room",
}
"""What each action is, as in "view access does not allow …"."""


def _fill(phrase: str, words: RequestWords, name: str | None) -> str:
    return phrase.replace("{name}", name or words["subject"])


def request_verb(frame_type: str, name: str | None = None) -> str:
    words = REQUESTS.get(frame_type)
    return _fill(words["verb"], words, name) if words else "do something on the host's machine"


def request_asks(frame_type: str, name: str | None = None) -> str:
    """As in "Ada asks …": "to send a prompt to Demo agent", "for edit access"."""
    words = REQUESTS.get(frame_type)
    asks = words.get("asks") if words else None
    return asks if asks is not None else f"to {request_verb(frame_type, name)}"


def request_noun(frame_type: str, name: str | None = None) -> str:
    words = REQUESTS.get(frame_type)
    return _fill(words["noun"], words, name) if words else "request"


def denial(access: Access, action: Action) -> str:
    """Why the policy refused: "View access does not allow browsing the files."."""
    return f"{access.value.capitalize()} access does not allow {ACTIONS[action]}."


ANSWERS: dict[str, str] = {
    "once": "allowed once",
    "always": "always allowed, for this session",
    "session": "allowed for this session, every call of its kind",
    "reject": "rejected",
    "never": "never allowed, for this session",
    "allow_once": "allowed once",
    "allow_always": "allowed for this session",
    "reject_once": "rejected",
    "reject_always": "rejected for this session",
}
"""How a permission request was answered: by the host's answer, else by the kind of the agent's
option that was chosen."""
RULES_BY = "rules"
"""The `by` of an answer the permission rules gave, not a person."""


def answer_words(resolution: Resolution, options: Sequence[PermissionOption]) -> str:
    """ "allowed once by Ada", "rejected by a permission rule", "cancelled"."""
    option_id = resolution.option_id
    if option_id is None:
        return "cancelled"
    kind = next((o.kind for o in options if o.option_id == option_id), None)
    said = ANSWERS.get(str(resolution.answer)) or ANSWERS.get(str(kind)) or "answered"
    by = resolution.by
    if by == RULES_BY:
        return f"{said} by a permission rule"
    return f"{said} by {by}" if by else said

NETWORKS_DID_NOT_MEET = (
    "The host answered, but your network and the host's could not meet directly (a firewall, or a router that"
    " changes ports, is in the way). The host can add a TURN server to carry the connection: canvas serve"
    " --turn-url turn:HOST:3478 --turn-secret-file FILE (or --ice-server turn:USER:PASSWORD@HOST:3478)."
)
"""Said when the host answered the offer but no candidate pair ever connected, and no TURN server was offered."""
NETWORKS_DID_NOT_MEET_THROUGH_TURN = (
    "The host answered, but the connection did not get through, even through the host's TURN server: it may"
    " be unreachable from your network, or refuse the credentials. Ask the host to check it."
)
"""The same, when the page or `canvas join` did have a TURN server to try."""
