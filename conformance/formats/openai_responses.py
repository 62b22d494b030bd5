"""OpenAI Responses API input items, as plain dicts.

Field names from the ``openai`` SDK's type definitions, checked against openai 3.57.0:
``EasyInputMessageParam`` (``type: "message"``, ``role``, ``content``: str or input parts),
``ResponseInputTextParam`` (``type: "input_text"``, ``text``), ``ResponseOutputMessageParam``
(``type: "message"``, ``role: "assistant"``, ``id``, ``status``, ``content``),
``ResponseOutputTextParam`` (``type: "output_text"``, ``text``, ``annotations``),
``ResponseFunctionToolCallParam`` (``type: "function_call"``, ``call_id``, ``name``, ``arguments``
as a JSON string), ``FunctionCallOutput`` (``type: "function_call_output"``, ``call_id``,
``output``: str or input parts), ``ResponseReasoningItemParam`` (``type: "reasoning"``, ``id``,
``summary``, ``content`` of ``reasoning_text`` parts, ``encrypted_content``).

Items are flat: consecutive items of one side (a message, reasoning, calls; or a message and call
outputs) form one Anthropic message, so two consecutive messages of one role are not carried.
A ``thinking`` block is a reasoning item whose ``content`` holds the text and whose
``encrypted_content`` holds the signature; ``redacted_thinking`` is one with ``encrypted_content``
and no ``content``. Not carried: an error flag on a tool result, media, server tools, cache or
citation fields.
"""

from __future__ import annotations

import json
from typing import Any

from .._text import a_type
from .base import Format, FormatError, History, consecutive_roles, shape_reason, text_only

TITLE = "Responses input items"
_TEXT = frozenset({"text"})
CARRIED = {
    "user": {"text": _TEXT, "tool_result": frozenset({"tool_use_id", "content"})},
    "assistant": {"text": _TEXT, "tool_use": frozenset({"id", "name", "input"}),
                  "thinking": frozenset({"thinking", "signature"}), "redacted_thinking": frozenset({"data"})},
}
_ASSISTANT_ITEMS = ("reasoning", "function_call")


def reason(history: History) -> str | None:
    """Returns why ``history`` cannot be written as Responses input items, or None."""
    found = shape_reason(history, CARRIED, TITLE)
    if found:
        return found
    for role in ("user", "assistant"):
        i = consecutive_roles(history, role)
        if i is not None:
            return f"two consecutive {role} messages (message {i}): flat items do not mark where a message ends"
    for i, message in enumerate(history):
        content = message["content"]
        for b in content if isinstance(content, list) else []:
            if b["type"] == "tool_result" and not text_only(b.get("content", "")):
                return f"a tool result with media (message {i}): a call output is text here"
            if b["type"] == "tool_result" and "content" not in b:
                return f"a tool result without content (message {i}): a call output requires output"
            if b["type"] == "thinking" and not isinstance(b.get("signature"), str):
                return f"a thinking block without a signature (message {i})"
    return None


def _text_part(kind: str, text: str) -> dict[str, Any]:
    return {"type": kind, "text": text, "annotations": []} if kind == "output_text" else {"type": kind, "text": text}


def to_format(history: History) -> list[dict[str, Any]]:
    """Returns ``history`` as Responses input items."""
    out: list[dict[str, Any]] = []
    for i, message in enumerate(history):
        content = message["content"]
        role = message["role"]
        if isinstance(content, str):
            out.append({"type": "message", "role": role, "content": content})
            continue
        if not content:
            out.append({"type": "message", "role": role, "content": []})
            continue
        kind = "output_text" if role == "assistant" else "input_text"
        for j, b in enumerate(content):
            t = b["type"]
            if t == "text":
                if out and out[-1].get("type") == "message" and out[-1].get("_open") == i:
                    out[-1]["content"].append(_text_part(kind, b["text"]))
                    continue
                item: dict[str, Any] = {"type": "message", "role": role, "content": [_text_part(kind, b["text"])]}
                if role == "assistant":
                    item.update(id=f"msg_{i}_{j}", status="completed")
                item["_open"] = i
                out.append(item)
                continue
            if t == "tool_use":
                out.append({"type": "function_call", "call_id": b["id"], "name": b["name"],
                            "arguments": json.dumps(b["input"], ensure_ascii=False)})
            elif t == "tool_result":
                body = b["content"]
                out.append({"type": "function_call_output", "call_id": b["tool_use_id"],
                            "output": body if isinstance(body, str)
                            else [_text_part("input_text", p["text"]) for p in body]})
            elif t == "thinking":
                out.append({"type": "reasoning", "id": f"rs_{i}_{j}", "summary": [],
                            "content": [{"type": "reasoning_text", "text": b["thinking"]}],
                            "encrypted_content": b["signature"]})
            else:
                out.append({"type": "reasoning", "id": f"rs_{i}_{j}", "summary": [], "encrypted_content": b["data"]})
    for item in out:
        item.pop("_open", None)
    return out


