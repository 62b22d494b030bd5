"""Compactors a vendor might plausibly ship, each damaging the task in flight in one tidy-looking way,
fail a MUST on the scenarios that put real content inside a task in flight; the correct compactors
that trim or rewrite only settled history pass every MUST."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest

from conformance import RunOptions, Scenario, check_scenario, from_callable, run
from conformance.engine.results import CheckResult

from .conftest import shipped_specs
from .zoo import adversarial, correct

LIVE_FAMILIES = ("live-content", "live-media", "live-turns")
OPTIONS = RunOptions(time_limit=2.0, idempotence=False, in_process=True)


@cache
def _live_scenarios() -> tuple[Scenario, ...]:
    return tuple(s for s in shipped_specs().scenarios if s.family in LIVE_FAMILIES)


@cache
def _results(module: str, name: str) -> tuple[CheckResult, ...]:
    """Returns the results on the live-* scenarios: all of them for a correct compactor; for an
    adversary, up to the first scenario where the MUST it targets fails it."""
    scenarios = list(_live_scenarios())
    target = from_callable(getattr(adversarial if module == "adversarial" else correct, name), name)
    if module != "adversarial":  # correct for models without the prefix check, unless they survive it
        options = OPTIONS if name in correct.SURVIVE_PREFIX_CHECK else replace(OPTIONS, prefix_check=False)
        return tuple(run([target], scenarios, options=options).results)
    results: list[CheckResult] = []
    for scenario in scenarios:
        results.extend(check_scenario(target, scenario, OPTIONS))
        if any(r.invariant == adversarial.CAUGHT_BY[name] and r.outcome == "fail" for r in results):
            break
    return tuple(results)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(adversarial.CAUGHT_BY))
def test_adversary_fails_its_must(name: str) -> None:
    invariant = adversarial.CAUGHT_BY[name]
    caught = [r for r in _results("adversarial", name) if r.invariant == invariant and r.outcome == "fail"]
    assert caught, f"{name} passed {invariant} on every live-* scenario"
    assert all(r.level == "MUST" for r in caught)


@pytest.mark.parametrize("name", ["last_settled_task", "settled_media_dropped", "budget_chars_3"])
def test_correct_compactor_passes_every_must_on_live_content(name: str) -> None:
    results = _results("correct", name)
    assert results
    bad = [f"{r.scenario} {r.invariant}: {r.message}" for r in results
           if r.level == "MUST" and r.outcome not in ("pass", "skip")]
    assert not bad, "\n".join(bad[:10])


def test_the_correct_rewrites_change_settled_history() -> None:
    scenarios = _live_scenarios()
    for name in ("last_settled_task", "settled_media_dropped"):
        func = getattr(correct, name)
        changed = [s for s in scenarios if func(s.history) != s.history]
        assert len(changed) > len(scenarios) // 2, name
