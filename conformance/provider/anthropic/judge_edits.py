"""Which items of a real request a reported clearing can be, and whether any lies in the task in flight.

Real traffic has no probe sizes that single one set out. The documented rule (oldest first, ``keep``,
``exclude_tools``) names a set; the reported ``input_tokens`` are real token counts and the sizes
here are estimates (four characters per token), so a set fits within a tolerance, tight first
(3% + 24 tokens an item), else loose (a factor of two, +-50 tokens). Every set of the reported size
that fits is a candidate; when candidates disagree about the task in flight, nobody can tell.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from . import semantics as sem
from .semantics import tolerance

MAX_COMBINATIONS = 20_000
LOOSE_FACTOR = 2.0
LOOSE_SLACK = 50
T = TypeVar("T")


@dataclass
class Finding:
    """One part of a verdict: what an edit, a compaction or a carried block did, and the evidence."""

    verdict: str
    evidence: list[str] = field(default_factory=list)


def tight(estimate: int, reported: int, items: int) -> bool:
    """Returns whether an estimate matches a reported count within the analyzer's tolerance."""
    return abs(estimate - reported) <= tolerance(max(estimate, reported), items)


def loose(estimate: int, reported: int) -> bool:
    """Returns whether an estimate is within a factor of two (+-50 tokens) of a reported count."""
    return reported / LOOSE_FACTOR - LOOSE_SLACK <= estimate <= reported * LOOSE_FACTOR + LOOSE_SLACK


TIGHT_LABEL = "3% + 24 tokens an item"
LOOSE_LABEL = "a factor of 2, +-50 tokens"


CAPPED = f" (first {MAX_COMBINATIONS} sets only)"  # ends the tolerance label of a search that stopped short


def candidates(pool: Sequence[T], count: int, reported: int | None,
               weight: Callable[[Sequence[T]], int], unsized: Callable[[T], bool] = lambda item: False,
               ) -> tuple[list[tuple[T, ...]], str]:
    """Returns the ``count``-subsets of ``pool`` that fit ``reported`` tokens and the tolerance used.

    Tight fits when there are any, else loose ones; with ``reported`` None (sizes unknowable) every
    subset. A subset holding an item whose size is unknown (``unsized``) fits when the rest of it
    is not above the report (loosely): that item may be any size. Stops after ``MAX_COMBINATIONS``
    subsets (the label then ends with ``CAPPED``, and ``decide`` gives no verdict the sets it did
    not read could contradict).
    """
    if count < 0 or count > len(pool):
        return [], "none"
    tight_fits, loose_fits, every = [], [], []
    capped = any_unsized = False
    for index, subset in enumerate(itertools.combinations(pool, count)):
        if index >= MAX_COMBINATIONS:
            capped = True
            break
        every.append(subset)
        if reported is None:
            continue
        if any(map(unsized, subset)):
            any_unsized = True
            if weight([item for item in subset if not unsized(item)]) <= reported * LOOSE_FACTOR + LOOSE_SLACK:
                loose_fits.append(subset)
            continue
        estimate = weight(subset)
        if tight(estimate, reported, count):
            tight_fits.append(subset)
        elif loose(estimate, reported):
            loose_fits.append(subset)
    suffix = CAPPED if capped else ""
    if reported is None:
        return every, "any size (sizes unknown)" + suffix
    if tight_fits and not any_unsized:
        return tight_fits, TIGHT_LABEL + suffix
    label = LOOSE_LABEL + ("; a turn whose thinking has empty text any size" if any_unsized else "")
    return tight_fits + loose_fits, label + suffix


