"""OpenAI Chat Completions ``messages``, as plain dicts.

Field names from the ``openai`` SDK's type definitions, checked against openai 3.57.0:
``ChatCompletionUserMessageParam`` (``role``, ``content``: str or parts),
``ChatCompletionAssistantMessageParam`` (``role``, ``content``: str or text parts, ``tool_calls``),
``ChatCompletionMessageFunctionToolCallParam`` (``id``, ``type: "function"``,
``function: {name, arguments}`` with ``arguments`` a JSON string),
``ChatCompletionToolMessageParam`` (``role: "tool"``, ``tool_call_id``, ``content``: str or text
parts), ``ChatCompletionSystemMessageParam`` (``role: "system"``, ``content``: str or text parts),
``ChatCompletionContentPartTextParam`` (``type: "text"``, ``text``).

An assistant message becomes one message: its text as ``content``, its ``tool_use`` blocks as
``tool_calls``. A user message of tool results becomes one ``tool`` message per result, then a
``user`` message for any other blocks. Not carried: reasoning (the format has no field for it),
an error flag on a tool result, text after a tool call, text before a tool result, media, server
tools, and cache or citation fields.
"""

from __future__ import annotations

import json
from typing import Any

from .._text import a_type
from ..engine.transcript import blocks as content_blocks
from .base import Format, FormatError, History, require, shape_reason, text_only

TITLE = "Chat Completions messages"
_TEXT = frozenset({"text"})
CARRIED = {
    "user": {"text": _TEXT, "tool_result": frozenset({"tool_use_id", "content"})},
    "assistant": {"text": _TEXT, "tool_use": frozenset({"id", "name", "input"})},
    "system": {"text": _TEXT},
}


def reason(history: History) -> str | None:
    """Returns why ``history`` cannot be written as Chat Completions messages, or None."""
    for i, message in enumerate(history):
        for block in message["content"] if isinstance(message.get("content"), list) else []:
            if isinstance(block, dict) and block.get("type") in ("thinking", "redacted_thinking"):
                return f"{block['type']} block (message {i}): Chat Completions messages carry no reasoning"
    found = shape_reason(history, CARRIED, TITLE)
    if found:
        return found
    for i, message in enumerate(history):
        for b in content_blocks(message):
            if b["type"] == "tool_result" and "content" not in b:
                return f"a tool result without content (message {i}): a tool message requires content"
    for i, message in enumerate(history):
        kinds = [b["type"] for b in content_blocks(message)]
        if message["role"] == "assistant" and "tool_use" in kinds and "text" in kinds[kinds.index("tool_use"):]:
            return f"text after a tool call (message {i}): an assistant message puts its text before its tool_calls"
        if message["role"] == "user" and "tool_result" in kinds:
            if "text" in kinds[: len(kinds) - kinds[::-1].index("tool_result")]:
                return f"text before a tool result (message {i}): tool messages come before the user's text"
            if not all(text_only(b.get("content", "")) for b in content_blocks(message) if b["type"] == "tool_result"):
                return f"a tool result with media (message {i}): a tool message carries text only"
            nxt = history[i + 1] if i + 1 < len(history) else None
            if kinds[-1] == "tool_result" and nxt is not None and nxt.get("role") == "user":
                return (f"a user message right after tool results (message {i + 1}): "
                        "it would merge with the tool messages before it")
    return None


def _parts(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": b["text"]} for b in blocks]


def to_format(history: History) -> list[dict[str, Any]]:
    """Returns ``history`` as Chat Completions messages."""
    out: list[dict[str, Any]] = []
    for message in history:
        content = message["content"]
        if message["role"] == "system":
            out.append({"role": "system", "content": content if isinstance(content, str) else _parts(content)})
            continue
        if message["role"] == "assistant":
            if isinstance(content, str):
                out.append({"role": "assistant", "content": content})
                continue
            texts = [b for b in content if b["type"] == "text"]
            calls = [{"id": b["id"], "type": "function",
                      "function": {"name": b["name"], "arguments": json.dumps(b["input"], ensure_ascii=False)}}
                     for b in content if b["type"] == "tool_use"]
            item: dict[str, Any] = {"role": "assistant"}
            if texts or not calls:
                item["content"] = _parts(texts)
            if calls:
                item["tool_calls"] = calls
            out.append(item)
            continue
        if isinstance(content, str):
            out.append({"role": "user", "content": content})
            continue
        results = [b for b in content if b["type"] == "tool_result"]
        for b in results:
            body = b["content"]
            out.append({"role": "tool", "tool_call_id": b["tool_use_id"],
                        "content": body if isinstance(body, str) else _parts(body)})
        rest = [b for b in content if b["type"] != "tool_result"]
        if rest or not results:
            out.append({"role": "user", "content": _parts(rest)})
    return out


def _blocks_of(content: Any, where: str) -> list[dict[str, Any]]:
    require(isinstance(content, list), f"{where}: content is neither a string nor a list of parts")
    for part in content:
        require(isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str),
                f"{where}: a content part that is not a text part")
    return [{"type": "text", "text": p["text"]} for p in content]


def from_format(messages: list[Any]) -> History:
    """Returns Chat Completions messages as an Anthropic-shaped history; raises ``FormatError``."""
    out: History = []
    pending: list[dict[str, Any]] = []  # tool results waiting for the user message they open
    for n, message in enumerate(messages):
        require(isinstance(message, dict), f"message {n} is {a_type(message)}, not a dict")
        role = message.get("role")
        if role == "tool":
            body = message.get("content")
            require(isinstance(message.get("tool_call_id"), str), f"message {n}: a tool message without tool_call_id")
            pending.append({"type": "tool_result", "tool_use_id": message["tool_call_id"],
                            "content": body if isinstance(body, str) else _blocks_of(body, f"message {n}")})
            continue
        if role == "user":
            content = message.get("content")
            if pending:
                rest = ([{"type": "text", "text": content}] if isinstance(content, str)
                        else _blocks_of(content, f"message {n}"))
                out.append({"role": "user", "content": pending + rest})
                pending = []
            else:
                out.append({"role": "user", "content": content if isinstance(content, str)
                            else _blocks_of(content, f"message {n}")})
            continue
        if pending:
            out.append({"role": "user", "content": pending})
            pending = []
        if role == "system":
            content = message.get("content")
            out.append({"role": "system", "content": content if isinstance(content, str)
                        else _blocks_of(content, f"message {n}")})
            continue
        require(role == "assistant", f"message {n}: role {role!r} has no Anthropic counterpart")
        content = message.get("content")
        calls = message.get("tool_calls") or []
        if isinstance(content, str) and not calls:
            out.append({"role": "assistant", "content": content})
            continue
        blocks = ([{"type": "text", "text": content}] if isinstance(content, str)
                  else [] if content is None else _blocks_of(content, f"message {n}"))
        for call in calls:
            try:
                function = call["function"]
                blocks.append({"type": "tool_use", "id": call["id"], "name": function["name"],
                               "input": json.loads(function["arguments"])})
            except (KeyError, TypeError, ValueError) as exc:
                raise FormatError(f"message {n}: a malformed tool call ({type(exc).__name__}: {exc})") from None
        out.append({"role": "assistant", "content": blocks})
    if pending:
        out.append({"role": "user", "content": pending})
    return out


FORMAT = Format("openai-chat", TITLE, "openai 3.57.0", reason, to_format, from_format)
