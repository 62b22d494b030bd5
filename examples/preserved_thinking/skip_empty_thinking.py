"""The reference behind a serializer that skips thinking blocks whose text is empty (on Claude Fable
5.1 the text is empty by default and the signature carries the reasoning) in every turn but the
newest. Each removal leaves a gap in the chain of thinking: every later block fails the check."""

from __future__ import annotations

from conformance_reference import compact as reference

from ._tasks import Message


def _skip_empty(message: Message) -> Message:
    content = message.get("content")
    if message.get("role") != "assistant" or not isinstance(content, list):
        return message
    kept = [b for b in content if not (isinstance(b, dict) and b.get("type") == "thinking" and not b.get("thinking"))]
    return {**message, "content": kept} if kept and len(kept) < len(content) else message


def compact(history: list[Message], keep_turns: int = 10) -> list[Message]:
    """Returns the reference's output, empty-text thinking skipped in all but the newest assistant turn."""
    out = reference(history, keep_turns)
    newest = max((i for i, m in enumerate(out) if m.get("role") == "assistant"), default=-1)
    return [m if i == newest else _skip_empty(m) for i, m in enumerate(out)]
