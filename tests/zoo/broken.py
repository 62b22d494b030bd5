"""Deliberately broken compactors, one real defect class each. ``CAUGHT_BY`` maps each to the
invariant that must catch it."""

from __future__ import annotations

import copy
import itertools
import json
import time
from typing import Any

from ._history import REASONING, History, blocks_of, live_start, without_reasoning
from .correct import _settled_tasks

KEEP = {"text", "tool_use", "tool_result"}


def essay_whitelist(history: History, keep_turns: int = 10) -> History:
    """The essay's first compactor: whitelist block types outside the last ``keep_turns`` messages."""
    old, recent = history[:-keep_turns] if keep_turns else history, history[-keep_turns:] if keep_turns else []
    trimmed = []
    for message in old:
        kept = [b for b in blocks_of(message) if b["type"] in KEEP]
        if kept:
            trimmed.append({**message, "content": kept})
    return trimmed + list(recent)


def keep_last_n(history: History) -> History:
    """Keeps the last six messages, whatever they are."""
    return history[-6:]


def strip_all_thinking(history: History) -> History:
    """Removes reasoning everywhere, the task in flight included."""
    return [m for m in (without_reasoning(m) for m in history) if m is not None]


def mutate_input(history: History) -> History:
    """Strips settled reasoning correctly, but in place, editing the caller's history."""
    start = live_start(history)
    for message in history[:start]:
        if isinstance(message["content"], list):
            message["content"][:] = [b for b in message["content"] if b["type"] not in REASONING] or \
                [{"type": "text", "text": "(empty)"}]
    return history


def rebuild_blocks(history: History) -> History:
    """Rebuilds every block from the fields it knows, losing the rest (cache_control, citations...)."""
    known = {"text": ("text",), "tool_use": ("id", "name", "input"), "tool_result": ("tool_use_id", "content"),
             "thinking": ("thinking", "signature"), "redacted_thinking": ("data",)}
    out = []
    for message in history:
        if isinstance(message["content"], str):
            out.append(message)
            continue
        blocks = [{"type": b["type"], **{k: b[k] for k in known.get(b["type"], ()) if k in b}}
                  for b in message["content"]]
        out.append({"role": message["role"], "content": blocks})
    return out


def cap_live_task(history: History) -> History:
    """Keeps settled history, and of the task in flight only its request and its last three steps."""
    start = live_start(history)
    live = history[start:]
    if len(live) <= 7:
        return list(history)
    tail = live[-6:]
    while tail and tail[0]["role"] != "assistant":
        tail = tail[1:]
    return history[:start] + [live[0]] + tail


def boundary_off_by_one(history: History) -> History:
    """The task-boundary compactor with its boundary one step late: the first step counts as settled."""
    start = min(live_start(history) + 2, len(history))
    settled = [m for m in (without_reasoning(m) for m in history[:start]) if m is not None]
    return settled + history[start:]


def orphan_results(history: History, keep_turns: int = 10) -> History:
    """Spares the task in flight but cuts settled history at a fixed count, splitting tool pairs."""
    start = live_start(history)
    window = history[max(0, start - keep_turns):start]
    return window + history[start:]


def drop_settled_results(history: History) -> History:
    """Emergency trim: drops settled tool-result messages and keeps the calls they answered."""
    start = live_start(history)
    settled = [m for m in history[:start] if not any(b["type"] == "tool_result" for b in blocks_of(m))]
    return settled + history[start:]


def note_before_results(history: History) -> History:
    """Prefixes a note to settled tool-result messages, ahead of the results."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        if any(b["type"] == "tool_result" for b in blocks_of(message)):
            message = {**message, "content": [{"type": "text", "text": "[results trimmed]"}, *blocks_of(message)]}
        out.append(message)
    return out + history[start:]


def rewrite_thinking(history: History) -> History:
    """Re-serialises settled reasoning (normalised whitespace, fresh signature) instead of keeping it."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        if isinstance(message["content"], list) and any(b["type"] == "thinking" for b in message["content"]):
            message = {**message, "content": [
                {**b, "thinking": " ".join(b["thinking"].split()) + " ", "signature": "resigned"}
                if b["type"] == "thinking" else b for b in message["content"]]}
        out.append(message)
    return out + history[start:]


