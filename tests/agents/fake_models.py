"""A TEST DOUBLE for the paid model APIs: the one edge of a real agent that cannot run here.

`FakeModels` is a small HTTP server speaking just enough of Anthropic's Messages API (SSE
streaming), OpenAI's Responses and Chat Completions APIs and Gemini's generateContent /
streamGenerateContent for an unchanged agent (Claude Code, Codex, Gemini CLI, opencode) to run
scripted turns against it: streamed text, a tool call, the tool's result, a final answer, usage.

The script is in the prompt. A user message holding `ACTION: <verb> <argument>` makes the
model call the agent's own tool for it, found by name among the tools the agent offers:

    ACTION: write PATH TEXT     the agent's file-writing tool (Codex: its shell, as it does)
    ACTION: read PATH           the agent's file-reading tool (Codex: its shell)
    ACTION: run COMMAND         the agent's shell tool
    ACTION: note TEXT           the board's MCP tool `add_note`
    ACTION: slow                a long answer, streamed slowly, to be cancelled
    ACTION: fail                an HTTP 400 answer

Once the tool's result comes back the model answers `Done. The tool said: <result>`. Without
an action it answers `Fake model says: <prompt>`. A request that asks for JSON (Gemini CLI's
side questions: `responseMimeType` or a schema) is answered with JSON of that schema, as the real
API does. Every request and every tool result is kept (`requests`, `tool_results`), so a test
can read what the model was told.

A request the fake does not understand (an unknown path, a body that is not JSON, an action it
has no tool for) is answered 400, which no agent retries, and kept in `misunderstood`; `stop()`
then fails the test naming them, rather than letting an agent retry for minutes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shlex
import socket
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import ClientConnectionResetError, web

REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
ACTION = re.compile(r"ACTION: (\w+)(?: (.*))?", re.DOTALL)
SLOW_CHUNKS = 60
SLOW_INTERVAL = 0.5
USAGE = {"input": 12, "output": 7}


@dataclass
class Plan:
    """What the model does next: say `text`, or call `tool` with `arguments`."""

    text: str = ""
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    slow: bool = False
    fail: bool = False
    misunderstood: str = ""
    """What the fake cannot do for this request, when it cannot."""


@dataclass
class Seen:
    api: str
    path: str
    body: dict[str, Any]


class FakeModels:
    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self.tool_results: list[str] = []
        self.misunderstood: list[str] = []
        self.port = 0
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> FakeModels:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._route)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()
        return self

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        if self.misunderstood:
            raise AssertionError(f"the fake models did not understand: {self.misunderstood}")

    def _refuse(self, what: str) -> web.Response:
        self.misunderstood.append(what)
        error = {"type": "invalid_request_error", "message": f"the test's fake model does not understand {what}"}
        return web.json_response({"type": "error", "error": error}, status=400)

    # -- routing -----------------------------------------------------------------------------

    async def _route(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        body: Any = {}
        if request.can_read_body:
            try:
                body = await request.json()
            except ValueError:
                return self._refuse(f"a body that is not JSON on {request.method} {path}")
        if request.method == "HEAD":
            return web.Response()  # Claude Code's check that the API is reachable
        if request.method == "GET" and path.rstrip("/").endswith("/models"):
            return web.json_response({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        if path.endswith("/count_tokens") or path.endswith(":countTokens"):
            return web.json_response({"input_tokens": 10, "totalTokens": 10})
        api = _api_of(path)
        if api is None or request.method != "POST":
            return self._refuse(f"{request.method} {path}")
        if not isinstance(body, dict):
            return self._refuse(f"a body that is not a JSON object on {path}")
        self.requests.append(Seen(api, path, body))
        json_schema = _json_asked(api, body)
        plan = Plan(text=json.dumps(_from_schema(json_schema))) if json_schema is not None else self.plan(api, body)
        if plan.misunderstood:
            return self._refuse(plan.misunderstood)
        if plan.fail:
            error = {"type": "invalid_request_error", "message": "the fake model refuses: bad request"}
            return web.json_response({"type": "error", "error": error}, status=400)
        streaming = body.get("stream") is True or path.endswith(":streamGenerateContent")
        writer = _WRITERS[api]
        if not streaming:
            return web.json_response(writer.whole(plan, body))
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        # An agent that cancels its turn hangs up mid-stream.
        with contextlib.suppress(ConnectionResetError, ClientConnectionResetError):
            async for event in writer.stream(plan, body):
                await response.write(event.encode())
            await response.write_eof()
        return response

    # -- the script --------------------------------------------------------------------------

    def plan(self, api: str, body: dict[str, Any]) -> Plan:
        messages = _messages(api, body)
        result = _pending_tool_result(messages)
        if result is not None:
            self.tool_results.append(result)
            return Plan(text=f"Done. The tool said: {result}")
        prompt = _last_user_text(messages)
        match = ACTION.search(prompt)
        if match is None:
            return Plan(text=f"Fake model says: {prompt.strip()[-200:]}")
        verb, argument = match.group(1), (match.group(2) or "").strip()
        if verb == "slow":
            return Plan(text="", slow=True)
        if verb == "fail":
            return Plan(fail=True)
        tools = _tool_names(api, body)
        return _tool_plan(verb, argument, tools)


# -- reading requests --------------------------------------------------------------------------


def _api_of(path: str) -> str | None:
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/responses"):
        return "responses"
    if path.endswith("/chat/completions"):
        return "chat"
    if ":generateContent" in path or ":streamGenerateContent" in path:
        return "gemini"
    return None


Message = tuple[str, str, bool]
"""(role, text, is_tool_result) in conversation order."""


def _messages(api: str, body: dict[str, Any]) -> list[Message]:
    out: list[Message] = []
    if api == "anthropic":
        for message in body.get("messages") or []:
            content = message.get("content")
            if isinstance(content, str):
                out.append((message.get("role", ""), content, False))
                continue
            for block in content or []:
                if block.get("type") == "text":
                    out.append((message.get("role", ""), block.get("text", ""), False))
                elif block.get("type") == "tool_result":
                    out.append(("tool", _flatten(block.get("content")), True))
                elif block.get("type") == "tool_use":
                    out.append(("assistant", "", False))
    elif api == "responses":
        items = body.get("input")
        for item in items if isinstance(items, list) else [{"role": "user", "content": str(items or "")}]:
            kind = item.get("type", "message")
            if kind == "message":
                out.append((item.get("role", ""), _flatten(item.get("content")), False))
            elif kind in ("function_call_output", "custom_tool_call_output", "local_shell_call_output"):
                out.append(("tool", _flatten(item.get("output")), True))
            elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
                out.append(("assistant", "", False))
    elif api == "chat":
        for message in body.get("messages") or []:
            role = message.get("role", "")
            if role == "tool":
                out.append(("tool", _flatten(message.get("content")), True))
            elif message.get("tool_calls"):
                out.append(("assistant", "", False))
            else:
                out.append((role, _flatten(message.get("content")), False))
    elif api == "gemini":
        for content in body.get("contents") or []:
            for part in content.get("parts") or []:
                if "functionResponse" in part:
                    out.append(("tool", json.dumps(part["functionResponse"].get("response")), True))
                elif "functionCall" in part:
                    out.append(("assistant", "", False))
                elif "text" in part:
                    out.append((content.get("role", ""), part["text"], False))
    return out


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_flatten(part) for part in content)
    if isinstance(content, dict):
        for key in ("text", "output", "content"):
            if key in content:
                return _flatten(content[key])
        return json.dumps(content)
    return "" if content is None else str(content)


def _pending_tool_result(messages: list[Message]) -> str | None:
    """The result of the model's last tool call, when that is the newest thing in the conversation."""
    for role, text, is_result in reversed(messages):
        if is_result:
            return text
        if role == "user" and REMINDER.sub("", text).strip():
            return None
    return None


