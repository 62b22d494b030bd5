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
        assert any(set(row["failures"]) - {"egress.call-completes"} == {"egress.answer-kept"} for row in rows), library
    fixed = {row["component"]: row for row in published
             if row["component"].endswith((".span_only_rewrite", ".hide_reasoning"))}
    assert len(fixed) == 2 and all(row["conversations"] > 0 for row in fixed.values())
    assert fixed["opentelemetry-instrumentation-genai-anthropic.span_only_rewrite"]["failures"] == {}
    # langsmith's reduction of a streamed Anthropic reply raises (it calls the SDK's accumulate_event
    # without the json_bufs argument the SDK now requires): the streamed conversation fails to complete
    streamed = fixed["langsmith.wrap_anthropic.hide_reasoning"]
    assert streamed["failures"] == {"egress.call-completes": 1}
    assert streamed["smallest"] == {"egress.call-completes": "anthropic.settled.streamed"}


@pytest.mark.slow
def test_langsmith_keeps_thinking_on_a_text_reply_and_drops_it_on_a_tool_call(conversations) -> None:
    published = {row["component"]: row for row in json.loads((DOCS / "egress-matrix.json").read_text("utf-8"))["rows"]}
    assert published["langsmith.wrap_anthropic"]["failures"]["egress.no-reasoning-text"] == 2
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


def test_a_streamed_reply_is_asked_for_as_a_stream_and_read_to_its_end(conversations) -> None:
    from conformance.egress.adapters import anthropic_replay, openai_replay
    from conformance.egress.run import given_messages

    def spied(asked: list, read: list):
        def wrap(client):
            create = client.messages.create if hasattr(client, "messages") else client.responses.create

            def recorded(**kwargs):
                asked.append(kwargs.get("stream", False))
                answer = create(**kwargs)
                if kwargs.get("stream"):
                    return iter(read.append(event) or event for event in answer)
                return answer

            import types
            return types.SimpleNamespace(messages=types.SimpleNamespace(create=recorded),
                                         responses=types.SimpleNamespace(create=recorded))
        return wrap

    by_id = {c.id: c for c in conversations}
    for cid, replay, last in (("anthropic.settled.streamed", anthropic_replay.replay, "message_stop"),
                              ("openai-responses.settled.streamed", openai_replay.replay, "response.completed")):
        asked: list = []
        read: list = []
        replay(given_messages(by_id[cid]), wrap=spied(asked, read), streamed=True)
        assert asked[-1] is True and not any(asked[:-1]), cid
        assert read[-1].type == last, cid  # read to its end
        if last == "response.completed":  # the end carries the whole turn, as the API's does
            assert [item.type for item in read[-1].response.output] == ["reasoning", "message"]
        asked.clear()
        replay(given_messages(by_id[cid]), wrap=spied(asked, read), streamed=False)
        assert not any(asked), cid
