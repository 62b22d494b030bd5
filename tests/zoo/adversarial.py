"""Compactors a vendor might plausibly ship: each trims settled history by a window, as a correct one
would, and then applies one tidy-looking step to every message it returns, the task in flight
included. Each damages content that only reaches a task in flight in real use (big results, lists,
media, citations, unknown fields, odd whitespace, repeats), so each must fail a MUST."""

from __future__ import annotations

import copy
import json
import unicodedata
from collections.abc import Callable
from typing import Any

from ._history import History, blocks_of, in_doubt, live_start, without_reasoning

Block = dict[str, Any]
Message = dict[str, Any]


def _is_request(message: Message) -> bool:
    return message["role"] == "user" and all(b.get("type") != "tool_result" for b in blocks_of(message))


def _windowed(history: History, keep_turns: int, start: int) -> History:
    """Returns settled tasks that start within ``keep_turns`` of ``start`` (reasoning removed), then the
    rest of the history, as a deep copy."""
    if in_doubt(history, start):
        return copy.deepcopy(history)
    first = max(0, start - keep_turns)
    while first < start and not _is_request(history[first]):
        first += 1
    settled = [m for m in (without_reasoning(x) for x in history[first:start]) if m is not None]
    return copy.deepcopy(settled + list(history[start:]))


def _vendor(step: Callable[[History], History], boundary: Callable[[History], int] = live_start
            ) -> Callable[..., History]:
    def compact(history: History, keep_turns: int = 10) -> History:
        return step(_windowed(history, keep_turns, boundary(history)))
    return compact


def _each_block(change: Callable[[Block], Block | None]) -> Callable[[History], History]:
    """Returns a step applying ``change`` to every top-level block (None drops the block)."""
    def step(messages: History) -> History:
        out = []
        for m in messages:
            if isinstance(m["content"], list):
                kept = [b for b in (change(x) for x in m["content"]) if b is not None]
                m = {**m, "content": kept or "(removed)"}
            out.append(m)
        return out
    return step


def _without(field: str) -> Callable[[Block], Block]:
    def change(block: Block) -> Block:
        block = {k: v for k, v in block.items() if k != field}
        if isinstance(block.get("content"), list):
            block["content"] = [change(b) if isinstance(b, dict) else b for b in block["content"]]
        return block
    return change


def _result_content(change: Callable[[Any], Any]) -> Callable[[Block], Block]:
    def on_result(block: Block) -> Block:
        return {**block, "content": change(block.get("content"))} if block.get("type") == "tool_result" else block
    return on_result


# --- the adversaries ---------------------------------------------------------------------------------

drop_cache_control = _vendor(_each_block(_without("cache_control")))
"""Clears every cache breakpoint, to place its own: the live ones go too."""

strip_citations = _vendor(_each_block(_without("citations")))
"""Drops citations everywhere, as noise for the model."""


def _truncate(content: Any) -> Any:
    if isinstance(content, str) and len(content) > 8000:
        return content[:8000] + "\n...[truncated]"
    return content


truncate_big_results = _vendor(_each_block(_result_content(_truncate)))
"""Cuts every tool result over 8,000 characters, the one the model is reading included."""


def _text_only(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")


flatten_result_lists = _vendor(_each_block(_result_content(_text_only)))
"""Turns list-valued tool results into one string: images and documents in them are lost."""

_KNOWN: dict[str, set[str]] = {
    "text": {"text", "cache_control", "citations"}, "image": {"source", "cache_control"},
    "document": {"source", "title", "context", "citations", "cache_control"},
    "tool_use": {"id", "name", "input", "cache_control"},
    "tool_result": {"tool_use_id", "content", "is_error", "cache_control"},
    "thinking": {"thinking", "signature"}, "redacted_thinking": {"data"},
}


def _allow_list(block: Block) -> Block:
    known = _KNOWN.get(block.get("type", ""))
    return block if known is None else {k: v for k, v in block.items() if k == "type" or k in known}


allowlist_fields = _vendor(_each_block(_allow_list))
"""Rebuilds known blocks from typed models: fields the models do not know are gone."""

drop_falsy_fields = _vendor(_each_block(lambda b: {k: v for k, v in b.items() if v is not None and v is not False}))
"""Drops ``null`` and ``false`` fields as defaults: ``is_error: false`` and friends disappear."""


def _tidy_thinking(block: Block) -> Block:
    return {**block, "thinking": " ".join(block["thinking"].split())} if block.get("type") == "thinking" else block


tidy_thinking = _vendor(_each_block(_tidy_thinking))
"""Collapses whitespace in thinking text: the signed reasoning no longer matches."""


def _nfkc(block: Block) -> Block:
    if block.get("type") == "text":
        return {**block, "text": unicodedata.normalize("NFKC", block["text"])}
    return block


nfkc_text = _vendor(_each_block(_nfkc))
"""Normalises text to NFKC: exponents, ligatures and full-width characters change."""


def _strip(content: Any) -> Any:
    return content.strip() if isinstance(content, str) else content


strip_whitespace = _vendor(_each_block(_result_content(_strip)))
"""Trims whitespace around tool output: the final newline of a log or a file is lost."""


def _drop_url_media(block: Block) -> Block | None:
    source = block.get("source")
    if block.get("type") in ("image", "document") and isinstance(source, dict) and source.get("type") == "url":
        return None
    return block


drop_url_media = _vendor(_each_block(_drop_url_media))
"""Drops media given by URL, which it cannot cache: the request that opened the task loses them."""


def _dedupe_consecutive(messages: History) -> History:
    out: History = []
    for m in messages:
        if not out or out[-1] != m:
            out.append(m)
    return out


dedupe_consecutive = _vendor(_dedupe_consecutive)
"""Drops a message identical to the one before it: a request sent twice, a repeated progress note."""


def _media_in_last_request_only(messages: History) -> History:
    last = max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)
    out = []
    for i, m in enumerate(messages):
        if m["role"] == "user" and i != last and isinstance(m["content"], list):
            kept = [b for b in m["content"] if b.get("type") not in ("image", "document")]
            m = {**m, "content": kept or "(attachment removed)"}
        out.append(m)
    return out


