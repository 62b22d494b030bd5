"""The emulator's streamed answers: a finished ``/v1/messages`` answer as the server-sent events the API sends.

The order and shapes follow real recordings of the API (see ``tests/provider/test_emulator_likeness.py``):
``message_start`` with empty content, the usage of the first pass and, when the answer has them,
the ``input_transformations`` of the prefix check, then per content block a
``content_block_start`` (a compaction block starts with ``content: null`` and its summary arrives in
one ``compaction_delta``; a text block starts empty and its text arrives in ``text_delta`` pieces),
a ``ping`` after the first block starts, ``content_block_stop``, then ``message_delta`` carrying the
stop reason, the final usage (the last pass, with ``usage.iterations``) and ``context_management``
at its top level, and ``message_stop``. On-demand compaction, known only from the documentation,
sends its one block whole in ``content_block_start`` with no delta.
"""

from __future__ import annotations

import json
from typing import Any

TEXT_PIECE = 16  # characters per text_delta: several deltas per block, as the API sends


def _start_form(block: dict[str, Any], whole: bool) -> dict[str, Any]:
    """Returns the block as ``content_block_start`` carries it: empty, or whole for on-demand compaction."""
    kind = block["type"]
    if whole:
        return dict(block)
    if kind == "text":
        return {"type": "text", "text": ""}
    if kind == "thinking":
        return {"type": "thinking", "thinking": "", "signature": ""}
    if kind == "tool_use":
        return {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
    if kind == "compaction":
        return {"type": "compaction", "content": None}
    return dict(block)


def _deltas(block: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the deltas that fill the started block in."""
    kind = block["type"]
    if kind == "text":
        text = block["text"]
        return [{"type": "text_delta", "text": text[i:i + TEXT_PIECE]} for i in range(0, len(text), TEXT_PIECE)] or [
            {"type": "text_delta", "text": ""}]
    if kind == "thinking":
        return [{"type": "thinking_delta", "thinking": block["thinking"]},
                {"type": "signature_delta", "signature": block["signature"]}]
    if kind == "tool_use":
        return [{"type": "input_json_delta", "partial_json": json.dumps(block["input"])}]
    if kind == "compaction":
        return [{"type": "compaction_delta", "content": block.get("content")}]
    return []


def _first_pass_usage(usage: dict[str, Any]) -> dict[str, Any]:
    """Returns the usage ``message_start`` carries: the input of the first pass, one output token so far."""
    first = (usage.get("iterations") or [usage])[0]
    return {"input_tokens": first["input_tokens"], "cache_creation_input_tokens": first["cache_creation_input_tokens"],
            "cache_read_input_tokens": first["cache_read_input_tokens"], "cache_creation": dict(usage["cache_creation"]),
            "output_tokens": 1, "service_tier": usage["service_tier"], "inference_geo": usage["inference_geo"]}


def events(answer: dict[str, Any], on_demand: bool = False) -> list[tuple[str, dict[str, Any]]]:
    """Returns ``(event name, data)`` for each server-sent event of a streamed ``answer``."""
    usage = answer["usage"]
    start = {"model": answer["model"], "id": answer["id"], "type": "message", "role": "assistant", "content": [],
             "stop_reason": None, "stop_sequence": None, "stop_details": None, "usage": _first_pass_usage(usage)}
    if "input_transformations" in answer:  # what the prefix check did arrives with the message it answers
        start["input_transformations"] = answer["input_transformations"]
    out: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(answer["content"]):
        whole = on_demand and block["type"] == "compaction"
        out.append(("content_block_start", {"type": "content_block_start", "index": index,
                                            "content_block": _start_form(block, whole)}))
        if index == 0:
            out.append(("ping", {"type": "ping"}))
        if not whole:
            out += [("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                    for delta in _deltas(block)]
        out.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    final = {key: usage[key] for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
                                         "output_tokens")}
    if "iterations" in usage:
        final["iterations"] = usage["iterations"]
    delta: dict[str, Any] = {"type": "message_delta",
                             "delta": {"stop_reason": answer["stop_reason"], "stop_sequence": answer["stop_sequence"],
                                       "stop_details": answer.get("stop_details")},
                             "usage": final}
    if "context_management" in answer:
        delta["context_management"] = answer["context_management"]
    out += [("message_delta", delta), ("message_stop", {"type": "message_stop"})]
    return out


def encode(stream: list[tuple[str, dict[str, Any]]]) -> bytes:
    """Returns the events as a ``text/event-stream`` body."""
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in stream).encode()
