"""A history listed one line per message or item, with the line drawn where the task in flight begins
(blocks labelled by type; reasoning as hash and length, never its text)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .redaction import block_label
from .transcript import blocks, fingerprint


def sized(kind: str, text: str) -> str:
    """Returns ``kind`` with the hash and length of ``text`` (never the text itself)."""
    return f"{kind} #{fingerprint(text)} ({len(text)} chars)"


def boundary_line(live_start: int, total: int) -> str:
    """Returns the line drawn where the task in flight begins (or says the history ends settled)."""
    if live_start >= total:
        return f"  ──── no task in flight: the history ends settled (live_start = {live_start}) ────"
    return f"  ──── task in flight starts here: live_start = {live_start} ────"


def marked_lines(items: Sequence[Any], live_start: int | None, line: Callable[[int, Any], str]) -> list[str]:
    """Returns ``line(n, item)`` for each item, the boundary line drawn before ``live_start`` (or
    after the last item when the history ends settled); no boundary when ``live_start`` is None."""
    lines = []
    for n, item in enumerate(items):
        if n == live_start:
            lines.append(boundary_line(live_start, len(items)))
        lines.append(line(n, item))
    if live_start is not None and live_start >= len(items):
        lines.append(boundary_line(live_start, len(items)))
    return lines


def message_line(index: int, message: Any) -> str:
    """Returns the line of one message: its index, role and labelled blocks."""
    if not isinstance(message, Mapping):
        return f"  [{index}] {type(message).__name__}"
    labels = " · ".join(block_label(b) for b in blocks(message)) or "(no content)"
    return f"  [{index}] {message.get('role', '?')!s:<9} {labels}"


def messages_lines(history: Sequence[Any], live_start: int) -> list[str]:
    """Returns one line per message with the boundary line inserted before ``live_start``."""
    return marked_lines(history, live_start, message_line)
