"""The tracing instrumentations' rows of the egress matrix, run again here in this process: the
official OpenTelemetry GenAI and OpenLLMetry Anthropic instrumentations, each driven through the
SDK's mock transport into in-memory exporters, give the published verdicts, and the fixing setting
of each row that has one keeps the answer while the default leaks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conformance.egress.adapters import COMPONENTS
from conformance.egress.adapters.anthropic_replay import environment
from conformance.egress.matrix import TIME_LIMIT, leaked_kinds
from conformance.egress.run import run
from conformance.egress.surfaces import surface

DOCS = Path(__file__).resolve().parents[2] / "docs"
LIBRARIES = ("opentelemetry-instrumentation-genai-anthropic", "opentelemetry-instrumentation-anthropic", "langsmith")
ROWS = [c for c in COMPONENTS if c.library in LIBRARIES]


@pytest.mark.slow
@pytest.mark.parametrize("component", ROWS, ids=lambda c: c.name)
def test_an_instrumentation_row_run_in_process_matches_the_published_one(component, conversations) -> None:
    if not component.installed:
        pytest.skip(f"{component.library} is not installed")
    published = {row["component"]: row for row in json.loads((DOCS / "egress-matrix.json").read_text("utf-8"))["rows"]}
    row = published[component.name]
    mine = [c for c in conversations if c.format == component.format]
    report = run([component.callable], mine, surface(component.surface), in_process=True,
                 time_limit=TIME_LIMIT)  # the first import of an instrumentation can take seconds
    failing: dict[str, set[str]] = {}
    for r in report.results:
        if r.level == "MUST" and r.outcome in ("fail", "error"):
            failing.setdefault(r.invariant, set()).add(r.scenario)
    assert {cid: len(ids) for cid, ids in failing.items()} == row["failures"]
    assert leaked_kinds(report.results) == row["leaked"]


def test_each_instrumentation_has_a_leaking_default_and_a_row_that_loses_the_answer() -> None:
    published = json.loads((DOCS / "egress-matrix.json").read_text("utf-8"))["rows"]
    for library in LIBRARIES:
        rows = [row for row in published if row["library"] == library]
        assert any("egress.no-reasoning-text" in row["failures"] for row in rows), library
        assert any(set(row["failures"]) == {"egress.answer-kept"} for row in rows), library
    fixed = {row["component"]: row for row in published
             if row["component"].endswith((".span_only_rewrite", ".hide_reasoning"))}
    assert len(fixed) == 2 and all(row["failures"] == {} and row["conversations"] > 0 for row in fixed.values())


@pytest.mark.slow
def test_langsmith_keeps_thinking_on_a_text_reply_and_drops_it_on_a_tool_call(conversations) -> None:
    published = {row["component"]: row for row in json.loads((DOCS / "egress-matrix.json").read_text("utf-8"))["rows"]}
    assert published["langsmith.wrap_anthropic"]["failures"]["egress.no-reasoning-text"] == 3
    report = run(["conformance.egress.adapters.langsmith_anthropic:default"],
                 [c for c in conversations if c.id == "anthropic.in-flight.tool-call"], surface("trace"),
                 in_process=True, time_limit=TIME_LIMIT)
    assert report.results and all(r.outcome == "pass" for r in report.results if r.level == "MUST")


def test_environment_restores_what_it_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONFORMANCE_PROBE_A", "before")
    monkeypatch.delenv("CONFORMANCE_PROBE_B", raising=False)
    with environment(CONFORMANCE_PROBE_A="during", CONFORMANCE_PROBE_B="during"):
        assert os.environ["CONFORMANCE_PROBE_A"] == os.environ["CONFORMANCE_PROBE_B"] == "during"
    assert os.environ["CONFORMANCE_PROBE_A"] == "before" and "CONFORMANCE_PROBE_B" not in os.environ
