"""LlamaIndex's chat memories (llama-index-core): ``ChatMemoryBuffer`` and ``Memory``.

Messages become LlamaIndex ``ChatMessage`` s as its OpenAI integration writes them: assistant tool
calls in ``additional_kwargs["tool_calls"]``, one ``tool`` message per result with its
``tool_call_id``; each carries its source in ``additional_kwargs``. Tokens are counted by a fixed
tokenizer of four characters a token (the default one downloads its vocabulary). ``Memory`` stores
the messages in its in-memory SQLite store one ``aput`` at a time, as an agent does, and ``aget``
returns what the model sees.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ._mapping import History, SourceMap, blocks_of, result_text, text_of
from .base import Peers

LIBRARY = "llama-index-core"
SOURCE = "conformance_source"
PEERS = Peers(LIBRARY, "llama_index.core")


def _tokens(text: str) -> list[str]:
    return [text[i:i + 4] for i in range(0, len(text), 4)]


def _fingerprint(message: Any) -> str:
    return json.dumps([str(message.role.value), message.content, message.additional_kwargs], sort_keys=True,
                      default=repr)


def _to_llama(history: History) -> tuple[list[Any], SourceMap]:
    from llama_index.core.llms import ChatMessage, MessageRole

    sources = SourceMap(history, key=lambda m: m.additional_kwargs.get(SOURCE), fingerprint=_fingerprint)
    out: list[Any] = []
    for i, message in enumerate(history):
        blocks = blocks_of(message)
        if message["role"] == "assistant":
            calls = [{"id": b["id"], "type": "function", "function": {"name": b["name"],
                                                                      "arguments": json.dumps(b["input"])}}
                     for b in blocks if b.get("type") == "tool_use"]
            extra: dict[str, Any] = {SOURCE: f"{i}", **({"tool_calls": calls} if calls else {})}
            out.append(sources.add(ChatMessage(role=MessageRole.ASSISTANT, content=text_of(blocks),
                                               additional_kwargs=extra), i))
        elif any(b.get("type") == "tool_result" for b in blocks):
            for j, b in enumerate(blocks):
                if b.get("type") == "tool_result":
                    obj = ChatMessage(role=MessageRole.TOOL, content=result_text(b.get("content")),
                                      additional_kwargs={SOURCE: f"{i}.{j}", "tool_call_id": b["tool_use_id"]})
                else:
                    obj = ChatMessage(role=MessageRole.USER, content=text_of([b]),
                                      additional_kwargs={SOURCE: f"{i}.{j}"})
                out.append(sources.add(obj, i, j))
        else:
            out.append(sources.add(ChatMessage(role=MessageRole.USER, content=text_of(blocks),
                                               additional_kwargs={SOURCE: f"{i}"}), i))
    return out, sources


def _from_llama(message: Any) -> dict[str, Any]:
    role = str(message.role.value)
    text = message.content or ""
    if role == "tool":
        return {"role": "user", "content": [{"type": "tool_result",
                                             "tool_use_id": message.additional_kwargs.get("tool_call_id", ""),
                                             "content": text}]}
    if role == "assistant":
        calls = message.additional_kwargs.get("tool_calls") or []
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [{"type": "tool_use", "id": c["id"], "name": c["function"]["name"],
                     "input": json.loads(c["function"]["arguments"])} for c in calls]
        return {"role": "assistant", "content": content if calls else text}
    return {"role": "user", "content": text}  # user, and a system message of memory blocks


@PEERS.add("llama-index-core.ChatMemoryBuffer", "ChatMemoryBuffer",
           "token_limit=budget_tokens (default 200), 4 characters a token")
def chat_memory_buffer(history: History, budget_tokens: int = 200) -> History:
    """``ChatMemoryBuffer.from_defaults(chat_history=..., token_limit=budget_tokens).get()``."""
    from llama_index.core.memory import ChatMemoryBuffer

    messages, sources = _to_llama(history)
    buffer = ChatMemoryBuffer.from_defaults(chat_history=messages, token_limit=budget_tokens, tokenizer_fn=_tokens)
    return sources.back(buffer.get(), _from_llama)


@PEERS.add("llama-index-core.Memory", "Memory",
           "token_limit=budget_tokens (default 200), token_flush_size=50, 4 characters a token")
def memory(history: History, budget_tokens: int = 200) -> History:
    """``Memory`` fed every message with ``aput``; returns ``aget()``."""
    from llama_index.core.memory import Memory

    messages, sources = _to_llama(history)

    async def run() -> list[Any]:
        from sqlalchemy.ext.asyncio import create_async_engine

        engine = create_async_engine("sqlite+aiosqlite:///:memory:")  # Memory's default store, closed after
        try:
            store = Memory.from_defaults(session_id="conformance", token_limit=budget_tokens, tokenizer_fn=_tokens,
                                         token_flush_size=50, async_engine=engine)
            for message in messages:
                await store.aput(message)
            return await store.aget()
        finally:
            await engine.dispose()

    return sources.back(asyncio.run(run()), _from_llama)
