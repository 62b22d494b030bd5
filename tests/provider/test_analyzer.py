"""Analyzer checks on hand-built answers: each way a count can fail to add up is reported."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from anthropic.types.beta import BetaMessage

from conformance.provider.anthropic.analyzer import ApiFailure, analyze, compare
from conformance.provider.anthropic.probes import Probe


def message(content: list[dict[str, Any]] | None = None, edits: list[dict[str, Any]] | None = None,
            iterations: list[str] | None = None, stop: str = "end_turn") -> BetaMessage:
    usage: dict[str, Any] = {"input_tokens": 10, "output_tokens": 1}
    if iterations is not None:
        usage["iterations"] = [{"type": t, "input_tokens": 1, "output_tokens": 1, "cache_creation_input_tokens": 0,
                                "cache_read_input_tokens": 0} for t in iterations]
    raw: dict[str, Any] = {"id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                           "content": content or [{"type": "text", "text": "ok"}], "stop_reason": stop,
                           "stop_sequence": None, "usage": usage}
    if edits is not None:
        raw["context_management"] = {"applied_edits": edits}
    return BetaMessage.model_validate(raw)


TOOLS = "clear_tool_uses_20250919"
THINK = "clear_thinking_20251015"
COMPACTION = [{"type": "compaction", "content": "summary"}]


def test_documented_answer_is_settled_only(probes: dict[str, Probe]) -> None:
    probe = probes["clear-tool-uses.keep-equals-live-task"]
    found = analyze(probe, message(edits=[{"type": TOOLS, "cleared_tool_uses": 2, "cleared_input_tokens": 770}]))
    assert found.verdict == "settled-only" and found.cleared_tool_use_ids == ["toolu_a1", "toolu_a2"]
    assert compare(probe, found) == []


@pytest.mark.parametrize(("probe_id", "answer", "needle"), [
    ("clear-tool-uses.keep-equals-live-task",
     message(edits=[{"type": TOOLS, "cleared_tool_uses": 2, "cleared_input_tokens": 333}]), "add up"),
    ("clear-tool-uses.keep-equals-live-task",
     message(edits=[{"type": TOOLS, "cleared_tool_uses": 1, "cleared_input_tokens": 510}]), "documented rules clear"),
    ("clear-tool-uses.keep-equals-live-task",
     message(edits=[{"type": TOOLS, "cleared_tool_uses": 9, "cleared_input_tokens": 510}]), "add up"),
    ("clear-tool-uses.keep-equals-live-task",
     message(edits=[{"type": THINK, "cleared_thinking_turns": 1, "cleared_input_tokens": 5}]), "no such edit"),
    ("clear-thinking.keep-one-turn",
     message(edits=[{"type": TOOLS, "cleared_tool_uses": 1, "cleared_input_tokens": 600}]), "no such edit"),
    ("clear-thinking.keep-one-turn",
     message(edits=[{"type": THINK, "cleared_thinking_turns": 1, "cleared_input_tokens": 6}]), "documented rules clear"),
    ("clear-tool-uses.trigger-tool-uses-not-reached", message(COMPACTION), "no compaction was requested"),
    ("compaction.after-settled-answer", message(COMPACTION, iterations=["message"], stop="compaction"),
     "without a compaction entry"),
    ("compact.below-trigger", message(iterations=["compaction", "message"]), "no compaction block"),
    ("compaction.after-settled-answer", message(COMPACTION, stop="end_turn"), "stop_reason"),
])
def test_unexplained_counts_are_inconsistent(probes: dict[str, Probe], probe_id: str, answer: BetaMessage,
                                             needle: str) -> None:
    found = analyze(probes[probe_id], answer)
    expected = "reached-live-task" if probe_id.startswith("clear-tool-uses.trigger") else "inconsistent"
    assert found.verdict == expected and any(needle in u for u in found.unexplained), found.unexplained
    assert compare(probes[probe_id], found)


def test_compaction_below_its_trigger_is_inconsistent(probes: dict[str, Probe]) -> None:
    probe = probes["compact.below-trigger"]
    found = analyze(probe, message(COMPACTION, iterations=["compaction", "message"]))
    assert found.verdict == "reached-live-task" and any("below the trigger" in u for u in found.unexplained)
    assert "counts the documented semantics cannot explain" in compare(probe, found)


def test_rejection_code_prefers_error_details(probes: dict[str, Probe]) -> None:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": "x",
                                       "details": {"error_code": "compaction_incomplete_turn"}}}
    found = analyze(probes["compaction.open-tool-call"], None, ApiFailure(400, body))
    assert found.verdict == "rejected" and found.error_code == "compaction_incomplete_turn"
    assert ApiFailure(500, "not json").code == "500"
    assert ApiFailure(400, {"error": {"type": "invalid_request_error", "details": "text"}}).code == "invalid_request_error"


def test_every_verdict_can_come_out(probes: dict[str, Probe]) -> None:
    verdicts = {
        analyze(probes["clear-tool-uses.keep-equals-live-task"],
                message(edits=[{"type": TOOLS, "cleared_tool_uses": 2, "cleared_input_tokens": 770}])).verdict,
        analyze(probes["clear-tool-uses.keep-below-live-task"],
                message(edits=[{"type": TOOLS, "cleared_tool_uses": 3, "cleared_input_tokens": 1770}])).verdict,
        analyze(probes["clear-tool-uses.default-trigger-not-reached"], message(edits=[])).verdict,
        analyze(probes["clear-tool-uses.missing-beta"], None, ApiFailure(400, {"error": {"type": "invalid_request_error"}})).verdict,
        analyze(probes["clear-tool-uses.keep-equals-live-task"],
                message(edits=[{"type": TOOLS, "cleared_tool_uses": 2, "cleared_input_tokens": 99}])).verdict,
    }
    assert verdicts == {"settled-only", "reached-live-task", "no-edit", "rejected", "inconsistent"}


@pytest.mark.parametrize("edit", [
    {"type": TOOLS, "cleared_tool_uses": 0, "cleared_input_tokens": 500},
    {"type": TOOLS, "cleared_tool_uses": 0, "cleared_input_tokens": 0},
])
def test_an_edit_reporting_no_items_is_still_checked(probes: dict[str, Probe], edit: dict[str, Any]) -> None:
    probe = probes["clear-tool-uses.keep-equals-live-task"]
    found = analyze(probe, message(edits=[edit]))
    assert found.verdict == "inconsistent" and found.unexplained, found


def test_an_empty_report_where_the_rules_clear_nothing_is_no_edit(probes: dict[str, Probe]) -> None:
    probe = probes["clear-tool-uses.default-trigger-not-reached"]
    found = analyze(probe, message(edits=[{"type": TOOLS, "cleared_tool_uses": 0, "cleared_input_tokens": 0}]))
    assert found.verdict == "no-edit" and not found.unexplained and compare(probe, found) == []


def test_a_thinking_edit_reporting_no_turns_but_tokens_is_inconsistent(probes: dict[str, Probe]) -> None:
    found = analyze(probes["clear-thinking.keep-one-turn"],
                    message(edits=[{"type": THINK, "cleared_thinking_turns": 0, "cleared_input_tokens": 400}]))
    assert found.verdict == "inconsistent" and any("add up" in u for u in found.unexplained)


def test_count_tokens_refused_while_create_was_accepted_is_inconsistent(probes: dict[str, Probe]) -> None:
    probe = probes["clear-tool-uses.keep-equals-live-task"]
    refused = ApiFailure(400, {"type": "error", "error": {"type": "invalid_request_error", "message": "x"}})
    found = analyze(probe, message(edits=[{"type": TOOLS, "cleared_tool_uses": 2, "cleared_input_tokens": 770}]),
                    count_failure=refused)
    assert found.verdict == "inconsistent" and found.evidence["count_tokens_error"] == "invalid_request_error"
    assert any("count_tokens was rejected" in u for u in found.unexplained)


def test_no_answer_at_all_is_rejected_with_no_response(probes: dict[str, Probe]) -> None:
    found = analyze(probes["compact.mid-task"], None)
    assert found.verdict == "rejected" and found.error_code == "no-response"


def test_sizes_that_fit_on_both_sides_of_the_live_boundary_are_inconsistent(probes: dict[str, Probe]) -> None:
    # The template's stand-in thinking is the same size in every turn: one cleared turn of that size
    # could be turn 1, 2 or the live turn 3, so nothing can be concluded.
    probe = probes["clear-thinking.keep-two-turns"]
    found = analyze(probe, message(edits=[{"type": THINK, "cleared_thinking_turns": 1, "cleared_input_tokens": 6}]))
    assert found.verdict == "inconsistent" and any("inside and outside the task in flight" in u for u in found.unexplained)
    assert compare(probe, found)


def test_a_summary_that_folds_only_the_request_of_a_task_reaches_it(probes: dict[str, Probe]) -> None:
    """A threshold compaction on a new request, no step of it taken yet: the request went into the summary."""
    probe = probes["compact.after-settled-answer"]
    assert probe.live.tool_use_ids == () and probe.live.from_message < len(probe.messages())
    found = analyze(probe, message(COMPACTION + [{"type": "text", "text": "ok"}], iterations=["compaction", "message"]))
    assert found.verdict == "reached-live-task" and found.reached_live
    assert found.live_reached == ["request"] and found.reached_tool_use_ids == []
    assert found.live_evidence == [f"summarised the request of the task in flight (message {probe.live.from_message})"]
    assert compare(probe, found) == []


def test_evidence_tells_a_summarised_request_from_cleared_results(probes: dict[str, Probe]) -> None:
    cleared = analyze(probes["clear-tool-uses.keep-below-live-task"],
                      message(edits=[{"type": TOOLS, "cleared_tool_uses": 3, "cleared_input_tokens": 1770}]))
    assert cleared.live_reached == ["tool_results"], cleared.unexplained
    assert cleared.live_evidence == ["cleared the tool results of toolu_b1"]
    folded = analyze(probes["compact.mid-task"], message(COMPACTION + [{"type": "text", "text": "ok"}],
                                                         iterations=["compaction", "message"]))
    assert folded.live_reached == ["request", "tool_calls", "tool_results"]
    assert folded.live_evidence == ["summarised the request of the task in flight (message 0)",
                                    "summarised the tool calls toolu_d1,toolu_d2 and their results"]


def test_on_demand_compaction_right_after_a_settled_answer_reaches_nothing(probes: dict[str, Probe]) -> None:
    found = analyze(probes["compaction.after-settled-answer"],
                    message(COMPACTION, iterations=["compaction"], stop="compaction"))
    assert found.verdict == "settled-only" and found.live_reached == [] and not found.reached_live


def test_input_transformations_are_placed_against_the_declared_live_span(probes: dict[str, Probe]) -> None:
    probe = probes["clear-thinking.keep-one-turn"]
    live = probe.live.from_message
    assert live > 0

    def answer(kind: str, at: int) -> BetaMessage:
        raw = message(edits=[]).model_dump()
        raw["input_transformations"] = [{"type": kind, "path": f"messages.{at}.content.0",
                                         "reason": "prefix_binding_mismatch"}]
        return BetaMessage.model_validate(raw)

    found = analyze(probe, answer("thinking_dropped", live))
    assert found.verdict == "live-reasoning-lost" and "of the task in flight" in found.live_evidence[-1]
    assert compare(probe, found)  # a probe that predicts otherwise fails verify
    assert analyze(probe, answer("thinking_mismatch_allowed", live)).verdict == "live-reasoning-stale"
    assert analyze(probe, answer("thinking_dropped", 0)).verdict == "settled-only"
    # (the SDK refuses an unknown entry type in strict mode; an answer parsed leniently may hold one)
    unknown = SimpleNamespace(type="thinking_resized", path="messages.0.content.0", reason="prefix_binding_mismatch")
    odd = analyze(probe, message(edits=[]).model_copy(update={"input_transformations": [unknown]}))
    assert odd.verdict == "inconsistent" and "not one the analyzer models" in odd.unexplained[0]
