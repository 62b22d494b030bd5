"""Drives an instrumented OpenAI client offline on Responses items: each model turn of a
conversation (the reasoning, function call and assistant message items between inputs) is one
``client.responses.create`` call, the items before it the request's input, the turn's items the
response served by the SDK's own mock transport. Shared by the tracers' OpenAI adapters."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from .base import pieces, sse
from ..canaries import CREDENTIAL

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


def turn_events(n: int, output: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns the Responses stream events one model turn with ``output`` items arrives as."""
    events: list[dict[str, Any]] = [{"type": "response.created", "response": response(n, [], "in_progress")}]
    full: list[dict[str, Any]] = []
    for k, raw in enumerate(output):
        item = {**raw, "id": raw.get("id") or f"fc_{n}_{k}"}
        if item["type"] == "message":
            item.setdefault("status", "completed")
        kind = item["type"]
        empty = {**item, "summary": [], "content": []} if kind == "reasoning" else \
            {**item, "content": []} if kind == "message" else {**item, "arguments": ""}
        events.append({"type": "response.output_item.added", "output_index": k, "item": empty})
        where = {"item_id": item["id"], "output_index": k}
        if kind == "reasoning":
            for s, part in enumerate(item.get("summary") or []):
                events.append({"type": "response.reasoning_summary_part.added", **where, "summary_index": s,
                               "part": {"type": "summary_text", "text": ""}})
                events += [{"type": "response.reasoning_summary_text.delta", **where, "summary_index": s, "delta": p}
                           for p in pieces(part["text"])]
            for c, part in enumerate(item.get("content") or []):
                events += [{"type": "response.reasoning_text.delta", **where, "content_index": c, "delta": p}
                           for p in pieces(part["text"])]
        elif kind == "message":
            for c, part in enumerate(item.get("content") or []):
                events.append({"type": "response.content_part.added", **where, "content_index": c,
                               "part": {"type": "output_text", "text": "", "annotations": []}})
                events += [{"type": "response.output_text.delta", **where, "content_index": c, "delta": p,
                            "logprobs": []} for p in pieces(part.get("text", ""))]
        elif kind == "function_call":
            events += [{"type": "response.function_call_arguments.delta", **where, "delta": p}
                       for p in pieces(item.get("arguments", ""))]
        events.append({"type": "response.output_item.done", "output_index": k, "item": item})
        full.append(item)
    events.append({"type": "response.completed", "response": response(n, full)})
    return [{**e, "sequence_number": i} for i, e in enumerate(events)]


def client(replies: list[Any]) -> Any:
    """Returns an ``openai.OpenAI`` client whose transport answers each request with the next of
    ``replies``: a response body, or a list of stream events sent as server-sent events."""
    import httpx2
    import openai

    def handler(request: Any) -> Any:
        return answer(replies.pop(0))

    return openai.OpenAI(api_key=CREDENTIAL.value, base_url="http://127.0.0.1:9/v1", max_retries=0,
                         http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def answer(reply: Any) -> Any:
    """Returns the ``httpx2.Response`` of one reply: a response body as JSON, a list of stream
    events as the Responses API's server-sent events."""
    import httpx2

    if isinstance(reply, list):
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(reply))
    return httpx2.Response(200, json=reply)


def replay(items: list[dict[str, Any]], wrap: Callable[[Any], Any] | None = None, make: Any = None,
           streamed: bool = False) -> None:
    """Calls ``responses.create`` once per model turn of ``items`` through a client whose transport
    answers with that turn (``wrap(client)`` when given; ``make(replies)`` builds the client when
    a library brings its own client class); when the last turn was ``streamed``, the last call asks
    for ``stream=True``, is answered with the events the API sends for that turn (``turn_events``)
    and is read to its end. Returns nothing (the tracer records the calls)."""
    found = turns(items)
    replies: list[Any] = [response(n, turn) for n, (_, turn) in enumerate(found)]
    if streamed and found:
        replies[-1] = turn_events(len(found) - 1, found[-1][1])
    made = (make or client)(replies)
    if wrap is not None:
        made = wrap(made)
    for n, (start, _) in enumerate(found):
        last = streamed and n == len(found) - 1
        answered = made.responses.create(model="gpt-5", input=items[:start], include=["reasoning.encrypted_content"],
                                         store=False, **({"stream": True} if last else {}))
        if last:
            for _ in answered:
                pass
