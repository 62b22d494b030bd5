"""A budget on top of the reference: the oldest settled task goes while settled history plus the task
in flight is over ``budget_tokens`` (what the reference did before it decided the cut at the task's
first call). As the task grows, settled history is re-trimmed under it and its thinking breaks."""

from __future__ import annotations

from conformance_reference import compact as reference
from conformance_reference import estimate_tokens, task_boundary

from ._tasks import Message, settled_tasks


def compact(history: list[Message], keep_turns: int = 10, budget_tokens: int = 2000) -> list[Message]:
    """Returns the reference's output with the oldest settled tasks dropped until it fits the budget."""
    out = reference(history, keep_turns)
    live = len(history) - task_boundary(history)
    settled, in_flight = out[:len(out) - live], out[len(out) - live:]
    tasks = settled_tasks(settled)
    while tasks and estimate_tokens([m for t in tasks for m in t] + in_flight) > budget_tokens:
        tasks.pop(0)
    return [m for t in tasks for m in t] + in_flight
