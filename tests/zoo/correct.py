"""Legitimately different correct compactors: each must pass every MUST invariant."""

from __future__ import annotations

import copy

from ._history import History, in_doubt, live_start


def noop(history: History) -> History:
    """Returns the history as it came: trivially correct, compacts nothing."""
    return list(history)


def live_only(history: History) -> History:
    """Returns only the task in flight (all of it when the order leaves the boundary in doubt)."""
    start = live_start(history)
    return list(history) if in_doubt(history, start) else history[start:]


def summarizer(history: History) -> History:
    """Returns one summary message in place of all settled history, then the task in flight."""
    start = live_start(history)
    if start == 0 or in_doubt(history, start):
        return list(history)
    if history[0]["role"] == "user" and isinstance(history[0]["content"], str) and \
            history[0]["content"].startswith("[summary of "):
        return list(history)  # already summarized: leave it
    summary = {"role": "user", "content": f"[summary of {start} earlier messages: settled work, omitted]"}
    return [summary, *history[start:]]


def deep_copy(history: History) -> History:
    """Returns a deep copy: correct, and shows a copy is not a mutation."""
    return copy.deepcopy(history)