def _last_user_text(messages: list[Message]) -> str:
    """The newest prompt: the user's last message, reminders the agent adds to it aside."""
    users = [REMINDER.sub("", text) for role, text, is_result in messages if role == "user" and not is_result]
    prompts = [text for text in users if text.strip()]
    return prompts[-1] if prompts else ""


def _tool_names(api: str, body: dict[str, Any]) -> list[str]:
    names: list[str] = []
    for tool in body.get("tools") or []:
        if api == "gemini":
            names += [d.get("name", "") for d in tool.get("functionDeclarations") or []]
        elif api == "chat":
            names.append((tool.get("function") or {}).get("name", ""))
        else:
            names.append(tool.get("name") or (tool.get("function") or {}).get("name", ""))
            # Codex groups an MCP server's tools under one namespace entry.
            names += [f"{tool.get('name')}__{t.get('name')}" for t in tool.get("tools") or [] if isinstance(t, dict)]
    return [n for n in names if n]


def _first(tools: list[str], *names: str) -> str | None:
    lowered = {t.lower(): t for t in tools}
    return next((lowered[n] for n in names if n in lowered), None)


def _tool_plan(verb: str, argument: str, tools: list[str]) -> Plan:
    if verb == "note":
        name = next((t for t in tools if t.endswith("add_note")), None)
        return Plan(tool=name, arguments={"text": argument}) if name else _no_tool("the board's add_note", tools)
    if verb == "write":
        path, _, text = argument.partition(" ")
        name = _first(tools, "write", "write_file")
        if name is not None:
            key = "filePath" if name == "write" else "file_path"
            return Plan(tool=name, arguments={key: path, "content": text})
        return _shell_plan(tools, f"printf %s {shlex.quote(text)} > {shlex.quote(path)}")
    if verb == "read":
        name = _first(tools, "read", "read_file")
        if name is not None:
            return Plan(tool=name, arguments={"filePath" if name == "read" else "file_path": argument})
        return _shell_plan(tools, f"cat {shlex.quote(argument)}")
    if verb == "run":
        return _shell_plan(tools, argument)
    return Plan(misunderstood=f"the action {verb!r}")


