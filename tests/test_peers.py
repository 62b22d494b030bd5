"""A real peer under test: langchain-core's trim_messages, through the adapter in examples/peers."""

from __future__ import annotations

import os

import pytest

from conformance import LoadResult, RunOptions, from_callable, run

if not os.environ.get("CI"):  # CI installs the peers extra, so there the test must run
    pytest.importorskip("langchain_core")
from examples.peers import langchain_trim  # noqa: E402

OPTIONS = RunOptions(reference_targets=frozenset())


def test_the_adapter_round_trips_every_shipped_history(shipped: LoadResult) -> None:
    for scenario in shipped.scenarios:
        back = langchain_trim.from_langchain(langchain_trim.to_langchain(scenario.history), scenario.history)
        assert back == scenario.history, scenario.id
        assert all(a is b for a, b in zip(back, scenario.history, strict=True))


def test_trim_messages_reproduces_the_reported_failures(shipped: LoadResult) -> None:
    report = run([from_callable(langchain_trim.trim_last, "trim_last")], shipped.scenarios, options=OPTIONS)
    failed = {(r.scenario, r.invariant) for r in report.results if r.outcome == "fail"}
    # F01: a last-N cut keeps tool results whose calls it dropped
    assert ("real-failures.f01-last-n-cut-leaves-leading-results", "tools.results-answer-previous") in failed
    # the essay's arithmetic: a 6-step task against a window of 10 loses its earliest turns
    assert ("arithmetic.inflight-6-steps-window-10", "live.untouched-suffix") in failed
    assert report.exit_code == 1


def test_start_on_human_still_cuts_a_long_task_in_flight(shipped: LoadResult) -> None:
    report = run([from_callable(langchain_trim.trim_last_from_human, "from_human")], shipped.scenarios,
                 options=OPTIONS)
    failed = {(r.scenario, r.invariant) for r in report.results if r.outcome == "fail"}
    assert ("arithmetic.inflight-50-steps-window-20", "live.untouched-suffix") in failed