media_in_last_user_turn_only = _vendor(_media_in_last_request_only)
"""Keeps images and documents only in the latest user turn: the request that opened a multi-step
task loses its attachments."""


def _first_copy_only(messages: History) -> History:
    seen: set[str] = set()
    out = []
    for m in messages:
        if isinstance(m["content"], list):
            kept = []
            for b in m["content"]:
                key = json.dumps(b, sort_keys=True)
                if b.get("type") in ("image", "document") and key in seen:
                    continue
                seen.add(key)
                kept.append(b)
            m = {**m, "content": kept or "(see the earlier attachment)"}
        out.append(m)
    return out


dedupe_attachments = _vendor(_first_copy_only)
"""Keeps only the first copy of an attachment: the one re-attached to the task in flight goes."""


def _any_text_turn_settles(history: History) -> int:
    start = 0
    for i, m in enumerate(history[:-1]):
        kinds = [b.get("type") for b in blocks_of(m)]
        if m["role"] == "assistant" and "text" in kinds and "tool_use" not in kinds and _is_request(history[i + 1]):
            start = i + 1
    return start if start else live_start(history)


paused_turn_settles = _vendor(lambda messages: messages, boundary=_any_text_turn_settles)
"""Reads an assistant turn with text as an answer even when a server tool use in it is still open
(a paused turn): the window then cuts the task in flight."""



def _from_the_request(history: History) -> int:
    start = live_start(history)
    while start < len(history) and history[start]["role"] == "system":
        start += 1
    return start


starts_at_the_request = _vendor(lambda messages: messages, boundary=_from_the_request)
"""Starts the task in flight at the user request rather than at the first message after the last
settled turn: a system message between the answer and the request is trimmed as settled."""

def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _clear_big_results_but_last(messages: History) -> History:
    holders = [i for i, m in enumerate(messages) if any(b.get("type") == "tool_result" for b in blocks_of(m))]
    out = []
    for i, m in enumerate(messages):
        if i in holders[:-1]:
            m = {**m, "content": [{**b, "content": "[large output cleared]"}
                                  if b.get("type") == "tool_result" and _size(b.get("content")) > 10_000 else b
                                  for b in m["content"]]}
        out.append(m)
    return out


clear_big_results_but_last = _vendor(_clear_big_results_but_last)
"""Clears every tool result over 10,000 characters except in the newest result turn, as a
clear-old-tool-results strategy does: a big result earlier in the task in flight is cleared."""


def evict_largest_results(history: History, keep_turns: int = 10, budget_tokens: int | None = None) -> History:
    """Over budget, clears the largest tool result first, wherever it is: the task in flight's big
    result goes before small settled tasks."""
    out = _windowed(history, keep_turns, live_start(history))
    while budget_tokens is not None and sum(map(_size, out)) // 4 > budget_tokens:
        sizes = [(_size(b.get("content")), i, j) for i, m in enumerate(out) if isinstance(m["content"], list)
                 for j, b in enumerate(m["content"]) if b.get("type") == "tool_result" and b.get("content") != "[evicted]"]
        if not sizes:
            break
        _, i, j = max(sizes)
        content = list(out[i]["content"])
        content[j] = {**content[j], "content": "[evicted]"}
        out[i] = {**out[i], "content": content}
    return out


# Each adversary, and the MUST invariant that catches it on the live-* scenarios.
class _Placeholder(dict):  # type: ignore[type-arg]
    """A message kept in a store by reference: it holds ``ref:N`` and resolves it when read."""

    store: dict[str, Any] = {}

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        return self.store.get(value, value) if isinstance(value, str) else value

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default


def stored_by_reference(history: History, keep_turns: int = 10) -> History:
    """Windows settled history, then keeps every user message with string content in a store and
    returns a reference to it that resolves on read: what the compactor reads back is the text,
    what JSON writes (what the SDK sends) is ``ref:N``."""
    out = []
    for message in _windowed(history, keep_turns, live_start(history)):
        if message["role"] == "user" and isinstance(message.get("content"), str):
            ref = f"ref:{len(_Placeholder.store)}"
            _Placeholder.store[ref] = message["content"]
            message = _Placeholder({**message, "content": ref})
        out.append(message)
    return out


CAUGHT_BY: dict[str, str] = {
    "stored_by_reference": "live.untouched-suffix",
    "drop_cache_control": "live.untouched-suffix", "strip_citations": "live.untouched-suffix",
    "truncate_big_results": "live.untouched-suffix", "flatten_result_lists": "live.untouched-suffix",
    "allowlist_fields": "live.untouched-suffix", "drop_falsy_fields": "live.untouched-suffix",
    "tidy_thinking": "reasoning.kept-intact", "nfkc_text": "live.untouched-suffix",
    "strip_whitespace": "live.untouched-suffix", "drop_url_media": "live.untouched-suffix",
    "dedupe_consecutive": "live.untouched-suffix", "media_in_last_user_turn_only": "live.untouched-suffix",
    "dedupe_attachments": "live.untouched-suffix", "paused_turn_settles": "live.untouched-suffix",
    "starts_at_the_request": "live.untouched-suffix", "clear_big_results_but_last": "live.untouched-suffix",
    "evict_largest_results": "live.untouched-suffix",
}
