"""Small compactors for the report tests: one faithful, three that break the task in flight."""

from __future__ import annotations

from typing import Any

History = list[dict[str, Any]]
KEEP = {"text", "tool_use", "tool_result"}


def keep_all(history: History) -> History:
    """Returns the history unchanged (a conforming no-op)."""
    return [dict(m) for m in history]


def whitelist(history: History, keep_turns: int = 4) -> History:
    """Returns the history with reasoning dropped from every message older than ``keep_turns``."""
    old, recent = history[:-keep_turns] if keep_turns else history, history[-keep_turns:] if keep_turns else []
    trimmed = []
    for message in old:
        content = message["content"]
        if isinstance(content, str):
            trimmed.append(message)
            continue
        kept = [b for b in content if b["type"] in KEEP]
        if kept:
            trimmed.append({**message, "content": kept})
    return trimmed + list(recent)


def leak_thinking(history: History) -> History:
    """Returns the history with every thinking text changed (a quoted copy lands in the diff)."""
    out = []
    for message in history:
        content = message["content"]
        if isinstance(content, list):
            content = [{**b, "thinking": b["thinking"] + " (edited)"} if b.get("type") == "thinking" else b
                       for b in content]
        out.append({**message, "content": content})
    return out


def clear_results(history: History) -> History:
    """Returns the history with every tool result's content replaced by a short placeholder."""
    out = []
    for message in history:
        content = message["content"]
        if isinstance(content, list):
            content = [{**b, "content": "[cleared]"} if b.get("type") == "tool_result" else b for b in content]
        out.append({**message, "content": content})
    return out


def raises(history: History) -> History:
    """Raises ``RuntimeError`` <always>."""
    raise RuntimeError("compaction failed <script>alert(1)</script>")


def thinking_to_text(history: History) -> History:
    """Returns the history with every thinking block turned into a text block quoting its reasoning."""
    out = []
    for message in history:
        content = message["content"]
        if isinstance(content, list):
            content = [{"type": "text", "text": b["thinking"]} if b.get("type") == "thinking" else b for b in content]
        out.append({**message, "content": content})
    return out


def raises_quoting_reasoning(history: History) -> History:
    """Raises ``ValueError`` whose message quotes the first thinking text of the history."""
    quoted = next(b["thinking"] for m in history if isinstance(m["content"], list)
                  for b in m["content"] if b.get("type") == "thinking")
    raise ValueError(f"cannot keep {quoted}")