def _no_tool(wanted: str, tools: list[str]) -> Plan:
    """An action needs a tool the request does not offer: a side request (a title, a summary) offers
    none and is answered in words; a turn that offers tools but not this one is the test's mistake."""
    if not tools:
        return Plan(text="No tools here.")
    return Plan(misunderstood=f"an action that needs {wanted}, among the tools {tools}")


def _shell_plan(tools: list[str], command: str) -> Plan:
    name = _first(tools, "bash", "run_shell_command", "shell", "shell_command", "exec_command")
    if name is None:
        return _no_tool("a shell", tools)
    if name.lower() == "bash":
        return Plan(tool=name, arguments={"command": command, "description": "Run a command"})
    if name == "shell":
        return Plan(tool=name, arguments={"command": ["bash", "-lc", command]})
    if name == "exec_command":
        return Plan(tool=name, arguments={"cmd": command})
    return Plan(tool=name, arguments={"command": command})


# -- writing answers ---------------------------------------------------------------------------


def _sse(event: str | None, data: dict[str, Any]) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def _words(text: str) -> list[str]:
    words = re.findall(r"\S+\s*", text)
    return ["".join(words[i : i + 3]) for i in range(0, len(words), 3)] or [""]


async def _slow_text() -> AsyncIterator[str]:
    for i in range(SLOW_CHUNKS):
        yield f"slow chunk {i + 1}. "
        await asyncio.sleep(SLOW_INTERVAL)


async def _text_of(plan: Plan) -> AsyncIterator[str]:
    if plan.slow:
        async for chunk in _slow_text():
            yield chunk
        return
    for chunk in _words(plan.text):
        yield chunk


