"""Compactors that speak toy-chat: one that keeps everything, one that drops the first message."""

from __future__ import annotations

from typing import Any


def keep(messages: list[dict[str, Any]], **kwargs: Any) -> list[dict[str, Any]]:
    """Returns the messages unchanged."""
    return messages


def drop_first(messages: list[dict[str, Any]], **kwargs: Any) -> list[dict[str, Any]]:
    """Returns the messages without the first one (which loses the task's request)."""
    return messages[1:]
