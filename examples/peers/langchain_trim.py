"""langchain-core's ``trim_messages`` as conformance targets, through a two-way message adapter.

Run: ``pip install "langchain-core>=1.8,<2"`` then
``conformance run --target examples.peers.langchain_trim:trim_last`` (from the repository root).

Anthropic-shaped messages become LangChain messages tagged with their source index (a user turn of
tool results becomes one ``ToolMessage`` per result), the trimmer runs, and what survives is mapped
back: a message that comes back whole is the very same object, one that lost blocks is rebuilt
from the blocks that are left.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, trim_messages

History = list[dict[str, Any]]


def to_langchain(history: History) -> list[BaseMessage]:
    """Returns the history as LangChain messages whose ids name their source message and block."""
    out: list[BaseMessage] = []
    for i, message in enumerate(history):
        content = message["content"]
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        if message["role"] == "assistant":
            calls = [{"id": b["id"], "name": b["name"], "args": b.get("input", {})}
                     for b in blocks if b.get("type") == "tool_use"]
            out.append(AIMessage(content=content, tool_calls=calls, id=f"{i}"))
        elif any(b.get("type") == "tool_result" for b in blocks):
            for j, block in enumerate(blocks):
                if block.get("type") == "tool_result":
                    out.append(ToolMessage(content=str(block.get("content", "")), tool_call_id=block["tool_use_id"],
                                           id=f"{i}#{j}"))
                else:
                    out.append(HumanMessage(content=[block], id=f"{i}#{j}"))
        else:
            out.append(HumanMessage(content=content, id=f"{i}"))
    return out


def from_langchain(kept: list[BaseMessage], history: History) -> History:
    """Returns the Anthropic-shaped messages that survive in ``kept``, in order."""
    out: History = []
    pieces: dict[int, list[int]] = {}
    order: list[int] = []
    for message in kept:
        source, _, block = str(message.id).partition("#")
        index = int(source)
        if not block:
            original = history[index]
            out.append(original if message.content == original["content"] else
                       {**original, "content": message.content})
            order.append(index)
            continue
        if index not in pieces:
            pieces[index] = []
            order.append(index)
            out.append({"__pieces__": index})
        pieces[index].append(int(block))
    for k, item in enumerate(out):
        if "__pieces__" in item:
            index = item["__pieces__"]
            blocks = history[index]["content"]
            chosen = [blocks[j] for j in sorted(pieces[index])]
            out[k] = history[index] if len(chosen) == len(blocks) else {**history[index], "content": chosen}
    return out


def trim_last(history: History, keep_turns: int = 10) -> History:
    """``trim_messages(strategy="last")`` counting messages, as a window of ``keep_turns`` would."""
    kept = trim_messages(to_langchain(history), max_tokens=keep_turns, token_counter=len, strategy="last")
    return from_langchain(kept, history)


def trim_last_from_human(history: History, keep_turns: int = 10) -> History:
    """The same, told to start the kept history on a human message (``start_on="human"``)."""
    kept = trim_messages(to_langchain(history), max_tokens=keep_turns, token_counter=len, strategy="last",
                         start_on="human")
    return from_langchain(kept, history)