def trailing_thinking(history: History) -> History:
    """Snips the answer text from settled assistant turns that reasoned, leaving reasoning last."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        content = message["content"]
        if message["role"] == "assistant" and isinstance(content, list) and \
                any(b["type"] in REASONING for b in content):
            kept = [b for b in content if b["type"] != "text"]
            message = {**message, "content": kept} if kept else message
        out.append(message)
    return out + history[start:]


def reasoning_after_text(history: History) -> History:
    """Reorders settled assistant turns so text comes first and reasoning after it."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        content = message["content"]
        if message["role"] == "assistant" and isinstance(content, list):
            message = {**message, "content": [b for b in content if b["type"] not in REASONING] +
                       [b for b in content if b["type"] in REASONING]}
        out.append(message)
    return out + history[start:]


def whitelist_settled(history: History) -> History:
    """Spares the task in flight but whitelists block types in settled history."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        if isinstance(message["content"], list):
            kept = [b for b in message["content"] if b["type"] in KEEP]
            if not kept:
                continue
            message = {**message, "content": kept}
        out.append(message)
    return out + history[start:]


_calls = itertools.count()


def non_idempotent(history: History) -> History:
    """Stamps a fresh summary on every call, so compacting twice never settles."""
    start = live_start(history)
    return [{"role": "user", "content": f"[summary #{next(_calls)}]"}, *history[start:]]


def keeps_settled_reasoning(history: History) -> History:
    """Correct by every MUST but keeps settled reasoning: it is not the reference."""
    return list(history)


def essay_reference(history: History, keep_turns: int = 10) -> History:
    """The essay's own fixed compactor: right about the task in flight, but it strips the
    reasoning of the latest assistant turn when the history ends settled."""
    boundary = 0
    for i in range(len(history) - 1, -1, -1):
        kinds = {b["type"] for b in blocks_of(history[i])}
        if history[i]["role"] == "assistant" and "tool_use" not in kinds and "text" in kinds:
            boundary = i + 1
            break
    trimmed = [m for m in (without_reasoning(m) for m in history[:boundary][-keep_turns:]) if m is not None]
    return trimmed + history[boundary:]


def wrong_type(history: History) -> tuple:
    """Returns a tuple of messages instead of a list."""
    return tuple(history)


def empty_content(history: History) -> History:
    """Empties the content of settled messages instead of dropping them."""
    start = live_start(history)
    return [{**m, "content": []} for m in history[:start]] + history[start:]


def raises(history: History) -> History:
    """Fails on every input."""
    raise RuntimeError("compactor crashed")


def hangs(history: History) -> History:
    """Never answers within any reasonable time limit."""
    time.sleep(30)
    return history


def _zero_as_false(value: Any) -> Any:
    """Returns ``value`` with every integer 0 written as ``False`` (what a truthiness shortcut does)."""
    if isinstance(value, dict):
        return {k: _zero_as_false(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_zero_as_false(v) for v in value]
    return False if value == 0 and type(value) is int else value


def _numbers_as_floats(value: Any) -> Any:
    """Returns ``value`` with every integer written as a float (a round trip through a float-only decoder)."""
    if isinstance(value, dict):
        return {k: _numbers_as_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_numbers_as_floats(v) for v in value]
    return float(value) if type(value) is int else value


def _tool_inputs(history: History, start: int, rewrite: Any) -> History:
    """Returns the history with ``rewrite`` applied to the input of every tool use from ``start`` on."""
    out = list(history[:start])
    for message in history[start:]:
        if isinstance(message["content"], list):
            message = {**message, "content": [{**b, "input": rewrite(b["input"])} if b["type"] == "tool_use" else b
                                              for b in message["content"]]}
        out.append(message)
    return out


def live_zero_becomes_false(history: History) -> History:
    """Keeps the task in flight, but re-encodes its tool inputs so that ``{"limit": 0}`` reads
    ``{"limit": false}``; equal under Python's ``==``, a different request on the wire."""
    return _tool_inputs(history, live_start(history), _zero_as_false)


def live_ints_become_floats(history: History) -> History:
    """Keeps the task in flight, but its tool inputs come back with ``0`` as ``0.0`` and ``1`` as ``1.0``."""
    return _tool_inputs(history, live_start(history), _numbers_as_floats)


