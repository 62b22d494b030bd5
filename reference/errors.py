"""Typed errors of the reference compactor: it refuses, with one of these, rather than guess."""

from __future__ import annotations


class CompactionError(Exception):
    """Root of every refusal of the reference compactor."""


class LiveTaskOverBudget(CompactionError):
    """The task in flight, after the settled history it started with (``settled_tokens``), is
    larger than the caller's budget; live work is never cut, and settled history is never re-trimmed
    under a task in flight (that would invalidate the task's thinking on current models)."""

    def __init__(self, live_tokens: int, budget_tokens: int, live_messages: int, settled_tokens: int = 0) -> None:
        self.live_tokens = live_tokens
        self.budget_tokens = budget_tokens
        self.live_messages = live_messages
        self.settled_tokens = settled_tokens
        after = f" after the ~{settled_tokens} tokens of settled history it started with" if settled_tokens else ""
        super().__init__(
            f"the task in flight ({live_messages} messages, ~{live_tokens} tokens){after} exceeds the "
            f"budget of {budget_tokens} tokens; cap its steps or shrink its tool results instead")


class AmbiguousBoundary(CompactionError):
    """The history's order does not show where the task in flight begins."""

    def __init__(self, message: str, tool_use_id: str, index: int) -> None:
        self.tool_use_id = tool_use_id
        self.index = index
        super().__init__(message)


class InterleavedTasks(AmbiguousBoundary):
    """A tool result answers a call from an earlier turn than the one just before it."""


class ReorderedHistory(AmbiguousBoundary):
    """A tool result comes before the call it answers, as in a store that lost message order."""
