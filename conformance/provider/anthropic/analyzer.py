"""Decide from one recorded exchange what the server cleared or summarised, and whether that was live.

Input is a probe (its request and declared live span) and what the SDK parsed in strict mode: a
``BetaMessage``, an API error, and optionally a ``BetaMessageTokensCount``. The counts in
``applied_edits`` are matched against the sizes of the request's tool results, tool inputs and
thinking turns to name *which* items went; compaction blocks and ``usage.iterations`` say whether
the prompt was summarised. Nothing here asks the server what it did beyond what it reported.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from anthropic.types.beta import (
    BetaClearThinking20251015EditResponse,
    BetaClearToolUses20250919EditResponse,
    BetaMessage,
    BetaMessageTokensCount,
)

from ..analyze.model import LIVE_REASONING_LOST, LIVE_REASONING_STALE, SETTLED, worst
from . import semantics as sem
from .judge_thinking import ALLOWED, DROPPED, PATH
from .probes import Probe
from .semantics import tolerance

MAX_COMBINATIONS = 50_000
T = TypeVar("T")


@dataclass(frozen=True)
class ApiFailure:
    """A recorded non-2xx answer: its status and JSON body."""

    status: int
    body: Any

    @property
    def error(self) -> dict[str, Any]:
        """Returns the ``error`` object of the body (empty when the body has none)."""
        error = self.body.get("error") if isinstance(self.body, dict) else None
        return error if isinstance(error, dict) else {}

    @property
    def summary(self) -> dict[str, Any]:
        """Returns status, error type, ``details.error_code`` and message: what a rejection is compared on."""
        details = self.error.get("details")
        return {"status": self.status, "type": self.error.get("type"),
                "code": details.get("error_code") if isinstance(details, dict) else None,
                "message": self.error.get("message")}

    @property
    def code(self) -> str:
        """Returns ``error.details.error_code`` when present, else ``error.type``, else the status."""
        error = (self.body or {}).get("error") if isinstance(self.body, dict) else None
        if isinstance(error, dict):
            details = error.get("details")
            code = details.get("error_code") if isinstance(details, dict) else None
            return str(code or error.get("type") or self.status)
        return str(self.status)


@dataclass
class Analysis(sem.Outcome):
    """The analyzer's finding for one exchange: the outcome, what of it was live, what does not add up."""

    reached_tool_use_ids: list[str] = field(default_factory=list)
    reached_thinking_turns: list[int] = field(default_factory=list)
    unexplained: list[str] = field(default_factory=list)
    evidence: dict[str, Any] = field(default_factory=dict)
    live_evidence: list[str] = field(default_factory=list)

    @property
    def reached_live(self) -> bool:
        """Returns whether any part of the task in flight (its request, a tool use, a result, an input
        or a thinking turn) was cleared or summarised."""
        return bool(self.live_reached or self.reached_tool_use_ids or self.reached_thinking_turns)

    def to_dict(self) -> dict[str, Any]:
        """Returns the finding as JSON-ready data."""
        return {**asdict(self), "reached_live": self.reached_live}


def identify(pool: Sequence[T], count: int, tokens: int, weight: Callable[[Sequence[T]], int]) -> list[tuple[T, ...]]:
    """Returns every ``count``-subset of ``pool`` (in order) whose ``weight`` is within tolerance of ``tokens``."""
    if count > len(pool) or count < 0:
        return []
    found = []
    for index, subset in enumerate(itertools.combinations(pool, count)):
        if index >= MAX_COMBINATIONS:
            break
        if abs(weight(subset) - tokens) <= tolerance(max(tokens, weight(subset)), count):
            found.append(subset)
    return found


