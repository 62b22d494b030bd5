"""Semantic Kernel's chat history reducers: ``ChatHistoryTruncationReducer`` and
``ChatHistorySummarizationReducer``, on Semantic Kernel's ``ChatMessageContent`` objects.

Each Anthropic message becomes what Semantic Kernel's own function calling writes: a user message
of text, an assistant message of its reasoning (``ReasoningContent``), text and ``FunctionCallContent``
items, and one ``tool`` message per ``FunctionResultContent``. The reducer is built on them and its
``reduce()`` decides what the next request holds. The summarizing reducer's chat completion service
is a stand-in that hands the request Semantic Kernel prepares (``_prepare_chat_history_for_request``)
to the harness's recording summarizer, and answers its summary. Blocks Semantic Kernel has no item
for here (server tool calls and results, images, documents) ride along with their message: the
reducer does not see them, and a message it keeps unchanged is given back whole.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from ._mapping import History, SourceMap, blocks_of, call_names, result_text
from .base import Peers

LIBRARY = "semantic-kernel"
MODULE = "semantic_kernel.contents.history_reducer"
SUMMARY = "SUMMARY: earlier work condensed by a stand-in model."
PEERS = Peers(LIBRARY, MODULE)


def _to_sk(history: History) -> tuple[list[Any], SourceMap]:
    """Returns the history as Semantic Kernel messages, and the map of where each came from."""
    from semantic_kernel.contents import (ChatMessageContent, FunctionCallContent, FunctionResultContent,
                                          ReasoningContent, TextContent)
    from semantic_kernel.contents.utils.author_role import AuthorRole

    sources = SourceMap(history, key=id, fingerprint=lambda m: m.model_dump_json())
    names = call_names(history)
    out: list[Any] = []
    for i, message in enumerate(history):
        blocks = blocks_of(message)
        if message["role"] == "assistant":
            items: list[Any] = []
            for b in blocks:
                if b.get("type") == "thinking":
                    items.append(ReasoningContent(text=str(b.get("thinking", ""))))
                elif b.get("type") == "text":
                    items.append(TextContent(text=str(b.get("text", ""))))
                elif b.get("type") == "tool_use":
                    items.append(FunctionCallContent(id=b["id"], function_name=b["name"],
                                                     arguments=json.dumps(b.get("input", {}))))
            out.append(sources.add(ChatMessageContent(role=AuthorRole.ASSISTANT, items=items), i))
            continue
        if not any(b.get("type") == "tool_result" for b in blocks):
            text = "\n".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
            out.append(sources.add(ChatMessageContent(role=AuthorRole.USER, content=text), i))
            continue
        for k, b in enumerate(blocks):  # one message per result, as the kernel's function calling adds them
            if b.get("type") == "tool_result":
                result = FunctionResultContent(id=b["tool_use_id"], function_name=names.get(b["tool_use_id"], ""),
                                               result=result_text(b.get("content")))
                obj = ChatMessageContent(role=AuthorRole.TOOL, items=[result])
            else:
                obj = ChatMessageContent(role=AuthorRole.USER, content=str(b.get("text", "")))
            out.append(sources.add(obj, i, k))
    return out, sources


def _from_sk(message: Any) -> dict[str, Any]:
    """Returns a Semantic Kernel message the adapter did not build (a summary) as an Anthropic message."""
    from semantic_kernel.contents import FunctionCallContent, FunctionResultContent

    role = "assistant" if message.role.value == "assistant" else "user"
    blocks: list[dict[str, Any]] = []
    for item in message.items:
        if isinstance(item, FunctionCallContent):
            blocks.append({"type": "tool_use", "id": item.id, "name": item.function_name,
                           "input": json.loads(item.arguments or "{}") if isinstance(item.arguments, str)
                           else dict(item.arguments or {})})
        elif isinstance(item, FunctionResultContent):
            blocks.append({"type": "tool_result", "tool_use_id": item.id, "content": str(item.result)})
    if not blocks:
        return {"role": role, "content": message.content}
    return {"role": role, "content": blocks}


def _reduce(history: History, reducer: Any) -> History:
    """Returns what ``reducer`` (already holding the messages) leaves after ``reduce()``."""
    messages, sources = _to_sk(history)
    reducer.messages = messages
    asyncio.run(reducer.reduce())
    return sources.back(reducer.messages, _from_sk)


@PEERS.add("semantic-kernel.ChatHistoryTruncationReducer", "ChatHistoryTruncationReducer",
           "target_count=keep_turns (at least 1), threshold_count=0")
def truncation(history: History, keep_turns: int = 10) -> History:
    """``ChatHistoryTruncationReducer(target_count=keep_turns, threshold_count=0).reduce()``."""
    from semantic_kernel.contents.history_reducer.chat_history_truncation_reducer import ChatHistoryTruncationReducer

    return _reduce(history, ChatHistoryTruncationReducer(target_count=max(1, keep_turns), threshold_count=0))


@PEERS.add("semantic-kernel.ChatHistoryTruncationReducer.threshold", "ChatHistoryTruncationReducer",
           "target_count=keep_turns (at least 1), threshold_count=keep_turns // 2 (at least 1)")
def truncation_with_threshold(history: History, keep_turns: int = 10) -> History:
    """``ChatHistoryTruncationReducer(target_count=keep_turns, threshold_count=keep_turns // 2).reduce()``:
    it reduces past the threshold only, and may keep up to the threshold more to start on a user message."""
    from semantic_kernel.contents.history_reducer.chat_history_truncation_reducer import ChatHistoryTruncationReducer

    return _reduce(history, ChatHistoryTruncationReducer(target_count=max(1, keep_turns),
                                                         threshold_count=max(1, keep_turns // 2)))


def _service(summarize: Callable[[Any], str] | None) -> Any:
    """Returns a chat completion service answering every request with a summary: the recording
    summarizer's for the request Semantic Kernel prepares, or ``SUMMARY`` without one."""
    from semantic_kernel.connectors.ai.chat_completion_client_base import ChatCompletionClientBase
    from semantic_kernel.contents import ChatMessageContent
    from semantic_kernel.contents.utils.author_role import AuthorRole

    class StandIn(ChatCompletionClientBase):
        async def _inner_get_chat_message_contents(self, chat_history: Any, settings: Any) -> list[Any]:
            prompt = self._prepare_chat_history_for_request(chat_history)
            text = summarize(prompt) if summarize is not None else SUMMARY
            return [ChatMessageContent(role=AuthorRole.ASSISTANT, content=text)]

    return StandIn(ai_model_id="stand-in")


def _summarization(history: History, keep_turns: int, summarize: Callable[[Any], str] | None,
                   with_functions: bool) -> History:
    from semantic_kernel.contents.history_reducer.chat_history_summarization_reducer import (
        ChatHistorySummarizationReducer)

    reducer = ChatHistorySummarizationReducer(service=_service(summarize), target_count=max(1, keep_turns),
                                              threshold_count=0, include_function_content_in_summary=with_functions)
    return _reduce(history, reducer)


@PEERS.add("semantic-kernel.ChatHistorySummarizationReducer", "ChatHistorySummarizationReducer",
           "target_count=keep_turns (at least 1), threshold_count=0, include_function_content_in_summary=False, "
           "recording stand-in service")
def summarization(history: History, keep_turns: int = 10, summarize: Callable[[Any], str] | None = None) -> History:
    """``ChatHistorySummarizationReducer(target_count=keep_turns)`` with a stand-in service."""
    return _summarization(history, keep_turns, summarize, with_functions=False)


@PEERS.add("semantic-kernel.ChatHistorySummarizationReducer.with-functions", "ChatHistorySummarizationReducer",
           "target_count=keep_turns (at least 1), threshold_count=0, include_function_content_in_summary=True, "
           "recording stand-in service")
def summarization_with_functions(history: History, keep_turns: int = 10,
                                 summarize: Callable[[Any], str] | None = None) -> History:
    """As ``summarization``, with ``include_function_content_in_summary=True``."""
    return _summarization(history, keep_turns, summarize, with_functions=True)