def mutate_zero_to_false(history: History) -> History:
    """Returns a correct copy, but first rewrites 0 as false in the caller's live tool inputs, in place."""
    out = copy.deepcopy(history)
    for message in history[live_start(history):]:
        for block in blocks_of(message):
            if block["type"] == "tool_use" and isinstance(block["input"], dict):
                block["input"].update(_zero_as_false(block["input"]))
    return out


def _settled_blocks(history: History, rewrite: Any) -> History:
    """Returns the history with ``rewrite`` applied to every block of settled list content."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        if isinstance(message["content"], list):
            message = {**message, "content": [rewrite(b) for b in message["content"]]}
        out.append(message)
    return out + history[start:]


def blank_settled_text(history: History) -> History:
    """Clears the text of settled text blocks instead of dropping them, leaving empty text blocks."""
    return _settled_blocks(history, lambda b: {**b, "text": ""} if b["type"] == "text" else b)


def whitespace_settled_text(history: History) -> History:
    """Replaces the text of settled text blocks with a single space, which the API refuses as blank."""
    return _settled_blocks(history, lambda b: {**b, "text": " "} if b["type"] == "text" else b)


def drop_settled_tool_input(history: History) -> History:
    """Saves tokens by dropping the ``input`` of settled tool uses."""
    return _settled_blocks(history, lambda b: {k: v for k, v in b.items() if k != "input"}
                           if b["type"] == "tool_use" else b)


def stringify_settled_tool_input(history: History) -> History:
    """Writes the ``input`` of settled tool uses as a JSON string instead of an object."""
    return _settled_blocks(history, lambda b: {**b, "input": json.dumps(b["input"])} if b["type"] == "tool_use" else b)


def unnamed_settled_tool_use(history: History) -> History:
    """Rebuilds settled tool uses from their id and input alone, losing the tool's name."""
    return _settled_blocks(history, lambda b: {"type": "tool_use", "id": b["id"], "input": b["input"]}
                           if b["type"] == "tool_use" else b)


def stub_settled_results(history: History) -> History:
    """Replaces settled tool results with a stub that no longer says which call it answers."""
    return _settled_blocks(history, lambda b: {"type": "tool_result", "content": "[trimmed]"}
                           if b["type"] == "tool_result" else b)


def settled_blocks_as_strings(history: History) -> History:
    """Flattens settled blocks to their text, leaving a list of strings where blocks were."""
    return _settled_blocks(history, lambda b: str(b.get("text", b["type"])))


def blank_settled_requests(history: History) -> History:
    """Keeps settled user turns as placeholders with empty string content."""
    start = live_start(history)
    return [{**m, "content": ""} if m["role"] == "user" and isinstance(m["content"], str) else m
            for m in history[:start]] + history[start:]


def crash_on_unpaired_result(history: History) -> History:
    """Returns the history as it came, but pairs each tool result with its call by a dict lookup
    in the message before it: a result answering anything else raises KeyError, a crash."""
    for i, message in enumerate(history):
        calls = {b["id"]: b for b in blocks_of(history[i - 1]) if b["type"] == "tool_use"} if i else {}
        for block in blocks_of(message):
            if block["type"] == "tool_result":
                calls[block["tool_use_id"]]["name"]  # noqa: B018 - the lookup is the defect
    return list(history)


def drop_pending_calls(history: History) -> History:
    """Removes tool uses that have no result after them, the call the history ends on included."""
    answered = {b.get("tool_use_id") for m in history for b in blocks_of(m)}
    out = []
    for message in history:
        if message["role"] == "assistant" and isinstance(message["content"], list):
            kept = [b for b in message["content"] if b["type"] != "tool_use" or b["id"] in answered]
            if not kept:
                continue
            message = {**message, "content": kept}
        out.append(message)
    return out


KNOWN_SERVER_RESULTS = {"web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
                        "mcp_tool_result"}


def fixed_server_registry(history: History) -> History:
    """Spares the task in flight; in settled history its pair registry knows client pairs and a fixed
    list of server result kinds, and drops result blocks of any other kind as unpaired debris,
    leaving their server tool uses without results."""
    return _settled_blocks_filtered(history, lambda b: b["type"] == "tool_result" or "tool_use_id" not in b
                                    or b["type"] in KNOWN_SERVER_RESULTS)


