"""Whole settled tasks, found as a user would: a task opens on a user request (a user message with
no ``tool_result``)."""

from __future__ import annotations

from typing import Any

Message = dict[str, Any]


def opens_task(message: Message) -> bool:
    """Returns whether a message is a user request rather than a tool result or an answer."""
    content = message.get("content")
    results = isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result"
                                                for b in content)
    return message.get("role") == "user" and not results


def _calls(message: Message) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in content)


def settled_tasks(settled: list[Message]) -> list[list[Message]]:
    """Returns settled history cut into tasks, each opening on a request that follows an answer
    with no call waiting (a notice stored between a call and its result opens nothing; anything
    before the first request is a task of its own)."""
    tasks: list[list[Message]] = []
    waiting = False
    for message in settled:
        if not tasks or (opens_task(message) and not waiting):
            tasks.append([])
        tasks[-1].append(message)
        if message.get("role") == "assistant":
            waiting = _calls(message)
        elif not opens_task(message):
            waiting = False
    return tasks


def without_reasoning(message: Message) -> Message | None:
    """Returns the message without its thinking blocks (``None`` when nothing else is left)."""
    content = message.get("content")
    if not isinstance(content, list):
        return message
    kept = [b for b in content if not (isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"))]
    return {**message, "content": kept} if kept else None
