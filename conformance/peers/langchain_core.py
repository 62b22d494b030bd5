"""langchain-core's ``trim_messages``, on LangChain messages (the ``langchain`` format).

Counting messages (``token_counter=len``) with ``max_tokens`` set to the scenario's ``keep_turns``,
as a window of that many messages would; the partial strategy counts approximate tokens against
``budget_tokens``.
"""

from __future__ import annotations

from typing import Any

from .base import Peer

LIBRARY = "langchain-core"
_HERE = __name__
PEERS = [
    Peer("langchain-core.trim_messages.last", LIBRARY, "trim_messages",
         'strategy="last", token_counter=len, max_tokens=keep_turns', "langchain", f"{_HERE}:last", "langchain_core"),
    Peer("langchain-core.trim_messages.last-from-human", LIBRARY, "trim_messages",
         'strategy="last", start_on="human", token_counter=len, max_tokens=keep_turns', "langchain",
         f"{_HERE}:last_from_human", "langchain_core"),
    Peer("langchain-core.trim_messages.partial", LIBRARY, "trim_messages",
         'strategy="last", allow_partial=True, token_counter="approximate", max_tokens=budget_tokens (default 200)',
         "langchain", f"{_HERE}:partial", "langchain_core"),
]


def last(messages: list[Any], keep_turns: int = 10) -> list[Any]:
    """``trim_messages(strategy="last")`` keeping ``keep_turns`` messages."""
    from langchain_core.messages import trim_messages

    return trim_messages(messages, max_tokens=keep_turns, token_counter=len, strategy="last")


def last_from_human(messages: list[Any], keep_turns: int = 10) -> list[Any]:
    """The same, told to start the kept history on a human message."""
    from langchain_core.messages import trim_messages

    return trim_messages(messages, max_tokens=keep_turns, token_counter=len, strategy="last", start_on="human")


def partial(messages: list[Any], budget_tokens: int = 200) -> list[Any]:
    """``trim_messages`` keeping the last ``budget_tokens`` approximate tokens, cutting inside a message."""
    from langchain_core.messages import trim_messages

    return trim_messages(messages, max_tokens=budget_tokens, token_counter="approximate", strategy="last",
                         allow_partial=True)
