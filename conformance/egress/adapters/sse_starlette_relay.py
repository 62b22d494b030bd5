"""FastAPI + sse-starlette relaying the Anthropic SDK's stream to a browser: an endpoint that
answers with ``EventSourceResponse`` over ``client.messages.create(..., stream=True)``, one
server-sent event per SDK event (``event.type``, ``event.model_dump_json()``), as the common relay
does; and the same endpoint relaying the SDK's own text-only iterator
(``client.messages.stream(...).text_stream``). Served by uvicorn on 127.0.0.1 and read as a browser
reads it. Each assistant message of the conversation is one streamed call, answered by the SDK's
mock transport with that message's stream events (the recorded ones for a streamed reply)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .anthropic_replay import stream_events, streaming_client
from .base import Component
from .local_server import open_stream


def _replies(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None) -> list[list[dict[str, Any]]]:
    turns = [i for i, m in enumerate(history) if m["role"] == "assistant"]
    return [stream if stream is not None and i == turns[-1] else stream_events(history[i], i) for i in turns]


def _app(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None, text_only: bool) -> Any:
    from fastapi import FastAPI
    from sse_starlette import EventSourceResponse

    app = FastAPI()
    client = streaming_client(_replies(history, stream))
    turns = [i for i, m in enumerate(history) if m["role"] == "assistant"]

    def relay() -> Iterator[dict[str, str]]:
        for i in turns:
            request = {"model": "claude-sonnet-4-6", "max_tokens": 1024, "messages": history[:i]}
            if text_only:
                with client.messages.stream(**request) as events:
                    for text in events.text_stream:
                        yield {"event": "text", "data": text}
            else:
                for event in client.messages.create(**request, stream=True):
                    yield {"event": event.type, "data": event.model_dump_json()}

    @app.get("/chat")
    def chat() -> EventSourceResponse:
        return EventSourceResponse(relay())

    return app


def every_event(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> Any:
    """Returns the streaming HTTP response relaying every SDK stream event."""
    return open_stream(_app(history, stream, text_only=False), "/chat", method="GET")


def text_stream(history: list[dict[str, Any]], stream: list[dict[str, Any]] | None = None) -> Any:
    """Returns the streaming HTTP response relaying ``MessageStream.text_stream``."""
    return open_stream(_app(history, stream, text_only=True), "/chat", method="GET")


_LIB = "sse-starlette"
COMPONENTS = [
    Component(f"{_LIB}.EventSourceResponse.messages_stream_events", _LIB, "EventSourceResponse",
              "FastAPI endpoint relaying every event of client.messages.create(stream=True) as event.model_dump_json()",
              "browser-stream", "anthropic", "conformance.egress.adapters.sse_starlette_relay:every_event",
              "sse_starlette", stops="none in the library: relay client.messages.stream(...).text_stream "
              "(the Anthropic SDK's text-only iterator)"),
    Component(f"{_LIB}.EventSourceResponse.text_stream", _LIB, "EventSourceResponse",
              "FastAPI endpoint relaying client.messages.stream(...).text_stream", "browser-stream", "anthropic",
              "conformance.egress.adapters.sse_starlette_relay:text_stream", "sse_starlette"),
]
