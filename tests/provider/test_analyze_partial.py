"""Partial records and unmodelled types: one honest answer per response-only file, unknown named, not guessed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.provider.analyze import analyze_file
from conformance.provider.analyze.model import Judgement
from conformance.provider.openai.judge import indices, items_label

OPENAI = "https://api.openai.com/v1/responses"
COMPACT = "https://api.openai.com/v1/responses/compact"


def _file(tmp_path: Path, data: Any, name: str = "body.json", indent: int | None = 2) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=indent))
    return path


def _only(path: Path) -> Judgement:
    result = analyze_file(path)
    assert result.error is None
    assert len(result.judgements) == 1, [j.evidence for j in result.judgements]
    return result.judgements[0]


def _message(*blocks: dict[str, Any], report: Any = None, iterations: Any = None) -> dict[str, Any]:
    usage: dict[str, Any] = {"input_tokens": 162, "output_tokens": 11}
    if iterations is not None:
        usage["iterations"] = iterations
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": list(blocks) or [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "usage": usage}
    if report is not None:
        body["context_management"] = report
    return body


SUMMARY = {"type": "compaction", "content": "The user asked for a greeting."}
PASSES = [{"type": "compaction", "input_tokens": 99195, "output_tokens": 81}, {"type": "message", "input_tokens": 162}]


@pytest.mark.parametrize("body, verdict, says", [
    (_message(SUMMARY, {"type": "text", "text": "Hi"}, report={"applied_edits": []}, iterations=PASSES),
     "reached-live-task", "the compaction pass cost 99195 input tokens"),
    (_message(report={"applied_edits": []}), "no-edit", "applied_edits is empty: nothing was edited"),
    (_message(report={"applied_edits": [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 2,
                                         "cleared_input_tokens": 900}]}), "cannot-tell", "without the request"),
    (_message(report={"applied_edits": [{"type": "clear_thinking_20251015", "cleared_thinking_turns": 0,
                                         "cleared_input_tokens": 0}]}), "no-edit", "cleared 0 item(s)"),
    (_message(report={"applied_edits": [{"type": "clear_thinking_20251015", "cleared_thinking_turns": 0,
                                         "cleared_input_tokens": 900}]}), "inconsistent", "no items cleared alongside"),
    (_message(report={"applied_edits": [{"type": "forget_20991231"}]}), "cannot-tell",
     "applied edit `forget_20991231` at context_management.applied_edits[0] is not a type this judge models"),
    (_message({"type": "fallback"}, {"type": "text", "text": "x"}), "not-judged",
     "response block `fallback` at content[0] is not a type this judge models"),
    (_message({"type": "fallback"}, {"type": "text", "text": "x"}, report={"applied_edits": []}), "cannot-tell",
     "response block `fallback` at content[0] is not a type this judge models"),
    ({"input_tokens": 1200, "context_management": {"original_input_tokens": 1200}}, "no-edit", "nothing cleared"),
    ({"input_tokens": 800, "context_management": {"original_input_tokens": 1200}}, "cannot-tell", "without the request"),
    (_message(), "not-judged", "reports no context management"),
    (_message({"type": "text", "text": "Hi"}, SUMMARY, report={"applied_edits": []}), "cannot-tell",
     "does not open the response"),
])
def test_an_anthropic_response_alone(tmp_path: Path, body: dict[str, Any], verdict: str, says: str) -> None:
    found = _only(_file(tmp_path, body))
    assert found.provider == "anthropic" and found.verdict == verdict, found.evidence
    assert any(says in line for line in found.evidence), found.evidence
    assert found.live_start is None and found.strategy in ("response only", "")


def _response(*output: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-5", "output": list(output),
            "usage": {"input_tokens": 900, "output_tokens": 40}, **extra}


ANSWER = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}
ITEM = {"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque"}


@pytest.mark.parametrize("body, verdict, says", [
    (_response(ANSWER, ITEM), "settled-only", "follows the response's own completed answer"),
    (_response(ITEM, ANSWER), "reached-live-task", "opens the output, before the answer"),
    (_response(ITEM), "cannot-tell", "follows no completed answer"),
    ({**_response(ANSWER, ITEM), "object": "response.compaction"}, "cannot-tell", "a /responses/compact answer"),
    (_response(ANSWER, truncation="auto"), "cannot-tell", "truncation auto"),
    (_response(ANSWER, truncation="disabled"), "not-judged", "no compaction item"),
    (_response(ANSWER, {**ITEM, "type": "compaction_summary"}), "settled-only", "the ChatGPT Codex backend's name"),
    (_response(ANSWER, {"type": "memory_digest", "id": "x"}), "not-judged",
     "output item 1 `memory_digest` is not a type this judge models"),
    (_response({"type": "memory_digest", "id": "x"}, ANSWER, truncation="auto"), "cannot-tell",
     "output item 0 `memory_digest` is not a type this judge models"),
])
def test_an_openai_response_alone(tmp_path: Path, body: dict[str, Any], verdict: str, says: str) -> None:
    found = _only(_file(tmp_path, body))
    assert found.provider == "openai" and found.verdict == verdict, found.evidence
    assert any(says in line for line in found.evidence), found.evidence


def _sse(*events: dict[str, Any]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_an_sse_capture_is_one_response(tmp_path: Path) -> None:
    text = _sse({"type": "message_start", "message": {**_message(), "content": []}},
                {"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": None}},
                {"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": "S"}},
                {"type": "content_block_stop", "index": 0},
                {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
                {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi"}},
                {"type": "content_block_stop", "index": 1},
                {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3},
                 "context_management": {"applied_edits": []}},
                {"type": "message_stop"})
    path = tmp_path / "stream.txt"
    path.write_text(text)
    found = _only(path)
    assert found.verdict == "reached-live-task" and found.provider == "anthropic"
    lines = tmp_path / "chunks.jsonl"  # the same stream saved as one JSON event per line
    lines.write_text("\n".join(line[6:] for line in text.splitlines() if line.startswith("data: ")) + "\n")
    assert _only(lines).verdict == "reached-live-task"


def _pair(url: str, request: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    return {"url": url, "request": request, "response": response}


def _lines(tmp_path: Path, *records: dict[str, Any]) -> list[Judgement]:
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    result = analyze_file(path)
    assert result.error is None
    return result.judgements


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": text}


def _said(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def test_a_compact_answer_with_an_unmodelled_item_is_named_not_inconsistent(tmp_path: Path) -> None:
    history = [_user("a"), _said("b")]
    (found,) = _lines(tmp_path, _pair(COMPACT, {"model": "gpt-5", "input": history},
                                      {"object": "response.compaction", "output": [{"type": "memory_digest"}]}))
    assert found.verdict == "cannot-tell", found.evidence
    assert "output item 0 `memory_digest` is not a type this judge models" in found.evidence


def test_the_codex_alias_is_judged_as_compaction_and_said(tmp_path: Path) -> None:
    history = [_user("a"), _said("b")]
    (found,) = _lines(tmp_path, _pair(COMPACT, {"model": "gpt-5", "input": history},
                                      {"object": "response.compaction", "output": [
                                          _user("a"), {"type": "compaction_summary", "encrypted_content": "x"}]}))
    assert found.verdict == "settled-only", found.evidence
    assert any("`compaction_summary` is the ChatGPT Codex backend's name for `compaction`" in line
               for line in found.evidence)


def test_a_chain_names_its_source_and_a_carried_item_its_origin(tmp_path: Path) -> None:
    first = _pair(OPENAI, {"model": "gpt-5", "input": [_user("a")], "context_management": [
        {"type": "compaction", "compact_threshold": 100}]}, _response(_said("b"), ITEM))
    second = _pair(OPENAI, {"model": "gpt-5", "previous_response_id": "resp_1", "input": [_user("c")],
                            "context_management": [{"type": "compaction", "compact_threshold": 100}]},
                   {**_response(_said("d")), "id": "resp_2"})
    outside = _pair(OPENAI, {"model": "gpt-5", "input": [{**ITEM, "id": "cmp_9", "encrypted_content": "elsewhere"}, _user("e")],
                             "context_management": [{"type": "compaction", "compact_threshold": 100}]},
                    {**_response(_said("f")), "id": "resp_3"})
    _, chained, carried = _lines(tmp_path, first, second, outside)
    assert "the input is rebuilt from previous_response_id through interaction(s) 0: 4 items" in chained.evidence
    assert any("compaction item at item 2 (returned by interaction 0)" in line for line in chained.evidence)
    assert chained.verdict == "settled-only"
    assert any("(not produced in this recording)" in line for line in carried.evidence)


def test_truncation_auto_on_one_item_is_decided(tmp_path: Path) -> None:
    (found,) = _lines(tmp_path, _pair(OPENAI, {"model": "gpt-5", "input": "hi", "truncation": "auto"},
                                      _response(_said("hello"))))
    assert found.verdict == "no-edit", found.evidence
    assert any("one-item input" in line for line in found.evidence)


def test_index_lists_are_exact() -> None:
    assert indices([1, 3]) == "1 and 3" and indices([0, 1, 2, 3, 4]) == "0-4"
    assert indices([1, 3, 5, 6, 7]) == "1, 3 and 5-7" and items_label([2]) == "item 2"
    assert items_label([1, 3]) == "items 1 and 3 (2 items)"


def test_a_request_without_its_response_cannot_be_told(tmp_path: Path) -> None:
    (found,) = _lines(tmp_path, {"custom_id": "a", "method": "POST", "url": "/v1/responses",
                                 "body": {"model": "gpt-5", "input": "hi", "truncation": "auto"}})
    assert found.verdict == "cannot-tell" and "no response was recorded" in found.evidence[-1]


def test_an_aliased_item_keeps_a_modelled_contradiction_inconsistent(tmp_path: Path) -> None:
    body = _response(ANSWER, ITEM, {**ITEM, "type": "compaction_summary"})
    found = _only(_file(tmp_path, body))
    assert found.verdict == "inconsistent", found.evidence
    assert any("output item 2 `compaction_summary` is the ChatGPT Codex backend's name" in line
               for line in found.evidence)


def test_a_chain_through_a_redacted_uri_is_followed_and_a_missing_one_without_context_management_is_counted(
        tmp_path: Path) -> None:
    redacted = "**REDACTED**"
    first = _pair(redacted, {"model": "gpt-5", "input": [_user("a")]}, _response(_said("b")))
    chained = _pair(redacted, {"model": "gpt-5", "previous_response_id": "resp_1", "input": [_user("c")],
                               "truncation": "auto"}, {**_response(_said("d")), "id": "resp_2"})
    orphan = _pair(redacted, {"model": "gpt-5", "previous_response_id": "resp_404", "input": [_user("e")]},
                   {**_response(_said("f")), "id": "resp_3"})
    _, followed, counted = _lines(tmp_path, first, chained, orphan)
    assert "the input is rebuilt from previous_response_id through interaction(s) 0: 3 items" in followed.evidence
    assert counted.verdict == "not-judged" and "resp_404" in counted.evidence[0]


def test_other_traffic_of_a_provider_is_counted_not_an_error(tmp_path: Path) -> None:
    batch_results = [{"custom_id": "0", "result": {"type": "succeeded", "message": _message()}}] * 2
    records = [
        {"url": "https://api.anthropic.com/v1/messages/batches/b1/results", "method": "GET",
         "response": {"status": 200, "body": "\n".join(json.dumps(r) for r in batch_results)}},
        {"url": "https://api.anthropic.com/v1/messages/batches", "method": "GET",
         "response": {"status": 200, "body": json.dumps({"type": "message_batch", "id": "b1"})}},
        {"url": "https://api.openai.com/v1/files", "request": {"body": '{"a": 1}\n{"a": 2}'},
         "response": {"status": 200, "body": json.dumps({"object": "file", "id": "f1"})}},
        {"url": "https://api.openai.com/v1/files/f1", "method": "GET",
         "response": {"status": 200, "body": json.dumps({"object": "file", "id": "f1"})}},
    ]
    found = _lines(tmp_path, *records)
    assert [j.verdict for j in found] == ["not-judged"] * 4, [(j.verdict, j.error, j.evidence) for j in found]
    assert all(j.error is None for j in found)


def test_a_bare_openai_error_body_is_one_response_counted(tmp_path: Path) -> None:
    found = _only(_file(tmp_path, {"error": {"message": "quota", "type": "insufficient_quota", "code": None}}))
    assert found.verdict == "not-judged" and found.error is None
