"""Legitimately different correct compactors: each must pass every MUST invariant."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from ._history import History, blocks_of, ends_settled, in_doubt, live_start, without_reasoning


def noop(history: History) -> History:
    """Returns the history as it came: trivially correct, compacts nothing."""
    return list(history)


def live_only(history: History) -> History:
    """Returns only the task in flight (all of it when the order leaves the boundary in doubt)."""
    start = live_start(history)
    return list(history) if in_doubt(history, start) else history[start:]


def summarizer(history: History) -> History:
    """Returns one summary message in place of all settled history, then the task in flight."""
    start = live_start(history)
    if start == 0 or in_doubt(history, start):
        return list(history)
    if history[0]["role"] == "user" and isinstance(history[0]["content"], str) and \
            history[0]["content"].startswith("[summary of "):
        return list(history)  # already summarized: leave it
    summary = {"role": "user", "content": f"[summary of {start} earlier messages: settled work, omitted]"}
    return [summary, *history[start:]]


def deep_copy(history: History) -> History:
    """Returns a deep copy: correct, and shows a copy is not a mutation."""
    return copy.deepcopy(history)


def _tokens(messages: History, chars_per_token: int) -> int:
    """Returns a character-ratio token estimate of the messages' compact JSON, rounded up."""
    chars = sum(len(json.dumps(m, ensure_ascii=False, separators=(",", ":"))) for m in messages)
    return -(-chars // chars_per_token)


def _opens_task(message: dict[str, Any]) -> bool:
    return message["role"] == "user" and not any(b["type"] == "tool_result" for b in blocks_of(message))


def _waiting(message: dict[str, Any]) -> set[str]:
    """Returns the ids of the client calls of an assistant message."""
    return {b["id"] for b in blocks_of(message) if b["type"] == "tool_use"} if message["role"] == "assistant" else set()


def _settled_tasks(settled: History) -> list[History]:
    """Returns settled history cut into whole tasks, each opening on a user request (never on a
    notice that stands between a call and its result)."""
    tasks: list[History] = []
    pending: set[str] = set()
    for message in settled:
        if not tasks or (_opens_task(message) and not pending):
            tasks.append([])
        tasks[-1].append(message)
        if message["role"] == "assistant":
            pending = _waiting(message)
        elif not _opens_task(message):
            pending = set()
    return tasks


def _budgeted(chars_per_token: int) -> Callable[..., History]:
    def compact(history: History, *, budget_tokens: int | None = None) -> History:
        start = live_start(history)
        if budget_tokens is None or in_doubt(history, start):
            return list(history)
        live = history[start:]
        used = _tokens(live, chars_per_token)
        if used > budget_tokens and ends_settled(history):  # nothing in flight: the last task may go too
            start, live, used = len(history), [], 0
        if used > budget_tokens:
            raise ValueError(f"the task in flight alone is ~{used} tokens, over the budget of {budget_tokens}")
        kept: History = []
        for task in reversed(_settled_tasks(history[:start])):
            cost = _tokens(task, chars_per_token)
            if used + cost > budget_tokens:
                break
            kept[:0] = task
            used += cost
        return kept + list(live)
    compact.__doc__ = (f"Returns whole settled tasks from the end that fit ``budget_tokens`` (one token per "
                       f"{chars_per_token} characters), then the task in flight untouched; raises ValueError "
                       "when the task in flight alone is over the budget.")
    return compact


budget_chars_3 = _budgeted(3)
budget_chars_4 = _budgeted(4)
budget_chars_5 = _budgeted(5)


def last_settled_task(history: History) -> History:
    """Returns the last settled task whole, then the task in flight: a window of one task."""
    start = live_start(history)
    if in_doubt(history, start):
        return list(history)
    tasks = _settled_tasks(history[:start])
    if not tasks or not _opens_task(tasks[-1][0]):
        return list(history)
    return tasks[-1] + history[start:]


def _placeholder(block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "text", "text": f"[{block['type']} removed from settled history]"}


def _without_media(block: dict[str, Any]) -> dict[str, Any]:
    if block["type"] in ("image", "document"):
        return _placeholder(block)
    if block["type"] == "tool_result" and isinstance(block.get("content"), list):
        return {**block, "content": [_placeholder(b) if b["type"] in ("image", "document") else b
                                     for b in block["content"]]}
    return block


def settled_media_dropped(history: History) -> History:
    """Returns the history with images and documents of settled history replaced by a short note;
    the task in flight untouched."""
    start = live_start(history)
    if in_doubt(history, start):
        return list(history)
    settled = [m if isinstance(m["content"], str) else {**m, "content": [_without_media(b) for b in m["content"]]}
               for m in history[:start]]
    return settled + history[start:]


def boundary_tasks(history: History) -> History:
    """The example that changes settled history only at task boundaries and strips the reasoning it
    keeps (``examples/preserved_thinking/boundary_tasks.py``): correct for current models too."""
    from examples.preserved_thinking.boundary_tasks import compact

    return compact(history)


def model_summary(history: History, summarize: Any = None) -> History:
    """Summarises settled history with a model call (the harness's stand-in) on its messages without
    their reasoning, at task boundaries only: what precedes the task in flight depends on settled
    history alone."""
    start = live_start(history)
    if start == 0 or summarize is None or in_doubt(history, start):
        return list(history)
    if history[0]["role"] == "user" and str(history[0]["content"]).startswith("[summary ") and start == 1:
        return list(history)  # the summary a stateful agent sends back
    prompt = [m for m in (without_reasoning(x) for x in history[:start]) if m is not None]
    return [{"role": "user", "content": summarize(prompt)}, *history[start:]]


# correct as current Claude models judge them, replayed thinking included; the others move their
# cut of settled history while a task runs (a window or budget that counts the task in flight, a
# boundary read anew at each call), which only models without the prefix check accept
SURVIVE_PREFIX_CHECK = frozenset({"noop", "deep_copy", "boundary_tasks"})
