"""langchain's agent middleware: ``ClearToolUsesEdit`` and ``SummarizationMiddleware``, on LangChain
messages (the ``langchain`` format).

The edit runs as ``ContextEditingMiddleware`` runs it, on a copy of the request's messages. The
summarizer's model is langchain-core's ``GenericFakeChatModel`` answering a fixed summary and
recording its prompts (``_fake_model``): no network, and no reasoning text can reach the summary.
"""

from __future__ import annotations

from typing import Any

from .base import Peers

LIBRARY = "langchain"
SUMMARY = "SUMMARY: earlier work condensed by a fake model."
PEERS = Peers(LIBRARY, "langchain.agents.middleware")


@PEERS.add("langchain.ClearToolUsesEdit", "ClearToolUsesEdit",
           "trigger=0, keep=3, count_tokens=count_tokens_approximately", "langchain")
def clear_tool_uses(messages: list[Any]) -> list[Any]:
    """Applies ``ClearToolUsesEdit(trigger=0, keep=3)`` to a copy of ``messages``; returns the copy."""
    from langchain.agents.middleware import ClearToolUsesEdit
    from langchain_core.messages.utils import count_tokens_approximately

    edited = list(messages)
    ClearToolUsesEdit(trigger=0, keep=3).apply(edited, count_tokens=count_tokens_approximately)
    return edited


@PEERS.add("langchain.SummarizationMiddleware", "SummarizationMiddleware",
           'trigger=("messages", keep_turns), keep=("messages", keep_turns // 2), both at least 1, fake model',
           "langchain")
def summarize(messages: list[Any], keep_turns: int = 10) -> list[Any]:
    """Runs ``SummarizationMiddleware.before_model`` once, counting messages; returns the messages
    the model would see."""
    return _summarized(messages, trigger=("messages", max(1, keep_turns)), keep=("messages", max(1, keep_turns // 2)))


@PEERS.add("langchain.SummarizationMiddleware.tokens", "SummarizationMiddleware",
           'trigger=("tokens", budget_tokens (default 200)), keep=("tokens", budget_tokens // 2), fake model',
           "langchain")
def summarize_tokens(messages: list[Any], budget_tokens: int = 200) -> list[Any]:
    """The same, counting approximate tokens against ``budget_tokens``."""
    return _summarized(messages, trigger=("tokens", budget_tokens), keep=("tokens", max(1, budget_tokens // 2)))


def _summarized(messages: list[Any], **settings: Any) -> list[Any]:
    """Runs ``SummarizationMiddleware(fake model, **settings).before_model`` once; returns the
    messages the model would see."""
    from langchain.agents.middleware import SummarizationMiddleware
    from langchain_core.messages import RemoveMessage

    from ._fake_model import recording_model

    middleware = SummarizationMiddleware(recording_model(SUMMARY), **settings)
    update = middleware.before_model({"messages": list(messages)}, None)  # type: ignore[arg-type]  # no runtime: this middleware reads none
    if update is None:
        return list(messages)
    return [m for m in update["messages"] if not isinstance(m, RemoveMessage)]
