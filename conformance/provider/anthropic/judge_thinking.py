"""What the service did to the reasoning a request sent back: ``input_transformations``, placed by
their path against the request's task in flight, and the client's first change that caused them.

Under preserved thinking the service checks each thinking block that comes back against what came
before it when it was produced (``system``, ``tools`` and every earlier message). A failed check
drops the block (``thinking_dropped``) or, where the check is not enforced, lets it through
(``thinking_mismatch_allowed``); with the binding beta header the answer lists each such block,
``{"type": "thinking_dropped", "path": "messages.1.content.0", "reason": "prefix_binding_mismatch"}``
(streamed: on the ``message`` of ``message_start``). A block of settled history lost is settled
reasoning lost; a block of the task in flight lost is the task's own reasoning gone.

To name what the client changed, ``remember`` notes the history of each request that sends or
gets back a thinking block (a short digest per block, thinking blocks left out, ``cache_control``
markers and JSON layout ignored, as the check ignores them) under each thinking block's signature;
a later request with a block dropped for its prefix is compared with the latest earlier one that
carried that block.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...engine.transcript import blocks as message_blocks
from ...engine.transcript import canonical
from ..._json import is_mapping
from ..analyze.earlier import Earlier, digest
from ..analyze.model import CANNOT_TELL, INCONSISTENT, LIVE_REASONING_LOST, LIVE_REASONING_STALE, SETTLED
from .judge_edits import Finding

FIELD = "input_transformations"
DROPPED = "thinking_dropped"
ALLOWED = "thinking_mismatch_allowed"
TYPES = (DROPPED, ALLOWED)
PREFIX = "prefix_binding_mismatch"
# Why a check fails, as the service names it, and what that means for the client.
REASONS = {
    PREFIX: "what came before the block (system, tools or an earlier message) changed since it was produced",
    "model_binding_mismatch": "the model answering cannot read a block another model produced",
    "organization_binding_mismatch": "the block was produced in another organization",
    "end_user_binding_mismatch": "the block was produced for another end user",
}
# The blocks an entry may name: thinking and redacted thinking; a dropped one also connector text.
NAMED_BLOCKS = ("thinking", "redacted_thinking", "connector_text")
REASONING_FIELD = {"thinking": "signature", "redacted_thinking": "data"}  # block type -> its identity
PATH = re.compile(r"messages\.(\d+)\.content\.(\d+)")
PATH_SHOWN = 60  # characters of a path that is not one, quoted in the evidence

SIGNATURES = "anthropic.thinking"  # Earlier space: a thinking block's digest -> the interaction that last carried it
HISTORIES = "anthropic.history"  # Earlier space: an interaction's index -> the digests of its history


def entries(response: Mapping[str, Any]) -> list[Any] | None:
    """Returns the response's ``input_transformations`` list, or None when it has none (the beta
    header was not sent, or the answer is not a message)."""
    value = response.get(FIELD)
    return list(value) if isinstance(value, list) else None


def _block(messages: Sequence[Any], i: int, j: int) -> Mapping[str, Any] | None:
    """Returns block ``j`` of message ``i`` (a string content is one text block), or None when there is none."""
    if i >= len(messages) or not is_mapping(messages[i]):
        return None
    content = message_blocks(messages[i])
    return content[j] if j < len(content) and is_mapping(content[j]) else None


def identity(block: Mapping[str, Any]) -> str | None:
    """Returns the digest of a reasoning block's signature (thinking) or data (redacted thinking), or
    None for another block or one without it."""
    key = REASONING_FIELD.get(str(block.get("type")))
    value = block.get(key) if key else None
    return digest(value) if isinstance(value, str) and value else None


def _norm(value: Any) -> Any:
    """Returns a block or tool as the check compares it: ``cache_control`` and null fields left out."""
    if is_mapping(value):
        return {k: v for k, v in value.items() if k != "cache_control" and v is not None}
    return value


def _short(value: Any) -> str:
    return digest(canonical(value))[:12]


def _system(request: Mapping[str, Any]) -> str:
    system = request.get("system")
    parts = [{"type": "text", "text": system}] if isinstance(system, str) else system if isinstance(system, list) else []
    return _short([_norm(p) for p in parts])


def _tools(request: Mapping[str, Any]) -> str:
    tools = request.get("tools")
    kept = [_norm(t) for t in tools if not (is_mapping(t) and t.get("defer_loading") is True)] \
        if isinstance(tools, list) else []
    return _short(kept)


def history_digests(request: Mapping[str, Any], answer: Mapping[str, Any] | None) -> dict[str, Any]:
    """Returns what the prefix check compares of a request's history, as short digests: ``system``,
    ``tools`` (deferred tools left out) and, per message (the answer's content appended as the
    assistant's when given), its role and a digest per block, thinking blocks left out."""
    messages = [m for m in request.get("messages") or [] if is_mapping(m)]
    if answer is not None:
        messages.append({"role": "assistant", "content": answer.get("content") or []})
    rows = []
    for message in messages:
        kept = [b for b in message_blocks(message) if not (is_mapping(b) and b.get("type") in REASONING_FIELD)]
        rows.append([str(message.get("role")), [_short(_norm(b)) for b in kept]])
    return {"system": _system(request), "tools": _tools(request), "messages": rows}


def _thinking_ids(request: Mapping[str, Any], answer: Mapping[str, Any] | None) -> list[str]:
    found = []
    sources = [*(m for m in request.get("messages") or [] if is_mapping(m)), *([answer] if answer is not None else [])]
    for message in sources:
        for block in message_blocks(message):
            ident = identity(block) if is_mapping(block) else None
            if ident is not None:
                found.append(ident)
    return found


def remember(request: Mapping[str, Any], response: Any, earlier: Earlier) -> None:
    """Notes the history of a request that uses thinking (its ``thinking`` setting is an object) under
    each thinking block it sends or gets back, for a later request of the same conversation whose
    block is dropped to be compared with it."""
    if not is_mapping(request.get("thinking")) or not isinstance(request.get("messages"), list):
        return
    answer = response if is_mapping(response) and response.get("type") == "message" else None
    idents = _thinking_ids(request, answer)
    if not idents:
        return
    earlier.put(HISTORIES, str(earlier.count), history_digests(request, answer))
    for ident in dict.fromkeys(idents):
        earlier.put(SIGNATURES, ident, earlier.count)


def _full_index(message: Any, k: int) -> int:
    """Returns the index in the message's content of its ``k``-th block other than a thinking block."""
    seen = 0
    for j, block in enumerate(message_blocks(message)):
        if is_mapping(block) and block.get("type") in REASONING_FIELD:
            continue
        if seen == k:
            return j
        seen += 1
    return len(message_blocks(message))


def first_change(before: Mapping[str, Any], request: Mapping[str, Any]) -> str | None:
    """Returns the first place where ``request`` differs from an earlier history noted by
    ``history_digests`` (``system``, ``tools``, or a message or block by its path in ``request``),
    or None when the request repeats that history and only adds to it."""
    now = history_digests(request, None)
    if now["system"] != before.get("system"):
        return "`system` differs"
    if now["tools"] != before.get("tools"):
        return "`tools` differ"
    messages = [m for m in request.get("messages") or [] if is_mapping(m)]
    old_rows, new_rows = before.get("messages") or [], now["messages"]
    for i, old in enumerate(old_rows):
        if i >= len(new_rows):
            return f"messages.{i} is gone (the request has {len(new_rows)} messages, that history {len(old_rows)})"
        (old_role, old_blocks), (new_role, new_blocks) = old, new_rows[i]
        if old_role != new_role:
            return f"messages.{i} is a {new_role} message where that history had a {old_role} one"
        for k, (a, b) in enumerate(zip(old_blocks, new_blocks)):
            if a != b:
                return f"messages.{i}.content.{_full_index(messages[i], k)} differs"
        if len(new_blocks) < len(old_blocks):
            return f"messages.{i} has {len(new_blocks)} blocks besides thinking where that history had {len(old_blocks)}"
        if len(new_blocks) > len(old_blocks) and i < len(old_rows) - 1:
            return f"messages.{i}.content.{_full_index(messages[i], len(old_blocks))} was added"
    return None


def _previous(block: Mapping[str, Any], earlier: Earlier) -> tuple[int, dict[str, Any]] | None:
    """Returns the index and noted history of the latest earlier interaction that carried ``block``."""
    ident = identity(block)
    if ident is None:
        return None
    at = earlier.get(SIGNATURES, ident)
    if not isinstance(at, int):
        return None
    history = earlier.get(HISTORIES, str(at))
    return (at, history) if isinstance(history, dict) else None


def cause(request: Mapping[str, Any], block: Mapping[str, Any], earlier: Earlier) -> str:
    """Returns the evidence line naming the client's first change since the latest earlier request of
    the recording that carried ``block`` (or returned it), or saying there is none to compare with."""
    found = _previous(block, earlier)
    if found is None:
        return "no earlier request of this recording carried that block: what the client changed cannot be named"
    at, history = found
    change = first_change(history, request)
    if change is None:
        return (f"the request repeats interaction {at}'s history and adds to it: the change that broke the block's "
                "prefix came before that interaction, or a thinking block before it was left out or put back")
    return f"the client's first change since interaction {at}, the previous request that carried that block: {change}"


def _label(entry: Mapping[str, Any]) -> str:
    return f"{entry.get('type')} ({entry.get('reason')})"


def judge(request: Mapping[str, Any], response: Mapping[str, Any], live_start: int,
          earlier: Earlier | None) -> list[Finding]:
    """Returns one finding per ``input_transformations`` entry of the answer (none when it has none):
    a thinking block dropped in the task in flight is ``live-reasoning-lost``, one let through with
    a failed check there ``live-reasoning-stale``, either in settled history ``settled-only``; an
    entry that names no block of the request is ``inconsistent``, one of a type this judge does not
    model ``cannot-tell``. For a prefix mismatch, the first finding says what the client changed
    since the previous request that carried the block, when ``earlier`` holds it."""
    messages = request.get("messages") or []
    found: list[Finding] = []
    explained = False
    for n, entry in enumerate(entries(response) or []):
        where = f"{FIELD}[{n}]"
        if not is_mapping(entry) or entry.get("type") not in TYPES:
            kind = entry.get("type") if is_mapping(entry) else type(entry).__name__
            found.append(Finding(CANNOT_TELL, [f"{where}: an entry of type `{kind}`, not one this judge models"]))
            continue
        path = entry.get("path")
        match = PATH.fullmatch(path) if isinstance(path, str) else None
        if match is None:
            shown = repr(path)[:PATH_SHOWN]
            found.append(Finding(INCONSISTENT, [f"{where}: {_label(entry)} with path {shown}, not messages.<i>.content.<j>"]))
            continue
        i, j = int(match.group(1)), int(match.group(2))
        block = _block(messages, i, j)
        if block is None or block.get("type") not in NAMED_BLOCKS:
            what = "no such block" if block is None else f"a {block.get('type')} block"
            found.append(Finding(INCONSISTENT, [f"{where}: {_label(entry)} at {path}, where the request has {what}"]))
            continue
        reason = entry.get("reason")
        why = REASONS.get(reason) if isinstance(reason, str) else None
        said = f"{reason}: {why}" if why else f"reason `{reason}`, not one this judge knows"
        live = i >= live_start
        place = (f"of the task in flight (from message {live_start})" if live
                 else f"of settled history (the task in flight starts at message {live_start})")
        kind = str(block.get("type"))
        if entry.get("type") == DROPPED:
            lines = [f"{path}: the service dropped this {kind} block {place} ({said}); "
                     + ("the task in flight lost its reasoning" if live else "only settled reasoning was lost")]
            verdict = LIVE_REASONING_LOST if live else SETTLED
        else:
            lines = [f"{path}: the check of this {kind} block {place} failed but was not enforced, so the block "
                     f"reached the model ({said}); "
                     + ("the task in flight goes on from reasoning about a history that changed, and a service "
                        "that enforces the check drops the block or rejects the request" if live
                        else "only settled reasoning is affected")]
            verdict = LIVE_REASONING_STALE if live else SETTLED
        if reason == PREFIX and not explained and earlier is not None:
            lines.append(cause(request, block, earlier))
            explained = True
        found.append(Finding(verdict, lines))
    return found


def response_only(response: Mapping[str, Any]) -> Finding | None:
    """Returns what the ``input_transformations`` of an answer recorded without its request show
    (``cannot-tell``: a path cannot be placed against a task in flight without the request), or None
    when it lists no entry."""
    listed = [e for e in entries(response) or [] if is_mapping(e)]
    if not listed:
        return None
    named = ", ".join(f"{_label(e)} at {str(e.get('path'))[:PATH_SHOWN]}" for e in listed)
    return Finding(CANNOT_TELL, [f"{FIELD}: {named}", "without the request, whether those blocks belong to the task in "
                                                       "flight cannot be told"])
