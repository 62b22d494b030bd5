"""pydantic-ai's history processing: an ``Agent`` with ``capabilities=[ProcessHistory(processor)]``,
on pydantic-ai's ``ModelRequest`` / ``ModelResponse`` messages.

pydantic-ai-slim ships no trimmer of its own: the processors are the ones its packaged
documentation gives (``keep_recent``, and a summarizing one that puts the summary in a
``ModelRequest(parts=[CompactionPart(content=summary)])`` replacing the messages it summarizes).
What the row measures is the library's own path around them: the agent runs the processor before
the model request and prepares the history as it does for any model, and the messages a
``FunctionModel`` receives are the row's output. Messages are built as pydantic-ai's Anthropic model
writes them (thinking as ``ThinkingPart`` with its signature, redacted thinking as
``ThinkingPart(id="redacted_thinking", signature=data)``). The summarizing processor's model is a
``FunctionModel`` handing the messages it is given to the harness's recording summarizer. The
agent's own preparation shows in the rows: it merges consecutive responses, leaves out tool results
whose call was cut away (an emptied request stays empty), and asks nothing of a history that ends
on the model's answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from ._mapping import History, SourceMap, blocks_of, call_names, result_text
from .base import Peers

LIBRARY = "pydantic-ai-slim"
MODULE = "pydantic_ai.capabilities"
SUMMARY = "SUMMARY: earlier work condensed by a stand-in model."
ANSWER = "(the stand-in model's answer)"
PEERS = Peers(LIBRARY, MODULE)


def _fingerprint(message: Any) -> str:
    """Returns what a message says (its parts' kinds and contents), not the stamps a run adds to it."""
    parts = []
    for p in message.parts:
        parts.append([type(p).__name__, getattr(p, "content", None), getattr(p, "signature", None),
                      getattr(p, "id", None), getattr(p, "tool_call_id", None),
                      getattr(p, "tool_name", None), json.dumps(getattr(p, "args", None), sort_keys=True, default=str)])
    return json.dumps([type(message).__name__, parts], default=str)


def _to_pydantic_ai(history: History) -> tuple[list[Any], SourceMap]:
    """Returns the history as pydantic-ai messages, and the map of where each came from."""
    from pydantic_ai.messages import (ModelRequest, ModelResponse, TextPart, ThinkingPart, ToolCallPart,
                                      ToolReturnPart, UserPromptPart)

    sources = SourceMap(history, key=id, fingerprint=_fingerprint)
    names = call_names(history)
    out: list[Any] = []
    for i, message in enumerate(history):
        parts: list[Any] = []
        for b in blocks_of(message):
            kind = b.get("type")
            if message["role"] == "user":
                if kind == "tool_result":
                    parts.append(ToolReturnPart(tool_name=names.get(b["tool_use_id"], ""),
                                                content=result_text(b.get("content")), tool_call_id=b["tool_use_id"]))
                elif kind == "text":
                    parts.append(UserPromptPart(content=str(b.get("text", ""))))
            elif kind == "thinking":
                parts.append(ThinkingPart(content=str(b.get("thinking", "")), signature=b.get("signature"),
                                          provider_name="anthropic"))
            elif kind == "redacted_thinking":
                parts.append(ThinkingPart(id="redacted_thinking", content="", signature=b.get("data"),
                                          provider_name="anthropic"))
            elif kind == "text":
                parts.append(TextPart(content=str(b.get("text", ""))))
            elif kind == "tool_use":
                parts.append(ToolCallPart(tool_name=b["name"], args=b.get("input", {}), tool_call_id=b["id"]))
        obj = ModelRequest(parts=parts) if message["role"] == "user" else ModelResponse(parts=parts)
        out.append(sources.add(obj, i))
    return out, sources


def _block(part: Any) -> dict[str, Any] | None:
    """Returns a pydantic-ai part as an Anthropic block (None for a part with no place there)."""
    kind = type(part).__name__
    if kind == "ThinkingPart" and part.id == "redacted_thinking":
        return {"type": "redacted_thinking", "data": part.signature}
    if kind == "ThinkingPart":
        return {"type": "thinking", "thinking": part.content, "signature": part.signature}
    if kind in ("TextPart", "UserPromptPart", "CompactionPart"):
        return {"type": "text", "text": str(part.content)}
    if kind == "ToolCallPart":
        return {"type": "tool_use", "id": part.tool_call_id, "name": part.tool_name, "input": part.args_as_dict()}
    if kind == "ToolReturnPart":
        return {"type": "tool_result", "tool_use_id": part.tool_call_id, "content": str(part.content)}
    return None


def _from_pydantic_ai(message: Any) -> dict[str, Any]:
    """Returns a message the agent changed or wrote as an Anthropic message."""
    role = "assistant" if type(message).__name__ == "ModelResponse" else "user"
    blocks = [b for b in (_block(p) for p in message.parts) if b is not None]
    if len(blocks) == 1 and blocks[0]["type"] == "text":
        return {"role": role, "content": blocks[0]["text"]}
    return {"role": role, "content": blocks}


def _run(history: History, processor: Callable[..., Any]) -> History:
    """Returns the messages a ``FunctionModel`` receives from an agent with ``ProcessHistory(processor)``
    that continues ``history``, or, when the agent asks the model nothing, the messages it holds."""
    from pydantic_ai import Agent
    from pydantic_ai.capabilities import ProcessHistory
    from pydantic_ai.messages import ModelResponse, TextPart
    from pydantic_ai.models.function import FunctionModel

    seen: list[list[Any]] = []

    def model(messages: list[Any], info: Any) -> Any:
        seen.append(list(messages))
        return ModelResponse(parts=[TextPart(ANSWER)])

    messages, sources = _to_pydantic_ai(history)
    agent = Agent(FunctionModel(model), capabilities=[ProcessHistory(processor)])
    result = asyncio.run(agent.run(None, message_history=messages))  # (run_sync leaves a thread's loop open)
    # a history that ends on the model's answer is a finished run: the agent asks the model nothing, and
    # what it holds is the history it was given
    return sources.back(seen[0] if seen else result.all_messages(), _from_pydantic_ai)


@PEERS.add("pydantic-ai-slim.ProcessHistory.keep_recent", "ProcessHistory",
           "the packaged docs' keep_recent: messages[-keep_turns:] when longer (docs: 10), Agent on a FunctionModel")
def keep_recent(history: History, keep_turns: int = 10) -> History:
    """The docs' ``keep_recent`` (``messages[-keep_turns:]`` when longer) in ``ProcessHistory``."""
    keep = max(1, keep_turns)

    async def processor(messages: list[Any]) -> list[Any]:
        return messages[-keep:] if len(messages) > keep else messages

    return _run(history, processor)


@PEERS.add("pydantic-ai-slim.ProcessHistory.summarize_old", "ProcessHistory",
           "the packaged docs' summarizing processor: when longer than keep_turns, all but the last keep_turns "
           "messages become ModelRequest(parts=[CompactionPart(summary)]), summary by an Agent on a recording "
           "FunctionModel")
def summarize_old(history: History, keep_turns: int = 10, summarize: Callable[[Any], str] | None = None) -> History:
    """The docs' summarizing processor in ``ProcessHistory``: the messages before the last
    ``keep_turns`` replaced by ``ModelRequest(parts=[CompactionPart(content=summary)])``, the
    summary written by an agent whose ``FunctionModel`` asks ``summarize``."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import CompactionPart, ModelRequest, ModelResponse, TextPart
    from pydantic_ai.models.function import FunctionModel

    keep = max(1, keep_turns)

    def summarizer_model(messages: list[Any], info: Any) -> Any:
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        prompt = ModelMessagesTypeAdapter.dump_python(messages, mode="json")
        return ModelResponse(parts=[TextPart(summarize(prompt) if summarize is not None else SUMMARY)])

    summarizer = Agent(FunctionModel(summarizer_model), instructions="Summarize this conversation, omitting "
                       "small talk and unrelated topics. Focus on the technical discussion and next steps.")

    async def processor(messages: list[Any]) -> list[Any]:
        if len(messages) <= keep:
            return messages
        old, recent = messages[:-keep], messages[-keep:]
        summary = await summarizer.run(message_history=old)
        return [ModelRequest(parts=[CompactionPart(content=summary.output)]), *recent]

    return _run(history, processor)
