"""Well-formed messages: what the Messages API accepts as a list of messages, checked block by block.

Plain data in, plain data out; the invariant ``output.well-formed`` reports what this finds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .._text import a_type
from . import transcript as tx
from ._memo import of_history

ROLES = ("user", "assistant", "system")

_CHECKED_KINDS = frozenset({"text", tx.CLIENT_TOOL_USE, tx.CLIENT_TOOL_RESULT})
Malformation = tuple[Any, str, str, bool]  # (message or block concerned, where, problem, unreadable)


def _has_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _block_malformations(block: Any, where: str) -> Iterator[Malformation]:
    """Yields what is wrong with one content block."""
    if not isinstance(block, Mapping):
        yield block, where, f"is {a_type(block)}, not a block", True
        return
    kind = block.get("type")
    if not isinstance(kind, str) or not kind:
        yield block, where, "is not a block with a type", False
    elif kind == "text" and not _has_text(block.get("text")):
        text = block.get("text")
        problem = ("is a text block whose text is not a string" if not isinstance(text, str)
                   else "is an empty text block" if not text else "is a text block of whitespace only")
        yield block, where, problem, False
    elif kind == tx.CLIENT_TOOL_USE:
        for field, want in (("id", str), ("name", str), ("input", Mapping)):
            value = block.get(field)
            if not isinstance(value, want) or (want is str and not value):
                label = "an object" if want is Mapping else "a non-empty string"
                yield block, where, f"is a tool_use whose {field} is not {label}", False
    elif kind == tx.CLIENT_TOOL_RESULT and not (isinstance(block.get("tool_use_id"), str)
                                                 and block["tool_use_id"]):
        yield block, where, "is a tool_result without a tool_use_id", False


def _malformations(messages: Sequence[Any]) -> Iterator[Malformation]:
    """Yields every well-formedness problem of a list of messages with the message or block concerned."""
    for i, message in enumerate(messages):
        where = f"[{i}]"
        if not isinstance(message, Mapping):
            yield message, where, f"is {a_type(message)}, not a message", True
            continue
        if message.get("role") not in ROLES:
            yield message, f"{where}.role", f"is {message.get('role')!r}", False
        content = message.get("content")
        if isinstance(content, str):
            if not content.strip():
                problem = "is an empty string" if not content else "is whitespace only"
                yield message, f"{where}.content", problem, False
        elif isinstance(content, list):
            if not content:
                yield message, f"{where}.content", "is an empty list", False
            for j, block in enumerate(content):
                if isinstance(block, dict):  # the common well-formed blocks, without a generator each
                    kind = block.get("type")
                    if kind == "text":
                        text = block.get("text")
                        if isinstance(text, str) and text.strip():
                            continue
                    elif isinstance(kind, str) and kind and kind not in _CHECKED_KINDS:
                        continue
                yield from _block_malformations(block, f"{where}.content[{j}]")
        else:
            yield message, f"{where}.content", f"is {a_type(content)}, not a string or a list", True


def _problem_counts(history: Sequence[Any]) -> Counter[tuple[str, str]]:
    """Returns how many times each (canonical part, problem) occurs in ``history``."""
    return Counter((tx.canonical(part), problem) for part, _, problem, _ in _malformations(history))


def longest_output(input_length: int) -> int:
    """Returns the most messages a compaction of ``input_length`` messages may return: twice as
    many and 16 more (a summary, notes); an output longer than that is not read further."""
    return 2 * input_length + 16


def new_malformations(history: Sequence[Any], output: Any) -> Iterator[tuple[str, str, bool]]:
    """Yields ``(where, problem, unreadable)`` for each malformation of ``output`` that ``history``
    does not have itself: the same problem of a message or block of the same canonical JSON counts
    as the input's, as many times as the input has it. ``where`` is like ``[3].content[1]``;
    ``unreadable`` says other checks cannot read the output at all."""
    if not isinstance(output, list):
        yield "", f"returned {a_type(output)}, not a list of messages", True
        return
    if len(output) > longest_output(len(history)):
        yield "", (f"returned {len(output)} messages for an input of {len(history)}: more than a compaction "
                   f"returns (at most {longest_output(len(history))}), so it is not read further"), True
        return
    already: Counter[tuple[str, str]] | None = None  # the input's own problems, read at the output's first
    for part, where, problem, unreadable in _malformations(output):
        if already is None:
            already = Counter(of_history(_problem_counts, history))
        key = (tx.canonical(part), problem) if already else None
        if key is not None and already[key] > 0:
            already[key] -= 1
        else:
            yield where, problem, unreadable
    held: frozenset[str] | None = None  # the input's block types, read at the output's first block of a type not taken
    for i, message in enumerate(output):
        content = message.get("content") if isinstance(message, Mapping) else None
        for j, block in enumerate(content if isinstance(content, list) else []):
            kind = block.get("type") if isinstance(block, Mapping) else None
            if not isinstance(kind, str) or not kind or takes(kind):
                continue
            if held is None:
                held = of_history(_block_types, history)
            if kind not in held:
                yield (f"[{i}].content[{j}]", f"is a `{kind}` block: a type the history does not hold and the Messages "
                                              "API does not take (it answers 400)", False)


# The content block types the Messages API takes in a request (any ``*_tool_use`` and
# ``*_tool_result`` of a server tool too, as ``transcript`` reads them); a type the history holds
# is taken whatever it is (the service may have added it).
MESSAGES_BLOCK_TYPES = frozenset({"text", "image", "document", "search_result", "tool_use", "tool_result", "thinking",
                                  "redacted_thinking", "server_tool_use", "mcp_tool_use", "mcp_tool_result",
                                  "container_upload", "compaction"})


def takes(kind: str) -> bool:
    """Returns whether the Messages API takes a content block of type ``kind`` in a request."""
    return kind in MESSAGES_BLOCK_TYPES or kind.endswith(("_tool_use", "_tool_result"))


def _block_types(history: Sequence[Any]) -> frozenset[str]:
    """Returns the type of every content block of ``history``."""
    return frozenset(kind for message in history if isinstance(message, Mapping) for kind in tx.block_types(message))