def _edit_config(request: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((e for e in sem.edits_of(request) if e.get("type") == kind), None)


def _reported_edit(request: dict[str, Any], kind: str, label: str, found: Analysis) -> dict[str, Any] | None:
    """Returns the request's edit of ``kind`` the answer reported (``label``), or None after noting in
    ``found`` that the request has no such edit."""
    edit = _edit_config(request, kind)
    if edit is None:
        found.unexplained.append(f"{label} but the request has no such edit")
    return edit


def _tool_edit(item: BetaClearToolUses20250919EditResponse, request: dict[str, Any], found: Analysis) -> None:
    label = f"clear_tool_uses reported {item.cleared_tool_uses} tool uses / {item.cleared_input_tokens} tokens"
    edit = _reported_edit(request, sem.CLEAR_TOOL_USES, label, found)
    if edit is None:
        return
    pool = [s for s in sem.tool_steps(request["messages"]) if s.result_message is not None]

    def weight(subset: Sequence[sem.ToolStep]) -> int:
        inputs = set(sem.inputs_cleared_for(edit, subset))
        return sum(s.result_tokens + (s.input_tokens if s.tool_use_id in inputs else 0) for s in subset)

    matches = identify(pool, item.cleared_tool_uses, item.cleared_input_tokens, weight)
    plan = sem.plan_clear_tool_uses(edit, request)
    ids_of = [[s.tool_use_id for s in m] for m in matches]
    found.evidence.setdefault("tool_matches", []).append(ids_of[:5])
    if not matches:
        found.unexplained.append(f"{label}: no {item.cleared_tool_uses} tool results of this request add up to that")
        return
    documented = [s.tool_use_id for s in plan.cleared] if plan.applies else []
    chosen = next((m for m, ids in zip(matches, ids_of) if ids == documented), None)
    if chosen is None:
        live = [{s.tool_use_id for s in m} for m in matches]
        chosen = matches[0]
        if len(matches) > 1 and len({frozenset(x) for x in live}) > 1:
            found.evidence.setdefault("ambiguous", []).append(ids_of)
        found.unexplained.append(f"{label}: fits {ids_of[0]}, but the documented rules clear {documented or 'nothing'}"
                                 f" ({plan.reason})")
    found.cleared_tool_use_ids += [s.tool_use_id for s in chosen]
    found.cleared_tool_inputs += list(sem.inputs_cleared_for(edit, chosen))


def _thinking_edit(item: BetaClearThinking20251015EditResponse, request: dict[str, Any], found: Analysis) -> None:
    label = f"clear_thinking reported {item.cleared_thinking_turns} turns / {item.cleared_input_tokens} tokens"
    edit = _reported_edit(request, sem.CLEAR_THINKING, label, found)
    if edit is None:
        return
    pool = [t for t in sem.assistant_turns(request["messages"]) if t.has_thinking]
    matches = identify(pool, item.cleared_thinking_turns, item.cleared_input_tokens,
                       lambda subset: sum(t.thinking_tokens for t in subset))
    plan = sem.plan_clear_thinking(edit, request)
    numbers = [[t.number for t in m] for m in matches]
    found.evidence.setdefault("thinking_matches", []).append(numbers[:5])
    if not matches:
        found.unexplained.append(f"{label}: no {item.cleared_thinking_turns} thinking turns of this request "
                                 "(a tool-use loop is one turn) add up to that")
        return
    documented = [t.number for t in plan.cleared]
    chosen = next((m for m, n in zip(matches, numbers) if n == documented), None)
    if chosen is None:
        chosen = matches[0]
        found.unexplained.append(f"{label}: fits turns {numbers[0]}, but the documented rules clear "
                                 f"{documented or 'none'} ({plan.reason})")
    found.cleared_thinking_turns += [t.number for t in chosen]


def _compaction(message: BetaMessage, request: dict[str, Any], found: Analysis) -> None:
    blocks = [b for b in message.content if b.type == "compaction"]
    iterations = [i.type for i in (message.usage.iterations or [])]
    found.evidence["compaction_blocks"] = len(blocks)
    found.evidence["iterations"] = iterations
    if not blocks:
        if "compaction" in iterations:
            found.unexplained.append("usage.iterations has a compaction entry but the response has no compaction block")
        return
    found.summarized = True
    if message.usage.iterations is not None and "compaction" not in iterations:
        found.unexplained.append("a compaction block came back without a compaction entry in usage.iterations")
    if request.get("compaction") is not None:
        if message.stop_reason != "compaction":
            found.unexplained.append(f"on-demand compaction ended with stop_reason {message.stop_reason!r}")
        return
    edit = _edit_config(request, sem.COMPACT)
    if edit is None:
        found.unexplained.append("a compaction block came back but no compaction was requested")
        return
    tokens, trigger = sem.request_tokens(request), sem.compact_trigger(edit)
    if tokens + tolerance(tokens, 0) < trigger:
        found.unexplained.append(f"compacted at about {tokens} input tokens, below the trigger of {trigger}")


def _count_tokens(count: BetaMessageTokensCount | None, message: BetaMessage, request: dict[str, Any],
                  found: Analysis, refused: ApiFailure | None) -> None:
    if refused is not None:
        found.evidence["count_tokens_error"] = refused.code
        found.unexplained.append(f"count_tokens was rejected ({refused.code}) but the same request was accepted")
        return
    if count is None or count.context_management is None:
        return
    original = count.context_management.original_input_tokens
    found.evidence["count_tokens"] = {"input_tokens": count.input_tokens, "original_input_tokens": original,
                                      "estimated_input_tokens": sem.request_tokens(request)}
    edits = (message.context_management.applied_edits if message.context_management else [])
    cleared = sum(e.cleared_input_tokens for e in edits)
    removed = original - count.input_tokens
    items = sum(getattr(e, "cleared_tool_uses", 0) + getattr(e, "cleared_thinking_turns", 0) for e in edits)
    if abs(removed - cleared) > int(0.02 * original) + 16 * items + 32:
        found.unexplained.append(f"count_tokens shows {removed} tokens removed, the edits report {cleared}")


def _ambiguity(probe: Probe, found: Analysis) -> None:
    """Adds an unexplained count when the reported tokens fit sets on both sides of the live boundary."""
    for key, live_items in (("tool_matches", probe.live.tool_use_ids), ("thinking_matches", probe.live.thinking_turns)):
        for matches in found.evidence.get(key, []):
            touching = {bool(set(m) & set(live_items)) for m in matches}
            if len(touching) > 1:
                found.unexplained.append(f"the reported tokens fit {matches}, inside and outside the task in flight: "
                                         "which items were cleared cannot be told from the sizes")


def _transformations(message: BetaMessage, probe: Probe, found: Analysis) -> str | None:
    """Notes each ``input_transformations`` entry of the answer (absent before SDK 2.15 and without the
    binding beta header) against the probe's declared live span; returns the verdict they make
    (``live-reasoning-lost``, ``live-reasoning-stale`` or ``settled-only``), or None without one."""
    verdicts = []
    for item in getattr(message, "input_transformations", None) or []:
        kind, path, reason = getattr(item, "type", None), getattr(item, "path", None), getattr(item, "reason", None)
        found.evidence.setdefault("input_transformations", []).append({"type": kind, "path": path, "reason": reason})
        match = PATH.fullmatch(path) if isinstance(path, str) else None
        if kind not in (DROPPED, ALLOWED) or match is None:
            found.unexplained.append(f"input_transformations entry {kind} at {path!r} is not one the analyzer models")
            continue
        if kind == DROPPED:
            found.dropped_thinking.append(str(path))
        live = int(match.group(1)) >= probe.live.from_message
        if not live:
            verdicts.append(SETTLED)
            continue
        verdicts.append(LIVE_REASONING_LOST if kind == DROPPED else LIVE_REASONING_STALE)
        found.live_evidence.append(f"{path}: {kind} ({reason}) of a thinking block of the task in flight")
    return worst(verdicts) if verdicts else None


def analyze(probe: Probe, message: BetaMessage | None, failure: ApiFailure | None = None,
            count: BetaMessageTokensCount | None = None, count_failure: ApiFailure | None = None) -> Analysis:
    """Returns the verdict for one exchange: rejected, reached-live-task, live-reasoning-lost (a thinking
    block of the task in flight dropped), live-reasoning-stale (one let through with a failed check),
    inconsistent, settled-only or no-edit.

    ``count``/``count_failure`` are the ``count_tokens`` answer to the same request, when it was sent.
    """
    if failure is not None or message is None:
        code = failure.code if failure else "no-response"
        body = failure.body if failure else None
        return Analysis("rejected", error_code=code, evidence={"status": failure.status if failure else None,
                                                               "error": body,
                                                               "rejection": failure.summary if failure else {}})
    request = probe.semantic_request()
    found = Analysis("no-edit")
    applied = message.context_management.applied_edits if message.context_management else []
    found.evidence["applied_edits"] = [e.model_dump() for e in applied]
    found.evidence["stop_reason"] = message.stop_reason
    for item in applied:  # a report of zero items is checked too: its tokens and the rules must agree
        if isinstance(item, BetaClearToolUses20250919EditResponse):
            _tool_edit(item, request, found)
        elif isinstance(item, BetaClearThinking20251015EditResponse):
            _thinking_edit(item, request, found)
    _compaction(message, request, found)
    _count_tokens(count, message, request, found, count_failure)
    _ambiguity(probe, found)
    reach = sem.live_reach(probe.live, found.cleared_tool_use_ids, found.cleared_thinking_turns, found.summarized,
                           request["messages"], found.cleared_tool_inputs)
    found.reached_tool_use_ids, found.reached_thinking_turns = list(reach.tool_use_ids), list(reach.thinking_turns)
    found.live_reached, found.live_evidence = list(reach.parts), reach.words()
    thinking = _transformations(message, probe, found)
    if found.reached_live:
        found.verdict = "reached-live-task"
    elif found.unexplained:
        found.verdict = "inconsistent"
    elif found.cleared_tool_use_ids or found.cleared_thinking_turns or found.summarized:
        found.verdict = "settled-only"
    if thinking is not None:  # a dropped block of the task in flight outranks all but a reached one
        found.verdict = worst([found.verdict, thinking])
    return found


def compare(probe: Probe, found: Analysis) -> list[str]:
    """Returns how the finding differs from the probe's declared prediction (empty when it matches)."""
    expected = probe.predict
    differences = []
    if found.verdict != expected["verdict"]:
        differences.append(f"verdict {found.verdict}, predicted {expected['verdict']}")
    for key in sem.OUTCOME_FIELDS[1:]:
        if key in expected and getattr(found, key) != expected[key]:
            differences.append(f"{key} {getattr(found, key)!r}, predicted {expected[key]!r}")
    if found.unexplained and found.verdict != "inconsistent":
        differences.append("counts the documented semantics cannot explain")
    if found.verdict == "rejected" and expected["verdict"] == "rejected" and probe.expected_error:
        differences += rejection_differences(probe.expected_error, found.evidence.get("rejection") or {})
    return differences


def rejection_differences(expected: dict[str, str], got: dict[str, Any]) -> list[str]:
    """Returns how a recorded rejection differs from the predicted one (type, code, message pattern)."""
    said = f"{got.get('type')}" + (f"/{got['code']}" if got.get("code") else "") + f": {got.get('message')!r}"
    wrong = []
    if got.get("type") != expected["type"]:
        wrong.append(f"type {expected['type']}")
    if expected.get("code") and got.get("code") != expected["code"]:
        wrong.append(f"code {expected['code']}")
    pattern = expected.get("message")
    if pattern and not re.search(pattern, str(got.get("message") or ""), re.IGNORECASE):
        wrong.append(f"a message matching /{pattern}/")
    if not wrong:
        return []
    return [f"rejected for another reason ({said}), predicted {', '.join(wrong)}"]
