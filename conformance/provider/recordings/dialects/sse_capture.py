"""SSE captures: a file of the server-sent events of one streamed response (``event:``/``data:``
lines, as ``curl -N`` or a test fixture saved them), or a JSON array of the stream's events. One
response-only interaction per file, reassembled into the final message or response.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import sse
from ..model import BodyError, Interaction
from ..parts import unreadable
from .jsonl import response_only

NAME = "sse"


def recognises_text(head: str) -> bool:
    """Returns whether the start of a file reads as server-sent events whose first data is JSON
    (so a YAML document whose first key is ``data:`` or ``id:`` is not taken for one)."""
    if not sse.is_event_stream(head):
        return False
    first = next((line[5:].strip() for line in head.splitlines() if line.startswith("data:")), None)
    return first is not None and (first.startswith("{") or first == "[DONE]")


def interactions_of_text(file: str, text: str) -> Iterator[Interaction]:
    """Yields the one response-only interaction of an SSE capture (unreadable when it does not assemble)."""
    try:
        stream = sse.events(text)
    except BodyError as exc:
        yield unreadable(file, 0, f"event stream: {exc}", dialect=NAME)
        return
    yield response_only(file, stream, NAME)


def recognises(document: Any) -> bool:
    """Returns whether the document is a JSON array of stream events."""
    return isinstance(document, list) and bool(document) and sse.is_stream_event(document[0])


def interactions(file: str, document: Any) -> Iterator[Interaction]:
    """Yields the one response-only interaction of a JSON array of stream events."""
    yield response_only(file, [("", event) for event in document], NAME)
