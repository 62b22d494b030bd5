"""Broken compactors held out of the shipped scenarios' design: each reproduces a failure reported
against a real framework in 2026 (the peer survey's F-numbers, in the docstrings), written in the
Anthropic Messages shape. They measure the fuzzer's power on defects nobody wrote a scenario for:
``benchmarks/kill_rate.py`` fuzzes them as ``conformance fuzz`` does. ``CAUGHT_BY`` names the MUST
invariants that catch each, ``DEFECT_CLASS`` its class, ``SOURCE`` the failure it reproduces."""

from __future__ import annotations

import json
from typing import Any

from ._history import REASONING, History, blocks_of, live_start, without_reasoning

Message = dict[str, Any]


def _chars(messages: History) -> int:
    """Returns the compact-JSON length of the messages."""
    return sum(len(json.dumps(m, ensure_ascii=False, separators=(",", ":"))) for m in messages)


def _has_results(message: Message) -> bool:
    return any(b["type"] == "tool_result" for b in blocks_of(message))


def _only_results(message: Message) -> bool:
    blocks = blocks_of(message)
    return bool(blocks) and all(b["type"] == "tool_result" for b in blocks)


def _calls(message: Message) -> list[str]:
    return [b["id"] for b in blocks_of(message) if b["type"] == "tool_use"] if message["role"] == "assistant" else []


def _summary(count: int) -> Message:
    return {"role": "user", "content": f"[summary of {count} earlier messages]"}


def _with_blocks(message: Message, blocks: list[dict[str, Any]]) -> Message:
    return {**message, "content": blocks}


# --- cut points: a window that does not know pairs ---------------------------------------------

def trim_last_by_budget(history: History, budget_tokens: int | None = None) -> History:
    """F01 (trim_messages strategy="last"): keeps whole messages from the end while they fit the
    budget, with no pair check, so the window may open on the results of a call it cut."""
    if budget_tokens is None:
        return list(history)
    kept: History = []
    for message in reversed(history):
        if _chars([message, *kept]) // 4 > budget_tokens:
            break
        kept.insert(0, message)
    return kept


def start_on_human(history: History, budget_tokens: int | None = None) -> History:
    """F02/F12 (start_on="human", a memory buffer's prune loop): fits the budget from the end, then
    drops leading messages until a user message without tool results; inside a long tool loop
    nothing is left but the system message."""
    kept = trim_last_by_budget(history, budget_tokens)
    while kept and not (kept[0]["role"] == "user" and not _has_results(kept[0])):
        kept = kept[1:]
    system = [m for m in history[:1] if m["role"] == "system"]
    return system + kept if kept != list(history) else list(history)


def text_results_not_results(history: History, keep_turns: int = 10) -> History:
    """F11 (Semantic Kernel): spares the task in flight and never opens settled history on a
    results message, but knows a results message only when every block is a result: a results
    turn that also carries text reads as a request, and the window opens on it."""
    start = live_start(history)
    window = max(0, start - keep_turns)
    while window < start and (history[window]["role"] != "user" or _only_results(history[window])):
        window += 1
    return history[window:start] + history[start:]