def _settled_blocks_filtered(history: History, keep: Any) -> History:
    """Returns the history with settled list content filtered by ``keep`` (a message left empty goes)."""
    start = live_start(history)
    out = []
    for message in history[:start]:
        if isinstance(message["content"], list):
            kept = [b for b in message["content"] if keep(b)]
            if not kept:
                continue
            message = {**message, "content": kept}
        out.append(message)
    return out + history[start:]


def window_splits_paused_pairs(history: History, keep_turns: int = 10) -> History:
    """Spares the task in flight and never opens settled history on a client tool result, but counts
    a continuation of a paused server-tool turn as a place to open: the window's edge there orphans
    the server result."""
    start = live_start(history)
    window = max(0, start - keep_turns)
    while window < start and history[window]["role"] == "user" and (
            any(b["type"] == "tool_result" for b in blocks_of(history[window])) or _mid_step(history, window)):
        window += 1  # never on a client result, nor on a notice inside a step: on a request or any assistant turn
    return history[window:start] + history[start:]


def _mid_step(history: History, i: int) -> bool:
    """Returns whether history[i] follows a call turn whose results come later."""
    calls = {b["id"] for b in blocks_of(history[i - 1]) if b["type"] == "tool_use"} if i else set()
    return any(b.get("tool_use_id") in calls for m in history[i + 1:] for b in blocks_of(m))


def _settled_opaque(history: History, rewrite: Any) -> History:
    """Returns the history with ``rewrite`` applied to every settled compaction block."""
    return _settled_blocks(history, lambda b: rewrite(b) if b["type"] == "compaction" else b)


def reserialise_compaction(history: History) -> History:
    """Round-trips settled compaction blocks through a model class with every optional field, so
    each comes back with ``"encrypted_content": null`` (and ``signature``) added where it had none."""
    return _settled_opaque(history, lambda b: {"encrypted_content": None, "signature": None, **b})


def rewrite_compaction_summary(history: History) -> History:
    """Tidies the summary of settled compaction blocks (whitespace collapsed, a prefix added)."""
    return _settled_opaque(history, lambda b: {**b, "content": "[summary] " + " ".join(str(b.get("content")).split())})


def reencode_search_results(history: History) -> History:
    """Re-encodes the encrypted content of settled web search results (stripping base64 padding)."""
    def rewrite(block: dict[str, Any]) -> dict[str, Any]:
        if block["type"] != "web_search_tool_result" or not isinstance(block.get("content"), list):
            return block
        return {**block, "content": [{**r, "encrypted_content": r["encrypted_content"].rstrip("=") + "=="}
                                     if "encrypted_content" in r else r for r in block["content"]]}
    return _settled_blocks(history, rewrite)


def compact_tool_summary_only(history: History) -> History:
    """When the model calls the compaction tool (``context_compact``), returns only a summary of
    everything, losing the call waiting for its result."""
    last = history[-1] if history else None
    if last and last["role"] == "assistant" and any(b["type"] == "tool_use" and b["name"] == "context_compact"
                                                     for b in blocks_of(last)):
        return [{"role": "user", "content": f"[summary of {len(history)} messages]"}]
    return list(history)


def prune_large_text(history: History, limit: int = 8192) -> History:
    """Replaces text blocks over ``limit`` characters with a stub everywhere, the latest assistant
    turn and the task in flight included."""
    out = []
    for message in history:
        if isinstance(message["content"], list) and any(b["type"] == "text" and len(b["text"]) > limit
                                                        for b in message["content"]):
            message = {**message, "content": [{"type": "text", "text": "[long text pruned]"}
                                              if b["type"] == "text" and len(b["text"]) > limit else b
                                              for b in message["content"]]}
        out.append(message)
    return out


def notice_into_step(history: History) -> History:
    """Moves each settled notice (a user text message right after a tool-result turn) ahead of that
    turn, between the call and its result, as a harness that files notices by arrival time does."""
    start = live_start(history)
    out = list(history[:start])
    for i in range(1, len(out)):
        message, previous = out[i], out[i - 1]
        if message["role"] == "user" and all(b["type"] == "text" for b in blocks_of(message)) and \
                any(b["type"] == "tool_result" for b in blocks_of(previous)) and i + 1 < len(out) and \
                out[i + 1]["role"] == "assistant":
            out[i - 1], out[i] = message, previous
    return out + history[start:]


