"""The emulator's own implementation of the three context edits, with named faults.

Written apart from ``semantics`` on purpose: the analyzer judges recordings with ``semantics`` and
must not share this code, so a mistake here shows up as a contradiction instead of agreeing with
itself. Tokens are counted differently too (words and punctuation marks), so the analyzer's
tolerance is exercised on every recording.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any

FAULTS: dict[str, str] = {
    "clear-live-despite-keep": "clear_tool_uses ignores keep and clears every clearable tool result",
    "miscount": "clear_tool_uses reports a third of the tokens it cleared",
    "drop-latest-thinking": "clear_thinking also strips the thinking of the latest turn",
    "loop-as-turns": "clear_thinking counts each assistant message as a turn",
    "ignore-exclude-tools": "clear_tool_uses clears tools listed in exclude_tools",
    "ignore-clear-at-least": "clear_tool_uses clears even below clear_at_least",
    "compact-open-tool-call": "on-demand compaction accepts a turn with an unanswered tool call",
    "count-tokens-ignores-edits": "count_tokens reports the prompt size before any edit",
    "unknown-edit-type": "applied_edits carries an edit type the SDK does not know",
    "unknown-block-type": "an answer to a request with context management carries a content block type the SDK does not know",
    "overloaded": "every create request is answered 529 overloaded_error",
    "prefix-check-off": "models that run the prefix check of preserved thinking answer as if they did not",
    "prefix-check-every-model": "every model runs the prefix check of preserved thinking, older ones too",
    "edits-invalidate-thinking": "on a model that runs the prefix check, server-side clearing or compaction fails "
                                 "the check of every thinking block the request sends back",
}

_TOKEN = re.compile(r"\w+|[^\w\s]")
_PLACEHOLDER = "[tool result cleared]"


@functools.lru_cache(maxsize=8192)  # a pure function of the text; a recording counts the same texts often
def count(text: str) -> int:
    """Returns the emulator's token count of ``text``: words plus punctuation marks."""
    return len(_TOKEN.findall(text))


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [{"type": "text", "text": content}] if isinstance(content, str) else content or []


def _result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or [])


def _block_count(block: dict[str, Any]) -> int:
    kind = block.get("type")
    if kind == "tool_result":
        return count(_result_text(block))
    if kind == "tool_use":
        return count(block.get("name", "")) + count(json.dumps(block.get("input", {})))
    for key in ("text", "thinking", "data", "content"):
        if isinstance(block.get(key), str):
            return count(block[key])
    return count(json.dumps(block))


def prompt_tokens(body: dict[str, Any]) -> int:
    """Returns the emulator's input-token count for a request body."""
    total = sum(4 + sum(_block_count(b) for b in _blocks(m)) for m in body.get("messages", []))
    if body.get("system"):
        total += count(json.dumps(body["system"]))
    if body.get("tools"):
        total += count(json.dumps(body["tools"]))
    return total


def _is_human(message: dict[str, Any]) -> bool:
    return message.get("role") == "user" and any(b.get("type") != "tool_result" for b in _blocks(message))


@dataclass
class Outcome:
    """The edited prompt and what the edits reported."""

    applied_edits: list[dict[str, Any]] = field(default_factory=list)
    original_tokens: int = 0
    final_tokens: int = 0
    compacted: bool = False
    messages: list[dict[str, Any]] = field(default_factory=list)


def _clear_thinking(edit: dict[str, Any], messages: list[dict[str, Any]], faults: set[str]) -> dict | None:
    turns: list[list[int]] = []
    for index, message in enumerate(messages):
        if message.get("role") == "assistant":
            new_turn = not turns or "loop-as-turns" in faults or any(
                _is_human(m) for m in messages[turns[-1][-1] + 1:index])
            if new_turn:
                turns.append([index])
            else:
                turns[-1].append(index)
    with_thinking = [t for t in turns if any(
        b.get("type") in ("thinking", "redacted_thinking") for i in t for b in _blocks(messages[i]))]
    keep = edit.get("keep", {"type": "thinking_turns", "value": 1})
    if keep == "all" or keep.get("type") == "all":
        kept = len(with_thinking)
    else:
        kept = keep["value"]
    doomed = with_thinking if "drop-latest-thinking" in faults else with_thinking[: max(0, len(with_thinking) - kept)]
    tokens = 0
    for turn in doomed:
        for index in turn:
            blocks = _blocks(messages[index])
            tokens += sum(_block_count(b) for b in blocks if b.get("type") in ("thinking", "redacted_thinking"))
            messages[index]["content"] = [b for b in blocks if b.get("type") not in ("thinking", "redacted_thinking")]
    if not doomed:
        return None
    return {"type": "clear_thinking_20251015", "cleared_thinking_turns": len(doomed), "cleared_input_tokens": tokens}