def middle_pop(history: History, budget_tokens: int | None = None) -> History:
    """F14 (TokenLimitedChatCompletionContext): pops the middle message until the history fits
    the budget, whatever it pairs with."""
    if budget_tokens is None:
        return list(history)
    out = list(history)
    while len(out) > 2 and _chars(out) // 4 > budget_tokens:
        out.pop(len(out) // 2)
    return out


def head_and_tail(history: History, keep_turns: int | None = None) -> History:
    """F14 (HeadAndTailChatCompletionContext(3, 3)): the first three and last three messages with
    a note of how many were skipped between them."""
    if keep_turns is None or len(history) <= 7:
        return list(history)
    skipped = len(history) - 6
    return [*history[:3], {"role": "user", "content": f"Skipped {skipped} messages."}, *history[-3:]]


def even_range_delete(history: History, keep_turns: int | None = None) -> History:
    """F26 (Cline's truncation): keeps the first request and answer, then deletes an even-sized
    range of half the rest, ending on an assistant message; the next kept message may hold the
    results of a call in the range."""
    if keep_turns is None or len(history) < 8:
        return list(history)
    count = (len(history) - 2) // 2
    count -= count % 2
    end = 2 + count
    while end > 2 and history[end - 1]["role"] != "assistant":
        end -= 1
    return history[:2] + history[end:]


def summary_offset_in_pair(history: History, keep_turns: int | None = None) -> History:
    """F23 (LLMSummarizingCondenser's summary_offset): keeps the first two messages, then a
    summary, then settled messages from a count back: the head may end on a call whose results
    the summary now stands before."""
    start = live_start(history)
    if keep_turns is None or start < 4:
        return list(history)
    tail = max(2, start - keep_turns)
    while tail < start and history[tail]["role"] != "user":
        tail += 1
    return [*history[:2], _summary(tail - 2), *history[tail:]]


def summary_then_results(history: History, keep_turns: int = 10) -> History:
    """F28 (Letta): replaces settled history before a count back with a summary message, cutting by
    count alone; the first kept message may be the results of a summarized call."""
    start = live_start(history)
    cut = max(0, start - keep_turns)
    if cut == 0:
        return list(history)
    return [_summary(cut), *history[cut:]]


# --- pairs inside a message ---------------------------------------------------------------------

def parallel_batch_cut(history: History) -> History:
    """F29 (langmem's running summary): the cutoff falls inside a settled parallel batch; the first
    results go into the summary and their calls stay."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        results = [b for b in blocks_of(message) if b["type"] == "tool_result"]
        if message["role"] == "user" and len(results) > 1:
            first = results[0]
            message = _with_blocks(message, [b for b in blocks_of(message) if b is not first])
        out.append(message)
    return out + history[start:]


def drop_large_results(history: History, limit: int = 4096) -> History:
    """F24 (emergency trimming): drops settled tool results over ``limit`` characters and keeps the
    calls they answered."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        if message["role"] == "user" and isinstance(message["content"], list):
            kept = [b for b in message["content"] if not (b["type"] == "tool_result" and
                                                          len(json.dumps(b.get("content", ""))) > limit)]
            if not kept:
                continue
            message = _with_blocks(message, kept)
        out.append(message)
    return out + history[start:]


def error_results_unpaired(history: History) -> History:
    """F25 (a non-standard result read as no result): a settled call answered by an error result
    counts as unanswered and is pruned, its error result kept."""
    start = live_start(history)
    failed = {b["tool_use_id"] for m in history[:start] for b in blocks_of(m)
              if b["type"] == "tool_result" and b.get("is_error")}
    out = []
    for message in history[:start]:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            kept = [b for b in message["content"] if not (b["type"] == "tool_use" and b["id"] in failed)]
            message = _with_blocks(message, kept or [{"type": "text", "text": "(call pruned)"}])
        out.append(message)
    return out + history[start:]


def clear_tool_uses_leaves_reasoning(history: History) -> History:
    """F18 (pruneMessages toolCalls): clears settled client calls and their results, keeping each
    call turn's reasoning: a turn of reasoning alone is left behind."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        if isinstance(message["content"], list):
            kept = [b for b in message["content"] if b["type"] not in ("tool_use", "tool_result")]
            if not kept:
                continue
            message = _with_blocks(message, kept)
        out.append(message)
    return out + history[start:]


def server_pairs_dropped(history: History) -> History:
    """F33 (agno): settled server tool uses are not captured into history, their results are."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            kept = [b for b in message["content"] if b["type"] != "server_tool_use"]
            if not kept:
                continue
            message = _with_blocks(message, kept)
        out.append(message)
    return out + history[start:]


# --- the task in flight -------------------------------------------------------------------------

def strip_trailing_results(history: History) -> History:
    """F10 (litellm.trim_messages): strips the trailing tool-result messages before counting and
    returns the stripped list, the results the model waits for included."""
    out = list(history)
    while out and out[-1]["role"] == "user" and _has_results(out[-1]):
        out.pop()
    return out


def summarize_active_loop(history: History, keep_turns: int | None = None) -> History:
    """F06/F31 (summarization inside an active tool loop): summarizes all but the last
    ``keep_turns`` messages, the request and early steps of the task in flight included."""
    if keep_turns is None or keep_turns <= 0 or len(history) <= keep_turns:
        return list(history)
    tail = history[-keep_turns:]
    while tail and tail[0]["role"] == "user" and _has_results(tail[0]):
        tail = tail[1:]  # it takes care not to open on results
    return [_summary(len(history) - len(tail)), *tail]


def thinking_lost_after_summary(history: History) -> History:
    """F07 (a summary boundary): summarizes settled history and, with it, the reasoning of the
    first assistant turn of the task in flight."""
    start = live_start(history)
    out = [_summary(start)] if start else []
    first = True
    for message in history[start:]:
        if first and message["role"] == "assistant" and isinstance(message["content"], list):
            first = False
            stripped = without_reasoning(message)
            if stripped is not None:
                out.append(stripped)
                continue
        out.append(message)
    return out


def reasoning_before_last_message(history: History) -> History:
    """F17 (pruneMessages reasoning: "before-last-message"): removes reasoning from every message
    but the last, the earlier steps of the task in flight included."""
    out = [m for m in (without_reasoning(m) for m in history[:-1]) if m is not None]
    return out + history[-1:]


def redacted_not_projected(history: History) -> History:
    """F19 (a history projection's allow-list): redacted thinking is not one of the projected
    fields, so it is lost everywhere, in the task in flight too."""
    out = []
    for message in history:
        if isinstance(message["content"], list) and any(b["type"] == "redacted_thinking" for b in message["content"]):
            kept = [b for b in message["content"] if b["type"] != "redacted_thinking"]
            if not kept:
                continue
            message = _with_blocks(message, kept)
        out.append(message)
    return out


def latest_turn_sanitized(history: History) -> History:
    """F08 (openclaw's sanitizeSurrogates): the latest assistant turn's text and thinking pass a
    cleaner that keeps ASCII alone, changing bytes the API requires unchanged."""
    out = list(history)
    for i in range(len(out) - 1, -1, -1):
        message = out[i]
        if message["role"] == "assistant" and isinstance(message["content"], list):
            def clean(block: dict[str, Any]) -> dict[str, Any]:
                key = {"text": "text", "thinking": "thinking"}.get(block["type"])
                if key is None:
                    return block
                return {**block, key: block[key].encode("ascii", "ignore").decode()}
            out[i] = _with_blocks(message, [clean(b) for b in message["content"]])
            break
    return out


def paused_turn_as_answer(history: History) -> History:
    """F16 (a pruner that reads a turn paused on a server tool as finished): the last task's
    paused turn counts as settled, and its reasoning goes with the settled history's."""
    start = live_start(history)
    out = list(history[:start])
    for message in history[start:]:
        blocks = blocks_of(message)
        if message["role"] == "assistant" and any(b["type"] == "server_tool_use" for b in blocks) and \
                not any(b["type"] == "tool_use" for b in blocks):
            stripped = without_reasoning(message)
            out.append(stripped if stripped is not None else message)
        else:
            out.append(message)
    return out


def pending_compact_call_resolved(history: History) -> History:
    """F20/F21 (a pending call taken as resolved): compacts everything before the last message when
    the history ends on a call, as if the call had been answered, and keeps the call alone."""
    if history and history[-1]["role"] == "assistant" and _calls(history[-1]) and len(history) > 2:
        return [_summary(len(history) - 1), history[-1]]
    return list(history)


def notice_as_request(history: History) -> History:
    """Claude Code's notices: a background-task notice after a call's results counts as a new
    request, so the task in flight seems to start there and its earlier steps lose their
    reasoning."""
    start = live_start(history)
    for i in range(len(history) - 1, start, -1):
        message = history[i]
        if message["role"] == "user" and not _has_results(message) and i > 0 and _has_results(history[i - 1]):
            settled = [m for m in (without_reasoning(m) for m in history[:i]) if m is not None]
            return settled + history[i:]
    return list(history)


# --- rarer shapes: fields, orders and blocks a rebuild loses ------------------------------------

_TOOL_USE_FIELDS = ("type", "id", "name", "input", "cache_control")


def tool_use_model_roundtrip(history: History) -> History:
    """F33 (an SDK model without the newer fields): every tool use is rebuilt from the fields the
    model knows, so a ``caller`` or tracing field is lost, in the task in flight too."""
    out = []
    for message in history:
        if message["role"] == "assistant" and isinstance(message["content"], list) and \
                any(b["type"] == "tool_use" and set(b) - set(_TOOL_USE_FIELDS) for b in message["content"]):
            message = _with_blocks(message, [{k: b[k] for k in _TOOL_USE_FIELDS if k in b}
                                             if b["type"] == "tool_use" else b for b in message["content"]])
        out.append(message)
    return out


def error_flag_lost(history: History) -> History:
    """F25 (a result type the condenser rebuilds as a plain observation): ``is_error`` is lost from
    every tool result, the ones the model is about to read included."""
    out = []
    for message in history:
        if message["role"] == "user" and isinstance(message["content"], list) and \
                any(b["type"] == "tool_result" and "is_error" in b for b in message["content"]):
            message = _with_blocks(message, [{k: v for k, v in b.items() if k != "is_error"}
                                             if b["type"] == "tool_result" else b for b in message["content"]])
        out.append(message)
    return out


def results_in_call_order(history: History) -> History:
    """F05 (a run of results matched to calls by position): every results turn is rewritten in the
    order of the calls before it, the latest one included."""
    out = list(history)
    for i in range(1, len(out)):
        order = _calls(out[i - 1])
        blocks = blocks_of(out[i])
        results = [b for b in blocks if b["type"] == "tool_result"]
        if out[i]["role"] == "user" and len(results) > 1 and isinstance(out[i]["content"], list):
            rank = {use_id: n for n, use_id in enumerate(order)}
            ordered = sorted(results, key=lambda b: rank.get(b["tool_use_id"], len(rank)))
            out[i] = _with_blocks(out[i], ordered + [b for b in blocks if b["type"] != "tool_result"])
    return out


def mcp_images_dropped(history: History) -> History:
    """F33 (Gitlawb/zero): image blocks are dropped from every message, and a tool result left
    without content reads "(empty MCP tool result)"."""
    def strip(block: dict[str, Any]) -> dict[str, Any]:
        content = block.get("content")
        if block["type"] != "tool_result" or not isinstance(content, list) or \
                not any(c.get("type") == "image" for c in content):
            return block
        kept = [c for c in content if c.get("type") != "image"]
        return {**block, "content": kept or "(empty MCP tool result)"}

    out = []
    for message in history:
        if isinstance(message["content"], list) and any(
                b["type"] == "image" or (b["type"] == "tool_result" and strip(b) is not b) for b in message["content"]):
            kept = [strip(b) for b in message["content"] if b["type"] != "image"]
            message = _with_blocks(message, kept or [{"type": "text", "text": "(image removed)"}])
        out.append(message)
    return out


def cache_breakpoints_pruned(history: History) -> History:
    """Cache breakpoints moved by a middleware that keeps only the marker of the last message:
    every earlier ``cache_control`` goes, in the task in flight too."""
    out = []
    for message in history[:-1]:
        if isinstance(message["content"], list) and any("cache_control" in b for b in message["content"]):
            message = _with_blocks(message, [{k: v for k, v in b.items() if k != "cache_control"}
                                             for b in message["content"]])
        out.append(message)
    return out + history[-1:]


def consecutive_users_merged(history: History) -> History:
    """A provider adapter that merges consecutive user messages in settled history: a notice
    stored between a call and its results is merged ahead of the results."""
    start = live_start(history)
    out: History = []
    for message in history[:start]:
        if out and message["role"] == "user" and out[-1]["role"] == "user":
            out[-1] = _with_blocks(out[-1], [*blocks_of(out[-1]), *blocks_of(message)])
            continue
        out.append(message)
    return out + history[start:]


def system_hoisted(history: History) -> History:
    """An adapter that moves every system message to the front, one written mid-conversation (at
    the opening of the task in flight) included."""
    system = [m for m in history if m["role"] == "system"]
    if not system or all(m["role"] == "system" for m in history[:len(system)]):
        return list(history)
    return system + [m for m in history if m["role"] != "system"]


def last_request_opens_task(history: History) -> History:
    """F31 (the task taken to open at the last plain user message): a task opened by several
    requests, or with a notice in its steps, seems to start later, and what comes before loses its
    reasoning."""
    start = len(history)
    for i in range(len(history) - 1, -1, -1):
        if history[i]["role"] == "user" and not _has_results(history[i]):
            start = i
            break
    settled = [m for m in (without_reasoning(m) for m in history[:start]) if m is not None]
    return settled + history[start:]


# --- server tools of the built-in kinds ---------------------------------------------------------

def _server_results(history: History, kind: str, rewrite: Any) -> History:
    """Returns the history with ``rewrite`` applied to every server result block of type ``kind``."""
    out = []
    for message in history:
        if message["role"] == "assistant" and isinstance(message["content"], list) and \
                any(b["type"] == kind for b in message["content"]):
            message = _with_blocks(message, [rewrite(b) if b["type"] == kind else b for b in message["content"]])
        out.append(message)
    return out


def mcp_result_flattened(history: History) -> History:
    """F33 (MCP blocks a history projection does not know): an MCP tool result's content blocks are
    flattened to one string, in the turn the model continues from too."""
    return _server_results(history, "mcp_tool_result", lambda b: {
        **b, "content": "\n".join(c.get("text", "") for c in b["content"]) if isinstance(b["content"], list)
        else b["content"]})


def search_results_exclude_none(history: History) -> History:
    """F08 (a model dump with exclude_none): a web search result's ``page_age: null`` is dropped on
    the way back, changing the bytes of every web search result, the latest included."""
    return _server_results(history, "web_search_tool_result", lambda b: {
        **b, "content": [{k: v for k, v in r.items() if v is not None} for r in b["content"]]
        if isinstance(b["content"], list) else b["content"]})


def code_output_truncated(history: History, limit: int = 2000) -> History:
    """F24 (output trimming that reaches server results): a code execution's stdout over ``limit``
    characters is cut, in the task in flight too."""
    def cut(block: dict[str, Any]) -> dict[str, Any]:
        content = block["content"]
        if isinstance(content, dict) and len(content.get("stdout", "")) > limit:
            return {**block, "content": {**content, "stdout": content["stdout"][:limit] + " [truncated]"}}
        return block
    return _server_results(history, "code_execution_tool_result", cut)


def fetched_page_unwrapped(history: History) -> History:
    """F33 (a document block inside a server result the SDK model does not type): a web fetch
    result's document is replaced by its text."""
    def unwrap(block: dict[str, Any]) -> dict[str, Any]:
        content = block["content"]
        if isinstance(content, dict) and isinstance(content.get("content"), dict):
            return {**block, "content": {**content, "content": content["content"].get("source", {}).get("data", "")}}
        return block
    return _server_results(history, "web_fetch_tool_result", unwrap)


CAUGHT_BY: dict[str, tuple[str, ...]] = {
    "trim_last_by_budget": ("live.untouched-suffix", "tools.results-answer-previous"),
    "start_on_human": ("live.untouched-suffix",),
    "text_results_not_results": ("tools.results-answer-previous",),
    "middle_pop": ("live.untouched-suffix", "tools.results-answer-previous", "tools.uses-answered-next"),
    "head_and_tail": ("live.untouched-suffix", "tools.results-answer-previous", "tools.uses-answered-next"),
    "even_range_delete": ("live.untouched-suffix", "tools.results-answer-previous"),
    "summary_offset_in_pair": ("tools.uses-answered-next",),
    "summary_then_results": ("tools.results-answer-previous",),
    "parallel_batch_cut": ("tools.uses-answered-next",),
    "drop_large_results": ("tools.uses-answered-next",),
    "error_results_unpaired": ("tools.results-answer-previous",),
    "clear_tool_uses_leaves_reasoning": ("assistant.no-trailing-reasoning", "output.well-formed"),
    "server_pairs_dropped": ("tools.server-results-kept", "output.well-formed"),
    "strip_trailing_results": ("live.untouched-suffix",),
    "summarize_active_loop": ("live.untouched-suffix",),
    "thinking_lost_after_summary": ("reasoning.live-preserved", "live.untouched-suffix"),
    "reasoning_before_last_message": ("reasoning.live-preserved", "live.untouched-suffix"),
    "redacted_not_projected": ("reasoning.live-preserved", "live.untouched-suffix"),
    "latest_turn_sanitized": ("live.untouched-suffix", "reasoning.kept-intact"),
    "paused_turn_as_answer": ("live.untouched-suffix", "reasoning.live-preserved"),
    "pending_compact_call_resolved": ("live.untouched-suffix",),
    "notice_as_request": ("live.untouched-suffix", "reasoning.live-preserved"),
    "tool_use_model_roundtrip": ("live.untouched-suffix",),
    "error_flag_lost": ("live.untouched-suffix",),
    "results_in_call_order": ("live.untouched-suffix",),
    "mcp_images_dropped": ("live.untouched-suffix",),
    "cache_breakpoints_pruned": ("live.untouched-suffix",),
    "consecutive_users_merged": ("tools.results-first", "tools.uses-answered-next"),
    "system_hoisted": ("live.untouched-suffix",),
    "last_request_opens_task": ("live.untouched-suffix", "reasoning.live-preserved"),
    "mcp_result_flattened": ("live.untouched-suffix", "opaque.kept-intact"),
    "search_results_exclude_none": ("live.untouched-suffix", "opaque.kept-intact"),
    "code_output_truncated": ("live.untouched-suffix", "opaque.kept-intact"),
    "fetched_page_unwrapped": ("live.untouched-suffix", "opaque.kept-intact"),
}

DEFECT_CLASS: dict[str, str] = {
    **dict.fromkeys(["trim_last_by_budget", "start_on_human", "middle_pop", "head_and_tail",
                     "even_range_delete", "strip_trailing_results", "summarize_active_loop",
                     "pending_compact_call_resolved"], "cuts into the task in flight"),
    **dict.fromkeys(["text_results_not_results", "summary_offset_in_pair", "summary_then_results",
                     "parallel_batch_cut", "drop_large_results", "error_results_unpaired"],
                    "separates a client call from its result"),
    "clear_tool_uses_leaves_reasoning": "puts reasoning out of its place in a turn",
    "server_pairs_dropped": "separates a server tool use from its result",
    **dict.fromkeys(["thinking_lost_after_summary", "reasoning_before_last_message", "redacted_not_projected",
                     "paused_turn_as_answer", "notice_as_request"], "drops or rewrites reasoning that must stay"),
    "latest_turn_sanitized": "rewrites the latest turn's bytes",
    **dict.fromkeys(["tool_use_model_roundtrip", "error_flag_lost", "mcp_images_dropped", "cache_breakpoints_pruned"],
                    "rebuilds blocks, losing or retyping fields"),
    **dict.fromkeys(["results_in_call_order", "system_hoisted"], "reorders the task in flight"),
    "consecutive_users_merged": "separates a client call from its result",
    "last_request_opens_task": "drops or rewrites reasoning that must stay",
    **dict.fromkeys(["mcp_result_flattened", "search_results_exclude_none", "code_output_truncated",
                     "fetched_page_unwrapped"], "rewrites server tool results"),
}

SOURCE: dict[str, str] = {
    "trim_last_by_budget": "F01", "start_on_human": "F02", "text_results_not_results": "F11",
    "middle_pop": "F14", "head_and_tail": "F14", "even_range_delete": "F26", "summary_offset_in_pair": "F23",
    "summary_then_results": "F28", "parallel_batch_cut": "F29", "drop_large_results": "F24",
    "error_results_unpaired": "F25", "clear_tool_uses_leaves_reasoning": "F18", "server_pairs_dropped": "F33",
    "strip_trailing_results": "F10", "summarize_active_loop": "F06", "thinking_lost_after_summary": "F07",
    "reasoning_before_last_message": "F17", "redacted_not_projected": "F19", "latest_turn_sanitized": "F08",
    "paused_turn_as_answer": "F16", "pending_compact_call_resolved": "F20", "notice_as_request": "F31",
    "tool_use_model_roundtrip": "F33", "error_flag_lost": "F25", "results_in_call_order": "F05",
    "mcp_images_dropped": "F33", "cache_breakpoints_pruned": "cache breakpoints", "consecutive_users_merged": "F23",
    "system_hoisted": "system hoisting", "last_request_opens_task": "F31",
    "mcp_result_flattened": "F33", "search_results_exclude_none": "F08", "code_output_truncated": "F24",
    "fetched_page_unwrapped": "F33",
}

__all__ = ["CAUGHT_BY", "DEFECT_CLASS", "SOURCE", "REASONING", *CAUGHT_BY]
