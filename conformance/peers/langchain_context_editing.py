"""langchain's ``ContextEditingMiddleware``, run as an agent runs it before each model call, on
LangChain messages (the ``langchain`` format).

The middleware's ``wrap_model_call`` gets a ``ModelRequest`` of the history and a handler standing
for the model; what the handler receives is the history the model would see. The edits fire when
the history's approximate tokens pass ``budget_tokens``.
"""

from __future__ import annotations

from typing import Any

from .base import Peers

LIBRARY = "langchain"
PEERS = Peers(LIBRARY, "langchain.agents.middleware")


def edited(messages: list[Any], edit: Any) -> list[Any]:
    """Runs ``ContextEditingMiddleware(edits=[edit]).wrap_model_call`` on ``messages``; returns the
    messages its handler (the model's place) was called with."""
    from langchain.agents.middleware import ContextEditingMiddleware
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.messages import AIMessage

    from ._fake_model import recording_model

    seen: list[list[Any]] = []

    def handler(request: Any) -> Any:
        seen.append(list(request.messages))
        return AIMessage(content="")

    request = ModelRequest(model=recording_model(""), messages=list(messages))
    ContextEditingMiddleware(edits=[edit]).wrap_model_call(request, handler)
    return seen[0]


@PEERS.add("langchain.ContextEditingMiddleware.keep-3", "ContextEditingMiddleware",
           "edits=[ClearToolUsesEdit(trigger=budget_tokens (default 200), keep=3)], "
           'token_count_method="approximate"', "langchain")
def keep_three(messages: list[Any], budget_tokens: int = 200) -> list[Any]:
    """Clears all but the last 3 tool results once the history passes ``budget_tokens``."""
    from langchain.agents.middleware import ClearToolUsesEdit

    return edited(messages, ClearToolUsesEdit(trigger=budget_tokens, keep=3))


@PEERS.add("langchain.ContextEditingMiddleware.clear-inputs", "ContextEditingMiddleware",
           "edits=[ClearToolUsesEdit(trigger=budget_tokens (default 200), keep=1, clear_tool_inputs=True)], "
           'token_count_method="approximate"', "langchain")
def clear_inputs(messages: list[Any], budget_tokens: int = 200) -> list[Any]:
    """Clears all but the last tool result, and the inputs of the calls cleared, past ``budget_tokens``."""
    from langchain.agents.middleware import ClearToolUsesEdit

    return edited(messages, ClearToolUsesEdit(trigger=budget_tokens, keep=1, clear_tool_inputs=True))