def window_opens_on_notice(history: History, keep_turns: int = 10) -> History:
    """Spares the task in flight and opens settled history on a user message with no tool result,
    but takes a background-task notice standing between a call and its result for a request: the
    window's edge there keeps the result and drops its call."""
    start = live_start(history)
    window = max(0, start - keep_turns)
    while window < start and (history[window]["role"] != "user" or
                              any(b["type"] == "tool_result" for b in blocks_of(history[window]))):
        window += 1
    return history[window:start] + history[start:]


_NOTICE_OPENINGS = ("[background", "<task-notification>")


def _is_notice(message: dict[str, Any]) -> bool:
    blocks = blocks_of(message)
    return (message["role"] == "user" and len(blocks) == 1 and blocks[0]["type"] == "text"
            and str(blocks[0].get("text", "")).startswith(_NOTICE_OPENINGS))


def notice_to_newest(history: History) -> History:
    """Moves the background-task notices of settled history next to the newest message, where the
    model reads them (as a harness re-injects its reminders): when the task in flight ends on a call's
    result, a notice lands between that call and its result."""
    start = live_start(history)
    notices = [m for m in history[:start] if _is_notice(m)]
    if not notices:
        return list(history)
    rest = [m for i, m in enumerate(history) if not (i < start and _is_notice(m))]
    return rest[:-1] + notices + rest[-1:]


_AGENT_MARKERS = ("<system-reminder>", "Background command ")


def _agent_notice(block: dict[str, Any]) -> bool:
    """Returns whether a block is a text that opens with a real agent's notice marker."""
    return block.get("type") == "text" and str(block.get("text", "")).lstrip().startswith(_AGENT_MARKERS)


def agent_notice_to_newest(history: History) -> History:
    """Recognises notices by real agents' markers (a coding agent's ``<system-reminder>`` blocks, a
    harness's "Background command ..." turns) and moves those of settled history next to the newest
    message, where the model reads them: out of the user messages that held them (a message left
    empty goes), into one user turn before the newest message. When the task in flight ends on a
    call's result, they land between that call and its result."""
    start = live_start(history)
    moved: list[dict[str, Any]] = []
    settled = []
    for message in history[:start]:
        found = [b for b in blocks_of(message) if _agent_notice(b)] if message["role"] == "user" else []
        moved += found
        kept = [b for b in blocks_of(message) if not _agent_notice(b)] if found else None
        if kept is None:
            settled.append(message)
        elif kept:
            settled.append({**message, "content": kept})
    if not moved:
        return list(history)
    rest = settled + list(history[start:])
    return rest[:-1] + [{"role": "user", "content": moved}] + rest[-1:]


def prune_settled_code_runs(history: History) -> History:
    """Prunes code execution from settled history as bulky (each code-execution server tool use and
    its result) and keeps the client calls the code made, with their results: their ``caller`` then
    names a server tool use the request no longer holds."""
    start = live_start(history)
    runs = {b["id"] for m in history[:start] for b in blocks_of(m)
            if b["type"] == "server_tool_use" and str(b.get("name", "")).startswith("code_execution")}
    return _settled_blocks_filtered(history, lambda b: not (b["type"] == "server_tool_use" and b["id"] in runs)
                                    and not (b["type"] != "tool_result" and b.get("tool_use_id") in runs))


def keep_request_and_answer(history: History) -> History:
    """Keeps, of each settled task, its requests and its answer (the assistant message that ends it)
    and drops the steps between: the continuation of a paused server-tool turn is that answer, so its
    result stays and the paused turn holding the use goes."""
    start = live_start(history)
    kept = []
    for i, message in enumerate(history[:start]):
        nxt = history[i + 1] if i + 1 < len(history) else None
        answer = message["role"] == "assistant" and (nxt is None or i + 1 == start or (
            nxt["role"] == "user" and not any(b["type"] == "tool_result" for b in blocks_of(nxt))))
        request = message["role"] == "user" and not any(b["type"] == "tool_result" for b in blocks_of(message))
        if request or answer:
            kept.append(message)
    return kept + history[start:]


def window_keeps_settled_reasoning(history: History) -> History:
    """Keeps the last two whole settled tasks with their reasoning: the window moves at each new
    task, so their thinking comes back after a changed prefix."""
    start = live_start(history)
    return [m for task in _settled_tasks(history[:start])[-2:] for m in task] + history[start:]


