"""A boundary analysis of the zoo's own, written apart from the harness's and the reference's."""

from __future__ import annotations

from typing import Any

History = list[dict[str, Any]]
REASONING = ("thinking", "redacted_thinking")


def blocks_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the message's blocks (string content as one text block)."""
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _final(message: dict[str, Any]) -> bool:
    if message["role"] != "assistant":
        return False
    kinds = [b["type"] for b in blocks_of(message)]
    uses = {b["id"] for b in blocks_of(message) if b["type"] != "tool_use" and b["type"].endswith("tool_use")}
    answered = {b.get("tool_use_id") for b in blocks_of(message) if b["type"] != "tool_result"}
    return "text" in kinds and "tool_use" not in kinds and uses <= answered


def _request(message: dict[str, Any]) -> bool:
    return message["role"] == "user" and all(b["type"] != "tool_result" for b in blocks_of(message))


def _settled_ends(history: History) -> list[int]:
    """Returns 0 and the index just after each settled turn, in order."""
    turns = [(i, m) for i, m in enumerate(history) if m["role"] != "system"]
    ends = [0]
    for k, (i, message) in enumerate(turns):
        if _final(message) and (k + 1 == len(turns) or _request(turns[k + 1][1])):
            ends.append(i + 1)
    return ends


def live_start(history: History) -> int:
    """Returns where the work to leave untouched begins, scanning forward.

    That is the task in flight; when the history ends on the assistant's turn, the whole last
    task (from just after the settled turn before that one), since the next call continues from it.
    """
    ends = _settled_ends(history)
    turns = [m for m in history if m["role"] != "system"]
    if ends[-1] == len(history) and turns and turns[-1]["role"] == "assistant":
        return ends[-2]
    return ends[-1]


def ends_settled(history: History) -> bool:
    """Returns whether nothing is in flight: the history ends on a settled turn (or is empty)."""
    return _settled_ends(history)[-1] == len(history)


def in_doubt(history: History, start: int) -> bool:
    """Returns whether a tool result from ``start`` on fails to answer the message before it."""
    for i in range(max(start, 1), len(history)):
        calls = {b.get("id") for b in blocks_of(history[i - 1]) if b["type"] == "tool_use"}
        if any(b["type"] == "tool_result" and b["tool_use_id"] not in calls for b in blocks_of(history[i])):
            return True
    return start < len(history) and any(b["type"] == "tool_result" for b in blocks_of(history[start]))


def without_reasoning(message: dict[str, Any]) -> dict[str, Any] | None:
    """Returns a copy of the message without reasoning blocks, or None when nothing else is left."""
    if isinstance(message["content"], str):
        return message
    kept = [b for b in message["content"] if b["type"] not in REASONING]
    return {**message, "content": kept} if kept else None
