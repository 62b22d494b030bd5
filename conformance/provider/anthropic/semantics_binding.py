"""The documented prefix check of preserved thinking, as a prediction for a probe: what a client's edit
of the history it built does to the thinking blocks it sends back.

Read from the documentation (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking
and the models' migration pages): on a model that runs the check, a thinking block is bound to its
prefix (``system``, ``tools`` other than deferred ones, every earlier message and the blocks before it
in its message; thinking blocks, ``cache_control`` and key order aside), so a change invalidates every
thinking block already after it and none before it. Under ``thinking.block_binding.prefix_mismatch_behavior``
``error`` (the default on accounts created on or after 2026-08-31, which probes assume) the request is
a 400; under ``drop_block`` the failing blocks are dropped and, with the binding beta header, listed
in ``input_transformations``. ``block_binding`` without that header is refused. Server-side clearing
and compaction change the server's copy, not what was sent: they never fail the check.

The single-call form of the check (research note, section 6.2): the history as built is what every
thinking block in it was produced after, so the first difference between it and the request sent is
where the prefix broke. Not modelled here (no probe sends them): a compaction block in the request,
from which the checked prefix restarts, and a thinking block left out from the middle or put back.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .semantics import THINKING_TYPES, content_blocks

BETA = "thinking-binding-controls-2026-08-01"
# The model families that run the check (Fable 5.2 and Mythos 5.2 on every account; Fable 5.1, Opus
# 5.5, Sonnet 5.5 and Haiku 5.5 by default on accounts created on or after 2026-08-31). Mythos 5.1,
# Opus 5, Sonnet 5, Fable 5 and earlier models do not run it.
FAMILIES = ("claude-fable-5-2", "claude-mythos-5-2", "claude-fable-5-1", "claude-opus-5-5", "claude-sonnet-5-5",
            "claude-haiku-5-5")
HEAD = ("Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, "
        "or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")
NEEDS_BETA = f"That setting requires the `{BETA}` value in the `anthropic-beta` header."


def runs_check(model: str) -> bool:
    """Returns whether ``model`` (or a dated id of it) is of a family that runs the prefix check."""
    return any(model == f or (model.startswith(f + "-") and model[len(f) + 1:].isdigit()) for f in FAMILIES)


def behavior(request: Mapping[str, Any]) -> str | None:
    """Returns the request's ``thinking.block_binding.prefix_mismatch_behavior``, or None when it sets none."""
    thinking = request.get("thinking")
    bound = thinking.get("block_binding") if isinstance(thinking, Mapping) else None
    if not isinstance(bound, Mapping):
        return None
    value = bound.get("prefix_mismatch_behavior", "error")
    return str(value)


@dataclass(frozen=True)
class Binding:
    """What the prefix check does to one request: refused (``error`` and its documented message) or
    the paths of the thinking blocks it drops; neither when every block passes or none is checked."""

    error: str | None = None
    message: str | None = None
    dropped: tuple[str, ...] = ()
    reason: str = ""


def _norm(value: Any) -> str:
    if isinstance(value, Mapping):
        value = {k: v for k, v in value.items() if k != "cache_control" and v is not None}
    return json.dumps(value, sort_keys=True)


def _rows(request: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    return [(str(m.get("role")), [_norm(b) for b in content_blocks(m) if b.get("type") not in THINKING_TYPES])
            for m in request.get("messages", [])]


def _system(request: Mapping[str, Any]) -> str:
    system = request.get("system")
    return _norm([{"type": "text", "text": system}] if isinstance(system, str) else system or [])


def _tools(request: Mapping[str, Any]) -> str:
    return json.dumps([_norm(t) for t in request.get("tools") or [] if not t.get("defer_loading")])


def first_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[str, int, int] | None:
    """Returns where ``after`` first differs from ``before``: ``("system", 0, 0)``, ``("tools", 0, 0)``
    or ``("messages", i, k)`` with ``k`` counted among the blocks other than thinking; None when it
    repeats ``before`` and only adds to it."""
    if _system(before) != _system(after):
        return "system", 0, 0
    if _tools(before) != _tools(after):
        return "tools", 0, 0
    old, new = _rows(before), _rows(after)
    for i, (was, now) in enumerate(zip(old, new)):
        if was[0] != now[0]:
            return "messages", i, 0
        for k in range(len(was[1])):
            if k >= len(now[1]) or was[1][k] != now[1][k]:
                return "messages", i, k
    if len(new) < len(old):
        return "messages", len(new), 0
    return None


def _full_index(message: Mapping[str, Any], k: int) -> int:
    seen = 0
    for j, block in enumerate(content_blocks(message)):
        if block.get("type") in THINKING_TYPES:
            continue
        if seen == k:
            return j
        seen += 1
    return len(content_blocks(message))


def _failing(after: Mapping[str, Any], where: tuple[str, int, int]) -> list[str]:
    """Returns the paths of the thinking blocks of ``after`` at or after the change (all for ``system``/``tools``)."""
    found = []
    for i, message in enumerate(after.get("messages", [])):
        slot = 0
        for j, block in enumerate(content_blocks(message)):
            if block.get("type") not in THINKING_TYPES:
                slot += 1
                continue
            if where[0] != "messages" or i > where[1] or (i == where[1] and slot > where[2]):
                found.append(f"messages.{i}.content.{j}")
    return found


def predict(before: Mapping[str, Any], after: Mapping[str, Any], betas: Sequence[str]) -> Binding:
    """Returns what the documented prefix check does to ``after`` (the request sent) when its thinking
    blocks were produced after the history of ``before`` (the history as built)."""
    setting = behavior(after)
    if setting is not None and BETA not in betas:
        return Binding("invalid_request_error", "thinking.block_binding: Extra inputs are not permitted",
                       reason=f"thinking.block_binding needs the beta header {BETA}")
    if not runs_check(str(after.get("model", ""))):
        return Binding(reason=f"{after.get('model')} does not run the prefix check")
    where = first_change(before, after)
    failing = _failing(after, where) if where is not None else []
    if where is None or not failing:
        return Binding(reason="no thinking block sent back follows a change")
    changed = (f"`{where[0]}`" if where[0] != "messages"
               else f"messages.{where[1]}.content.{_full_index(after['messages'][where[1]], where[2])}")
    said = f"the client changed {changed}, before thinking blocks {', '.join(failing)}"
    if setting == "drop_block":
        return Binding(dropped=tuple(failing), reason=f"{said}: drop_block drops them")
    if where[0] == "system":
        cause = " The `system` prompt differs from the one this block was created with."
    elif where[0] == "messages":
        cause = f" Content before this block differs from when it was created, first at `{changed}`."
    else:
        cause = ""  # the documentation names no sentence for a change of tools
    message = f"{failing[0]}: {HEAD}" + ("" if BETA in betas else f" {NEEDS_BETA}") + cause
    return Binding("invalid_request_error", message, reason=f"{said}: a 400 under {setting or 'error (the default)'}")
