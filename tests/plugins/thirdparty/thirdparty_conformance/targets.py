"""Compactors that speak toy-chat (one that keeps everything, one that drops the first message), and
two serializers for the package's own egress surface (one that keeps the answer, one that leaks)."""

from __future__ import annotations

import json
from typing import Any


def keep(messages: list[dict[str, Any]], **kwargs: Any) -> list[dict[str, Any]]:
    """Returns the messages unchanged."""
    return messages


def drop_first(messages: list[dict[str, Any]], **kwargs: Any) -> list[dict[str, Any]]:
    """Returns the messages without the first one (which loses the task's request)."""
    return messages[1:]


def dashboard_answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """A dashboard entry holding the answer only: the text blocks of the last assistant message."""
    last = next((m for m in reversed(messages) if m.get("role") == "assistant"), {"content": ""})
    content = last["content"]
    text = content if isinstance(content, str) else " ".join(
        b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return {"answer": text}


def dashboard_dump(messages: list[dict[str, Any]]) -> str:
    """A dashboard entry holding the whole conversation, reasoning included: a leak."""
    return json.dumps(messages)
