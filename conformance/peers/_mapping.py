"""Shared by the adapters whose library has its own message objects: build one object per message,
and map what the library returns back to the messages it came from.

An object that comes back with the key and the fingerprint it was built with stands for its source
message, given back whole; anything else (a summary, a placeholder, an object the library changed)
is converted on its own by the adapter.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable
from typing import Any

History = list[dict[str, Any]]


def blocks_of(message: dict[str, Any]) -> list[dict[str, Any]]:
    """Returns the message's blocks (a string content is one text block)."""
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def text_of(blocks: Iterable[dict[str, Any]], kinds: tuple[str, ...] = ("text",)) -> str:
    """Returns the text of the blocks of ``kinds``, joined by newlines."""
    return "\n".join(str(b.get("text", b.get("thinking", ""))) for b in blocks if b.get("type") in kinds)


def result_text(content: Any) -> str:
    """Returns a tool result's content as text."""
    if isinstance(content, str):
        return content
    return "\n".join(str(p.get("text", json.dumps(p))) for p in content or [] if isinstance(p, dict))


def call_names(history: History) -> dict[str, str]:
    """Returns the tool name of every tool use in the history, by id."""
    return {b["id"]: b["name"] for m in history for b in blocks_of(m) if b.get("type") == "tool_use"}


class SourceMap:
    """Remembers which message (or block of a message) each library object was built from, and how
    it looked then; maps the library's output back."""

    def __init__(self, history: History, key: Callable[[Any], Hashable | None],
                 fingerprint: Callable[[Any], str]) -> None:
        self.history, self._key, self._fingerprint = history, key, fingerprint
        self._sources: dict[Hashable, tuple[int, int | None, str]] = {}

    def add(self, obj: Any, index: int, block: int | None = None) -> Any:
        """Records ``obj`` as built from message ``index`` (or its block ``block``); returns ``obj``."""
        self._sources[self._key(obj)] = (index, block, self._fingerprint(obj))
        return obj

    def back(self, objects: Iterable[Any], convert: Callable[[Any], dict[str, Any]]) -> History:
        """Returns the history ``objects`` stand for: source messages and blocks for the unchanged
        ones, ``convert(obj)`` for the rest; consecutive blocks of one message form one message."""
        out: History = []
        open_index: int | None = None
        for obj in objects:
            key = self._key(obj)
            source = self._sources.get(key) if key is not None else None
            if source is None:
                out.append(convert(obj))
                open_index = None
                continue
            index, block, fingerprint = source
            unchanged = fingerprint == self._fingerprint(obj)
            if block is None:
                out.append(self.history[index] if unchanged else convert(obj))
                open_index = None
                continue
            blocks = [self.history[index]["content"][block]] if unchanged else blocks_of(convert(obj))
            if open_index == index:
                out[-1]["content"].extend(blocks)
            else:
                out.append({**self.history[index], "content": blocks})
                open_index = index
        return out
