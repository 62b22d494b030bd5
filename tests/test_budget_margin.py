"""The budget rule of the scenario files: a budget leaves the task in flight clear margin, or the
scenario allows a refusal, so a correct compactor counting tokens its own way is never failed."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable

from conformance import LoadResult
from conformance.engine.spec import Scenario


def live_characters(scenario: Scenario) -> int:
    """Returns the characters of the task in flight as compact JSON, message by message."""
    return sum(len(json.dumps(m, ensure_ascii=False, separators=(",", ":"))) for m in scenario.live_span)


def too_tight(scenarios: Iterable[Scenario]) -> list[str]:
    """Returns the ids of scenarios whose budget is under half the task in flight's characters (two
    characters a token) and that do not allow a refusal."""
    return [s.id for s in scenarios
            if isinstance(s.params.get("budget_tokens"), int) and not s.expect.refusal_allowed
            and 2 * s.params["budget_tokens"] < live_characters(s)]


def test_every_budget_leaves_margin_or_allows_refusal(shipped: LoadResult) -> None:
    budgeted = [s for s in shipped.scenarios if "budget_tokens" in s.params]
    assert len(budgeted) >= 5
    assert too_tight(shipped.scenarios) == []


def test_a_tight_budget_without_refusal_is_found(shipped: LoadResult) -> None:
    tight = next(s for s in shipped.scenarios if s.id == "limits.never-settles-50-steps-budget-fits-it")
    assert tight.expect.refusal_allowed
    strict = dataclasses.replace(tight, expect=dataclasses.replace(tight.expect, refusal_allowed=False))
    assert too_tight([strict]) == [tight.id]
    roomy = dataclasses.replace(strict, params={**strict.params, "budget_tokens": (live_characters(strict) + 1) // 2})
    assert too_tight([roomy]) == []
