"""Browser-stream protocols read by their own schema: a payload that is a stream becomes its events,
each with its index, its type and its fields, and the deltas of one message joined in order.

A stream is what a target returned as stream events (a list of dicts or objects made plain), or
the body of a streaming HTTP response: server-sent events (``event:``/``data:``/``id:`` frames,
as AG-UI, the Vercel AI UI message stream and SDK relays send them) or the Vercel AI data stream's
``CODE:JSON`` lines. ``events`` returns ``(protocol, events)``; ``places`` yields ``(where, text)``
for every string of every event, named ``event N (TYPE) field``, and for the strings of one field
joined across the events of one message (``events N..M (TYPE id=X) field (joined)``). Plain data in,
plain data out; nothing here knows about canaries.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

AG_UI = "ag-ui"
VERCEL_UI = "vercel-ai-ui-message-stream"
VERCEL_DATA = "vercel-ai-data-stream"
ANTHROPIC = "anthropic-messages-stream"
OPENAI = "openai-responses-stream"
EVENTS = "events"

# AG-UI event types (ag-ui-protocol ``EventType``): the thinking and reasoning ones carry reasoning
AG_UI_TYPES = frozenset({
    "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK",
    "THINKING_TEXT_MESSAGE_START", "THINKING_TEXT_MESSAGE_CONTENT", "THINKING_TEXT_MESSAGE_END",
    "THINKING_START", "THINKING_END", "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END", "REASONING_MESSAGE_CHUNK", "REASONING_END", "REASONING_ENCRYPTED_VALUE",
    "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_CHUNK", "TOOL_CALL_RESULT",
    "STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "RAW", "CUSTOM",
    "RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "STEP_STARTED", "STEP_FINISHED"})
# Vercel AI SDK UI message stream chunk types (``ai`` 5+, ``x-vercel-ai-ui-message-stream: v1``)
VERCEL_UI_TYPES = frozenset({
    "start", "finish", "abort", "error", "start-step", "finish-step", "message-metadata",
    "text-start", "text-delta", "text-end", "reasoning-start", "reasoning-delta", "reasoning-end",
    "tool-input-start", "tool-input-delta", "tool-input-available", "tool-input-error",
    "tool-output-available", "tool-output-error", "tool-output-denied", "tool-approval-request",
    "source-url", "source-document", "file"})
# the Vercel AI data stream protocol (``ai`` 4): one part a line, ``CODE:JSON``
VERCEL_DATA_CODES = {"0": "text", "g": "reasoning", "i": "redacted_reasoning", "j": "reasoning_signature",
                     "2": "data", "3": "error", "8": "message_annotations", "9": "tool_call", "a": "tool_result",
                     "b": "tool_call_streaming_start", "c": "tool_call_delta", "d": "finish_message",
                     "e": "finish_step", "f": "start_step", "h": "source", "k": "file"}
ANTHROPIC_TYPES = frozenset({"message_start", "content_block_start", "content_block_delta", "content_block_stop",
                             "message_delta", "message_stop", "ping", "error"})
# per protocol: the field that names the message (or block) an event belongs to
STREAM_ID = {AG_UI: ("messageId", "message_id", "toolCallId", "tool_call_id"), VERCEL_UI: ("id", "toolCallId"),
             ANTHROPIC: ("index",), OPENAI: ("item_id", "output_index"), VERCEL_DATA: (), EVENTS: ("id", "index")}
_DATA_LINE = re.compile(r"^([0-9a-k]):(.*)$")
MAX_EVENTS = 100_000


def frames(text: str) -> list[dict[str, Any]]:
    """Returns the server-sent-event frames of ``text`` (``event``, ``id``, ``data`` with JSON data
    decoded), or [] when it is not an event stream."""
    if "data:" not in text:
        return []
    out: list[dict[str, Any]] = []
    frame: dict[str, Any] = {}
    data: list[str] = []

    def close() -> None:
        if data:
            body = "\n".join(data)
            try:
                frame["data"] = json.loads(body)
            except ValueError:
                frame["data"] = body
        if frame:
            out.append(dict(frame))
        frame.clear()
        data.clear()

    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if not line:
            close()
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name in ("event", "id", "retry"):
            frame[name] = value
        if len(out) >= MAX_EVENTS:
            break
    close()
    return out if any("data" in f for f in out) else []


def data_stream_parts(text: str) -> list[dict[str, Any]]:
    """Returns the Vercel AI data stream's parts of ``text`` (``type`` from the line's code, ``value``
    its JSON), or [] when fewer than all of its non-empty lines are parts."""
    lines = [line for line in text.splitlines() if line.strip()]
    parts: list[dict[str, Any]] = []
    for line in lines:
        match = _DATA_LINE.match(line)
        if not match:
            return []
        try:
            value = json.loads(match.group(2))
        except ValueError:
            return []
        parts.append({"type": VERCEL_DATA_CODES.get(match.group(1), match.group(1)), "value": value})
    return parts


def _type(event: Any) -> str:
    if not isinstance(event, dict):
        return ""
    kind = event.get("type") if isinstance(event.get("type"), str) else event.get("event", "")
    inner = event.get("data")
    if isinstance(inner, dict) and isinstance(inner.get("type"), str):
        kind = f"{kind}/{inner['type']}" if kind else inner["type"]
    return str(kind or "")


def protocol_of(events: list[Any]) -> str:
    """Returns the protocol whose event types ``events`` use (``events`` when none is recognised)."""
    kinds = {k.split("/")[-1] for k in map(_type, events) if k}
    if not kinds:
        return EVENTS
    for name, known in ((AG_UI, AG_UI_TYPES), (VERCEL_UI, VERCEL_UI_TYPES), (ANTHROPIC, ANTHROPIC_TYPES)):
        if len(kinds & known) * 2 > len(kinds):
            return name
    if sum(k.startswith("response.") for k in kinds) * 2 > len(kinds):
        return OPENAI
    return EVENTS


def events(payload: Any) -> tuple[str, list[Any]] | None:
    """Returns ``(protocol, events)`` when ``payload`` (plain data) is a stream: a list of events, an
    HTTP response record whose body is one, or a text or bytes body; else None."""
    if isinstance(payload, dict) and "body" in payload and "status" in payload:
        payload = payload["body"]
    if isinstance(payload, bytes):
        payload = payload.decode("utf-8", "replace")
    if isinstance(payload, list) and payload and all(isinstance(p, (str, bytes)) for p in payload):
        payload = "".join(p.decode("utf-8", "replace") if isinstance(p, bytes) else p for p in payload)
    if isinstance(payload, str):
        parts = data_stream_parts(payload)
        if parts:
            return VERCEL_DATA, parts
        found = frames(payload)
        if not found:
            return None
        unwrapped = [_unwrap(f) for f in found]
        return protocol_of(unwrapped), unwrapped
    if isinstance(payload, list) and len(payload) > 1 and all(isinstance(p, dict) for p in payload) \
            and any(_type(p) for p in payload):
        return protocol_of(payload), payload
    return None


def _unwrap(frame: dict[str, Any]) -> Any:
    """Returns a frame's data with its ``event`` name as ``type`` when the data has none."""
    data = frame.get("data")
    if isinstance(data, dict):
        if "type" not in data and "event" in frame:
            return {"type": frame["event"], **data}
        return data
    return {k: v for k, v in frame.items() if k != "retry"}


