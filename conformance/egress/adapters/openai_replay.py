"""Drives an instrumented OpenAI client offline on Responses items: each model turn of a
conversation (the reasoning, function call and assistant message items between inputs) is one
``client.responses.create`` call, the items before it the request's input, the turn's items the
response served by the SDK's own mock transport. Shared by the tracers' OpenAI adapters."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

_MODEL_ITEMS = ("reasoning", "function_call")


def from_model(item: dict[str, Any]) -> bool:
    """Returns whether a Responses item is model output (reasoning, a function call, an assistant message)."""
    return item.get("type") in _MODEL_ITEMS or (item.get("type") == "message" and item.get("role") == "assistant")


def turns(items: list[dict[str, Any]]) -> list[tuple[int, list[dict[str, Any]]]]:
    """Returns each model turn as ``(index of its first item, its items)``."""
    out: list[tuple[int, list[dict[str, Any]]]] = []
    for i, item in enumerate(items):
        if not from_model(item):
            continue
        if out and out[-1][0] + len(out[-1][1]) == i:
            out[-1][1].append(item)
        else:
            out.append((i, [item]))
    return out


def response(n: int, output: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    """Returns a Responses API response body with ``output`` items (its id unique, as the API's are:
    a tracer may key what it keeps by the response id)."""
    full = []
    for k, item in enumerate(output):
        item = {**item, "id": item.get("id") or f"fc_{n}_{k}"}
        if item["type"] in ("message", "function_call"):
            item.setdefault("status", "completed")
        full.append(item)
    return {"id": f"resp_{n}_{uuid.uuid4().hex[:12]}", "object": "response", "created_at": 1_700_000_000, "model": "gpt-5",
            "status": status, "output": full, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": 10, "output_tokens": 10, "total_tokens": 20,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 5}}}


def client(replies: list[dict[str, Any]]) -> Any:
    """Returns an ``openai.OpenAI`` client whose transport answers each request with the next of
    ``replies`` (response bodies)."""
    import httpx2
    import openai

    def handler(request: Any) -> Any:
        return httpx2.Response(200, json=replies.pop(0))

    return openai.OpenAI(api_key="offline", base_url="http://127.0.0.1:9/v1", max_retries=0,
                         http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def replay(items: list[dict[str, Any]], wrap: Callable[[Any], Any] | None = None, make: Any = None) -> None:
    """Calls ``responses.create`` once per model turn of ``items`` through a client whose transport
    answers with that turn (``wrap(client)`` when given; ``make(replies)`` builds the client when
    a library brings its own client class); returns nothing (the tracer records the calls)."""
    found = turns(items)
    replies = [response(n, turn) for n, (_, turn) in enumerate(found)]
    made = (make or client)(replies)
    if wrap is not None:
        made = wrap(made)
    for start, _ in found:
        made.responses.create(model="gpt-5", input=items[:start], include=["reasoning.encrypted_content"],
                              store=False)
