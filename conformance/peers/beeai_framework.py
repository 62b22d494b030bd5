"""BeeAI Framework's bounded memories: ``SlidingMemory`` (a window of so many messages) and ``TokenMemory``
(evicts the oldest messages while its estimate of the tokens held passes a share of ``max_tokens``). An
agent adds each message of its history to its memory in turn; the adapter does the same and reads
``memory.messages``.

Messages become BeeAI messages as its chat models write them: an assistant message is one
``AssistantMessage`` (reasoning, text and tool-call parts); each tool result of a user message is a
``ToolMessage`` and each other block a ``UserMessage`` of its text. Both memories only remove whole
objects, so what is kept is given back from its source (the blocks of a message kept together).
``TokenMemory``'s own estimate counts the text parts of a message alone: tool calls and tool results
weigh nothing in it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ._mapping import History, SourceMap, blocks_of, call_names, result_text, text_of
from .base import Peers

LIBRARY = "beeai-framework"
MODULE = "beeai_framework.memory"
PEERS = Peers(LIBRARY, MODULE)


def _fingerprint(obj: Any) -> str:
    """Returns the object's parts as JSON, to see that the memory gave it back as built."""
    return json.dumps(obj.to_plain(), sort_keys=True, default=repr)


def _to_beeai(history: History) -> tuple[list[Any], SourceMap]:
    """Returns the history as BeeAI messages, in order, and the map back to their sources."""
    from beeai_framework.backend.message import (AssistantMessage, MessageReasoningContent, MessageTextContent,
                                                 MessageToolCallContent, MessageToolResultContent, ToolMessage,
                                                 UserMessage)

    sources = SourceMap(history, key=id, fingerprint=_fingerprint)
    names = call_names(history)
    out: list[Any] = []
    for i, message in enumerate(history):
        if message["role"] == "assistant":
            parts: list[Any] = []
            for block in blocks_of(message):
                kind = block.get("type")
                if kind in ("thinking", "redacted_thinking"):
                    parts.append(MessageReasoningContent(text=str(block.get("thinking", ""))))
                elif kind == "tool_use":
                    parts.append(MessageToolCallContent(id=block["id"], tool_name=block["name"],
                                                        args=json.dumps(block.get("input", {}))))
                else:
                    parts.append(MessageTextContent(text=text_of([block])))
            out.append(sources.add(AssistantMessage(parts), i))
        elif isinstance(message["content"], str):
            out.append(sources.add(UserMessage(message["content"]), i))
        else:
            for j, block in enumerate(message["content"]):
                if block.get("type") == "tool_result":
                    obj: Any = ToolMessage(MessageToolResultContent(
                        result=result_text(block.get("content")), tool_name=names.get(block["tool_use_id"], ""),
                        tool_call_id=block["tool_use_id"]))
                else:
                    obj = UserMessage(text_of([block]))
                out.append(sources.add(obj, i, j))
    return out, sources


def remembered(history: History, memory: Any) -> History:
    """Adds every message to ``memory`` in turn; returns the history of what it holds after.

    Raises ``ValueError`` if the memory gave back an object it did not keep as built."""
    objects, sources = _to_beeai(history)

    async def fill() -> None:
        for obj in objects:
            await memory.add(obj)

    asyncio.run(fill())

    def changed(obj: Any) -> dict[str, Any]:
        raise ValueError(f"the memory changed a message it kept: {obj}")

    return sources.back(list(memory.messages), changed)


@PEERS.add("beeai-framework.SlidingMemory", "SlidingMemory",
           "SlidingMemoryConfig(size=keep_turns) (default 10), default removal_selector (the oldest message)")
def sliding(history: History, keep_turns: int = 10) -> History:
    """``SlidingMemory(SlidingMemoryConfig(size=keep_turns))``: keeps the last ``keep_turns`` messages."""
    from beeai_framework.memory import SlidingMemory, SlidingMemoryConfig

    return remembered(history, SlidingMemory(SlidingMemoryConfig(size=max(1, keep_turns))))


@PEERS.add("beeai-framework.TokenMemory", "TokenMemory",
           "max_tokens=budget_tokens (default 200), capacity_threshold=0.75, sync_threshold=0.25, its own "
           "character estimate (no model)")
def tokens(history: History, budget_tokens: int = 200) -> History:
    """``TokenMemory(max_tokens=budget_tokens)``: evicts the oldest messages past 3/4 of the budget."""
    from beeai_framework.memory import TokenMemory

    return remembered(history, TokenMemory(max_tokens=max(1, budget_tokens)))