def _clear_tool_uses(edit: dict[str, Any], messages: list[dict[str, Any]], original: int,
                     faults: set[str]) -> dict | None:
    uses: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for index, message in enumerate(messages[:-1]):
        if message.get("role") != "assistant":
            continue
        results = {b.get("tool_use_id"): b for b in _blocks(messages[index + 1]) if b.get("type") == "tool_result"}
        uses += [(b, results[b["id"]]) for b in _blocks(message) if b.get("type") == "tool_use" and b.get("id") in results]
    all_uses = sum(1 for m in messages for b in _blocks(m) if b.get("type") == "tool_use")
    trigger = edit.get("trigger") or {"type": "input_tokens", "value": 100000}
    measured = all_uses if trigger["type"] == "tool_uses" else original
    if measured <= trigger["value"]:
        return None
    excluded = set() if "ignore-exclude-tools" in faults else set(edit.get("exclude_tools") or [])
    clearable = [pair for pair in uses if pair[0].get("name") not in excluded]
    keep = 0 if "clear-live-despite-keep" in faults else (edit.get("keep") or {}).get("value", 3)
    doomed = clearable[: max(0, len(clearable) - keep)]
    setting = edit.get("clear_tool_inputs") or False
    tokens = 0
    for use, result in doomed:
        tokens += count(_result_text(result))
        if setting is True or (isinstance(setting, list) and use.get("name") in setting):
            tokens += count(json.dumps(use.get("input", {})))
    least = (edit.get("clear_at_least") or {}).get("value")
    if not doomed or (least is not None and tokens < least and "ignore-clear-at-least" not in faults):
        return None
    for use, result in doomed:
        result["content"] = _PLACEHOLDER
        if setting is True or (isinstance(setting, list) and use.get("name") in setting):
            use["input"] = {}
    reported = tokens // 3 if "miscount" in faults else tokens
    return {"type": "clear_tool_uses_20250919", "cleared_tool_uses": len(doomed), "cleared_input_tokens": reported}


def after_compaction(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns the messages the server reads: from the last compaction block with content on (what lies
    before it is dropped, as the API does), or all of them when there is none."""
    for m_index in range(len(messages) - 1, -1, -1):
        blocks = _blocks(messages[m_index])
        for b_index in range(len(blocks) - 1, -1, -1):
            if blocks[b_index].get("type") == "compaction" and blocks[b_index].get("content"):
                return [{**messages[m_index], "content": blocks[b_index:]}, *messages[m_index + 1:]]
    return messages


def apply(body: dict[str, Any], faults: set[str], compact: bool = True) -> Outcome:
    """Returns the outcome of running the body's edits in order (compaction only when ``compact``) on
    the prompt the server reads (``after_compaction``)."""
    body = {**body, "messages": after_compaction(body.get("messages", []))}
    messages = copy.deepcopy(body["messages"])
    outcome = Outcome(original_tokens=prompt_tokens(body))
    edits = (body.get("context_management") or {}).get("edits") or []
    for edit in edits:
        if edit["type"] == "clear_thinking_20251015":
            reported = _clear_thinking(edit, messages, faults)
        elif edit["type"] == "clear_tool_uses_20250919":
            reported = _clear_tool_uses(edit, messages, outcome.original_tokens, faults)
        else:
            threshold = (edit.get("trigger") or {}).get("value", 150000)
            outcome.compacted = outcome.compacted or (compact and outcome.original_tokens >= threshold)
            reported = None
        if reported:
            outcome.applied_edits.append(reported)
    if "unknown-edit-type" in faults and edits:
        outcome.applied_edits.append({"type": "clear_tool_results_20270101", "cleared_input_tokens": 0})
    outcome.messages = messages
    outcome.final_tokens = prompt_tokens({**body, "messages": messages})
    return outcome