def _side(item: dict[str, Any]) -> str:
    kind = item.get("type", "message")
    if kind == "message":
        role = item.get("role")
        if role == "user" or role == "assistant":  # (the message is worded only when it is raised)
            return str(role)
        raise FormatError(f"a message item with role {role!r} has no Anthropic counterpart")
    if kind in _ASSISTANT_ITEMS:
        return "assistant"
    if kind != "function_call_output":
        raise FormatError(f"an item of type {kind!r} has no Anthropic counterpart")
    return "user"


def _block(item: dict[str, Any], n: int) -> list[dict[str, Any]]:
    kind = item.get("type", "message")
    try:
        if kind == "message":
            content = item["content"]
            if isinstance(content, str):
                return [{"type": "text", "text": content}]
            return [{"type": "text", "text": p["text"]} for p in content]
        if kind == "function_call":
            return [{"type": "tool_use", "id": item["call_id"], "name": item["name"],
                     "input": json.loads(item["arguments"])}]
        if kind == "function_call_output":
            body = item["output"]
            return [{"type": "tool_result", "tool_use_id": item["call_id"],
                     "content": body if isinstance(body, str) else [{"type": "text", "text": p["text"]} for p in body]}]
        if "content" in item and item["content"] is not None:
            return [{"type": "thinking", "thinking": "".join(p["text"] for p in item["content"]),
                     "signature": item["encrypted_content"]}]
        return [{"type": "redacted_thinking", "data": item["encrypted_content"]}]
    except (KeyError, TypeError, ValueError) as exc:
        raise FormatError(f"item {n}: a malformed {kind} item ({type(exc).__name__}: {exc})") from None


def from_format(items: list[Any]) -> History:
    """Returns Responses input items as an Anthropic-shaped history; raises ``FormatError``."""
    return from_format_indexed(items)[0]


def from_format_indexed(items: list[Any]) -> tuple[History, list[int]]:
    """Returns what ``from_format`` returns, and for each of its messages the index of the item that
    opened it (consecutive items of one side share a message); raises ``FormatError``."""
    out: History = []
    opened: list[int] = []
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            raise FormatError(f"item {n} is {a_type(item)}, not a dict")
        side = _side(item)
        alone = item.get("type", "message") == "message" and isinstance(item.get("content"), str)
        if alone or (item.get("type", "message") == "message" and item.get("content") == []):
            out.append({"role": side, "content": item["content"]})
            opened.append(n)
            continue
        blocks = _block(item, n)
        last = out[-1] if out else None
        if last is not None and last["role"] == side and isinstance(last["content"], list) and last["content"]:
            last["content"].extend(blocks)
        else:
            out.append({"role": side, "content": blocks})
            opened.append(n)
    return out, opened


def reasoning_of(item: Any) -> list[Any]:
    """Returns the summary and content texts of a reasoning item, and its ``encrypted_content``
    when it has no content (it reads as ``redacted_thinking`` data then; beside content it holds
    the thinking block's signature); nothing for another item."""
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return []
    content = item.get("content")
    parts = [*(item.get("summary") or []), *(content or [])]
    texts = [p.get("text") for p in parts if isinstance(p, dict)]
    return texts if content else [*texts, item.get("encrypted_content")]


FORMAT = Format("openai-responses", TITLE, "openai 3.57.0", reason, to_format, from_format,
                reasoning_of=reasoning_of)
