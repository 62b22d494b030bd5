"""The browser-stream and tracer rows of the egress matrix, run again here through worker
processes as the matrix runs them, give the published verdicts; each library's default leaks and
its fixing row keeps the answer."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from conformance.egress.adapters import select
from conformance.egress.matrix import changed_cells, component_row

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _published() -> dict:
    return json.loads((DOCS / "egress-matrix.json").read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("name", [
    "pydantic-ai-slim.AGUIAdapter.dispatch_request", "sse-starlette.EventSourceResponse.text_stream",
    "langgraph.astream_events", "langfuse.observe.anthropic.mask", "logfire.instrument_openai",
])  # the rest are checked by `conformance egress-matrix --check` in CI
def test_a_new_row_run_again_matches_the_published_one(conversations, name) -> None:
    matrix = _published()
    fresh = {"conversations": matrix["conversations"], "rows": [component_row(c, conversations) for c in select([name])]}
    assert fresh["rows"][0]["installed"], name
    assert changed_cells(matrix, fresh, named=True) == []


def test_the_browser_stream_rows_are_at_least_four_from_three_libraries_each_with_a_conforming_fix() -> None:
    rows = [r for r in _published()["rows"] if r["surface"] == "browser-stream" and r["library"] != "langchain-core"]
    libraries = Counter(r["library"] for r in rows)
    assert len(rows) >= 4 and len(libraries) >= 3
    assert all(r["conversations"] > 0 for r in rows)
    for library in libraries:
        mine = [r for r in rows if r["library"] == library]
        assert any("egress.no-reasoning-text" in r["failures"] for r in mine), library


def test_the_new_streams_and_tracers_leak_by_default_and_their_hooks_keep_the_answer() -> None:
    rows = {r["component"]: r for r in _published()["rows"]}
    for default, fixed in [("pydantic-ai-slim.AGUIAdapter.dispatch_request",
                            "pydantic-ai-slim.AGUIAdapter.dispatch_request.drop_thinking"),
                           ("pydantic-ai-slim.VercelAIAdapter.dispatch_request",
                            "pydantic-ai-slim.VercelAIAdapter.dispatch_request.drop_thinking"),
                           ("langfuse.openai.OpenAI", "langfuse.openai.OpenAI.mask"),
                           ("mlflow-tracing.openai.autolog", "mlflow-tracing.openai.autolog.span_processor")]:
        assert "egress.no-reasoning-text" in rows[default]["failures"], default
        assert rows[fixed]["failures"] == {} and rows[fixed]["conversations"] > 0, fixed
    # a tracer wrapped around an Anthropic call asked with stream=True records the Stream object, not
    # the reply read from it: its hook keeps nothing to leak, and the streamed answer is lost too
    for default, fixed in [("langfuse.observe.anthropic", "langfuse.observe.anthropic.mask"),
                           ("mlflow-tracing.anthropic.autolog", "mlflow-tracing.anthropic.autolog.span_processor")]:
        assert "egress.no-reasoning-text" in rows[default]["failures"], default
        assert rows[fixed]["failures"] == {"egress.answer-kept": 1}, fixed
        assert rows[fixed]["smallest"] == {"egress.answer-kept": "anthropic.settled.streamed"}, fixed
    assert "egress.no-reasoning-text" in rows["logfire.instrument_anthropic"]["failures"]
    openai_side = {r["library"] for r in rows.values() if r["surface"] == "trace" and r["format"] == "openai-responses"}
    assert len(openai_side) >= 4
