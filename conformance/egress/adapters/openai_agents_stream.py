"""openai-agents: ``Runner.run_streamed(...).stream_events()``, the events an app relays to a browser
as they come, on Responses items. The agent's model is the SDK's own ``OpenAIResponsesModel`` over an
``AsyncOpenAI`` client whose mock transport answers each model call with the next model turn of the
conversation as Responses server-sent events (reasoning summary, reasoning text and output text as
deltas, each item done whole, ``response.completed``); each function the conversation calls is a
``FunctionTool`` returning the recorded output; tracing is off (no export). The target is an async
iterator of the events as JSON, the shape a relay sends: a raw response event's data, a run item's
raw item, an agent update's agent name."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from .base import Component
from .openai_replay import sse, turn_events
from ..canaries import CREDENTIAL

_MODEL_ITEMS = ("reasoning", "function_call")


def _turns(items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """Returns the input before the first model turn and each model turn's output items."""
    def from_model(item: dict[str, Any]) -> bool:
        return item.get("type") in _MODEL_ITEMS or (item.get("type") == "message" and item.get("role") == "assistant")

    first = next((i for i, item in enumerate(items) if from_model(item)), len(items))
    turns: list[list[dict[str, Any]]] = []
    for item in items[first:]:
        if from_model(item):
            if not turns or not turns[-1] or not from_model(turns[-1][-1]):
                turns.append([])
            turns[-1].append(item)
        elif turns and turns[-1]:
            turns.append([])
    return items[:first], [t for t in turns if t]


def _agent(items: list[dict[str, Any]]) -> tuple[Any, list[dict[str, Any]]]:
    import httpx2
    from agents import Agent, FunctionTool
    from agents.models.openai_responses import OpenAIResponsesModel
    from openai import AsyncOpenAI

    given, turns = _turns(items)
    replies = [turn_events(n, turn) for n, turn in enumerate(turns)]
    outputs = {i["call_id"]: i.get("output", "") for i in items if i.get("type") == "function_call_output"}

    def handler(request: Any) -> Any:
        events = replies.pop(0) if replies else turn_events(99, [{"type": "message", "role": "assistant",
                                                                  "id": "msg_end", "content": []}])
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(events))

    client = AsyncOpenAI(api_key=CREDENTIAL.value, base_url="http://127.0.0.1:9/v1", max_retries=0,
                         http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    calls = [i for t in turns for i in t if i.get("type") == "function_call"]

    def tool(name: str) -> Any:
        pending = [c["call_id"] for c in calls if c["name"] == name]

        async def invoke(ctx: Any, arguments: str) -> str:
            return str(outputs.get(pending.pop(0), "")) if pending else ""

        return FunctionTool(name=name, description=f"the recorded {name}", on_invoke_tool=invoke,
                            params_json_schema={"type": "object", "properties": {}, "additionalProperties": True},
                            strict_json_schema=False)

    tools = [tool(name) for name in dict.fromkeys(c["name"] for c in calls)]
    return Agent(name="assistant", model=OpenAIResponsesModel("gpt-5", client), tools=tools), given


def _as_json(event: Any) -> dict[str, Any]:
    """Returns a stream event as a relay sends it."""
    if event.type == "raw_response_event":
        return {"type": event.type, "data": event.data.model_dump(mode="json")}
    if event.type == "run_item_stream_event":
        raw = event.item.raw_item
        return {"type": event.type, "name": event.name,
                "item": raw.model_dump(mode="json") if hasattr(raw, "model_dump") else raw}
    return {"type": event.type, "agent": getattr(getattr(event, "new_agent", None), "name", None)}


async def _events(items: list[dict[str, Any]], text_only: bool) -> AsyncIterator[dict[str, Any]]:
    from agents import RunConfig, Runner

    agent, given = _agent(items)
    result = Runner.run_streamed(agent, given, run_config=RunConfig(tracing_disabled=True))
    async for event in result.stream_events():
        if text_only and not (event.type == "raw_response_event" and event.data.type == "response.output_text.delta"):
            continue
        yield _as_json(event)


def stream_events(items: list[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    """Returns the async iterator of every ``stream_events()`` event, as JSON."""
    return _events(items, text_only=False)


def text_deltas(items: list[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
    """Returns the async iterator of the ``response.output_text.delta`` raw events only, as JSON."""
    return _events(items, text_only=True)


_LIB = "openai-agents"
COMPONENTS = [
    Component(f"{_LIB}.Runner.run_streamed.stream_events", _LIB, "Runner.run_streamed(...).stream_events()",
              "defaults (tracing off), every event relayed as JSON", "browser-stream", "openai-responses",
              "conformance.egress.adapters.openai_agents_stream:stream_events", "agents",
              stops="none in the library: relay only raw response.output_text.delta events"),
    Component(f"{_LIB}.Runner.run_streamed.text_deltas", _LIB, "Runner.run_streamed(...).stream_events()",
              "only raw response.output_text.delta events relayed", "browser-stream", "openai-responses",
              "conformance.egress.adapters.openai_agents_stream:text_deltas", "agents"),
]
