"""Self-checks of the shipped scenarios: they load, their truth is consistent, their coverage holds."""

from __future__ import annotations

import re

import pytest

from conformance import LoadResult, find_live_start
from conformance.engine.transcript import unanswered_tool_uses

REQUIRED_FEATURES = {"thinking", "redacted-thinking", "parallel", "unknown-block", "cache-control", "citations",
                     "compaction", "server-tool", "pause-turn", "progress-note", "interleaved", "reordered",
                     "budget", "empty"}


def test_every_shipped_spec_loads_cleanly(shipped: LoadResult) -> None:
    assert not shipped.errors, "\n".join(map(str, shipped.errors))
    assert len(shipped.scenarios) >= 80


@pytest.mark.slow
def test_declared_truth_agrees_with_the_harness_analysis_or_says_why(shipped: LoadResult) -> None:
    from conformance.engine._yamlsource import load_document
    notes: dict[str, str] = {}
    for path in {s.path for s in shipped.scenarios}:
        data, _ = load_document(path)
        notes.update({raw["id"]: raw["truth"].get("note", "") for raw in data["scenarios"]})
    disagree = [s.id for s in shipped.scenarios
                if find_live_start(s.history) != s.truth.live_start and not notes.get(s.id)]
    assert not disagree


def test_declared_unanswered_ids_are_the_calls_no_later_message_answers(shipped: LoadResult) -> None:
    def never_answered(history: list) -> set[str]:
        waiting = set(unanswered_tool_uses(history))
        answered = {b.get("tool_use_id") for m in history if isinstance(m["content"], list) for b in m["content"]}
        return waiting - answered

    wrong = [s.id for s in shipped.scenarios if set(s.truth.unanswered) != never_answered(s.history)]
    assert not wrong


def test_every_scenario_states_what_the_reference_must_do(shipped: LoadResult) -> None:
    missing = [s.id for s in shipped.scenarios
               if s.expect.reference_output is None and s.expect.reference_raises is None]
    assert not missing


def test_descriptions_are_one_short_line_without_should(shipped: LoadResult) -> None:
    bad = [s.id for s in shipped.scenarios if len(s.description) > 120 or re.search(r"\bshould\b", s.description, re.I)]
    assert not bad


def test_coverage_of_the_feature_tags(shipped: LoadResult) -> None:
    present = {f for s in shipped.scenarios for f in s.features}
    assert REQUIRED_FEATURES <= present, REQUIRED_FEATURES - present


def test_real_failures_cite_their_source(shipped: LoadResult) -> None:
    cited = {s.source["ref"] for s in shipped.scenarios if s.source}
    assert len({ref for ref in cited if re.fullmatch(r"F\d\d", ref)}) >= 12
    assert all(s.source.get("url", "").startswith("https://") for s in shipped.scenarios if s.source)


def test_the_arithmetic_spans_the_essays_range(shipped: LoadResult) -> None:
    arithmetic = [s for s in shipped.scenarios if s.family == "arithmetic"]
    steps = {len(unanswered_tool_uses(s.history)) + sum(1 for m in s.live_span if m["role"] == "assistant")
             for s in arithmetic}
    windows = {s.params.get("keep_turns") for s in arithmetic}
    assert max(steps) >= 50 and min(steps) <= 1
    assert {4, 20} <= windows


def test_every_shipped_family_is_a_file_of_the_table_in_specs_readme(shipped: LoadResult) -> None:
    from .conftest import SPECS

    table = (SPECS / "README.md").read_text(encoding="utf-8").split("| file | family |", 1)[1].split("\n\n", 1)[0]
    for scenario in shipped.scenarios:
        assert f"| `{scenario.family}.yaml` | `{scenario.family}` |" in table, scenario.id
        assert scenario.path.endswith(f"{scenario.family}.yaml"), scenario.id


def test_a_compactor_built_on_find_live_start_is_told_that_refusing_would_pass(shipped: LoadResult) -> None:
    """The exported rule reads the boundary from the history alone; where the order hides it, the
    scenario's truth differs and allows a refusal, and each failure there says so."""
    from conformance import RunOptions, check_scenario, from_callable
    from conformance.engine.runner import REFUSAL_WOULD_PASS

    scenario = next(s for s in shipped.scenarios if s.id == "limits.interleaved-late-result")
    assert scenario.expect.refusal_allowed and find_live_start(scenario.history) != scenario.truth.live_start
    results = check_scenario(from_callable(lambda h: h[find_live_start(h):], "built_on_find_live_start"), scenario,
                             RunOptions(in_process=True))
    failed = [r for r in results if r.level == "MUST" and r.outcome == "fail"]
    assert failed and all(REFUSAL_WOULD_PASS in r.details.get("diff", []) for r in failed)
