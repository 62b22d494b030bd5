"""What a message format is to the suite, and the checks every converter shares.

A ``Format`` turns an Anthropic-shaped history into the format's messages and back. ``reason``
names why a history cannot be expressed in it (``None`` when it can); for every history it can
express, ``back(to_format(h), h) == h``. ``normalise`` collapses what the format cannot tell apart
(a string content and one text block, say); ``back`` uses it to give an unchanged message or block
back exactly as it was given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._text import article
from ..engine.transcript import canonical

History = list[dict[str, Any]]
Block = dict[str, Any]


class FormatError(ValueError):
    """A target's output that is not a valid message list of its format."""


def _identity(value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Format:
    """One message format: name, the SDK it was checked against, and its two converters."""

    name: str
    title: str
    checked_against: str
    reason: Callable[[History], str | None]
    to_format: Callable[[History], list[Any]]
    from_format: Callable[[list[Any]], History]
    normalise_block: Callable[[Block], Block] = _identity
    string_content_is_one_text_block: bool = False
    requires: str | None = None  # a module the format's objects come from, when it is not plain dicts

    def why_not(self, history: History) -> str | None:
        """Returns the named reason ``history`` cannot be expressed in this format, or None."""
        found = self.reason(history)
        if found or self.normalise_block is _identity and not self.string_content_is_one_text_block:
            return found
        seen: dict[str, Any] = {}  # as the format sees it -> the first item seen so
        for i, message in enumerate(history):
            content = message.get("content")
            for j, item in [(None, message), *enumerate(content if isinstance(content, list) else [])]:
                if not isinstance(item, dict):
                    continue
                as_seen = canonical(self.normalise(item) if j is None else self.normalise_block(item))
                first = seen.setdefault(as_seen, item)
                if first is not item and canonical(first) != canonical(item):
                    where = f"message {i}" if j is None else f"block {j} of message {i}"
                    return f"{where} differs from an earlier one only in what {self.title} cannot tell apart"
        return None

    def normalise(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Returns ``message`` as this format sees it (what it cannot tell apart made equal)."""
        content = message.get("content")
        if self.string_content_is_one_text_block and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if isinstance(content, list):
            content = [self.normalise_block(b) if isinstance(b, dict) else b for b in content]
        return {**message, "content": content}

    def back(self, items: Any, given: Sequence[Mapping[str, Any]] = ()) -> History:
        """Returns ``items`` as an Anthropic-shaped history; a message or block the format cannot
        tell from one in ``given`` comes back as that one. Raises ``FormatError`` on bad items."""
        if not isinstance(items, list):
            raise FormatError(f"{article(self.title)} target must return a list, not {type(items).__name__}")
        history = self.from_format(items)
        messages = {canonical(self.normalise(m)): m for m in given}
        blocks = {canonical(self.normalise_block(b)): b for m in given
                  for b in (m["content"] if isinstance(m.get("content"), list) else [])
                  if isinstance(b, dict)}
        out: History = []
        for message in history:
            known = messages.get(canonical(self.normalise(message))) if isinstance(message, dict) else None
            if known is not None:
                out.append(dict(known))
                continue
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list):
                content = [blocks.get(canonical(self.normalise_block(b)), b) if isinstance(b, dict) else b
                           for b in content]
                message = {**message, "content": content}
            out.append(message)
        return out


def shape_reason(history: History, carried: Mapping[str, Mapping[str, frozenset[str]]],
                 format_title: str) -> str | None:
    """Returns why ``history`` uses a role, block type or field ``carried`` lacks, or None.

    ``carried`` maps a role to the block types it carries and, for each, the fields it carries.
    """
    for i, message in enumerate(history):
        extra = sorted(set(message) - {"role", "content"})
        if extra:
            return f"message field {extra[0]!r} (message {i}): no place for it in {format_title}"
        role = message.get("role")
        if role not in carried:
            return f"role {role!r} (message {i}): not carried by {format_title}"
        content = message.get("content")
        if not isinstance(content, (str, list)):
            return f"content of message {i} is neither a string nor a list"
        for block in content if isinstance(content, list) else []:
            kind = block.get("type") if isinstance(block, dict) else None
            fields = carried[str(role)].get(str(kind))
            if fields is None:
                return f"{kind} block in {article(str(role))} message: not carried by {format_title}"
            extra = sorted(set(block) - fields - {"type"})
            if extra:
                return f"field {extra[0]!r} of {article(str(kind))} block: not carried by {format_title}"
            if kind == "text" and not isinstance(block.get("text"), str):
                return f"a text block without text (message {i})"
            if kind == "tool_use" and not isinstance(block.get("input"), dict):
                return f"a tool_use whose input is not an object (message {i})"
    return None


def text_only(content: Any) -> bool:
    """Returns whether a tool result's content is a string or a list of plain text blocks."""
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(b, dict) and b.get("type") == "text" and set(b) == {"type", "text"}
        and isinstance(b.get("text"), str) for b in content)


def consecutive_roles(history: History, role: str) -> int | None:
    """Returns the index of the second of two consecutive ``role`` messages, or None."""
    for i in range(1, len(history)):
        if history[i].get("role") == role and history[i - 1].get("role") == role:
            return i
    return None


def require(condition: bool, message: str) -> None:
    """Raises ``FormatError(message)`` unless ``condition`` holds."""
    if not condition:
        raise FormatError(message)
