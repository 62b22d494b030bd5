"""A window of the last whole settled tasks that keeps their reasoning (a model reads its earlier
thinking better). Every one-call check passes; in the loop, the window moves at each new task and
the kept tasks' thinking is replayed after a changed prefix: a 400 on current Claude models."""

from __future__ import annotations

from conformance_reference import task_boundary

from ._tasks import Message, settled_tasks


def compact(history: list[Message], keep_tasks: int = 2) -> list[Message]:
    """Returns the last ``keep_tasks`` settled tasks, reasoning kept, then the task in flight."""
    start = task_boundary(history)
    kept = [m for task in settled_tasks(list(history[:start]))[-keep_tasks:] for m in task] if keep_tasks else []
    return kept + list(history[start:])
