"""Which answers a waiting permission request may take, decided without an agent."""

from __future__ import annotations

import pytest

from canvasrelay.core.errors import Refused
from canvasrelay.core.permission_requests import Chosen, Pending, chosen
from canvasrelay.protocol.session_events import PermissionOption

OPTIONS = [
    PermissionOption(option_id="ok", name="Allow", kind="allow_once"),
    PermissionOption(option_id="ok-always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="no", name="Reject", kind="reject_once"),
]


def waiting(path: str | None) -> Pending:
    locations = [{"path": path}] if path else []
    return Pending({"toolCallId": "t1", "kind": "edit", "title": "Write", "locations": locations}, OPTIONS)


def test_a_word_picks_the_agents_option_for_this_call_and_canvas_keeps_always_as_its_own_rule() -> None:
    assert chosen(waiting("notes.md"), "once", None) == Chosen("ok", "allow_once")
    # The agent's own "always allow" would let it stop asking for more than the rule covers.
    assert chosen(waiting("notes.md"), "always", None) == Chosen("ok", "allow_once")
    assert chosen(waiting("notes.md"), None, "ok-always") == Chosen("ok-always", "allow_always")
    assert chosen(waiting("notes.md"), "reject", None) == Chosen("no", "reject_once")
    assert chosen(waiting("notes.md"), None, "no") == Chosen("no", "reject_once")


def test_an_option_the_agent_did_not_offer_is_refused_in_words() -> None:
    with pytest.raises(Refused, match="the agent offered no option 'sneaky'") as refused:
        chosen(waiting("notes.md"), None, "sneaky")
    assert refused.value.kind == "invalid"


def test_always_or_never_for_a_request_that_names_no_file_is_refused_since_it_would_cover_every_call() -> None:
    for answer in ("always", "never"):
        with pytest.raises(Refused, match=f"so “{answer}” would cover every such call"):
            chosen(waiting(None), answer, None)
    assert chosen(waiting(None), "once", None) == Chosen("ok", "allow_once")