class _Anthropic:
    @staticmethod
    def whole(plan: Plan, body: dict[str, Any]) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": plan.text or "ok"}]
        if plan.tool:
            content = [{"type": "tool_use", "id": _id("toolu"), "name": plan.tool, "input": plan.arguments}]
        return {
            "id": _id("msg"),
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "fake"),
            "content": content,
            "stop_reason": "tool_use" if plan.tool else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": USAGE["input"], "output_tokens": USAGE["output"]},
        }

    @staticmethod
    async def stream(plan: Plan, body: dict[str, Any]) -> AsyncIterator[str]:
        message = {
            "id": _id("msg"),
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "fake"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": USAGE["input"], "output_tokens": 1},
        }
        yield _sse("message_start", {"type": "message_start", "message": message})
        if plan.tool:
            block = {"type": "tool_use", "id": _id("toolu"), "name": plan.tool, "input": {}}
            yield _sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(plan.arguments)}
            yield _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        else:
            block = {"type": "text", "text": ""}
            yield _sse("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block})
            async for chunk in _text_of(plan):
                delta = {"type": "text_delta", "text": chunk}
                yield _sse("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": 0})
        stop = {"stop_reason": "tool_use" if plan.tool else "end_turn", "stop_sequence": None}
        usage = {"output_tokens": USAGE["output"]}
        yield _sse("message_delta", {"type": "message_delta", "delta": stop, "usage": usage})
        yield _sse("message_stop", {"type": "message_stop"})


class _Responses:
    @staticmethod
    def _items(plan: Plan, body: dict[str, Any]) -> list[dict[str, Any]]:
        if plan.tool:
            call = {
                "type": "function_call",
                "id": _id("fc"),
                "call_id": _id("call"),
                "name": plan.tool,
                "arguments": json.dumps(plan.arguments),
                "status": "completed",
            }
            for tool in body.get("tools") or []:
                prefix = f"{tool.get('name')}__"
                if tool.get("type") == "namespace" and plan.tool.startswith(prefix):
                    call.update(name=plan.tool.removeprefix(prefix), namespace=tool["name"])
            return [call]
        return [
            {
                "type": "message",
                "id": _id("msg"),
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": plan.text, "annotations": []}],
            }
        ]

    @classmethod
    def whole(cls, plan: Plan, body: dict[str, Any]) -> dict[str, Any]:
        return cls._response(body, cls._items(plan, body), "completed")

    @staticmethod
    def _response(body: dict[str, Any], output: list[dict[str, Any]], status: str) -> dict[str, Any]:
        return {
            "id": _id("resp"),
            "object": "response",
            "status": status,
            "model": body.get("model", "fake"),
            "output": output,
            "usage": {
                "input_tokens": USAGE["input"],
                "output_tokens": USAGE["output"],
                "total_tokens": USAGE["input"] + USAGE["output"],
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            },
        }

    @classmethod
    async def stream(cls, plan: Plan, body: dict[str, Any]) -> AsyncIterator[str]:
        created = cls._response(body, [], "in_progress")
        yield _sse("response.created", {"type": "response.created", "response": created})
        items = cls._items(plan, body)
        item = items[0]
        if plan.tool:
            added = {"type": "response.output_item.added", "output_index": 0, "item": item}
            yield _sse("response.output_item.added", added)
        else:
            text = ""
            start = {**item, "status": "in_progress", "content": []}
            yield _sse(
                "response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": start}
            )
            async for chunk in _text_of(plan):
                text += chunk
                delta = {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": 0,
                    "content_index": 0,
                    "delta": chunk,
                }
                yield _sse("response.output_text.delta", delta)
            item["content"][0]["text"] = text
        done = {"type": "response.output_item.done", "output_index": 0, "item": item}
        yield _sse("response.output_item.done", done)
        completed = {**cls._response(body, items, "completed"), "id": created["id"]}
        yield _sse("response.completed", {"type": "response.completed", "response": completed})