def decide(sets: Sequence[tuple[Any, ...]], documented: tuple[Any, ...] | None, touches: Callable[[Sequence[Any]], list[str]],
           label: Callable[[Sequence[Any]], str], what: str, tolerance_used: str, any_live: bool) -> Finding:
    """Returns the verdict over the candidate sets: reached when all touch the task in flight,
    settled when none does, cannot tell when they disagree; names the documented set when it fits.

    With no set fitting: settled when nothing of the task in flight could be cleared at all
    (``any_live`` False), else inconsistent (the report fits nothing the request holds). A search
    that stopped short (``CAPPED``) where the task in flight holds clearable items cannot tell.
    """
    if any_live and tolerance_used.endswith(CAPPED):  # (the sets not read may hold the task in flight, or not)
        return Finding("cannot-tell", [f"{what}: the sets of that size are too many to read them all "
                                       f"({tolerance_used}): which were cleared cannot be told"])
    if not sets:
        line = f"{what}: no set of that size fits the reported tokens ({tolerance_used})"
        if not any_live:
            return Finding("settled-only", [line, "nothing of the task in flight could have been cleared"])
        return Finding("inconsistent", [line])
    live = [touches(s) for s in sets]
    named = documented is not None and documented in sets
    lines = []
    if named and documented is not None:
        lines.append(f"{what}: the documented rule names {label(documented)} (fits within {tolerance_used})")
    elif documented is not None:
        lines.append(f"{what}: the documented rule names {label(documented)}, which does not fit the reported tokens")
    if all(live):
        lines.append(f"cleared items of the task in flight: {', '.join(sorted({x for xs in live for x in xs}))}")
        return Finding("reached-live-task", lines)
    if not any(live):
        if not named:
            lines.append(f"{len(sets)} set(s) fit within {tolerance_used}, none inside the task in flight")
        return Finding("settled-only", lines)
    inside = next(s for s, hit in zip(sets, live) if hit)
    outside = next(s for s, hit in zip(sets, live) if not hit)
    lines.append(f"{len(sets)} sets fit within {tolerance_used}; {label(outside)} lies outside the task in flight, "
                 f"{label(inside)} inside it: which were cleared cannot be told")
    return Finding("cannot-tell", lines)


def live_tools(messages: Sequence[Mapping[str, Any]], live_start: int) -> set[str]:
    """Returns the ids of the tool uses of the task in flight."""
    return {s.tool_use_id for s in sem.tool_steps(messages) if s.message >= live_start}


def live_turns(messages: Sequence[Mapping[str, Any]], live_start: int) -> set[int]:
    """Returns the numbers of the assistant turns with thinking that belong to the task in flight."""
    return {t.number for t in sem.assistant_turns(messages) if t.has_thinking and max(t.messages) >= live_start}


def _scrubbed(turn: sem.Turn, messages: Sequence[Mapping[str, Any]]) -> bool:
    from ..cassettes import PLACEHOLDER

    return any(b.get("type") == "thinking" and PLACEHOLDER.match(str(b.get("thinking", "")))
               for i in turn.messages for b in sem.content_blocks(messages[i]))


def _nothing_cleared(what: str, tokens: int) -> Finding:
    """Returns what an applied edit that reports no items says: no edit, or, alongside tokens
    cleared, a report that contradicts itself."""
    if tokens > 0:
        return Finding("inconsistent", [what, "the edit reports no items cleared alongside tokens cleared"])
    return Finding("no-edit", [what])


def clear_tool_uses(edit: Mapping[str, Any], cleared: int, tokens: int, messages: Sequence[Mapping[str, Any]],
                    live_start: int) -> Finding:
    """Returns what a ``clear_tool_uses_20250919`` report of ``cleared`` uses and ``tokens`` tokens cleared."""
    what = f"clear_tool_uses_20250919 cleared {cleared} tool result(s), {tokens} tokens"
    if cleared == 0:
        return _nothing_cleared(what, tokens)
    steps = [s for s in sem.tool_steps(messages) if s.result_message is not None]
    excluded = set(edit.get("exclude_tools") or [])
    keep = int((edit.get("keep") or {}).get("value", sem.DEFAULT_TOOL_KEEP))
    documented_pool = [s for s in steps if s.name not in excluded]
    problems = []
    if cleared > len(documented_pool) - keep:
        problems.append(f"keep {keep} of {len(documented_pool)} clearable tool results leaves at most "
                        f"{max(0, len(documented_pool) - keep)} to clear, the server reported {cleared}")
    live = live_tools(messages, live_start)

    def weight(subset: Sequence[sem.ToolStep]) -> int:
        inputs = set(sem.inputs_cleared_for(edit, subset))
        return sum(s.result_tokens + (s.input_tokens if s.tool_use_id in inputs else 0) for s in subset)

    def touches(subset: Sequence[sem.ToolStep]) -> list[str]:
        inputs = set(sem.inputs_cleared_for(edit, subset))
        return [f"result of {s.tool_use_id}" + (" and its input" if s.tool_use_id in inputs else "")
                for s in subset if s.tool_use_id in live]

    def label(subset: Sequence[sem.ToolStep]) -> str:
        return "[" + ", ".join(s.tool_use_id for s in subset) + "]"

    # What exclude_tools names is never cleared by the rule: a set holding such a result is a
    # candidate only where it reaches the task in flight (the server may not keep to the rule, and
    # that must not pass as settled) or where no other set fits (the report then does not add up).
    sets, used = candidates(documented_pool, cleared, tokens, weight)
    if len(documented_pool) < len(steps):
        every, used_every = candidates(steps, cleared, tokens, weight)
        if not sets and every:
            sets, used = every, used_every
            problems.append("only sets holding a result of a tool exclude_tools names fit the reported tokens")
        else:
            sets += [s for s in every if s not in sets and touches(s)]
    documented = tuple(documented_pool[:cleared]) if cleared <= len(documented_pool) else None
    found = decide(sets, documented, touches, label, what, used, any(s.tool_use_id in live for s in steps))
    if problems and found.verdict != "reached-live-task":
        return Finding("inconsistent", [*found.evidence, *problems])
    return Finding(found.verdict, [*found.evidence, *problems])


