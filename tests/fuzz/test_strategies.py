"""Generated histories: truth placed by construction, valid scenario files, every shape covered."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from conformance import Scenario, histories, load_file
from conformance.engine import spec_writer, transcript
from conformance.engine._blocks import LATER_SERVER_KINDS

ROOT = Path(__file__).resolve().parents[2]
FAST = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))


def _readme_tags() -> set[str]:
    text = (ROOT / "specs" / "README.md").read_text(encoding="utf-8").split("## Feature tags", 1)[1]
    return set(re.findall(r"^\| `([a-z0-9_-]+)` \|", text, re.M))


def _sample(count: int, **kwargs: Any) -> list[Scenario]:
    drawn: list[Scenario] = []

    @settings(FAST, max_examples=count)
    @given(histories(**kwargs))
    def collect(scenario: Scenario) -> None:
        drawn.append(scenario)

    collect()
    return drawn


@pytest.fixture(scope="module")
def sample() -> list[Scenario]:
    """Returns a few hundred generated scenarios, undecidable shapes included."""
    return _sample(400, undecidable=True)


@pytest.mark.slow
@FAST
@given(histories(undecidable=True))
def test_written_scenario_loads_back_equal_with_no_spec_error(scenario: Scenario) -> None:
    text = spec_writer.dumps([scenario])
    loaded = load_file("generated.yaml", text)
    assert not loaded.errors, [str(e) for e in loaded.errors]
    (back,) = loaded.scenarios
    assert (back.history, back.truth, back.params, back.expect) == \
        (scenario.history, scenario.truth, scenario.params, scenario.expect)


@pytest.mark.slow
@FAST
@given(histories())
def test_decidable_truth_agrees_with_an_independent_reading(scenario: Scenario) -> None:
    """The harness's own boundary analysis is never the truth; here it is a second opinion that
    must agree (a prefill reads as an answer, and the definition makes it one: nothing in flight)."""
    if "prefill" in scenario.features:
        assert scenario.truth.live_start == len(scenario.history)
    assert transcript.find_live_start(scenario.history) == scenario.truth.live_start
    answered = {r for m in scenario.history for r in transcript.tool_result_ids(m)}  # a notice may come between
    assert list(scenario.truth.unanswered) == [u for u in transcript.unanswered_tool_uses(scenario.history)
                                               if u not in answered]


@pytest.mark.slow
def test_undecidable_shapes_always_allow_a_refusal(sample: list[Scenario]) -> None:
    undecidable = [s for s in sample if {"interleaved", "reordered"} & set(s.features)]
    assert undecidable
    assert all(s.expect.refusal_allowed for s in undecidable)
    assert not any({"interleaved", "reordered"} & set(s.features) for s in _sample(100))


@pytest.mark.slow
def test_features_are_tags_of_the_scenario_format(sample: list[Scenario]) -> None:
    used = {tag for s in sample for tag in s.features}
    assert used <= _readme_tags(), used - _readme_tags()


def _blocks(scenario: Scenario) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if "type" in value:
                out.append(value)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(scenario.history)
    return out


@pytest.mark.slow
def test_every_shape_of_the_grammar_is_drawn(sample: list[Scenario]) -> None:
    features = Counter(tag for s in sample for tag in s.features)
    for tag in ("inflight", "tool-use", "parallel", "thinking", "redacted-thinking", "unknown-block", "unknown-field",
                "cache-control", "citations", "compaction", "server-tool", "pause-turn", "progress-note",
                "interleaved", "reordered", "prefill", "system-message", "budget", "empty"):
        assert features[tag], tag
    blocks = [b for s in sample for b in _blocks(s)]
    types = Counter(b["type"] for b in blocks)
    for kind in ("image", "document", "search_result", "mcp_tool_use", "mcp_tool_result", "web_search_tool_result",
                 "code_execution_tool_result", "web_fetch_tool_result", "hologram_20270101", "fallback"):
        assert types[kind], kind
    results = [b for b in blocks if b["type"] == "tool_result"]
    assert any(b.get("is_error") is True for b in results)
    assert any(isinstance(b.get("content"), list) for b in results)
    assert any(isinstance(b.get("content"), str) and 2048 <= len(b["content"]) <= 41000 for b in results)
    assert any(not s.isascii() for s in (json.dumps(x.history, ensure_ascii=False) for x in sample))
    assert any("keep_turns" in s.params for s in sample) and any("keep_turns" not in s.params for s in sample)
    assert any(s.expect.refusal_allowed and "budget" in s.features for s in sample)
    assert any(len(s.history) >= 20 for s in sample)


@pytest.mark.slow
def test_the_blind_spot_arms_are_drawn(sample: list[Scenario]) -> None:
    features = Counter(tag for s in sample for tag in s.features)
    for tag in ("background-notice", "compaction-tool", "large-text"):
        assert features[tag], tag
    blocks = [b for s in sample for b in _blocks(s)]
    results = {b["type"] for b in blocks if "tool_use_id" in b and b["type"] != "tool_result"}
    named = {"web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result", "mcp_tool_result"}
    assert {"tool_search_tool_result", "bash_code_execution_tool_result"} <= results
    assert len(results - named - {k.result_type for k in LATER_SERVER_KINDS}) >= 3  # made-up kinds
    assert any(b["type"].endswith("_tool_use") and b["type"] not in ("server_tool_use", "mcp_tool_use") for b in blocks)
    compactions = [b for b in blocks if b["type"] == "compaction"]
    assert any("id" in b for b in compactions) and any("id" not in b for b in compactions)
    assert any("encrypted_content" in b for b in compactions) and any(b["content"] is None for b in compactions)
    assert any(b["type"] == "text" and len(b["text"]) >= 2048 for b in blocks)
    assert any(m["content"][-1]["name"] == "context_compact" for s in sample if s.truth.unanswered
               for m in s.history[-1:] if isinstance(m["content"], list))


def _misplaced_notice(history: list[dict[str, Any]]) -> bool:
    """Returns whether a user message with no tool result stands between a call and its result."""
    for i in range(1, len(history) - 1):
        calls = set(transcript.tool_use_ids(history[i - 1]))
        if calls and transcript.opens_new_request(history[i]) and \
                any(calls & set(transcript.tool_result_ids(m)) for m in history[i + 1:]):
            return True
    return False


def test_a_notice_inside_a_step_is_drawn_and_allows_a_refusal(sample: list[Scenario]) -> None:
    misplaced = [s for s in sample if _misplaced_notice(s.history)]
    assert misplaced
    assert all(s.expect.refusal_allowed for s in misplaced)


def test_ids_name_the_content_and_truth_stays_in_range(sample: list[Scenario]) -> None:
    assert len({s.id for s in sample}) == len({json.dumps([s.history, s.params], sort_keys=True) for s in sample})
    for scenario in sample:
        assert 0 <= scenario.truth.live_start <= len(scenario.history)
        assert re.fullmatch(r"generated\.h[0-9a-f]{12}", scenario.id)
        assert len(scenario.description) <= 120


def test_the_settled_split_and_moved_notice_arms_are_drawn(sample: list[Scenario]) -> None:
    """A settled paused turn continued (and sometimes paused again), the window's edge on that
    continuation, and a settled notice beside a request before a task in flight that ends on a result."""
    def continuation(s: Scenario, i: int) -> bool:
        if not 0 < i < s.truth.live_start:
            return False
        before, here = s.history[i - 1], s.history[i]
        return (before["role"] == here["role"] == "assistant"
                and bool(transcript.server_tool_use_ids(before)))

    edges = [s for s in sample if "keep_turns" in s.params
             and continuation(s, s.truth.live_start - s.params["keep_turns"])]
    assert edges
    def paused_again(message: dict[str, Any]) -> bool:  # a server use left open in the continuation
        answered = {b.get("tool_use_id") for b in message["content"]} if isinstance(message["content"], list) else set()
        return bool(set(transcript.server_tool_use_ids(message)) - answered)

    twice = [s for s in sample if any(continuation(s, i) and paused_again(s.history[i])
                                      for i in range(1, len(s.history)))]
    assert twice
    moved = [s for s in sample if any(transcript.opens_new_request(s.history[i]) and transcript.opens_new_request(
        s.history[i - 1]) for i in range(1, s.truth.live_start))
        and s.history and transcript.tool_result_ids(s.history[-1]) and s.truth.live_start < len(s.history)]
    assert moved


@pytest.mark.slow
def test_the_agent_shape_arms_are_drawn() -> None:
    """Notices as real agents write them (a ``<system-reminder>`` block after a request's text or
    after tool results, a reminder turn, a plain-text notice turn) in settled history and in flight,
    and programmatic runs: calls whose ``caller`` names the code's server tool use before them (a
    sample of its own, large enough for the rarest of them: a reminder after results in flight)."""
    sample = _sample(800, undecidable=True)
    def reminder(block: Any) -> bool:
        return isinstance(block, dict) and block.get("type") == "text" and block["text"].startswith("<system-reminder>")

    places: Counter[str] = Counter()
    for s in sample:
        for i, m in enumerate(s.history):
            content = m["content"] if isinstance(m["content"], list) else []
            where = "settled" if i < s.truth.live_start else "in flight"
            if content and reminder(content[-1]) and len(content) > 1:
                kind = "after results" if transcript.tool_result_ids(m) else "after a request"
                places[f"{kind}, {where}"] += 1
            elif content and all(reminder(b) for b in content):
                places[f"reminder turn, {where}"] += 1
            elif isinstance(m["content"], str) and m["content"].startswith("Background command"):
                places[f"plain notice, {where}"] += 1
    for kind in ("after results", "after a request", "reminder turn", "plain notice"):
        assert places[f"{kind}, settled"], (kind, places)
    for kind in ("after results", "reminder turn", "plain notice"):
        assert places[f"{kind}, in flight"], (kind, places)
    runs = 0
    for s in sample:
        seen: set[str] = set()
        for i, m in enumerate(s.history):
            seen.update(transcript.server_tool_use_ids(m))
            callers = [b["caller"]["tool_id"] for b in transcript.blocks(m)
                       if b.get("type") == "tool_use" and isinstance(b.get("caller"), dict) and "tool_id" in b["caller"]]
            assert set(callers) <= seen, s.id
            runs += bool(callers) and i < s.truth.live_start
    assert runs >= 3 and "programmatic-call" in {t for s in sample for t in s.features}


BLIND_SPOT_COMPACTORS = ("fixed_server_registry", "window_splits_paused_pairs", "reserialise_compaction",
                         "rewrite_compaction_summary", "reencode_search_results", "compact_tool_summary_only",
                         "prune_large_text", "notice_into_step", "window_opens_on_notice",
                         "keep_request_and_answer", "notice_to_newest", "agent_notice_to_newest",
                         "prune_settled_code_runs")


@pytest.mark.slow
@pytest.mark.parametrize("name", BLIND_SPOT_COMPACTORS)
def test_fuzzing_alone_catches_each_blind_spot_compactor_by_its_invariant(name: str) -> None:
    """A bounded, fixed-seed run of decidable histories finds each broken compactor of the blind
    spots, and the failed checks include the one ``CAUGHT_BY`` names (truth by construction)."""
    from conformance import CATALOG, FuzzOptions, from_callable, run_fuzz

    from ..zoo import broken

    # only the checks that should catch it, as benchmarks/kill_rate.py counts: the search goes on past
    # any other failure (the loop's checks, or a trailing thinking block, catch several of them first).
    # Called in this process, as test_fuzz's kill rate calls them: what the fuzzer finds does not
    # depend on where the target runs (worker processes are tested in test_fuzz and test_worker)
    own = tuple(inv.id for inv in CATALOG if inv.id in broken.CAUGHT_BY[name])
    options = FuzzOptions(examples=500, seed=2, database=None, time_limit=2.0, shrink=False, undecidable=False,
                          invariants=own, in_process=True)
    result = run_fuzz(from_callable(getattr(broken, name), name), options)
    assert not result.passed, f"{name} survived {result.examples} generated histories"
    caught = {r.invariant for r in result.failures}
    assert caught & set(broken.CAUGHT_BY[name]), (name, caught)
