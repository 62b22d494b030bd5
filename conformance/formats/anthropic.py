"""The Anthropic Messages API shape itself: the identity format, for targets that need no conversion."""

from __future__ import annotations

from typing import Any

from ..engine.transcript import deep_copy
from .base import Format, History, require


def reason(history: History) -> str | None:
    """Returns None: every scenario is written in this format."""
    return None


def to_format(history: History) -> list[dict[str, Any]]:
    """Returns a deep copy of ``history``."""
    return deep_copy(history)


def from_format(messages: list[Any]) -> History:
    """Returns ``messages`` as they are; raises ``FormatError`` unless it is a list of dicts."""
    require(all(isinstance(m, dict) for m in messages), "an item of the output is not a message dict")
    return list(messages)


FORMAT = Format("anthropic", "Anthropic messages", "anthropic 2.14", reason, to_format, from_format)