def clear_thinking(edit: Mapping[str, Any], cleared: int, tokens: int, messages: Sequence[Mapping[str, Any]],
                   live_start: int) -> Finding:
    """Returns what a ``clear_thinking_20251015`` report of ``cleared`` turns and ``tokens`` tokens cleared."""
    what = f"clear_thinking_20251015 cleared {cleared} thinking turn(s), {tokens} tokens"
    if cleared == 0:
        return _nothing_cleared(what, tokens)
    pool = [t for t in sem.assistant_turns(messages) if t.has_thinking]
    keep = sem.thinking_keep(edit)
    problems = []
    if keep is None:
        problems.append("keep is all, yet thinking was cleared")
    elif cleared > len(pool) - keep:
        problems.append(f"keep {keep} of {len(pool)} turns with thinking leaves at most {max(0, len(pool) - keep)} "
                        f"to clear, the server reported {cleared}")
    live = live_turns(messages, live_start)
    unknown = any(_scrubbed(t, messages) for t in pool)
    sets, used = candidates(pool, cleared, None if unknown else tokens, lambda s: sum(t.thinking_tokens for t in s),
                            lambda t: t.unsized)
    documented = tuple(pool[:cleared]) if cleared <= len(pool) else None
    found = decide(sets, documented, lambda s: [f"thinking of turn {t.number}" for t in s if t.number in live],
                   lambda s: "turns [" + ", ".join(str(t.number) for t in s) + "]", what, used,
                   any(t.number in live for t in pool))
    if unknown:
        found.evidence.append("the thinking text is scrubbed in this recording, so sizes cannot single out turns")
    if problems and found.verdict != "reached-live-task":
        return Finding("inconsistent", [*found.evidence, *problems])
    return Finding(found.verdict, [*found.evidence, *problems])


def folded(messages: Sequence[Mapping[str, Any]], start: int, live_start: int) -> list[str]:
    """Returns what of the task in flight lies in ``messages[start:]`` (what a summary from ``start`` folds)."""
    first = max(start, live_start)
    if first >= len(messages):
        return []
    span = messages[first:]
    parts = []
    if first == live_start and messages[live_start].get("role") == "user":
        parts.append(f"the request (message {live_start})")
    elif first > live_start:
        parts.append(f"messages {first}-{len(messages) - 1} of the task")
    steps = [s for s in sem.tool_steps(messages) if s.message >= first]
    if steps:
        parts.append(f"{len(steps)} tool use(s) " + ", ".join(s.tool_use_id for s in steps))
    results = [s for s in steps if s.result_message is not None]
    if results:
        parts.append(f"{len(results)} tool result(s)")
    turns = [t for t in sem.assistant_turns(messages) if t.has_thinking and min(t.messages) >= first]
    if turns:
        parts.append(f"thinking of {len(turns)} turn(s)")
    if not parts:
        parts.append(f"{len(span)} message(s) of the task")
    return parts
