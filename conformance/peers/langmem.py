"""langmem's ``summarize_messages`` (its short-term memory), on LangChain messages (the ``langchain``
format).

The summariser is a recording fake model answering a fixed summary (no network). langmem returns
the summary as a ``SystemMessage`` ahead of the messages it kept; the adapter gives it back as a
user message of the same text, in its place, as the Anthropic format has no system message in
its history.
"""

from __future__ import annotations

import warnings
from typing import Any

from .base import Peers

LIBRARY = "langmem"
SUMMARY = "SUMMARY: earlier work condensed by a fake model."
PEERS = Peers(LIBRARY, "langmem.short_term")


def summarized(messages: list[Any], **settings: Any) -> list[Any]:
    """Runs ``summarize_messages(messages, **settings)`` with the fake model; returns its messages,
    a ``SystemMessage`` (the summary) given back as a ``HumanMessage`` of its text."""
    from langchain_core.messages import HumanMessage, SystemMessage
    from langmem.short_term import summarize_messages

    from ._fake_model import recording_model

    with warnings.catch_warnings():  # its warning is of the summariser's input, not of the history returned
        warnings.simplefilter("ignore", RuntimeWarning)
        result = summarize_messages(list(messages), running_summary=None, model=recording_model(SUMMARY), **settings)
    return [HumanMessage(content=m.content) if isinstance(m, SystemMessage) else m for m in result.messages]


@PEERS.add("langmem.summarize_messages", "summarize_messages",
           "max_tokens=budget_tokens (default 200), max_summary_tokens=budget_tokens // 4, running_summary=None, "
           "fake model", "langchain")
def summarize(messages: list[Any], budget_tokens: int = 200) -> list[Any]:
    """Summarizes once the history passes ``budget_tokens`` approximate tokens."""
    return summarized(messages, max_tokens=budget_tokens, max_summary_tokens=max(1, budget_tokens // 4))


@PEERS.add("langmem.summarize_messages.early", "summarize_messages",
           "max_tokens=budget_tokens (default 200), max_tokens_before_summary=budget_tokens // 2, "
           "max_summary_tokens=budget_tokens // 4, running_summary=None, fake model", "langchain")
def early(messages: list[Any], budget_tokens: int = 200) -> list[Any]:
    """Summarizes once the history passes half of ``budget_tokens``."""
    return summarized(messages, max_tokens=budget_tokens, max_tokens_before_summary=max(1, budget_tokens // 2),
                      max_summary_tokens=max(1, budget_tokens // 4))