def _leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path or ".", value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}.{key}")
    elif isinstance(value, list):
        for j, item in enumerate(value):
            yield from _leaves(item, f"{path}[{j}]")


def _stream_id(protocol: str, event: Any) -> str:
    if not isinstance(event, dict):
        return ""
    data = event.get("data")
    scopes: tuple[dict[str, Any], ...] = (event, data if isinstance(data, dict) else {})
    for scope in scopes:
        for key in STREAM_ID.get(protocol, ()):
            if key in scope and scope[key] is not None:
                return f"{key} {str(scope[key])[:40]}"  # (each message of the stream joined apart)
    return ""


def places(protocol: str, items: list[Any]) -> Iterator[tuple[str, str]]:
    """Yields ``(where, text)`` for every string of every event, then, per event type, message and
    field, the strings of consecutive events joined in order (a delta stream read whole)."""
    groups: dict[tuple[str, str, str], list[tuple[int, str]]] = {}
    by_type: dict[tuple[str, str], list[tuple[int, str]]] = {}
    for i, event in enumerate(items):
        kind = _type(event) or "?"
        sid = _stream_id(protocol, event)
        for path, text in _leaves(event):
            yield f"{protocol} event {i} ({kind}) {path}", text
            groups.setdefault((kind, sid, path), []).append((i, text))
            by_type.setdefault((kind, path), []).append((i, text))
    for (kind, sid, path), parts in groups.items():
        if len(parts) > 1:
            span = f"{parts[0][0]}..{parts[-1][0]}"
            label = f"{kind} {sid}".strip()
            yield f"{protocol} events {span} ({label}) {path} (joined)", "".join(t for _, t in parts)
    for (kind, path), parts in by_type.items():
        if len(parts) > 1 and len({sid for (k, sid, p) in groups if k == kind and p == path}) > 1:
            yield (f"{protocol} events {parts[0][0]}..{parts[-1][0]} ({kind}, every message) {path} (joined)",
                   "".join(t for _, t in parts))


__all__ = ["AG_UI", "ANTHROPIC", "EVENTS", "OPENAI", "VERCEL_DATA", "VERCEL_UI", "data_stream_parts", "events",
           "frames", "places", "protocol_of"]
