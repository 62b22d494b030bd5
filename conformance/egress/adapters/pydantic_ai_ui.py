"""pydantic-ai-slim's UI adapters: ``AGUIAdapter`` (AG-UI, with ag-ui-protocol) and ``VercelAIAdapter``
(the Vercel AI UI message stream), each answering a request with ``dispatch_request`` in a Starlette
app served by uvicorn on 127.0.0.1, read as a browser reads the stream.

The agent's model is pydantic-ai's own ``FunctionModel``, streaming: each model call streams the
next assistant message of the conversation as the Anthropic model would (thinking as
``DeltaThinkingPart`` content in small pieces, then its signature; redacted thinking as a thinking
part with the data as signature; text in small pieces; tool calls), and each tool the conversation
calls is a tool of the agent that returns the recorded result. A conversation that ends on a tool
result (a task in flight) gets an empty reply at the end."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from .base import Component, blocks, tool_result_text
from .local_server import open_stream

PIECE = 13  # characters of one streamed delta: shorter than a canary fragment


def _pieces(text: str) -> list[str]:
    return [text[i:i + PIECE] for i in range(0, len(text), PIECE)] or [""]


def _agent(history: list[dict[str, Any]]) -> Any:
    from pydantic_ai import Agent, Tool
    from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel

    replies = [m for m in history if m["role"] == "assistant"]
    results = {b["tool_use_id"]: tool_result_text(b) for m in history if m["role"] == "user"
               for b in blocks(m) if b.get("type") == "tool_result"}
    names = {b["name"]: [b2["id"] for m in replies for b2 in blocks(m) if b2.get("type") == "tool_use"
                         and b2["name"] == b["name"]] for m in replies for b in blocks(m) if b.get("type") == "tool_use"}
    calls = {"n": 0}

    async def stream(messages: list[Any], info: AgentInfo) -> AsyncIterator[Any]:
        index = calls["n"]
        calls["n"] += 1
        if index >= len(replies):
            yield ""
            return
        for j, block in enumerate(blocks(replies[index])):
            kind = block.get("type")
            if kind == "thinking":
                for piece in _pieces(block["thinking"]):
                    yield {j: DeltaThinkingPart(content=piece)}
                if block.get("signature"):
                    yield {j: DeltaThinkingPart(signature=block["signature"])}
            elif kind == "redacted_thinking":
                yield {j: DeltaThinkingPart(content="", signature=block["data"])}
            elif kind == "text":
                for piece in _pieces(block["text"]):
                    yield piece
            elif kind == "tool_use":
                import json

                yield {j: DeltaToolCall(name=block["name"], json_args=json.dumps(block["input"]),
                                        tool_call_id=block["id"])}

    def tool_for(name: str) -> Any:
        def run_tool(**_: Any) -> str:
            ids = names.get(name, [])
            return results.get(ids.pop(0), "") if ids else ""

        run_tool.__name__ = name
        return Tool(run_tool, name=name, takes_ctx=False,
                    prepare=None, description=f"the recorded {name}")

    tools = [tool_for(name) for name in names]
    return Agent(FunctionModel(stream_function=stream, model_name="claude-sonnet-4-6"), tools=tools)


def _app(adapter: Any, history: list[dict[str, Any]], **kwargs: Any) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.routing import Route

    agent = _agent(history)

    async def endpoint(request: Request) -> Any:
        return await adapter.dispatch_request(request, agent=agent, **kwargs)

    return Starlette(routes=[Route("/", endpoint, methods=["POST"])])


async def drop_thinking(ctx: Any, stream: Any) -> AsyncIterator[Any]:
    """An event stream processor for ``ProcessEventStream``: yields every agent stream event but
    those of thinking parts (their start, deltas and end)."""
    from pydantic_ai.messages import ThinkingPart, ThinkingPartDelta

    async for event in stream:
        if isinstance(getattr(event, "part", None), ThinkingPart) or \
                isinstance(getattr(event, "delta", None), ThinkingPartDelta):
            continue
        yield event


def _without_thinking() -> dict[str, Any]:
    from pydantic_ai.capabilities import ProcessEventStream

    return {"capabilities": [ProcessEventStream(drop_thinking)]}


def _first_prompt(history: list[dict[str, Any]]) -> str:
    first = history[0]
    return first["content"] if isinstance(first["content"], str) else " ".join(
        b.get("text", "") for b in blocks(first) if b.get("type") == "text")


def ag_ui(history: list[dict[str, Any]]) -> Any:
    """Returns the streaming HTTP response of ``AGUIAdapter.dispatch_request`` (default AG-UI version)."""
    return _ag_ui(history)


def vercel_ai(history: list[dict[str, Any]]) -> Any:
    """Returns the streaming HTTP response of ``VercelAIAdapter.dispatch_request`` (defaults)."""
    return _vercel_ai(history)


def _ag_ui(history: list[dict[str, Any]], **settings: Any) -> Any:
    from pydantic_ai.ui.ag_ui import AGUIAdapter

    body = {"threadId": "thread-1", "runId": "run-1", "state": None, "tools": [], "context": [],
            "forwardedProps": None,
            "messages": [{"id": "user-1", "role": "user", "content": _first_prompt(history)}]}
    return open_stream(_app(AGUIAdapter, history, **settings), json=body)


def _vercel_ai(history: list[dict[str, Any]], **settings: Any) -> Any:
    from pydantic_ai.ui.vercel_ai import VercelAIAdapter

    body = {"trigger": "submit-message", "id": "chat-1",
            "messages": [{"id": "user-1", "role": "user", "parts": [{"type": "text", "text": _first_prompt(history)}]}]}
    return open_stream(_app(VercelAIAdapter, history, **settings), json=body)


def ag_ui_without_thinking(history: list[dict[str, Any]]) -> Any:
    """Returns the AG-UI response with ``capabilities=[ProcessEventStream(drop_thinking)]``."""
    return _ag_ui(history, **_without_thinking())


def vercel_ai_without_thinking(history: list[dict[str, Any]]) -> Any:
    """Returns the Vercel AI response with ``capabilities=[ProcessEventStream(drop_thinking)]``."""
    return _vercel_ai(history, **_without_thinking())


_LIB = "pydantic-ai-slim"
_MOD = "conformance.egress.adapters.pydantic_ai_ui"
_STOPS = ("no reasoning flag: dispatch_request(capabilities=[ProcessEventStream(f)]), f an event stream "
          "processor that drops thinking parts' events")
_DROP = "capabilities=[ProcessEventStream(f)], f dropping thinking parts' events, served by uvicorn"
COMPONENTS = [
    Component(f"{_LIB}.AGUIAdapter.dispatch_request", _LIB, "AGUIAdapter.dispatch_request",
              "defaults, FunctionModel streaming thinking, served by uvicorn", "browser-stream", "anthropic",
              f"{_MOD}:ag_ui", "pydantic_ai.ui.ag_ui", stops=_STOPS),
    Component(f"{_LIB}.AGUIAdapter.dispatch_request.drop_thinking", _LIB, "AGUIAdapter.dispatch_request", _DROP,
              "browser-stream", "anthropic", f"{_MOD}:ag_ui_without_thinking", "pydantic_ai.ui.ag_ui", stops=_STOPS),
    Component(f"{_LIB}.VercelAIAdapter.dispatch_request", _LIB, "VercelAIAdapter.dispatch_request",
              "defaults, FunctionModel streaming thinking, served by uvicorn", "browser-stream", "anthropic",
              f"{_MOD}:vercel_ai", "pydantic_ai.ui.vercel_ai", stops=_STOPS),
    Component(f"{_LIB}.VercelAIAdapter.dispatch_request.drop_thinking", _LIB, "VercelAIAdapter.dispatch_request",
              _DROP, "browser-stream", "anthropic", f"{_MOD}:vercel_ai_without_thinking", "pydantic_ai.ui.vercel_ai",
              stops=_STOPS),
]
