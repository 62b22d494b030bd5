"""Run a target that speaks another message format: convert in, call, convert back.

The runner and the invariants only ever see Anthropic-shaped histories. A scenario the format
cannot express is marked skipped for every invariant, with the format's named reason.
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..errors import UsageError
from ..invariants import CATALOG
from ..spec import Scenario
from ..target import Target
from . import FORMATS, get
from .base import Format, FormatError

History = list[dict[str, Any]]


class NotExpressible(Exception):
    """Raised instead of calling a target on a history its format cannot express."""


def skip_reason(fmt: Format, history: History) -> str | None:
    """Returns the skip message for a history ``fmt`` cannot express, or None when it can."""
    why = fmt.why_not(history)
    return None if why is None else f"not expressible as {fmt.title} ({fmt.name}): {why}"


_REASONING_KINDS = (("redacted_thinking",), ("thinking", "redacted_thinking"))


def without_blocks(history: History, kinds: tuple[str, ...]) -> History | None:
    """Returns ``history`` without its blocks of ``kinds``, or None when a message would be left empty.

    Removing blocks never adds or removes a message, so the declared truth still holds.
    """
    out = []
    for message in history:
        content = message.get("content")
        if isinstance(content, list) and any(isinstance(b, dict) and b.get("type") in kinds for b in content):
            kept = [b for b in content if not (isinstance(b, dict) and b.get("type") in kinds)]
            if not kept:
                return None
            message = {**message, "content": kept}
        out.append(message)
    return out


def adapted(scenario: Scenario, fmt: Format) -> Scenario | None:
    """Returns ``scenario`` as an agent speaking ``fmt`` would hold it: unchanged when the format
    expresses it, without the reasoning blocks the format has no place for when that is all that
    stands in the way (no expected reference output then), else None."""
    if fmt.why_not(scenario.history) is None:
        return scenario
    for kinds in _REASONING_KINDS:
        history = without_blocks(scenario.history, kinds)
        if history is not None and history != scenario.history and fmt.why_not(history) is None:
            expect = replace(scenario.expect, reference_output=None, reference_raises=None)
            return replace(scenario, history=history, expect=expect,
                           features=tuple(dict.fromkeys([*scenario.features, "reasoning-removed"])))
    return None


def mark(scenarios: Iterable[Scenario], fmt: Format) -> list[Scenario]:
    """Returns ``scenarios`` as ``fmt`` holds them (see ``adapted``), with every invariant skipped,
    with the reason, where ``fmt`` cannot express the history."""
    out = []
    for scenario in scenarios:
        held = adapted(scenario, fmt)
        if held is None:
            why = skip_reason(fmt, scenario.history) or ""
            held = replace(scenario, expect=replace(scenario.expect, skip={inv.id: why for inv in CATALOG}))
        out.append(held)
    return out


def wrap(target: Target, fmt: Format) -> Target:
    """Returns a ``Target`` that takes Anthropic-shaped histories and calls ``target`` in ``fmt``.

    A change the target makes to the messages it was given shows as a change to the history it was
    given; output that is not valid in the format raises ``FormatError``.
    """
    def call(history: History, **params: Any) -> History:
        why = skip_reason(fmt, history)
        if why is not None:
            raise NotExpressible(why)
        given = copy.deepcopy(history)
        items = fmt.to_format(history)
        before = copy.deepcopy(items)
        output = target.func(items, **params)
        if items != before:
            history[:] = fmt.back(items, given)
        try:
            return fmt.back(output, given)
        except FormatError as exc:
            raise FormatError(f"the output is not valid {fmt.title}: {exc}") from None

    call.__name__ = call.__qualname__ = f"{target.name}@{fmt.name}"
    return Target(f"{target.name}@{fmt.name}", call, target.accepts)


def skipped_note(scenarios: Iterable[Scenario], fmt: Format) -> str:
    """Returns one line per reason with how many scenarios ``fmt`` cannot express, after a count."""
    reasons: Counter[str] = Counter()
    total = stripped = 0
    for scenario in scenarios:
        total += 1
        why = fmt.why_not(scenario.history)
        if why is not None and adapted(scenario, fmt) is not None:
            stripped += 1
        elif why is not None:
            reasons[re.sub(r" \((message|block|content|item) \d+[^)]*\)", "", why)] += 1
    lines = [f"format {fmt.name}: {total - sum(reasons.values())} of {total} scenarios expressible as {fmt.title}"
             + (f" ({stripped} without the reasoning blocks it has no place for)" if stripped else "")
             + f"; {sum(reasons.values())} skipped"]
    lines += [f"  {n:>4} skipped: {why}" for why, n in reasons.most_common()]
    return "\n".join(lines)


def in_format(targets: Iterable[Target], scenarios: Iterable[Scenario],
              format_name: str | None) -> tuple[list[Target], list[Scenario], str]:
    """Returns the targets, the scenarios and a note of what is skipped, for a run in
    ``format_name`` (all unchanged, and no note, when it is None). Raises ``UsageError`` for an
    unknown format."""
    if format_name is None:
        return list(targets), list(scenarios), ""
    fmt = get(format_name)
    chosen = list(scenarios)
    if chosen and all(adapted(s, fmt) is None for s in chosen):
        raise UsageError(f"no selected scenario can be expressed as {fmt.title} ({fmt.name}); "
                         f"the first one: {fmt.why_not(chosen[0].history)}")
    return [wrap(t, fmt) for t in targets], mark(chosen, fmt), skipped_note(chosen, fmt)


FORMAT_HELP = "the message format the targets speak (default anthropic); one of: " + ", ".join(FORMATS)
