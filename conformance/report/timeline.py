"""Align a target's output with its input, message by message and block by block, for display.

Plain data in (two histories and the declared boundary), plain data out (``MessageView`` rows):
each input message is kept, changed or removed; each output message with no input is added.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine.redaction import Redactor, block_label, fingerprint
from ..engine.transcript import REASONING_TYPES
from ..engine.transcript import blocks as blocks_of

Labeller = Callable[[Any], str]
# Shown text this long or longer that also occurs inside a reasoning text counts as quoting it.
_MIN_QUOTE = 8


@dataclass(frozen=True)
class BlockView:
    """One block: its type, a safe label, and ``kept``/``removed``/``changed``/``cleared``/``added``."""

    type: str
    label: str
    status: str = "kept"


@dataclass
class MessageView:
    """One row of the timeline: an input message (with ``index``) or an added output message."""

    index: int | None
    out_index: int | None
    role: str
    span: str  # "settled", "live" or "output"
    status: str  # "kept", "changed", "removed", "added"; "input" when there is no output to compare
    blocks: list[BlockView] = field(default_factory=list)
    note: str = ""  # what changed besides the blocks (the content's form, other fields)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)


def _identity(block: Any) -> tuple[str, str] | None:
    if not isinstance(block, Mapping):
        return None
    for key in ("id", "tool_use_id"):
        if isinstance(block.get(key), str):
            return str(block.get("type")), block[key]
    return None


def labeller(secrets: Iterable[str]) -> Labeller:
    """Returns a block labeller like ``block_label`` that also hides text quoting any of ``secrets``.

    A text block whose text holds a reasoning text, or whose shown prefix lies inside one, reads as
    ``text [redacted thinking #<hash>]``; any other label has reasoning text replaced by its hash.
    """
    every = set(secrets)
    known = sorted(s for s in every if len(s) >= _MIN_QUOTE)
    redactor = Redactor(every)

    def label(block: Any) -> str:
        text = block.get("text") if isinstance(block, Mapping) and block.get("type") not in REASONING_TYPES else None
        if isinstance(text, str):
            shown = text[:24]
            quoted = next((s for s in known if s in text or (len(shown) >= _MIN_QUOTE and shown in s)), None)
            if quoted is not None:
                return f"{block.get('type')} [redacted thinking #{fingerprint(quoted)}]"
        return redactor.text(block_label(block))

    return label


def _view(block: Any, status: str, label: Labeller) -> BlockView:
    kind = str(block.get("type", "?")) if isinstance(block, Mapping) else type(block).__name__
    return BlockView(kind, label(block), status)


def _message_blocks(message: Any) -> list[Any]:
    return blocks_of(message) if isinstance(message, Mapping) else []


def compare_blocks(before: Any, after: Any, label: Labeller = block_label) -> list[BlockView]:
    """Returns the input blocks marked kept/removed/changed/cleared, then the output's added blocks."""
    got = _message_blocks(after)
    canon = [_canon(b) for b in got]
    unused = list(range(len(got)))
    views = []
    for block in _message_blocks(before):
        key = _canon(block)
        same = next((k for k in unused if canon[k] == key), None)
        if same is not None:
            unused.remove(same)
            views.append(_view(block, "kept", label))
            continue
        identity = _identity(block)
        twin = next((k for k in unused if identity is not None and _identity(got[k]) == identity), None)
        if twin is None:
            views.append(_view(block, "removed", label))
            continue
        unused.remove(twin)
        views.append(_view(block, "cleared" if len(canon[twin]) < len(key) else "changed", label))
    views.extend(_view(got[k], "added", label) for k in unused)
    return views


def form_change(before: Any, after: Any) -> str:
    """Returns what changed in a message besides its blocks ("" when nothing did)."""
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return ""
    was, now = isinstance(before.get("content"), str), isinstance(after.get("content"), str)
    if was != now:
        return "content: a string became a list of blocks" if was else "content: a list of blocks became a string"
    if {k: v for k, v in before.items() if k != "content"} != {k: v for k, v in after.items() if k != "content"}:
        return "fields other than content changed"
    return ""


def _span(index: int, live_start: int) -> str:
    return "live" if index >= live_start else "settled"


def common_tail(before: Sequence[str], after: Sequence[str]) -> int:
    """Returns how many messages at the end of ``before`` and ``after`` are equal, position by position."""
    count = 0
    while count < min(len(before), len(after)) and before[-1 - count] == after[-1 - count]:
        count += 1
    return count


def align(history: Sequence[Any], output: Any, live_start: int, label: Labeller = block_label) -> list[MessageView]:
    """Returns the timeline of ``history`` against ``output`` (rows marked ``input`` when it is not a list).

    Messages are paired by position first: the equal messages at the end of both are the same ones
    (a compactor keeps the end, and the checks read the task in flight at the output's end), so of
    two identical messages the one kept is the later; the rest pair by equal content, in order.
    ``label`` names each block; pass ``labeller(secrets)`` to hide text that quotes reasoning.
    """
    if not isinstance(output, list):
        return [MessageView(i, None, str(m.get("role", "?")) if isinstance(m, Mapping) else "?",
                            _span(i, live_start), "input", [_view(b, "kept", label) for b in _message_blocks(m)])
                for i, m in enumerate(history)]
    before = [_canon(m) for m in history]
    after = [_canon(m) for m in output]
    tail = common_tail(before, after)
    rows: list[MessageView] = []
    matcher = difflib.SequenceMatcher(None, before[:len(before) - tail], after[:len(after) - tail], autojunk=False)
    opcodes = matcher.get_opcodes()
    if tail:
        opcodes.append(("equal", len(before) - tail, len(before), len(after) - tail, len(after)))
    for op, i1, i2, j1, j2 in opcodes:
        if op == "equal":
            for k in range(i2 - i1):
                message = history[i1 + k]
                rows.append(MessageView(i1 + k, j1 + k, str(message.get("role", "?")), _span(i1 + k, live_start),
                                        "kept", [_view(b, "kept", label) for b in _message_blocks(message)]))
            continue
        j = j1
        for i in range(i1, i2):
            message = history[i]
            role = message.get("role") if isinstance(message, Mapping) else None
            match = next((k for k in range(j, j2) if isinstance(output[k], Mapping)
                          and output[k].get("role") == role), None)
            if match is None:
                rows.append(MessageView(i, None, str(role or "?"), _span(i, live_start), "removed",
                                        [_view(b, "removed", label) for b in _message_blocks(message)]))
                continue
            for extra in range(j, match):
                rows.append(_added(output, extra, label))
            rows.append(MessageView(i, match, str(role), _span(i, live_start), "changed",
                                    compare_blocks(message, output[match], label), form_change(message, output[match])))
            j = match + 1
        for extra in range(j, j2):
            rows.append(_added(output, extra, label))
    return rows


def _added(output: Sequence[Any], k: int, label: Labeller) -> MessageView:
    message = output[k]
    role = str(message.get("role", "?")) if isinstance(message, Mapping) else type(message).__name__
    return MessageView(None, k, role, "output", "added", [_view(b, "added", label) for b in _message_blocks(message)])


def counts(rows: Sequence[MessageView]) -> dict[str, int]:
    """Returns how many input messages were kept, changed and removed, and how many were added."""
    tally = Counter(row.status for row in rows)
    return {status: tally.get(status, 0) for status in ("kept", "changed", "removed", "added")}
