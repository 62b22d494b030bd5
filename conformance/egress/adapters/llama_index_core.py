"""llama-index-core: ``ChatMessage.model_dump_json``, the form its chat stores keep a message in
(``SQLAlchemyChatStore`` stores ``model_dump(mode="json")``; ``SimpleChatStore.persist`` writes the
store's ``model_dump_json``), and ``ChatMessage.content`` (text blocks only). The adapter builds ``ChatMessage(blocks=[ThinkingBlock,
TextBlock, ToolCallBlock])`` as LlamaIndex's Anthropic integration does, the signature in
``ThinkingBlock.additional_information``."""

from __future__ import annotations

import json
from typing import Any

from .base import Component, blocks, tool_result_text


def _messages(history: list[dict[str, Any]]) -> list[Any]:
    from llama_index.core.base.llms.types import ChatMessage, TextBlock, ThinkingBlock, ToolCallBlock

    out = []
    for message in history:
        parts: list[Any] = []
        for block in blocks(message):
            kind = block["type"]
            if kind == "text":
                parts.append(TextBlock(text=block["text"]))
            elif kind == "thinking":
                parts.append(ThinkingBlock(content=block["thinking"],
                                           additional_information={"signature": block.get("signature")}))
            elif kind == "redacted_thinking":
                parts.append(ThinkingBlock(content=None, additional_information={"redacted_data": block["data"]}))
            elif kind == "tool_use":
                parts.append(ToolCallBlock(tool_call_id=block["id"], tool_name=block["name"], tool_kwargs=block["input"]))
            elif kind == "tool_result":
                parts.append(TextBlock(text=tool_result_text(block)))
        out.append(ChatMessage(role=message["role"], blocks=parts))
    return out


def model_dump_json(history: list[dict[str, Any]]) -> list[str]:
    """Returns ``ChatMessage.model_dump_json()`` of each message."""
    return [m.model_dump_json() for m in _messages(history)]


def content_only(history: list[dict[str, Any]]) -> str:
    """Returns each message's role and ``.content`` as JSON."""
    return json.dumps([{"role": m.role.value, "content": m.content} for m in _messages(history)])


COMPONENTS = [
    Component("llama-index-core.ChatMessage.model_dump_json", "llama-index-core", "ChatMessage.model_dump_json",
              "defaults", "conversation-store", "anthropic", "conformance.egress.adapters.llama_index_core:model_dump_json",
              "llama_index.core", stops="none in the library"),
    Component("llama-index-core.ChatMessage.content", "llama-index-core", "ChatMessage.content", "text blocks only",
              "conversation-store", "anthropic", "conformance.egress.adapters.llama_index_core:content_only",
              "llama_index.core"),
]
