"""Run a target that speaks another message format: convert in, call, convert back.

The runner and the invariants only ever see Anthropic-shaped histories. A scenario the format
cannot express is marked skipped for every invariant, with the format's named reason.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from ..errors import UsageError
from ..engine.invariants import CATALOG
from ..engine.spec import Scenario
from ..engine.target import NotGiven, Target, originals, resolve
from ..engine.transcript import Snapshot, deep_copy
from . import FORMATS, get
from .base import Format, FormatError

History = list[dict[str, Any]]


class NotExpressible(NotGiven):
    """Raised instead of calling a target on a history its format cannot express."""


def skip_reason(fmt: Format, history: History) -> str | None:
    """Returns the skip message for a history ``fmt`` cannot express, or None when it can."""
    return _skip_message(fmt, fmt.why_not(history))


def _skip_message(fmt: Format, why: str | None) -> str | None:
    """Returns the skip message for ``why``, ``fmt``'s reason (None when there is none)."""
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


REMOVED_NOTE = "run with its reasoning blocks removed: the format has no place for them"


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
                           description=f"{scenario.description} ({REMOVED_NOTE})",
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


class FormatOutput(list[Any]):
    """A wrapped target's output: the list is the Anthropic-shaped view the checks read; ``native``
    holds the items the target returned in its own format, ``given`` the items it was handed."""

    def __init__(self, converted: History, fmt: Format, native: list[Any], given: list[Any]) -> None:
        super().__init__(converted)
        self.fmt, self.native, self.given = fmt, native, given
        self._counts: dict[int, int] = {}  # messages each prefix of ``native`` reads as, read once

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        """Returns a deep copy of the messages alone, as plain data copied in C: what a target is
        handed again (for the idempotence check) is the history, never the items behind it."""
        copied: list[Any] = deep_copy(list(self))
        return copied

    def returned_items(self, index: int) -> tuple[int, list[Any]] | None:
        """Returns the first index and the items of ``native`` that became output message ``index``,
        or None when they cannot be told (a message read from more than its own items)."""
        counts = self._counts

        def count(n: int) -> int:
            found = counts.get(n)
            if found is None:
                found = counts[n] = _count(self.fmt, self.native[:n])
            return found

        return _span_in(self.native, count, index)

    def given_items(self, history: History, index: int) -> tuple[int, list[Any]] | None:
        """Returns the first index and the items of ``given`` that input message ``index`` of
        ``history`` became, or None when the format does not write messages one by one."""
        try:
            start, upto = len(self.fmt.to_format(history[:index])), self.fmt.to_format(history[:index + 1])
        except (FormatError, KeyError, TypeError, ValueError, AttributeError, IndexError):
            return None  # a prefix the format cannot write alone (a result whose call comes later)
        end = len(upto)
        if start >= end or upto != self.given[:end]:
            return None
        return start, self.given[start:end]


def _count(fmt: Format, items: list[Any]) -> int:
    """Returns how many Anthropic messages ``items`` read as (-1 when they do not read)."""
    try:
        return len(fmt.from_format(items))
    except (FormatError, KeyError, TypeError, ValueError, AttributeError, IndexError):
        return -1


def _span_in(items: list[Any], count: Callable[[int], int], index: int) -> tuple[int, list[Any]] | None:
    """Returns where message ``index`` lies in ``items``, given ``count(n)``, the number of messages
    the first ``n`` items read as (non-decreasing; bisected, as outputs can be long); None when the
    counts do not place it."""

    def first_over(k: int) -> int:  # the smallest n with count(n) > k, or len(items) + 1
        low, high = 0, len(items) + 1
        while low < high:
            middle = (low + high) // 2
            if middle <= len(items) and count(middle) > k:
                high = middle
            else:
                low = middle + 1
        return low

    start = first_over(index) - 1  # the item that opens the message
    stop = min(first_over(index + 1) - 1, len(items))  # the item that opens the next one
    if not 0 <= start < stop or count(start) != index or count(stop) != index + 1:
        return None
    return start, items[start:stop]


class InFormat:
    """The call of a target wrapped in a message format. It pickles, so a wrapped target runs in a
    worker process as any other: a target named ``module:attr`` travels by its name and is resolved
    in the worker, any other one travels pickled."""

    def __init__(self, target: Target, fmt: Format) -> None:
        self._target: Target | str = target
        self.fmt = fmt
        self.__name__ = self.__qualname__ = f"{target.name}@{fmt.name}"

    def __getstate__(self) -> dict[str, Any]:
        target = self._target
        if isinstance(target, Target):
            try:
                target = target.name if resolve(target.name).func is target.func else target
            except Exception:  # noqa: BLE001 - not a module:attr name: it travels pickled
                pass
        return {"target": target, "format": self.fmt.name, "name": self.__name__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._target, self.fmt = state["target"], get(state["format"])
        self.__name__ = self.__qualname__ = state["name"]

    def __call__(self, history: History, **params: Any) -> History:
        """Returns the target's output in ``fmt`` converted back, as a ``FormatOutput``; raises
        ``NotExpressible`` for a history the format cannot carry, ``FormatError`` for invalid output."""
        if isinstance(self._target, str):
            self._target = resolve(self._target)
        fmt = self.fmt
        snapshot = Snapshot(list(history))  # the messages alone, as plain data (the history may be an output)
        given = snapshot.copy
        seen = fmt.see(given)  # read once, for the check and for both conversions back
        why = _skip_message(fmt, seen.why)
        if why is not None:
            raise NotExpressible(why)
        items = fmt.to_format(history)
        # what tells a change the target made in place: plain items copied, a library's objects
        # written again from the history (cheaper than copying them)
        before = deep_copy(items) if fmt.requires is None else fmt.to_format(history)
        output = self._target.func(items, **params)
        untouched = items == before
        if not untouched:
            history[:] = fmt.back(items, given, seen)
        try:
            converted = fmt.back(output, given, seen)
        except FormatError as exc:
            raise FormatError(f"the output is not valid {fmt.title}: {exc}") from None
        if untouched and snapshot.source_unchanged():  # a message back unchanged is the caller's own
            converted = originals(converted, given, history)
        return FormatOutput(converted, fmt, output, before)


def wrap(target: Target, fmt: Format) -> Target:
    """Returns a ``Target`` that takes Anthropic-shaped histories and calls ``target`` in ``fmt``.

    A change the target makes to the messages it was given shows as a change to the history it was
    given; output that is not valid in the format raises ``FormatError``.
    """
    return Target(f"{target.name}@{fmt.name}", InFormat(target, fmt), target.accepts)


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
    ran = total - sum(reasons.values())
    lines = [f"format {fmt.name}: {ran} of {total} scenarios run as {fmt.title}"
             + (f", {stripped} of them with their reasoning blocks removed (the format has no place for them)"
                if stripped else "")
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
