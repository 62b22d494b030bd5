"""What a message format is to the suite, and the checks every converter shares.

A ``Format`` turns an Anthropic-shaped history into the format's messages and back. ``reason``
names why a history cannot be expressed in it (``None`` when it can); for every history it can
express, ``back(to_format(h), h) == h``. ``normalise`` collapses what the format cannot tell apart
(a string content and one text block, say); ``back`` uses it to give an unchanged message or block
back exactly as it was given; ``see`` reads a history once for both (the reason, and what ``back``
looks up in it).
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


def _no_reasoning(item: Any) -> list[str]:
    return []


@dataclass(frozen=True)
class Seen:
    """A history as a format sees it (``Format.see``): ``why`` it cannot be expressed (None when it
    can), and its messages and blocks by ``canonical`` of what the format sees, the last of each."""

    why: str | None
    messages: Mapping[str, Mapping[str, Any]]
    blocks: Mapping[str, Block]


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
    # the reasoning text and ciphertext one item of the format carries (its own fields, read as
    # they are: a summary its conversion drops included); an item of another kind carries none
    reasoning_of: Callable[[Any], list[Any]] = _no_reasoning

    @property
    def normalises(self) -> bool:
        """Returns whether the format collapses anything (``normalise`` is not the identity)."""
        return self.normalise_block is not _identity or self.string_content_is_one_text_block

    def reasoning_in(self, items: Any) -> list[str]:
        """Returns the reasoning text and ciphertext the format's ``items`` carry (``reasoning_of``
        of each), in order; a malformed item carries none, and never raises."""
        found: list[str] = []
        for item in items if isinstance(items, (list, tuple)) else ():
            try:
                found += [text for text in self.reasoning_of(item) if isinstance(text, str) and text]
            except (AttributeError, KeyError, TypeError, ValueError):
                continue
        return found

    def why_not(self, history: History) -> str | None:
        """Returns the named reason ``history`` cannot be expressed in this format, or None."""
        found = self.reason(history)
        return found if found or not self.normalises else self._read(history, clashes=True).why

    def see(self, history: History) -> Seen:
        """Returns ``history`` as this format sees it: why it cannot be expressed (None when it can;
        two items the format cannot tell apart that differ are a reason) and, unless ``reason``
        names one, its messages and blocks as ``back`` looks them up."""
        found = self.reason(history)
        return Seen(found, {}, {}) if found else self._read(history, clashes=self.normalises)

    def _read(self, given: Sequence[Mapping[str, Any]], clashes: bool) -> Seen:
        """Returns the messages and the blocks of ``given`` by ``canonical`` of how this format sees
        them (the last of each) and, when ``clashes``, the first message or block that differs from
        an earlier one the format cannot tell it from (else None) as the reason."""
        messages: dict[str, Mapping[str, Any]] = {}
        blocks: dict[str, Block] = {}
        first: dict[str, Any] = {}  # as the format sees it -> the first message or block seen so
        why: str | None = None
        for i, message in enumerate(given):
            key = canonical(self.normalise(message))
            messages[key] = message
            # (as seen, the message or block, the block's index); in the order the clash check reads them
            items: list[tuple[str, Any, int | None]] = [(key, message, None)] if isinstance(message, dict) else []
            content = message.get("content")
            for j, block in enumerate(content if isinstance(content, list) else []):
                if isinstance(block, dict):
                    key = canonical(self.normalise_block(block))
                    blocks[key] = block
                    items.append((key, block, j))
            if not clashes or why is not None:
                continue
            for key, item, block_index in items:
                earlier = first.setdefault(key, item)
                if earlier is not item and canonical(earlier) != canonical(item):
                    where = f"message {i}" if block_index is None else f"block {block_index} of message {i}"
                    why = f"{where} differs from an earlier one only in what {self.title} cannot tell apart"
                    break
        return Seen(why, messages, blocks)

    def normalise(self, message: Mapping[str, Any]) -> dict[str, Any]:
        """Returns ``message`` as this format sees it (what it cannot tell apart made equal)."""
        content = message.get("content")
        if self.string_content_is_one_text_block and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if isinstance(content, list):
            content = [self.normalise_block(b) if isinstance(b, dict) else b for b in content]
        return {**message, "content": content}

    def back(self, items: Any, given: Sequence[Mapping[str, Any]] = (), seen: Seen | None = None) -> History:
        """Returns ``items`` as an Anthropic-shaped history; a message or block the format cannot
        tell from one in ``given`` comes back as that one, the very object (``seen``, when passed, is ``see(given)``,
        which then is not read again). Raises ``FormatError`` on bad items."""
        if not isinstance(items, list):
            raise FormatError(f"{article(self.title)} target must return a list, not {type(items).__name__}")
        history = self.from_format(items)
        if seen is None:
            seen = self._read(given, clashes=False)
        messages, blocks = seen.messages, seen.blocks
        out: History = []
        for message in history:
            known = messages.get(canonical(self.normalise(message))) if isinstance(message, dict) else None
            if known is not None:
                out.append(known if isinstance(known, dict) else dict(known))  # (the given one itself)
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
