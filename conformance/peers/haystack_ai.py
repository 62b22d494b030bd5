"""Haystack's compactors (``haystack.hooks.compaction``): the sliding window and tool-result pruning.

Messages become Haystack ``ChatMessage`` s as its chat generators write them: a user message, an
assistant message with its ``ToolCall`` s and its reasoning (``ReasoningContent``, the signature in
``extra``), one tool message per result; each carries its source in ``meta``. Tokens are counted by
Haystack's own ``ApproximateTokenCounter``.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

from ._mapping import History, SourceMap, blocks_of, result_text, text_of
from .base import Peers

LIBRARY = "haystack-ai"
SOURCE = "conformance_source"
PEERS = Peers(LIBRARY, "haystack")


def _to_haystack(history: History) -> tuple[list[Any], SourceMap]:
    from haystack.dataclasses import ChatMessage, ReasoningContent, ToolCall

    sources = SourceMap(history, key=lambda m: (m.meta or {}).get(SOURCE),
                        fingerprint=lambda m: json.dumps(m.to_dict(), sort_keys=True, default=repr))
    calls = {b["id"]: b for m in history for b in blocks_of(m) if b.get("type") == "tool_use"}
    out: list[Any] = []
    for i, message in enumerate(history):
        blocks = blocks_of(message)
        if message["role"] == "assistant":
            thinking = [b for b in blocks if b.get("type") == "thinking"]
            reasoning = (ReasoningContent(reasoning_text=text_of(thinking, ("thinking",)),
                                          extra={"signature": thinking[0].get("signature")}) if thinking else None)
            tool_calls = [ToolCall(tool_name=b["name"], arguments=b["input"], id=b["id"])
                          for b in blocks if b.get("type") == "tool_use"]
            out.append(sources.add(ChatMessage.from_assistant(text_of(blocks) or None, meta={SOURCE: f"{i}"},
                                                              tool_calls=tool_calls or None, reasoning=reasoning), i))
        elif any(b.get("type") == "tool_result" for b in blocks):
            for j, b in enumerate(blocks):
                meta = {SOURCE: f"{i}.{j}"}
                if b.get("type") == "tool_result":
                    use = calls.get(b["tool_use_id"], {"name": "", "input": {}})
                    origin = ToolCall(tool_name=use["name"], arguments=use["input"], id=b["tool_use_id"])
                    obj = ChatMessage.from_tool(result_text(b.get("content")), origin=origin,
                                                error=bool(b.get("is_error")), meta=meta)
                else:
                    obj = ChatMessage.from_user(text_of([b]), meta=meta)
                out.append(sources.add(obj, i, j))
        else:
            out.append(sources.add(ChatMessage.from_user(text_of(blocks), meta={SOURCE: f"{i}"}), i))
    return out, sources


def _from_haystack(message: Any) -> dict[str, Any]:
    role = str(getattr(message.role, "value", message.role))
    if role == "tool":
        result = message.tool_call_result
        block = {"type": "tool_result", "tool_use_id": result.origin.id, "content": str(result.result)}
        return {"role": "user", "content": [{**block, "is_error": True} if result.error else block]}
    if role == "assistant":
        content: list[dict[str, Any]] = [{"type": "text", "text": t} for t in message.texts]
        content += [{"type": "tool_use", "id": c.id, "name": c.tool_name, "input": c.arguments}
                    for c in message.tool_calls]
        return {"role": "assistant", "content": content}
    return {"role": "user", "content": message.text or ""}


def _compact(history: History, compactor: Any, budget_tokens: int) -> History:
    from haystack.token_counters import ApproximateTokenCounter

    messages, sources = _to_haystack(history)
    kept = compactor.compact(messages, target_tokens=budget_tokens, token_counter=ApproximateTokenCounter())
    return history if kept is None else sources.back(kept, _from_haystack)


def _compactor(name: str, **settings: Any) -> Any:
    import haystack.hooks.compaction as compaction
    from haystack.utils.experimental import ExperimentalWarning

    with warnings.catch_warnings():  # the compactors are marked experimental; the warning is not a result
        warnings.simplefilter("ignore", ExperimentalWarning)
        return getattr(compaction, name)(min_keep_steps=1, **settings)


@PEERS.add("haystack-ai.SlidingWindowCompactor", "SlidingWindowCompactor",
           "min_keep_steps=1, target_tokens=budget_tokens (default 200), ApproximateTokenCounter")
def sliding_window(history: History, budget_tokens: int = 200) -> History:
    """``SlidingWindowCompactor().compact(target_tokens=budget_tokens)``; None (nothing to do) keeps all."""
    return _compact(history, _compactor("SlidingWindowCompactor"), budget_tokens)


@PEERS.add("haystack-ai.ToolResultPruningCompactor", "ToolResultPruningCompactor",
           "min_keep_steps=1, target_tokens=budget_tokens (default 200), ApproximateTokenCounter")
def prune_tool_results(history: History, budget_tokens: int = 200) -> History:
    """``ToolResultPruningCompactor().compact(target_tokens=budget_tokens)``."""
    return _compact(history, _compactor("ToolResultPruningCompactor"), budget_tokens)