def strip_then_put_back(history: History) -> History:
    """Strips settled reasoning at a task's first call only, and sends everything on later calls:
    the thinking of the task was produced without the settled blocks it then puts back."""
    start = live_start(history)
    if start != len(history) - 1:
        return list(history)
    return [m for m in (without_reasoning(x) for x in history[:start]) if m is not None] + history[start:]


def trim_thinking_text(history: History) -> History:
    """Trims the whitespace around every thinking text, replaying blocks the model never produced."""
    def trimmed(block: dict[str, Any]) -> dict[str, Any]:
        if block.get("type") == "thinking" and block.get("thinking") != block.get("thinking", "").strip():
            return {**block, "thinking": block["thinking"].strip()}
        return block
    return [{**m, "content": [trimmed(b) for b in m["content"]]} if isinstance(m["content"], list) else m
            for m in history]


def summary_of_everything(history: History, summarize: Any = None) -> History:
    """Summarises settled history with a model call whose prompt is the settled messages as they
    are, reasoning included (a request the provider refuses as reasoning extraction)."""
    start = live_start(history)
    if start == 0 or summarize is None:
        return list(history)
    return [{"role": "user", "content": summarize(history[:start])}, *history[start:]]


def cuts_live_while_short(history: History) -> History:
    """A window sized for long histories that keeps only the last two messages of a short one: every
    call of a long task's first steps cuts the task in flight, the last call does not."""
    return history[-2:] if len(history) < 10 else list(history)


def keeps_first_exchange(history: History) -> History:
    """Keeps the first request and its answer and everything after them, reading the two as
    ``history[0], history[1]``: an IndexError on a history of one message (the agent loop's first
    call), never on the histories of two and more it is handed whole."""
    head = [history[0], history[1]]
    return head + history[2:]


def reasoning_as_notes(history: History) -> History:
    """Keeps the settled tasks' reasoning for the model to read, as a text note in place of each
    thinking block: the reasoning is sent back as prompt text."""
    start = live_start(history)
    out = []
    for i, message in enumerate(history):
        content = message.get("content")
        if i < start and isinstance(content, list) and any(b.get("type") == "thinking" for b in content):
            message = {**message, "content": [{"type": "text", "text": f"(earlier reasoning: {b.get('thinking')})"}
                                              if b.get("type") == "thinking" else b for b in content]}
        out.append(message)
    return out


CAUGHT_BY: dict[str, tuple[str, ...]] = {
    "reasoning_as_notes": ("reasoning.not-transcribed",),
    "cuts_live_while_short": ("loop.every-call",),
    "keeps_first_exchange": ("loop.every-call",),
    "summary_of_everything": ("summary.no-reasoning",),
    "window_keeps_settled_reasoning": ("thinking.prefix-unchanged",),
    "strip_then_put_back": ("thinking.chain-unbroken",),
    "trim_thinking_text": ("thinking.replayed-intact",),
    "essay_whitelist": ("live.untouched-suffix",),
    "keep_last_n": ("live.untouched-suffix", "tools.results-answer-previous"),
    "strip_all_thinking": ("reasoning.live-preserved",),
    "mutate_input": ("input.unmutated",),
    "rebuild_blocks": ("blocks.fields-preserved", "live.untouched-suffix"),
    "cap_live_task": ("live.untouched-suffix",),
    "boundary_off_by_one": ("live.untouched-suffix", "reasoning.live-preserved"),
    "orphan_results": ("tools.results-answer-previous",),
    "drop_settled_results": ("tools.uses-answered-next",),
    "note_before_results": ("tools.results-first",),
    "rewrite_thinking": ("reasoning.kept-intact",),
    "trailing_thinking": ("assistant.no-trailing-reasoning",),
    "reasoning_after_text": ("assistant.reasoning-leads",),
    "whitelist_settled": ("blocks.no-silent-drop",),
    "essay_reference": ("reasoning.latest-turn-intact",),
    "non_idempotent": ("output.idempotent",),
    "wrong_type": ("output.well-formed",),
    "empty_content": ("output.well-formed",),
    "raises": ("call.completes",),
    "hangs": ("call.completes",),
    "live_zero_becomes_false": ("live.untouched-suffix",),
    "live_ints_become_floats": ("live.untouched-suffix",),
    "mutate_zero_to_false": ("input.unmutated",),
    "blank_settled_text": ("output.well-formed",),
    "whitespace_settled_text": ("output.well-formed",),
    "drop_settled_tool_input": ("output.well-formed",),
    "stringify_settled_tool_input": ("output.well-formed",),
    "unnamed_settled_tool_use": ("output.well-formed",),
    "stub_settled_results": ("output.well-formed",),
    "settled_blocks_as_strings": ("output.well-formed",),
    "blank_settled_requests": ("output.well-formed",),
    "crash_on_unpaired_result": ("call.completes",),
    "drop_pending_calls": ("tools.unanswered-kept", "live.untouched-suffix"),
    "fixed_server_registry": ("tools.server-results-kept",),
    "window_splits_paused_pairs": ("tools.server-results-kept",),
    "reserialise_compaction": ("opaque.kept-intact",),
    "rewrite_compaction_summary": ("opaque.kept-intact",),
    "reencode_search_results": ("opaque.kept-intact",),
    "compact_tool_summary_only": ("tools.unanswered-kept", "live.untouched-suffix"),
    "prune_large_text": ("live.untouched-suffix",),
    "notice_into_step": ("tools.uses-answered-next",),
    "window_opens_on_notice": ("tools.results-answer-previous",),
    "notice_to_newest": ("tools.uses-answered-next", "live.untouched-suffix"),
    "agent_notice_to_newest": ("tools.uses-answered-next", "live.untouched-suffix"),
    "prune_settled_code_runs": ("tools.caller-use-kept",),
    "keep_request_and_answer": ("tools.server-results-kept",),
}


