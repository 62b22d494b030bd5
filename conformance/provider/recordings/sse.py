"""Reassemble a recorded event stream (SSE) into the final object the non-streamed call returns.

Anthropic's Messages stream (``message_start``, which carries ``input_transformations``,
content block start/delta/stop, ``message_delta`` carrying stop reason, usage, the
``context_management`` report and, after a fallback, ``input_transformations`` again,
``message_stop``) becomes the message; OpenAI's Responses stream becomes the ``response`` of its terminal event (or, without one,
the created response with the finished output items). A stream of another shape comes back as
``{"object": "event-stream", "events": [...]}``; undecodable events raise ``BodyError``.
"""

from __future__ import annotations

import json
from typing import Any

from .model import BodyError

RESPONSES_TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def is_event_stream(text: str) -> bool:
    """Returns whether ``text`` reads as server-sent events (its first line is a field, ``event:``,
    ``data:``, ``id:`` or ``retry:``, or a ``:`` comment)."""
    for line in text.lstrip().splitlines():
        if line.strip():
            return line.startswith(("event:", "data:", "id:", "retry:", ":"))
    return False


def events(text: str) -> list[tuple[str, Any]]:
    """Returns ``(event name, parsed data)`` per event; raises ``BodyError`` on data that is not JSON."""
    found: list[tuple[str, Any]] = []
    name = ""
    data: list[str] = []
    for line in [*text.splitlines(), ""]:
        if not line.strip():
            if data:
                payload = "\n".join(data)
                if payload.strip() != "[DONE]":
                    try:
                        found.append((name, json.loads(payload)))
                    except ValueError:
                        raise BodyError(f"event {name or '?'} carries data that is not JSON") from None
            name, data = "", []
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
    return found


def _apply_delta(block: dict[str, Any], delta: dict[str, Any], partial: dict[int, str], index: int) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = (block.get("text") or "") + delta.get("text", "")
    elif kind == "thinking_delta":
        block["thinking"] = (block.get("thinking") or "") + delta.get("thinking", "")
    elif kind == "signature_delta":
        block["signature"] = (block.get("signature") or "") + delta.get("signature", "")
    elif kind == "input_json_delta":
        partial[index] = partial.get(index, "") + delta.get("partial_json", "")
    elif kind == "compaction_delta":
        block["content"] = (block.get("content") or "") + (delta.get("content") or "")
    elif kind == "citations_delta":
        block.setdefault("citations", []).append(delta.get("citation"))
    else:
        raise BodyError(f"content_block_delta of unknown type {kind!r}")


def _messages_stream(stream: list[tuple[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] | None = None
    partial: dict[int, str] = {}
    for _, data in stream:
        kind = data.get("type") if isinstance(data, dict) else None
        if kind == "message_start":
            message = dict(data.get("message") or {})
            message["content"] = list(message.get("content") or [])
        elif kind == "error":
            return {"type": "error", "error": data.get("error")}
        elif message is None or kind in ("ping", "message_stop"):
            continue
        elif kind == "content_block_start":
            index = int(data.get("index", len(message["content"])))
            while len(message["content"]) <= index:
                message["content"].append({})
            message["content"][index] = dict(data.get("content_block") or {})
        elif kind == "content_block_delta":
            index = int(data.get("index", 0))
            if index >= len(message["content"]):
                raise BodyError(f"content_block_delta for block {index} that never started")
            _apply_delta(message["content"][index], data.get("delta") or {}, partial, index)
        elif kind == "content_block_stop":
            index = int(data.get("index", 0))
            if index in partial and index < len(message["content"]):
                text = partial.pop(index)
                try:
                    message["content"][index]["input"] = json.loads(text) if text.strip() else {}
                except ValueError:
                    raise BodyError(f"tool input of block {index} is not JSON when the block stops") from None
        elif kind == "message_delta":
            message.update({k: v for k, v in (data.get("delta") or {}).items() if k != "context_management"})
            message["usage"] = {**(message.get("usage") or {}), **(data.get("usage") or {})}
            report = data.get("context_management") or (data.get("delta") or {}).get("context_management")
            if report is not None:
                message["context_management"] = report
            # After a server-side fallback mid-stream, the last message_delta carries the serving
            # model's input_transformations again: they replace what message_start said.
            changed = data.get("input_transformations")
            if changed is not None:
                message["input_transformations"] = changed
    if message is None:
        raise BodyError("event stream without message_start")
    return message


def _responses_stream(stream: list[tuple[str, Any]]) -> dict[str, Any]:
    created: dict[str, Any] | None = None
    items: dict[int, Any] = {}
    for name, data in stream:
        kind = (data.get("type") if isinstance(data, dict) else None) or name
        if kind in RESPONSES_TERMINAL and isinstance(data.get("response"), dict):
            return dict(data["response"])
        if kind == "response.created" and isinstance(data.get("response"), dict):
            created = dict(data["response"])
        elif kind == "response.output_item.done":
            items[int(data.get("output_index", len(items)))] = data.get("item")
        elif kind == "error":
            return {"object": "error", "error": data.get("error") or data}
    if created is None:
        raise BodyError("Responses event stream without response.created or a terminal event")
    created["output"] = [items[i] for i in sorted(items)]
    return created


STREAM_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                           "message_delta", "message_stop", "ping", "response.created", "response.in_progress",
                           "response.output_item.added", "response.output_item.done", *RESPONSES_TERMINAL})


def is_stream_event(data: Any) -> bool:
    """Returns whether a parsed JSON object is one event of a Messages or Responses stream."""
    return isinstance(data, dict) and data.get("type") in STREAM_EVENTS


def reassemble(text: str) -> dict[str, Any]:
    """Returns the final object of an Anthropic Messages or OpenAI Responses event stream, or the
    events of a stream of another shape. Raises ``BodyError`` for undecodable events.
    """
    return from_events(events(text))


def from_events(stream: list[tuple[str, Any]]) -> dict[str, Any]:
    """Returns the final object of parsed ``(event name, data)`` pairs (see ``reassemble``).

    Raises ``BodyError`` when a Messages or Responses stream cannot be put together.
    """
    kinds = [(data.get("type") if isinstance(data, dict) else None) or name for name, data in stream]
    if "message_start" in kinds:
        return _messages_stream(stream)
    if any(str(k).startswith("response.") for k in kinds):
        return _responses_stream(stream)
    # Another provider's stream: kept as its events, for a judge of that provider to read.
    return {"object": "event-stream", "events": [data for _, data in stream]}
