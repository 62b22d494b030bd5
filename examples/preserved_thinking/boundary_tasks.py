"""A compactor that is safe under the prefix check, unlike the reference in its details: it keeps
the last ``keep_tasks`` whole settled tasks and an opening note of how many were dropped, strips
reasoning from everything settled, and changes what it sends only when a new task begins (its
settled part depends on settled history alone, which does not change while a task runs)."""

from __future__ import annotations

from conformance_reference import compact as reference
from conformance_reference import task_boundary

from ._tasks import Message, settled_tasks, without_reasoning


NOTE = "[earlier: "


def compact(history: list[Message], keep_tasks: int = 3) -> list[Message]:
    """Returns a note, the last ``keep_tasks`` settled tasks without reasoning, then the task in flight."""
    reference(history, keep_turns=0)  # refuses, as the reference does, an order that hides the task boundary
    start = task_boundary(history)
    if start == len(history) and history and history[-1].get("role") == "assistant":
        start = task_boundary(history[:-1])  # ends on an answer the next call continues from: its task, whole
    tasks = settled_tasks(list(history[:start]))
    omitted = 0
    if tasks and len(tasks[0]) == 1 and str(tasks[0][0].get("content")).startswith(NOTE):
        omitted = int(str(tasks.pop(0)[0]["content"])[len(NOTE):].split()[0])  # a note of an earlier compaction
    dropped, kept = tasks[:-keep_tasks] if keep_tasks else tasks, tasks[-keep_tasks:] if keep_tasks else []
    settled = [m for m in (without_reasoning(x) for t in kept for x in t) if m is not None]
    omitted += len(dropped)
    note = [{"role": "user", "content": f"{NOTE}{omitted} tasks omitted]"}] if omitted else []
    return note + settled + list(history[start:])
