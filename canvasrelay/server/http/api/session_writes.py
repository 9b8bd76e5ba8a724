"""The API's session operations that act: create, rename, delete, prompt, cancel, answer a
permission, read and set config options.

Each one builds the same frame a host page sends and hands it to the session manager as the
host peer `api`, so the API has exactly the host's powers and every screen sees the result.
"""

from __future__ import annotations

import secrets
from typing import Any

from pydantic import Field, ValidationError

from canvasrelay.core.effects import AnyEffect
from canvasrelay.protocol import ClientFrame
from canvasrelay.protocol.agents import (
    MAX_CONFIG_CHARS,
    MAX_NAME_CHARS,
    MAX_PROMPT_CHARS,
    SESSION_ID_PATTERN,
    AgentCancel,
    AgentCreate,
    AgentPermission,
    AgentPrompt,
    HostAnswer,
)
from canvasrelay.protocol.session_events import ConfigOption
from canvasrelay.server.agents.error import AgentError
from canvasrelay.server.agents.host import AgentHost, Ordered
from canvasrelay.server.http.api.errors import ApiError, invalid, not_found
from canvasrelay.server.http.api.models import ApiModel, RequestModel, SessionOut
from canvasrelay.server.http.api.openapi import Call, Operation
from canvasrelay.server.http.api.routes import attempt
from canvasrelay.server.http.api.services import ApiServices
from canvasrelay.server.http.api.sessions import find, session_out


class SessionCreateIn(RequestModel):
    agent: str = Field(min_length=1, max_length=MAX_NAME_CHARS, description="An agent id from GET /api/agents.")
    id: str | None = Field(default=None, pattern=SESSION_ID_PATTERN, description="Chosen by the server if absent.")
    title: str = Field(default="", max_length=MAX_NAME_CHARS)


class SessionRenameIn(RequestModel):
    title: str = Field(max_length=MAX_NAME_CHARS)


class PromptIn(RequestModel):
    text: str = Field(min_length=1, max_length=MAX_PROMPT_CHARS)
    author: str = Field(default="api", max_length=MAX_NAME_CHARS)


class PermissionAnswerIn(RequestModel):
    answer: HostAnswer | None = Field(
        default=None, description="once/reject this call; always/never add a session rule; session allows the kind."
    )
    option_id: str | None = Field(default=None, max_length=MAX_CONFIG_CHARS, description="Or the agent's own option.")


class ConfigOut(ApiModel):
    options: list[ConfigOption] = Field(description="The agent's config options (ACP JSON).")


class ConfigIn(RequestModel):
    value: str | bool = Field(union_mode="left_to_right")


def _in_order(effects: list[AnyEffect]) -> list[AnyEffect]:
    """The effects the agents' pump would carry out, so the API can wait until they are."""
    return [inner for e in effects for inner in (_in_order(e.effects) if isinstance(e, Ordered) else [e])]


def operations(services: ApiServices) -> list[Operation]:
    def host() -> AgentHost:
        return services.agents

    async def act(effects: list[AnyEffect]) -> None:
        await host().run(_in_order(effects))

    async def send(frame: ClientFrame) -> None:
        await act(attempt(services, frame))

    def frame(model: Any, **fields: Any) -> Any:
        try:
            return model(**fields)
        except ValidationError as exc:
            raise invalid(exc, "path") from None

    def live(session_id: str) -> str:
        if session_id not in host().core.sessions:
            raise not_found("session")
        return session_id

    def out(session_id: str) -> SessionOut:
        return session_out(find(services, session_id))

    async def create_session(call: Call) -> SessionOut:
        body: SessionCreateIn = call.body
        session_id = body.id or f"session-{secrets.token_hex(6)}"
        await send(AgentCreate(id=session_id, agent=body.agent, title=body.title))
        return out(session_id)

    async def rename_session(call: Call) -> SessionOut:
        body: SessionRenameIn = call.body
        session_id = live(call.params["sessionId"])
        await act(host().core.rename(session_id, body.title))
        return out(session_id)

    async def delete_session(call: Call) -> None:
        await act(host().core.remove(live(call.params["sessionId"])))

    async def prompt_session(call: Call) -> SessionOut:
        body: PromptIn = call.body
        session_id = live(call.params["sessionId"])
        prompt = AgentPrompt(session_id=session_id, text=body.text, author=body.author)
        await send(prompt)
        return out(session_id)

    async def cancel_session(call: Call) -> SessionOut:
        session_id = live(call.params["sessionId"])
        await send(AgentCancel(session_id=session_id))
        return out(session_id)

    async def answer_permission(call: Call) -> SessionOut:
        body: PermissionAnswerIn = call.body
        session_id = live(call.params["sessionId"])
        answer = frame(
            AgentPermission,
            session_id=session_id,
            request_id=call.params["requestId"],
            option_id=body.option_id,
            answer=body.answer,
            by="api",
        )
        await send(answer)
        return out(session_id)

    async def get_config(call: Call) -> ConfigOut:
        return ConfigOut(options=host().core.sessions[live(call.params["sessionId"])].options)

    async def set_config(call: Call) -> ConfigOut:
        body: ConfigIn = call.body
        session_id = live(call.params["sessionId"])
        config_id = call.params["configId"]
        if len(config_id) > MAX_CONFIG_CHARS:
            raise ApiError(422, f"configId is longer than {MAX_CONFIG_CHARS} characters")
        if not any(o.id == config_id for o in host().core.sessions[session_id].options):
            raise not_found("config option")
        try:
            options = await host().configure(session_id, config_id, body.value)
        except AgentError as exc:
            raise ApiError(409, f"the agent refused: {exc}") from None
        return ConfigOut(options=options)

    s = "sessions"
    return [
        Operation(
            "POST",
            "/api/sessions",
            create_session,
            "Start a session with an agent.",
            s,
            body=SessionCreateIn,
            response=SessionOut,
            status=201,
            errors=(404, 409),
        ),
        Operation(
            "PATCH",
            "/api/session/{sessionId}",
            rename_session,
            "Rename a session.",
            s,
            body=SessionRenameIn,
            response=SessionOut,
        ),
        Operation(
            "DELETE", "/api/session/{sessionId}", delete_session, "Stop a session and delete its log.", s, status=204
        ),
        Operation(
            "POST",
            "/api/session/{sessionId}/prompt",
            prompt_session,
            "Send a prompt; it runs now, or is queued behind the running turn. Follow it in the events.",
            s,
            body=PromptIn,
            response=SessionOut,
            status=202,
            errors=(409,),
        ),
        Operation(
            "POST",
            "/api/session/{sessionId}/cancel",
            cancel_session,
            "Cancel the running turn (its open permission requests resolve as cancelled).",
            s,
            response=SessionOut,
        ),
        Operation(
            "POST",
            "/api/session/{sessionId}/permission/{requestId}",
            answer_permission,
            "Answer a permission request (the `requestId` of its `permission` event); the first answer wins.",
            s,
            body=PermissionAnswerIn,
            response=SessionOut,
            errors=(409,),
        ),
        Operation(
            "GET",
            "/api/session/{sessionId}/config",
            get_config,
            "The agent's config options for the session.",
            s,
            response=ConfigOut,
        ),
        Operation(
            "PUT",
            "/api/session/{sessionId}/config/{configId}",
            set_config,
            "Set one config option; answers with every option as the agent now reports them.",
            s,
            body=ConfigIn,
            response=ConfigOut,
            errors=(409,),
        ),
    ]
