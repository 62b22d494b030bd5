"""The reference task-boundary compactor.

The task in flight (from the request that opened it to the end of the history) is returned as the
very same message objects; only settled history before it is trimmed, to whole tasks within the
last ``keep_turns`` settled messages, and reasoning is removed there by a denylist.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .errors import InterleavedTasks, LiveTaskOverBudget, ReorderedHistory

Message = Mapping[str, Any]
REASONING_TYPES = frozenset({"thinking", "redacted_thinking"})


def _is_server_use(kind: Any) -> bool:
    """Returns whether a block type is a server-run tool use (``server_tool_use``, ``mcp_tool_use``,
    or any later ``*_tool_use`` kind but the client's ``tool_use``)."""
    return isinstance(kind, str) and kind != "tool_use" and kind.endswith("tool_use")


def estimate_tokens(messages: Sequence[Message]) -> int:
    """Returns a rough token count: one token per four characters of the messages' JSON."""
    return sum(len(json.dumps(m, ensure_ascii=False, separators=(",", ":"))) for m in messages) // 4


def _blocks(message: Message) -> list[Any]:
    content = message.get("content")
    if isinstance(content, list):
        return content
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return []


def _ids_of(message: Message, kind: str, key: str = "id") -> list[Any]:
    """Returns ``block[key]`` of every block of type ``kind`` in the message."""
    return [b.get(key) for b in _blocks(message) if isinstance(b, Mapping) and b.get("type") == kind]


def _is_final_answer(message: Message) -> bool:
    if message.get("role") != "assistant":
        return False
    has_text = False
    open_server_uses: set[str] = set()
    for block in _blocks(message):
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "tool_use":
            return False
        if kind == "text":
            has_text = True
        elif _is_server_use(kind):
            open_server_uses.add(str(block.get("id")))
        elif "tool_use_id" in block:
            open_server_uses.discard(str(block.get("tool_use_id")))
    return has_text and not open_server_uses


def _is_request(message: Message) -> bool:
    return message.get("role") == "user" and not _ids_of(message, "tool_result", "tool_use_id")


def _next_turn(history: Sequence[Message], i: int) -> Message | None:
    """Returns the first message after ``i`` that is not a mid-conversation system message."""
    for j in range(i + 1, len(history)):
        if history[j].get("role") != "system":
            return history[j]
    return None


def _settled_before(history: Sequence[Message], end: int) -> int:
    """Returns the index just after the last settled turn before ``end`` (0 when there is none).

    Whether a turn settles is judged on the whole history, so the scan stops at the first hit.
    """
    for i in range(end - 1, -1, -1):
        if _is_final_answer(history[i]):
            following = _next_turn(history, i)
            if following is None or _is_request(following):
                return i + 1
    return 0


def task_boundary(history: Sequence[Message]) -> int:
    """Returns the index of the first message of the task in flight (``len(history)`` if none).

    A final answer settles a task only when it ends the history or a new user request follows it
    (system messages between them aside): a progress note followed by more assistant work does not.
    """
    return _settled_before(history, len(history))


def _kept_boundary(history: Sequence[Message]) -> int:
    """Returns where the messages returned untouched begin: the task in flight, or, when the
    history ends on an assistant turn that settles it (a finished answer, a client prefill), the
    whole last task, from just after the settled turn before it."""
    boundary = task_boundary(history)
    if boundary == len(history) and history and history[-1].get("role") == "assistant":
        return _settled_before(history, len(history) - 1)  # the next call continues from that turn
    return boundary


def _waiting_step(history: Sequence[Message], index: int) -> int | None:
    """Returns the index of the assistant turn whose calls are still waiting at ``index``: the one
    just before ``index`` once the user messages with no tool result between them (background
    notices a harness stored mid-step) are passed over; None when there is none."""
    j = index - 1
    while j >= 0 and _is_request(history[j]):
        j -= 1
    if j < 0 or history[j].get("role") != "assistant" or not _ids_of(history[j], "tool_use"):
        return None
    return j


def _inside_step(history: Sequence[Message], index: int) -> bool:
    """Returns whether the message at ``index`` stands between a call and its result."""
    step = _waiting_step(history, index)
    if step is None:
        return False
    waiting = set(_ids_of(history[step], "tool_use"))
    return any(waiting & set(_ids_of(m, "tool_result", "tool_use_id")) for m in history[index:])


def _opens_window(history: Sequence[Message], index: int) -> bool:
    """Returns whether kept history may start at ``index``: a request that is not a notice standing
    between a call and its result, or the very start of the history when it holds no result of an
    earlier call."""
    if _is_request(history[index]):
        return not _inside_step(history, index)
    return index == 0 and not any(isinstance(b, Mapping) and "tool_use_id" in b for b in _blocks(history[0]))


def _check_order(history: Sequence[Message], start: int) -> None:
    """Raises ``InterleavedTasks`` or ``ReorderedHistory`` if a tool result from ``start`` on does
    not answer a call in the message just before it."""
    for i in range(start, len(history)):
        message = history[i]
        if message.get("role") != "user":
            continue
        results = _ids_of(message, "tool_result", "tool_use_id")
        step = _waiting_step(history, i) if i > 0 else None  # notices between a call and its result aside
        calls = set(_ids_of(history[step], "tool_use")) if step is not None else set()
        for use_id in results:
            if use_id in calls:
                continue
            for j in range(i + 1, len(history)):
                if use_id in _ids_of(history[j], "tool_use"):
                    raise ReorderedHistory(
                        f"messages[{i}] holds the result of {use_id}, whose call comes later at "
                        f"messages[{j}]: the history is out of order", use_id, i)
            raise InterleavedTasks(
                f"messages[{i}] answers {use_id}, which is not a call of messages[{i - 1}]: tasks "
                "are interleaved, so the start of the task in flight is unknown", use_id, i)


def _strip_reasoning(message: Message) -> Message | None:
    content = message.get("content")
    if not isinstance(content, list):
        return message
    kept = [b for b in content if not (isinstance(b, Mapping) and b.get("type") in REASONING_TYPES)]
    if len(kept) == len(content):
        return message
    return {**message, "content": kept} if kept else None


def _last_compaction(history: Sequence[Message], end: int) -> int | None:
    """Returns the index of the last message before ``end`` holding a ``compaction`` block."""
    for i in range(end - 1, -1, -1):  # one pass over all settled history: kept tight
        content = history[i].get("content")
        if content.__class__ is list or isinstance(content, list):
            for block in content:
                if (block.__class__ is dict or isinstance(block, Mapping)) and block.get("type") == "compaction":
                    return i
    return None


def compact(history: Sequence[Message], keep_turns: int = 10, *, budget_tokens: int | None = None,
            count_tokens: Callable[[Sequence[Message]], int] = estimate_tokens) -> list[Message]:
    """Returns the compacted history: trimmed settled tasks, then the task in flight untouched.

    Raises ``LiveTaskOverBudget`` when ``budget_tokens`` is smaller than the task in flight alone,
    ``InterleavedTasks``/``ReorderedHistory`` when the order hides where that task begins, and
    ``ValueError`` for a negative ``keep_turns``. A history that ends settled has nothing in flight:
    when its last task alone is over the budget, that task is trimmed as settled history too.
    """
    if keep_turns < 0:
        raise ValueError("keep_turns must be >= 0")
    boundary = _kept_boundary(history)
    if (budget_tokens is not None and boundary < len(history) and task_boundary(history) == len(history)
            and count_tokens(history[boundary:]) > budget_tokens):
        boundary = len(history)  # kept only for the next call's sake, and it does not fit: settled
    window = max(0, boundary - keep_turns)
    while window < boundary and not _opens_window(history, window):
        window += 1  # open on a request (or a clean start): no orphaned result, no split pair
    _check_order(history, window)
    live = list(history[boundary:])

    settled: list[Message] = []
    anchor = _last_compaction(history, boundary)
    if anchor is not None and anchor < window and not _ids_of(history[anchor], "tool_use"):
        summary = _strip_reasoning(history[anchor])  # settled: its reasoning goes like any other's
        if summary is not None:
            settled.append(summary)  # the summary that stands for everything before it
    for message in history[window:boundary]:
        kept = _strip_reasoning(message)
        if kept is not None:
            settled.append(kept)

    if budget_tokens is not None:
        live_tokens = count_tokens(live)
        if live_tokens > budget_tokens:
            raise LiveTaskOverBudget(live_tokens, budget_tokens, len(live))
        # The cut is the one the task's first call made: settled history and the task's request
        # alone decide it, so it stays put while the task runs (its thinking is bound to it).
        request_tokens = count_tokens(_opening_request(live))
        while settled and count_tokens(settled) + request_tokens > budget_tokens:
            cut = 1
            while cut < len(settled) and not _opens_window(settled, cut):
                cut += 1
            settled = settled[cut:]  # drop the oldest whole settled task
        settled_tokens = count_tokens(settled)
        if settled_tokens + live_tokens > budget_tokens:
            raise LiveTaskOverBudget(live_tokens, budget_tokens, len(live), settled_tokens)
    return settled + live


def _opening_request(live: Sequence[Message]) -> Sequence[Message]:
    """Returns the messages of the task in flight before its first assistant turn: what its
    first call sent after settled history."""
    for i, message in enumerate(live):
        if message.get("role") == "assistant":
            return live[:i]
    return live