# the defect class of each broken compactor: several compactors may be variants of one defect (the
# settled-block rewrites of ``_settled_blocks`` are one class, caught by one invariant), so kill rates
# are reported by class as well as by compactor (``benchmarks/kill_rate.py``, docs/fuzz.md)
DEFECT_CLASS: dict[str, str] = {
    "reasoning_as_notes": "sends reasoning back as prompt text",
    **dict.fromkeys(["window_keeps_settled_reasoning", "strip_then_put_back", "trim_thinking_text"],
                    "breaks the prefix check of replayed thinking"),
    "summary_of_everything": "gives a summarizer the reasoning of the history",
    "cuts_live_while_short": "cuts into the task in flight at earlier calls of the loop",
    "keeps_first_exchange": "does not complete",
    **dict.fromkeys(["essay_whitelist", "keep_last_n", "cap_live_task", "boundary_off_by_one", "prune_large_text"],
                    "cuts into the task in flight"),
    **dict.fromkeys(["strip_all_thinking", "rewrite_thinking", "essay_reference"],
                    "drops or rewrites reasoning that must stay"),
    **dict.fromkeys(["trailing_thinking", "reasoning_after_text"], "puts reasoning out of its place in a turn"),
    **dict.fromkeys(["rebuild_blocks", "live_zero_becomes_false", "live_ints_become_floats"],
                    "rebuilds blocks, losing or retyping fields"),
    "whitelist_settled": "drops blocks of kinds it does not know",
    **dict.fromkeys(["reserialise_compaction", "rewrite_compaction_summary", "reencode_search_results"],
                    "rewrites opaque blocks"),
    **dict.fromkeys(["orphan_results", "drop_settled_results", "note_before_results", "notice_into_step",
                     "window_opens_on_notice"], "separates a client call from its result"),
    **dict.fromkeys(["drop_pending_calls", "compact_tool_summary_only"], "drops calls still awaiting results"),
    **dict.fromkeys(["fixed_server_registry", "window_splits_paused_pairs", "keep_request_and_answer"],
                    "separates a server tool use from its result"),
    **dict.fromkeys(["mutate_input", "mutate_zero_to_false"], "edits the caller's history in place"),
    **dict.fromkeys(["wrong_type", "empty_content", "blank_settled_text", "whitespace_settled_text",
                     "drop_settled_tool_input", "stringify_settled_tool_input", "unnamed_settled_tool_use",
                     "stub_settled_results", "settled_blocks_as_strings", "blank_settled_requests"],
                    "returns messages the API rejects (shape variants)"),
    **dict.fromkeys(["raises", "hangs", "crash_on_unpaired_result"], "does not complete"),
    "non_idempotent": "changes its own output when run again",
    **dict.fromkeys(["notice_to_newest", "agent_notice_to_newest"], "moves a settled notice into the task in flight"),
    "prune_settled_code_runs": "separates a programmatic call from the server tool use that made it",
}
