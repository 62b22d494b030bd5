"""AutoGen's model contexts (autogen-core): buffered, head-and-tail and token-limited.

Each Anthropic message becomes one AutoGen message as AutoGen's own agents write them: a user
message, an ``AssistantMessage`` whose content is its ``FunctionCall`` s (its text and reasoning as
``thought``), or a ``FunctionExecutionResultMessage`` of the results. The context is built with
them as ``initial_messages`` and ``get_messages()`` decides what the model sees. The token-limited
context counts tokens with a stub model client: about four characters of the message per token.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ._mapping import History, SourceMap, blocks_of, call_names, result_text, text_of
from .base import Peers

LIBRARY = "autogen-core"
PEERS = Peers(LIBRARY, "autogen_core")


def _to_autogen(history: History) -> tuple[list[Any], SourceMap]:
    from autogen_core import FunctionCall
    from autogen_core.models import (AssistantMessage, FunctionExecutionResult, FunctionExecutionResultMessage,
                                     UserMessage)

    sources = SourceMap(history, key=id, fingerprint=lambda m: m.model_dump_json())
    names = call_names(history)
    out = []
    for i, message in enumerate(history):
        blocks = blocks_of(message)
        calls = [FunctionCall(id=b["id"], arguments=json.dumps(b["input"]), name=b["name"])
                 for b in blocks if b.get("type") == "tool_use"]
        results = [FunctionExecutionResult(content=result_text(b.get("content")), name=names.get(b["tool_use_id"], ""),
                                           call_id=b["tool_use_id"], is_error=bool(b.get("is_error")))
                   for b in blocks if b.get("type") == "tool_result"]
        if message["role"] == "assistant":
            thought = text_of(blocks, ("thinking", "text")) or None
            obj: Any = (AssistantMessage(content=calls, thought=thought, source="assistant") if calls
                        else AssistantMessage(content=text_of(blocks, ("text",)), thought=text_of(blocks, ("thinking",))
                                              or None, source="assistant"))
        elif results:
            obj = FunctionExecutionResultMessage(content=results)
        else:
            obj = UserMessage(content=text_of(blocks), source="user")
        out.append(sources.add(obj, i))
    return out, sources


def _from_autogen(message: Any) -> dict[str, Any]:
    kind = type(message).__name__
    if kind == "UserMessage" and isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    if kind == "AssistantMessage" and isinstance(message.content, str):
        return {"role": "assistant", "content": message.content}
    if kind == "FunctionExecutionResultMessage":
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": r.call_id, "content": r.content}
                                            for r in message.content]}
    if kind == "AssistantMessage":
        return {"role": "assistant", "content": [{"type": "tool_use", "id": c.id, "name": c.name,
                                                  "input": json.loads(c.arguments)} for c in message.content]}
    return {"role": "user", "content": str(getattr(message, "content", ""))}


def _context(history: History, factory: Any) -> History:
    messages, sources = _to_autogen(history)
    kept = asyncio.run(factory(messages).get_messages())
    return sources.back(kept, _from_autogen)


@PEERS.add("autogen-core.BufferedChatCompletionContext", "BufferedChatCompletionContext",
           "buffer_size=keep_turns (at least 1)")
def buffered(history: History, keep_turns: int = 10) -> History:
    """``BufferedChatCompletionContext(buffer_size=keep_turns)``: what ``get_messages()`` keeps."""
    from autogen_core.model_context import BufferedChatCompletionContext

    return _context(history, lambda ms: BufferedChatCompletionContext(buffer_size=max(1, keep_turns),
                                                                      initial_messages=ms))


@PEERS.add("autogen-core.HeadAndTailChatCompletionContext", "HeadAndTailChatCompletionContext",
           "head_size=1, tail_size=keep_turns - 1 (at least 1)")
def head_and_tail(history: History, keep_turns: int = 10) -> History:
    """``HeadAndTailChatCompletionContext(head_size=1, tail_size=keep_turns - 1)``."""
    from autogen_core.model_context import HeadAndTailChatCompletionContext

    return _context(history, lambda ms: HeadAndTailChatCompletionContext(head_size=1, tail_size=max(1, keep_turns - 1),
                                                                         initial_messages=ms))


class _CharCounter:
    """The part of a ``ChatCompletionClient`` the token-limited context uses: token counts."""

    def count_tokens(self, messages: Any, *, tools: Any = ()) -> int:
        return sum(len(m.model_dump_json()) for m in messages) // 4

    def remaining_tokens(self, messages: Any, *, tools: Any = ()) -> int:
        return 2000 - self.count_tokens(messages)


@PEERS.add("autogen-core.TokenLimitedChatCompletionContext", "TokenLimitedChatCompletionContext",
           "token_limit=budget_tokens (default 200), about 4 characters a token")
def token_limited(history: History, budget_tokens: int = 200) -> History:
    """``TokenLimitedChatCompletionContext(token_limit=budget_tokens)`` with a character counter."""
    from autogen_core.model_context import TokenLimitedChatCompletionContext

    return _context(history, lambda ms: TokenLimitedChatCompletionContext(
        _CharCounter(), token_limit=budget_tokens, initial_messages=ms))  # type: ignore[arg-type]  # a character counter, not a model client
