"""Generated histories: truth from the harness's own analysis, the same verdicts as hand-written cases."""

from __future__ import annotations

from conformance import RunOptions, from_callable, run
from conformance.generate import generated_scenarios

from .zoo import broken, correct

SCENARIOS = generated_scenarios(150, seed=7)
OPTIONS = RunOptions(time_limit=2.0, reference_targets=frozenset())


def must_failures(func: object) -> set[str]:
    report = run([from_callable(func)], SCENARIOS, options=OPTIONS)  # type: ignore[arg-type]
    return {r.invariant for r in report.results if r.level == "MUST" and r.outcome in ("fail", "error")}


def test_generation_is_deterministic_and_varied() -> None:
    again = generated_scenarios(150, seed=7)
    assert [s.history for s in again] == [s.history for s in SCENARIOS]
    starts = {s.truth.live_start == len(s.history) for s in SCENARIOS}
    assert starts == {True, False}  # some end settled, some have a task in flight
    assert any(s.truth.unanswered for s in SCENARIOS)


def test_reference_and_correct_compactors_pass_every_must_on_generated_cases() -> None:
    import reference
    for func in (reference.compact, correct.noop, correct.live_only, correct.summarizer):
        assert must_failures(func) == set(), func


def test_broken_compactors_are_caught_on_generated_cases() -> None:
    assert "live.untouched-suffix" in must_failures(broken.essay_whitelist)
    assert "reasoning.live-preserved" in must_failures(broken.strip_all_thinking)
    assert "tools.results-answer-previous" in must_failures(broken.orphan_results)
