"""Strands Agents' ``SlidingWindowConversationManager``, on Converse messages (the ``bedrock`` format).

The manager works on an agent's ``messages`` list in place, as an agent runs it after each turn
(``apply_management``); the adapter hands it a stand-in agent holding a copy of the messages.
"""

from __future__ import annotations

import copy
from typing import Any

from .base import Peers

LIBRARY = "strands-agents"
PEERS = Peers(LIBRARY, "strands")


class _Agent:
    """What the conversation manager reads and writes of an agent: its messages."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages


@PEERS.add("strands-agents.SlidingWindowConversationManager", "SlidingWindowConversationManager",
           "window_size=keep_turns (at least 1), should_truncate_results=True", "bedrock")
def sliding_window(messages: list[dict[str, Any]], keep_turns: int = 10) -> list[dict[str, Any]]:
    """Runs ``SlidingWindowConversationManager(window_size=keep_turns).apply_management`` on a copy."""
    from strands.agent.conversation_manager import SlidingWindowConversationManager

    agent = _Agent(copy.deepcopy(messages))  # the agent owns its messages; the manager edits them
    SlidingWindowConversationManager(window_size=max(1, keep_turns)).apply_management(agent)  # type: ignore[arg-type]  # a stand-in holding only the messages the manager reads
    return agent.messages
