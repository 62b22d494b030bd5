"""``toy-chat``: messages as ``{"speaker", "text"}``, which carry text only."""

from __future__ import annotations

from typing import Any

from conformance.formats.base import Format, FormatError, History


def reason(history: History) -> str | None:
    """Returns why ``history`` cannot be written as toy-chat messages (any block but text), or None."""
    for message in history:
        content = message["content"]
        if not isinstance(content, str) and any(block.get("type") != "text" for block in content):
            return "toy-chat messages carry text only"
    return None


def _text(content: Any) -> str:
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


def to_format(history: History) -> list[dict[str, Any]]:
    """Returns the history as toy-chat messages."""
    return [{"speaker": m["role"], "text": _text(m["content"])} for m in history]


def from_format(messages: list[Any]) -> History:
    """Returns toy-chat messages as a history; raises ``FormatError`` for anything else."""
    if not all(isinstance(m, dict) and set(m) == {"speaker", "text"} for m in messages):
        raise FormatError("an item of the output is not a toy-chat message")
    return [{"role": m["speaker"], "content": m["text"]} for m in messages]


FORMAT = Format("toy-chat", "Toy chat messages", "toy-chat 1", reason, to_format, from_format,
                string_content_is_one_text_block=True)
