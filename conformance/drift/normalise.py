"""Turn a recorded interaction into plain comparable data.

Bodies become parsed JSON, a streamed (SSE) response becomes the final object it assembles to,
and volatile values are set aside: scrubbed placeholders (and any reasoning text), ids, dates and
token counts are replaced by fixed stand-ins of the same type, so a change of type or a missing key
still shows.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from ..provider.recordings import BodyError, sse

SCRUBBED = re.compile(r"^\[scrubbed:[0-9a-f]{12}\]$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$")
ID_KEYS = frozenset({"id", "request_id", "tool_use_id", "container_id", "file_id"})
DATE_KEYS = frozenset({"created_at", "expires_at", "date"})
REASONING_BLOCKS = frozenset({"thinking", "redacted_thinking"})
STAND_IN = {"scrubbed": "<scrubbed>", "reasoning": "<reasoning>", "id": "<id>", "date": "<date>"}


def _text(body: Any) -> str:
    if isinstance(body, bytes):
        return body.decode("utf-8", "replace")
    return "" if body is None else str(body)


def is_token_count(key: str) -> bool:
    """Returns whether a key names a token count (``input_tokens``, ``cleared_input_tokens``, ...)."""
    return key.endswith("_tokens") or key == "tokens"


def _is_reasoning(block: Mapping[str, Any]) -> bool:
    """Returns whether a block, item or stream event carries reasoning: a thinking block, or a
    ``type`` naming reasoning (a reasoning item, a reasoning summary or text event)."""
    kind = block.get("type")
    return kind in REASONING_BLOCKS or (isinstance(kind, str) and "reasoning" in kind)


def mask(value: Any, key: str = "", in_usage: bool = False, in_reasoning: bool = False) -> Any:
    """Returns a copy of ``value`` with volatile values replaced by stand-ins of the same type.

    Every string of a reasoning block, item or event (``_is_reasoning``) except its ``type`` and
    ``signature`` (a field added later included), and every ``thinking`` string, reads as the
    reasoning stand-in; a ``type`` or ``status`` inside it stays (a part's kind, the item's state
    are no reasoning, and their change is drift).
    """
    if isinstance(value, Mapping):
        block = _is_reasoning(value)
        return {k: mask(v, str(k), in_usage or k == "usage",
                        in_reasoning or (block and k not in ("type", "signature"))) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v, key, in_usage, in_reasoning) for v in value]
    if isinstance(value, str):
        if SCRUBBED.match(value):
            return STAND_IN["scrubbed"]
        if (in_reasoning and key not in ("type", "status")) or key == "thinking":
            return STAND_IN["reasoning"]
        if key in ID_KEYS:
            return STAND_IN["id"]
        if key in DATE_KEYS or DATE.match(value):
            return STAND_IN["date"]
        return value
    if isinstance(value, int) and not isinstance(value, bool) and (in_usage or is_token_count(key)):
        return 0
    return value


def events(text: str) -> list[tuple[str, Any]]:
    """Returns the ``(event, data)`` pairs of a server-sent-events body; data parsed as JSON when it is."""
    found = []
    for chunk in re.split(r"\r?\n\r?\n", text):
        name, data = "message", []
        for line in chunk.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
        if data:
            raw = "\n".join(data)
            try:
                found.append((name, json.loads(raw)))
            except ValueError:
                found.append((name, raw))
    return found


def reassemble(text: str) -> dict[str, Any]:
    """Returns the final object a stream assembles to, read as ``conformance verify`` reads it
    (``recordings.sse``): the message of a Messages stream, the response of a Responses stream, or
    the error event it carried. A stream that reader cannot put together, or of another shape,
    comes back as ``{"object": "event-stream", "events": [...]}``: its events are compared, never
    an empty body."""
    try:
        stream = sse.events(text)
        if all(isinstance(data, dict) for _, data in stream):
            return sse.from_events(stream)
    except BodyError:
        pass
    return {"object": "event-stream", "events": [data for _, data in events(text)]}


def body(raw: Any, content_type: str = "") -> Any:
    """Returns a body as data: parsed JSON, a reassembled stream, or the text when it is neither."""
    text = _text(raw)
    if "event-stream" in content_type or text.lstrip().startswith(("event:", "data:")):
        return reassemble(text)
    try:
        return json.loads(text) if text else None
    except ValueError:
        return text


def _header(headers: Mapping[str, Any] | None, name: str) -> str:
    for key, value in (headers or {}).items():
        if str(key).lower() == name:
            return str(value[0] if isinstance(value, list) and value else value)
    return ""


def request_digest(request: Mapping[str, Any]) -> str:
    """Returns a short hash of the request body as parsed JSON (key order ignored)."""
    parsed = body(request.get("body") or "")
    canonical = json.dumps(parsed, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def interaction(item: Mapping[str, Any]) -> dict[str, Any]:
    """Returns one interaction as ``{request: {method, path, digest}, status, body}``, volatile values masked."""
    request, response = item.get("request") or {}, item.get("response") or {}
    raw = (response.get("body") or {}).get("string")
    return {
        "request": {"method": request.get("method"), "path": urlsplit(str(request.get("uri", ""))).path,
                    "digest": request_digest(request)},
        "status": (response.get("status") or {}).get("code"),
        "body": mask(body(raw, _header(response.get("headers"), "content-type"))),
    }


def cassette(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Returns the normalised interactions of a cassette, in recorded order."""
    return [interaction(item) for item in data.get("interactions") or []]


def parsed(data: Mapping[str, Any]) -> dict[str, Any]:
    """Returns the cassette with bodies parsed, streams as ``[event, data]`` lists, nothing masked.

This is the form a baseline update Delta records.
"""
    out = json.loads(json.dumps(data, default=_text))
    for item in out.get("interactions") or []:
        for side in ("request", "response"):
            part = item.get(side) or {}
            holder = part.get("body")
            if side == "response" and isinstance(holder, dict) and "string" in holder:
                text = _text(holder["string"])
                if "event-stream" in _header(part.get("headers"), "content-type"):
                    holder["string"] = [[name, data] for name, data in events(text)]
                else:
                    holder["string"] = body(text)
            elif side == "request" and isinstance(holder, str):
                part["body"] = body(holder)
    return out
