"""haystack-ai: ``ChatMessage.to_dict`` (what a document store or a pipeline snapshot keeps),
``ChatMessage._to_trace_dict`` (what its tracers receive with content tracing on) and ``.text``.

The adapter builds the messages as Haystack's Anthropic integration does: thinking becomes
``ReasoningContent(reasoning_text, extra={"signature": ...})``, redacted thinking
``ReasoningContent("", extra={"redacted_thinking": data})``, tool calls ``ToolCall``."""

from __future__ import annotations

from typing import Any

from .base import Component, blocks, tool_result_text


def _messages(history: list[dict[str, Any]]) -> list[Any]:
    from haystack.dataclasses import ChatMessage, ReasoningContent, ToolCall

    out = []
    calls: dict[str, ToolCall] = {}
    for message in history:
        if message["role"] == "user":
            for block in blocks(message):
                if block["type"] == "tool_result":
                    call = calls.get(block["tool_use_id"]) or ToolCall(tool_name="?", arguments={}, id=block["tool_use_id"])
                    out.append(ChatMessage.from_tool(tool_result_text(block), origin=call))
                elif block["type"] == "text":
                    out.append(ChatMessage.from_user(block["text"]))
            continue
        text = " ".join(b["text"] for b in blocks(message) if b["type"] == "text") or None
        reasoning = None
        for block in blocks(message):
            if block["type"] == "thinking":
                reasoning = ReasoningContent(block["thinking"], extra={"signature": block.get("signature")})
            elif block["type"] == "redacted_thinking":
                reasoning = ReasoningContent("", extra={"redacted_thinking": block["data"]})
        tool_calls = [ToolCall(tool_name=b["name"], arguments=b["input"], id=b["id"])
                      for b in blocks(message) if b["type"] == "tool_use"]
        calls.update({c.id: c for c in tool_calls if c.id})
        out.append(ChatMessage.from_assistant(text, tool_calls=tool_calls or None, reasoning=reasoning))
    return out


def to_dict(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns ``ChatMessage.to_dict()`` of each message."""
    return [m.to_dict() for m in _messages(history)]


def to_trace_dict(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns ``ChatMessage._to_trace_dict()`` of each message."""
    return [m._to_trace_dict() for m in _messages(history)]


def text_only(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns each message's role and ``.text``."""
    return [{"role": m.role.value, "text": m.text} for m in _messages(history)]


COMPONENTS = [
    Component("haystack-ai.ChatMessage.to_dict", "haystack-ai", "ChatMessage.to_dict", "defaults", "conversation-store",
              "anthropic", "conformance.egress.adapters.haystack_ai:to_dict", "haystack", stops="none in the library"),
    Component("haystack-ai.ChatMessage._to_trace_dict", "haystack-ai", "ChatMessage._to_trace_dict",
              "HAYSTACK_CONTENT_TRACING_ENABLED=true", "trace", "anthropic",
              "conformance.egress.adapters.haystack_ai:to_trace_dict", "haystack",
              stops="HAYSTACK_CONTENT_TRACING_ENABLED=false (the default; drops all content, the answer too)"),
    Component("haystack-ai.ChatMessage.text", "haystack-ai", "ChatMessage.text", "text only", "conversation-store",
              "anthropic", "conformance.egress.adapters.haystack_ai:text_only", "haystack"),
]
