"""Amazon Bedrock Converse messages, the message shape of Strands Agents, as plain dicts.

Field names from Strands' type definitions (``strands.types.content``, ``strands.types.tools``),
checked against strands-agents 1.62.0, which mirror the Converse API: ``Message`` (``role``,
``content``: a list of ``ContentBlock``), ``ContentBlock`` (``text``, ``toolUse``, ``toolResult``,
``reasoningContent``), ``ToolUse`` (``toolUseId``, ``name``, ``input``), ``ToolResult``
(``toolUseId``, ``content``: a list of ``{"text": ...}``, ``status``: ``"success"`` / ``"error"``),
``ReasoningContentBlock`` (``reasoningText: {text, signature}`` or ``redactedContent``: bytes).

Content is always a list here, so a string content and one text block look alike (and so do a
tool result's string content and one text part): an unchanged one comes back as it was given.
Not carried: media, server tools, cache or citation fields.
"""

from __future__ import annotations

from typing import Any

from .._text import article
from .base import Block, Format, FormatError, History, require, shape_reason, text_only

TITLE = "Bedrock Converse messages"
_TEXT = frozenset({"text"})
CARRIED = {
    "user": {"text": _TEXT, "tool_result": frozenset({"tool_use_id", "content", "is_error"})},
    "assistant": {"text": _TEXT, "tool_use": frozenset({"id", "name", "input"}),
                  "thinking": frozenset({"thinking", "signature"}), "redacted_thinking": frozenset({"data"})},
}
_STATUS = {True: "error", False: "success"}


def reason(history: History) -> str | None:
    """Returns why ``history`` cannot be written as Converse messages, or None."""
    found = shape_reason(history, CARRIED, TITLE)
    if found:
        return found
    for i, message in enumerate(history):
        content = message["content"]
        for b in content if isinstance(content, list) else []:
            if b["type"] == "tool_result":
                if not text_only(b.get("content", "")):
                    return f"a tool result with media (message {i}): carried as text parts only here"
                if "is_error" in b and not isinstance(b["is_error"], bool):
                    return f"a tool result whose is_error is not a boolean (message {i})"
            if b["type"] == "redacted_thinking" and not isinstance(b.get("data"), str):
                return f"a redacted_thinking block without data (message {i})"
    return None


def normalise_block(block: Block) -> Block:
    """Returns ``block`` as Converse sees it: a tool result's string content is one text part."""
    if block.get("type") == "tool_result" and isinstance(block.get("content", ""), str):
        body = block.get("content")
        return {**block, "content": [] if body is None else [{"type": "text", "text": body}]}
    return block


def _to_block(b: Block) -> dict[str, Any]:
    t = b["type"]
    if t == "text":
        return {"text": b["text"]}
    if t == "tool_use":
        return {"toolUse": {"toolUseId": b["id"], "name": b["name"], "input": b["input"]}}
    if t == "tool_result":
        body = b.get("content", [])
        parts = [{"text": body}] if isinstance(body, str) else [{"text": p["text"]} for p in body]
        result: dict[str, Any] = {"toolUseId": b["tool_use_id"], "content": parts}
        if "is_error" in b:
            result["status"] = _STATUS[b["is_error"]]
        return {"toolResult": result}
    if t == "thinking":
        text: dict[str, Any] = {"text": b["thinking"]}
        if "signature" in b:
            text["signature"] = b["signature"]
        return {"reasoningContent": {"reasoningText": text}}
    return {"reasoningContent": {"redactedContent": b["data"].encode("utf-8")}}


def to_format(history: History) -> list[dict[str, Any]]:
    """Returns ``history`` as Converse messages."""
    return [{"role": m["role"], "content": [_to_block(b) for b in
                                            ([{"type": "text", "text": m["content"]}] if isinstance(m["content"], str)
                                             else m["content"])]} for m in history]


def _from_block(part: Any, where: str) -> Block:
    require(isinstance(part, dict) and len(part) == 1, f"{where}: a content block is not a one-key dict")
    (key, value), = part.items()
    try:
        if key == "text":
            return {"type": "text", "text": value}
        if key == "toolUse":
            return {"type": "tool_use", "id": value["toolUseId"], "name": value["name"], "input": value["input"]}
        if key == "toolResult":
            block: Block = {"type": "tool_result", "tool_use_id": value["toolUseId"],
                            "content": [{"type": "text", "text": p["text"]} for p in value["content"]]}
            if "status" in value:
                block["is_error"] = value["status"] == "error"
            return block
        if key == "reasoningContent":
            if "reasoningText" in value:
                text = value["reasoningText"]
                thinking: Block = {"type": "thinking", "thinking": text["text"]}
                if "signature" in text:
                    thinking["signature"] = text["signature"]
                return thinking
            data = value["redactedContent"]
            return {"type": "redacted_thinking", "data": data.decode("utf-8") if isinstance(data, bytes) else data}
    except (KeyError, TypeError, AttributeError, UnicodeDecodeError) as exc:
        raise FormatError(f"{where}: a malformed {key} block ({type(exc).__name__}: {exc})") from None
    raise FormatError(f"{where}: {article(str(key))} block has no Anthropic counterpart here")


def from_format(messages: list[Any]) -> History:
    """Returns Converse messages as an Anthropic-shaped history; raises ``FormatError``."""
    out: History = []
    for n, message in enumerate(messages):
        require(isinstance(message, dict) and message.get("role") in ("user", "assistant")
                and isinstance(message.get("content"), list), f"message {n} is not a Converse message")
        out.append({"role": message["role"],
                    "content": [_from_block(p, f"message {n}") for p in message["content"]]})
    return out


def reasoning_of(message: Any) -> list[Any]:
    """Returns the ``reasoningText`` text and the ``redactedContent`` of each reasoning block of a
    Converse message (decoded when bytes)."""
    found: list[Any] = []
    for part in message.get("content") or [] if isinstance(message, dict) else []:
        value = part.get("reasoningContent") if isinstance(part, dict) else None
        if isinstance(value, dict):
            text, data = value.get("reasoningText"), value.get("redactedContent")
            found += [text.get("text") if isinstance(text, dict) else None,
                      data.decode("utf-8", "replace") if isinstance(data, bytes) else data]
    return found


FORMAT = Format("bedrock", TITLE, "strands-agents 1.62.0", reason, to_format, from_format,
                normalise_block=normalise_block, string_content_is_one_text_block=True, reasoning_of=reasoning_of)