class _Chat:
    @staticmethod
    def whole(plan: Plan, body: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": plan.text}
        if plan.tool:
            message = {"role": "assistant", "content": None, "tool_calls": [_chat_call(plan)]}
        return {
            "id": _id("chatcmpl"),
            "object": "chat.completion",
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if plan.tool else "stop"}],
            "usage": _chat_usage(),
        }

    @staticmethod
    async def stream(plan: Plan, body: dict[str, Any]) -> AsyncIterator[str]:
        base = {"id": _id("chatcmpl"), "object": "chat.completion.chunk", "model": body.get("model", "fake")}
        if plan.tool:
            delta: dict[str, Any] = {"role": "assistant", "tool_calls": [_chat_call(plan)]}
            yield _sse(None, {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
        else:
            async for chunk in _text_of(plan):
                yield _sse(
                    None, {**base, "choices": [{"index": 0, "delta": {"content": chunk}, "finish_reason": None}]}
                )
        finish = "tool_calls" if plan.tool else "stop"
        yield _sse(
            None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": _chat_usage()}
        )
        yield "data: [DONE]\n\n"


def _chat_call(plan: Plan) -> dict[str, Any]:
    return {
        "index": 0,
        "id": _id("call"),
        "type": "function",
        "function": {"name": plan.tool, "arguments": json.dumps(plan.arguments)},
    }


def _chat_usage() -> dict[str, int]:
    return {
        "prompt_tokens": USAGE["input"],
        "completion_tokens": USAGE["output"],
        "total_tokens": USAGE["input"] + USAGE["output"],
    }


class _Gemini:
    @staticmethod
    def _chunk(parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return {
            "candidates": [candidate],
            "usageMetadata": {
                "promptTokenCount": USAGE["input"],
                "candidatesTokenCount": USAGE["output"],
                "totalTokenCount": USAGE["input"] + USAGE["output"],
            },
            "modelVersion": "fake-model",
        }

    @classmethod
    def whole(cls, plan: Plan, body: dict[str, Any]) -> dict[str, Any]:
        if plan.tool:
            return cls._chunk([{"functionCall": {"name": plan.tool, "args": plan.arguments}}], "STOP")
        return cls._chunk([{"text": plan.text}], "STOP")

    @classmethod
    async def stream(cls, plan: Plan, body: dict[str, Any]) -> AsyncIterator[str]:
        if plan.tool:
            yield _sse(None, cls._chunk([{"functionCall": {"name": plan.tool, "args": plan.arguments}}], "STOP"))
            return
        chunks = [chunk async for chunk in _text_of(plan)] if not plan.slow else None
        if chunks is None:
            async for chunk in _slow_text():
                yield _sse(None, cls._chunk([{"text": chunk}], None))
            yield _sse(None, cls._chunk([{"text": ""}], "STOP"))
            return
        for i, chunk in enumerate(chunks):
            yield _sse(None, cls._chunk([{"text": chunk}], "STOP" if i == len(chunks) - 1 else None))


def _json_asked(api: str, body: dict[str, Any]) -> dict[str, Any] | None:
    """The schema of the JSON a Gemini request asks for (its side questions: how complex is this,
    who speaks next), `{}` for JSON of no schema, or None when it asks for words."""
    if api != "gemini":
        return None
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema is None and config.get("responseMimeType") != "application/json":
        return None
    return schema if isinstance(schema, dict) else {}


def _from_schema(schema: dict[str, Any], name: str = "") -> Any:
    kind = str(schema.get("type", "object")).lower()
    if name == "next_speaker":
        return "user"  # the turn is over: nothing more to say
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object":
        return {key: _from_schema(sub, key) for key, sub in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    return "fake"


_WRITERS: dict[str, Any] = {"anthropic": _Anthropic, "responses": _Responses, "chat": _Chat, "gemini": _Gemini}


def _id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"
