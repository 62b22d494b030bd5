"""Drives an instrumented Anthropic client offline: each assistant message of a conversation is one
``client.messages.create`` call, the messages before it the request, the message itself the reply
served by the SDK's own mock transport. Shared by the tracing instrumentations' adapters."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

from .base import pieces, sse
from ..canaries import CREDENTIAL


def replay(history: list[dict[str, Any]], wrap: Callable[[Any], Any] | None = None, streamed: bool = False) -> None:
    """Calls ``messages.create`` once per assistant message of ``history`` through a client whose
    transport answers with that message (``wrap(client)`` when given, for a library that wraps the
    client); when the last reply was ``streamed``, the last call asks for ``stream=True``, is
    answered with the events the API sends for that message (``stream_events``) and is read to its
    end, as an agent streaming its replies does. Returns nothing (the instrumentation records the calls)."""
    import anthropic
    import httpx2

    replies: list[Any] = []

    def handler(request: Any) -> Any:
        reply = replies.pop(0)
        if isinstance(reply, list):
            return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(reply))
        return httpx2.Response(200, json=reply)

    client = anthropic.Anthropic(api_key=CREDENTIAL.value, base_url="http://127.0.0.1:9", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    if wrap is not None:
        client = wrap(client)
    last = max((i for i, message in enumerate(history) if message["role"] == "assistant"), default=-1)
    for i, message in enumerate(history):
        if message["role"] != "assistant":
            continue
        if streamed and i == last:
            replies.append(stream_events(message, i))
            for _ in client.messages.create(model="claude-sonnet-4-6", max_tokens=1024, messages=history[:i],
                                            stream=True):
                pass
            continue
        content = message["content"] if isinstance(message["content"], list) else [
            {"type": "text", "text": message["content"]}]
        uses_tools = any(b.get("type") == "tool_use" for b in content)
        replies.append({"id": f"msg_{i}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                        "content": content, "stop_reason": "tool_use" if uses_tools else "end_turn",
                        "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 10}})
        client.messages.create(model="claude-sonnet-4-6", max_tokens=1024, messages=history[:i])


@contextlib.contextmanager
def environment(**values: str) -> Iterator[None]:
    """Sets the environment variables given for the duration of the block, then restores them."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, old in before.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


def span_attributes(exporter: Any) -> list[dict[str, Any]]:
    """Returns every finished span's attributes from an ``InMemorySpanExporter``."""
    return [dict(span.attributes or {}) for span in exporter.get_finished_spans()]


def stream_events(message: dict[str, Any], index: int = 0) -> list[dict[str, Any]]:
    """Returns the Messages API stream events an assistant ``message`` arrives as (thinking,
    signature, text and tool input as deltas of ``base.PIECE`` characters; redacted thinking whole)."""
    content = message["content"] if isinstance(message["content"], list) else [
        {"type": "text", "text": message["content"]}]
    uses_tools = any(b.get("type") == "tool_use" for b in content)
    out: list[dict[str, Any]] = [{"type": "message_start", "message": {
        "id": f"msg_{index}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}}]

    for j, block in enumerate(content):
        kind = block.get("type")
        deltas: list[dict[str, Any]] = []
        if kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"])]
            if block.get("signature"):
                deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
        elif kind == "tool_use":
            import json

            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": p} for p in pieces(json.dumps(block["input"]))]
        else:
            start = dict(block)
        out.append({"type": "content_block_start", "index": j, "content_block": start})
        out += [{"type": "content_block_delta", "index": j, "delta": d} for d in deltas]
        out.append({"type": "content_block_stop", "index": j})
    out += [{"type": "message_delta", "delta": {"stop_reason": "tool_use" if uses_tools else "end_turn",
                                                 "stop_sequence": None}, "usage": {"output_tokens": 10}},
            {"type": "message_stop"}]
    return out


def streaming_client(replies: list[list[dict[str, Any]]]) -> Any:
    """Returns an ``anthropic.Anthropic`` client whose transport answers each request with the next
    of ``replies`` (each a list of stream events) as server-sent events."""
    import anthropic
    import httpx2

    def handler(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=sse(replies.pop(0)))

    return anthropic.Anthropic(api_key=CREDENTIAL.value, base_url="http://127.0.0.1:9", max_retries=0,
                               http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
