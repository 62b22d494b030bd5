"""Microsoft Agent Framework's compaction strategies, run by its ``apply_compaction`` as an agent runs
them on its messages before each model call: ``SlidingWindowStrategy`` (the last so many message
groups) and ``TruncationStrategy`` (oldest groups first, by tokens of its ``CharacterEstimatorTokenizer``).

Messages become Agent Framework ``Message`` s as its chat clients write them: an assistant message is
one message of reasoning, text and function-call contents; each tool result of a user message is a
``tool`` message of one function result, each other block a user message of its text. The strategies
only leave messages out (whole groups: a call with its results), so each message kept is given back
from its source (the blocks of a message kept together).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ._mapping import History, SourceMap, blocks_of, result_text, text_of
from .base import Peers

LIBRARY = "agent-framework-core"
MODULE = "agent_framework"
PEERS = Peers(LIBRARY, MODULE)


def _fingerprint(message: Any) -> str:
    """Returns the message's role and contents (not the annotations compaction writes) as JSON."""
    return json.dumps([str(message.role), [(c.type, getattr(c, "text", None), getattr(c, "call_id", None))
                                           for c in message.contents]], default=repr)


def _to_framework(history: History) -> tuple[list[Any], SourceMap]:
    """Returns the history as Agent Framework messages, in order, and the map back to their sources."""
    from agent_framework import Content, Message

    sources = SourceMap(history, key=id, fingerprint=_fingerprint)
    out: list[Any] = []
    for i, message in enumerate(history):
        if message["role"] == "assistant":
            contents: list[Any] = []
            for block in blocks_of(message):
                kind = block.get("type")
                if kind in ("thinking", "redacted_thinking"):
                    contents.append(Content.from_text_reasoning(text=str(block.get("thinking", ""))))
                elif kind == "tool_use":
                    contents.append(Content.from_function_call(block["id"], block["name"],
                                                               arguments=dict(block.get("input") or {})))
                else:
                    contents.append(Content.from_text(text_of([block])))
            out.append(sources.add(Message("assistant", contents), i))
        elif isinstance(message["content"], str):
            out.append(sources.add(Message("user", [Content.from_text(message["content"])]), i))
        else:
            for j, block in enumerate(message["content"]):
                if block.get("type") == "tool_result":
                    obj = Message("tool", [Content.from_function_result(block["tool_use_id"],
                                                                        result=result_text(block.get("content")))])
                else:
                    obj = Message("user", [Content.from_text(text_of([block]))])
                out.append(sources.add(obj, i, j))
    return out, sources


def compacted(history: History, strategy: Any) -> History:
    """Returns what ``apply_compaction`` with ``strategy`` leaves of the history.

    Raises ``ValueError`` if it gave back a message changed."""
    from agent_framework import CharacterEstimatorTokenizer, apply_compaction

    messages, sources = _to_framework(history)
    kept = asyncio.run(apply_compaction(messages, strategy=strategy, tokenizer=CharacterEstimatorTokenizer()))

    def changed(obj: Any) -> dict[str, Any]:
        raise ValueError(f"the strategy changed a message it kept: {obj}")

    return sources.back(list(kept), changed)


@PEERS.add("agent-framework-core.SlidingWindowStrategy", "SlidingWindowStrategy",
           "keep_last_groups=keep_turns (default 10), preserve_system=True")
def sliding(history: History, keep_turns: int = 10) -> History:
    """``SlidingWindowStrategy(keep_last_groups=keep_turns)``: the last ``keep_turns`` message groups."""
    from agent_framework import SlidingWindowStrategy

    return compacted(history, SlidingWindowStrategy(keep_last_groups=max(1, keep_turns)))


@PEERS.add("agent-framework-core.TruncationStrategy", "TruncationStrategy",
           "max_n=budget_tokens (default 200), compact_to=budget_tokens // 2, "
           "tokenizer=CharacterEstimatorTokenizer()")
def truncation(history: History, budget_tokens: int = 200) -> History:
    """``TruncationStrategy(max_n=budget_tokens, compact_to=budget_tokens // 2)`` counting tokens."""
    from agent_framework import CharacterEstimatorTokenizer, TruncationStrategy

    return compacted(history, TruncationStrategy(max_n=max(1, budget_tokens), compact_to=max(1, budget_tokens // 2),
                                                 tokenizer=CharacterEstimatorTokenizer()))
