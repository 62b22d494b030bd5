"""autogen-core: ``AssistantMessage`` (its ``thought`` field holds the reasoning) written by
``model_dump_json``, as autogen's chat-completion contexts save state."""

from __future__ import annotations

from typing import Any

from .base import Component, blocks, tool_result_text


def dump(history: list[dict[str, Any]]) -> list[str]:
    """Returns ``model_dump_json`` of each message as autogen-core's types hold it."""
    from autogen_core import FunctionCall
    from autogen_core.models import (AssistantMessage, FunctionExecutionResult, FunctionExecutionResultMessage,
                                     UserMessage)

    out = []
    for message in history:
        if message["role"] == "user":
            results = [FunctionExecutionResult(content=tool_result_text(b), call_id=b["tool_use_id"], name="tool")
                       for b in blocks(message) if b["type"] == "tool_result"]
            text = " ".join(b["text"] for b in blocks(message) if b["type"] == "text")
            out.append((FunctionExecutionResultMessage(content=results) if results
                        else UserMessage(content=text, source="user")).model_dump_json())
            continue
        import json

        thought = "\n".join(b["thinking"] for b in blocks(message) if b["type"] == "thinking") or None
        calls = [FunctionCall(id=b["id"], name=b["name"], arguments=json.dumps(b["input"]))
                 for b in blocks(message) if b["type"] == "tool_use"]
        text = " ".join(b["text"] for b in blocks(message) if b["type"] == "text")
        out.append(AssistantMessage(content=calls or text, thought=thought, source="assistant").model_dump_json())
    return out


COMPONENTS = [
    Component("autogen-core.AssistantMessage.model_dump_json", "autogen-core", "AssistantMessage.model_dump_json",
              "defaults (thought set)", "conversation-store", "anthropic",
              "conformance.egress.adapters.autogen_core:dump", "autogen_core", stops="none in the library"),
]
