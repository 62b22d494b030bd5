"""langchain-core's ``trim_messages`` on Anthropic-shaped histories, for ``conformance run --target``.

The adapter itself is ``conformance/peers/langchain_core.py`` (one of the peers of
``conformance matrix``); these wrap it with the LangChain message format, as ``--format langchain``
would: ``conformance run --target conformance.peers.langchain_core:last --format langchain`` is the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.formats import get
from conformance.peers import langchain_core

History = list[dict[str, Any]]
_LANGCHAIN = get("langchain")


def _in_langchain(trim: Callable[[list[Any], int], list[Any]], history: History, keep_turns: int) -> History:
    why = _LANGCHAIN.why_not(history)
    if why is not None:
        raise ValueError(f"not expressible as LangChain messages: {why}")
    return _LANGCHAIN.back(trim(_LANGCHAIN.to_format(history), keep_turns), history)


def trim_last(history: History, keep_turns: int = 10) -> History:
    """``trim_messages(strategy="last")`` counting messages, as a window of ``keep_turns`` would."""
    return _in_langchain(langchain_core.last, history, keep_turns)


def trim_last_from_human(history: History, keep_turns: int = 10) -> History:
    """The same, told to start the kept history on a human message (``start_on="human"``)."""
    return _in_langchain(langchain_core.last_from_human, history, keep_turns)
