"""The fixed window most agents start with, made safe for the task in flight: it keeps the last
``keep_turns`` messages, never cuts the task in flight, and strips reasoning from the settled tasks
it keeps. But the task in flight counts against the window, so settled history shrinks while the
task runs: every thinking block of the task is then replayed after a changed prefix."""

from __future__ import annotations

from conformance_reference import task_boundary

from ._tasks import Message, settled_tasks, without_reasoning


def compact(history: list[Message], keep_turns: int = 10) -> list[Message]:
    """Returns the settled tasks that fit in ``keep_turns`` beside the task in flight, then that task."""
    start = task_boundary(history)
    live = list(history[start:])
    room = max(0, keep_turns - len(live))
    kept: list[Message] = []
    for task in reversed(settled_tasks(list(history[:start]))):
        if len(kept) + len(task) > room:
            break
        kept = task + kept
    return [m for m in (without_reasoning(x) for x in kept) if m is not None] + live
