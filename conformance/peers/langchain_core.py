"""langchain-core's ``trim_messages``, on LangChain messages (the ``langchain`` format).

Counting messages (``token_counter=len``) with ``max_tokens`` set to the scenario's ``keep_turns``,
as a window of that many messages would; the partial strategy counts approximate tokens against
``budget_tokens``.
"""

from __future__ import annotations

from typing import Any

from .base import Peers

LIBRARY = "langchain-core"
PEERS = Peers(LIBRARY, "langchain_core")


@PEERS.add("langchain-core.trim_messages.last", "trim_messages",
           'strategy="last", token_counter=len, max_tokens=keep_turns', "langchain")
def last(messages: list[Any], keep_turns: int = 10) -> list[Any]:
    """``trim_messages(strategy="last")`` keeping ``keep_turns`` messages."""
    from langchain_core.messages import trim_messages

    return trim_messages(messages, max_tokens=keep_turns, token_counter=len, strategy="last")


@PEERS.add("langchain-core.trim_messages.last-from-human", "trim_messages",
           'strategy="last", start_on="human", token_counter=len, max_tokens=keep_turns', "langchain")
def last_from_human(messages: list[Any], keep_turns: int = 10) -> list[Any]:
    """The same, told to start the kept history on a human message."""
    from langchain_core.messages import trim_messages

    return trim_messages(messages, max_tokens=keep_turns, token_counter=len, strategy="last", start_on="human")


@PEERS.add("langchain-core.trim_messages.partial", "trim_messages",
           'strategy="last", allow_partial=True, token_counter="approximate", max_tokens=budget_tokens (default '
           "200)", "langchain")
def partial(messages: list[Any], budget_tokens: int = 200) -> list[Any]:
    """``trim_messages`` keeping the last ``budget_tokens`` approximate tokens, cutting inside a message."""
    from langchain_core.messages import trim_messages

    return trim_messages(messages, max_tokens=budget_tokens, token_counter="approximate", strategy="last",
                         allow_partial=True)
