"""pydantic-ai-slim: ``ModelMessagesTypeAdapter.dump_json``, how pydantic-ai persists message
history. The adapter builds ``ModelRequest`` / ``ModelResponse`` as pydantic-ai's Anthropic model
does: thinking as ``ThinkingPart(content, signature)``, redacted thinking as
``ThinkingPart(id="redacted_thinking", content="", signature=data)``."""

from __future__ import annotations

from typing import Any

from .base import Component, blocks, tool_result_text


def _messages(history: list[dict[str, Any]]) -> list[Any]:
    from pydantic_ai.messages import (ModelRequest, ModelResponse, TextPart, ThinkingPart, ToolCallPart,
                                      ToolReturnPart, UserPromptPart)

    names: dict[str, str] = {}
    out: list[Any] = []
    for message in history:
        if message["role"] == "user":
            parts: list[Any] = []
            for block in blocks(message):
                if block["type"] == "tool_result":
                    parts.append(ToolReturnPart(tool_name=names.get(block["tool_use_id"], "?"),
                                                content=tool_result_text(block), tool_call_id=block["tool_use_id"]))
                elif block["type"] == "text":
                    parts.append(UserPromptPart(content=block["text"]))
            out.append(ModelRequest(parts=parts))
            continue
        response: list[Any] = []
        for block in blocks(message):
            kind = block["type"]
            if kind == "thinking":
                response.append(ThinkingPart(content=block["thinking"], signature=block.get("signature"),
                                             provider_name="anthropic"))
            elif kind == "redacted_thinking":
                response.append(ThinkingPart(id="redacted_thinking", content="", signature=block["data"],
                                             provider_name="anthropic"))
            elif kind == "text":
                response.append(TextPart(content=block["text"]))
            elif kind == "tool_use":
                names[block["id"]] = block["name"]
                response.append(ToolCallPart(tool_name=block["name"], args=block["input"], tool_call_id=block["id"]))
        out.append(ModelResponse(parts=response, model_name="claude-sonnet-4-6"))
    return out


def dump_json(history: list[dict[str, Any]]) -> bytes:
    """Returns ``ModelMessagesTypeAdapter.dump_json`` of the messages."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter.dump_json(_messages(history))


COMPONENTS = [
    Component("pydantic-ai-slim.ModelMessagesTypeAdapter.dump_json", "pydantic-ai-slim",
              "ModelMessagesTypeAdapter.dump_json", "defaults", "conversation-store", "anthropic",
              "conformance.egress.adapters.pydantic_ai:dump_json", "pydantic_ai", stops="none in the library"),
]
