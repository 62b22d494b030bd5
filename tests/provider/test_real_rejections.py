"""Rejections users reported: the error bodies of ``tests/provider/real/rejections/`` (see its
README), copied from public issues, read by every command that reads traffic. ``analyze``'s verdicts
are the README's table (``test_analyze_real.py``); here each names the rule the client's history
broke and the message it points at, straight from the service or inside a gateway's envelope, in
``analyze``, ``explain`` and the guard; the guard, which has the request, places that message
against the task in flight."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main
from conformance.guard.judge import Guard
from conformance.provider.analyze import Judgement, analyze_file
from conformance.report.explain_recording import explain_interaction

REJECTIONS = Path(__file__).resolve().parent / "real" / "rejections"
# file -> (the rule named, the path the service points at, where a gateway's envelope carried the body)
REPORTED = {
    "claude_code_13460_orphaned_tool_result.json": ("orphaned tool_result (toolu_019ETtGZEhTBXgWPVsdVnXMh)",
                                                     "messages.48.content.1", None),
    "claude_code_3632_tool_use_without_result.json": ("tool_use without tool_result (toolu_01JJLWxfcBw93tw2yUcSaro4)",
                                                      "messages.8", None),
    "claude_code_64383_server_tool_result_without_its_use.json": (
        "orphaned advisor_tool_result (srvtoolu_01JjfQsdhSJkT7qLCL7Pj9jc)", "messages.7.content.0", None),
    "cliproxyapi_497_router_envelope.json": ("orphaned tool_result (toolu_01JLpBvrkaJHBDU3z3cWqtyv)",
                                             "messages.12.content.0", "error.metadata.raw"),
    "antigravity_manager_654_platform_envelope.json": ("tool_use without tool_result (bash-uOQIdN0O)", "messages.243",
                                                       "error.message"),
    "claude_code_20700_duplicate_tool_use_id.json": ("duplicate tool_use id", "messages.5.content.1", None),
    "claude_code_21317_duplicate_tool_use_id_quoted.json": ("duplicate tool_use id", "messages.1.content.1", None),
    "claude_code_37_tool_results_not_first.json": ("tool_use without tool_result", "messages.224", None),
}
FILES = pytest.mark.parametrize("name", sorted(REPORTED))


def test_every_file_of_the_folder_is_read_here() -> None:
    assert sorted(p.name for p in REJECTIONS.iterdir()) == sorted(REPORTED)


@FILES
def test_analyze_names_the_rule_and_the_message(name: str) -> None:
    rule, path, envelope = REPORTED[name]
    result = analyze_file(REJECTIONS / name)
    assert result.error is None
    [found] = result.judgements
    flat = " ".join(found.evidence)
    assert found.verdict == "broken-history" and found.provider == "anthropic"
    assert f"(status 400: invalid_request_error): {rule};" in flat
    assert f"it points at {path}; without the request" in flat
    assert (f"in a gateway's error envelope, at {envelope}" in flat) is (envelope is not None)


@FILES
def test_explain_shows_it_and_fails(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    rule, path, _ = REPORTED[name]
    text, verdict = explain_interaction(REJECTIONS / name, 0)
    assert verdict == "broken-history"
    assert rule.split(" (")[0] in " ".join(text.split())
    assert main(["explain", str(REJECTIONS / name), "--interaction", "0"]) == 1  # a broken history fails
    assert "broken-history" in capsys.readouterr().out


def test_the_count_of_missing_results_is_said() -> None:
    [found] = analyze_file(REJECTIONS / "claude_code_37_tool_results_not_first.json").judgements
    assert ("the service says the message it points at does not begin with the 1 tool_result block(s) the tool_use "
            "blocks before it ask for") in found.evidence


def _history(path: str, in_flight: bool) -> list[dict[str, Any]]:
    """Returns a history that has the message ``path`` points at: with ``in_flight``, one task still
    working from message 0 (tool calls and their results), else answered questions, then a new one."""
    at = int(path.split(".")[1])
    if in_flight:
        history: list[dict[str, Any]] = [{"role": "user", "content": "the task in flight"}]
        while len(history) <= at + 1:
            n = len(history)
            history += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"u{n}", "name": "read",
                                                           "input": {}}]},
                        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"u{n}", "content": "ok"}]}]
        return history
    history = []
    while len(history) <= at + 1:
        history += [{"role": "user", "content": f"question {len(history)}"},
                    {"role": "assistant", "content": [{"type": "text", "text": "answered"}]}]
    return history + [{"role": "user", "content": "a new question"}]


@pytest.mark.parametrize("in_flight", [True, False], ids=["in-flight", "settled"])
@FILES
def test_the_guard_places_the_message_against_the_task_in_flight(name: str, in_flight: bool) -> None:
    rule, path, _ = REPORTED[name]
    messages = _history(path, in_flight)
    body = {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": messages}
    seen: list[Judgement] = []
    guard = Guard(policy=[], on_judgement=seen.append)
    guard.judge("https://api.anthropic.com/v1/messages", "POST", json.dumps(body).encode(),
                (REJECTIONS / name).read_bytes(), 400, "application/json")
    [found] = seen
    flat = " ".join(found.evidence)
    assert found.verdict == "broken-history" and rule in flat
    assert found.live_start == (0 if in_flight else len(messages) - 1)
    assert (f"in the task in flight (from message {found.live_start})" in flat) is in_flight
    assert ("in settled history" in flat) is not in_flight


@pytest.mark.parametrize("body", [
    {"error": {"message": "Invalid 'input[3]': unknown item", "type": "invalid_request_error", "code": None}},
    {"error": {"code": 400, "message": "{\"detail\": \"not the service's error\"}", "status": "INVALID_ARGUMENT"}},
    {"error": {"message": "Provider returned error", "code": 400, "metadata": {"raw": "upstream timed out"}}},
], ids=["another-apis-error", "json-but-not-the-services", "plain-text-raw"])
def test_an_envelope_that_carries_no_error_of_the_service_is_not_read_as_one(body: dict[str, Any],
                                                                             tmp_path: Path) -> None:
    path = tmp_path / "error.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    [found] = analyze_file(path).judgements
    assert found.provider != "anthropic" or found.verdict == "not-judged"
    assert found.verdict != "broken-history"
