"""``analyze``, ``explain`` and the guard on preserved thinking: the thinking blocks the service
dropped or let through with a failed prefix check (``input_transformations``, plain and streamed),
and rejections whose message names a rule of the history the request broke.

The recordings are built here in the shapes real ones take (pydantic-ai's vcrpy cassettes with
``parsed_body``, a streamed body under ``body.string``, bare response bodies), from the entry and
error shapes the service documents; thinking text is empty (as the service sends it by default)
and signatures are placeholders. Each history's task in flight is known by construction.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli import main
from conformance.guard.judge import Guard
from conformance.provider.analyze import Judgement, analyze_file
from conformance.provider.analyze.model import FAILING
from conformance.provider.recordings.sse import reassemble
from conformance.report.explain_recording import explain_interaction

URL = "https://api.anthropic.com/v1/messages?beta=true"
SYSTEM = "You are a helpful assistant."
BINDING = {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": "drop_block"}}


def thinking(sig: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": "", "signature": f"SIG_{sig}_placeholder"}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def answer(sig: str, text: str = "Paris.") -> dict[str, Any]:
    return {"role": "assistant", "content": [thinking(sig), {"type": "text", "text": text}]}


def calls(sig: str, tool_id: str = "toolu_01") -> dict[str, Any]:
    return {"role": "assistant", "content": [thinking(sig), {"type": "tool_use", "id": tool_id, "name": "run_tests",
                                                             "input": {}}]}


def result(tool_id: str = "toolu_01") -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "1 failed"}]}


def request(messages: list[dict[str, Any]], system: str = SYSTEM, **extra: Any) -> dict[str, Any]:
    return {"model": "claude-fable-5-1", "max_tokens": 4096, "system": [{"type": "text", "text": system}],
            "messages": messages, "thinking": BINDING, "stream": False, **extra}


def reply(*content: dict[str, Any], changed: list[dict[str, Any]] | None = None,
          stop: str = "end_turn") -> dict[str, Any]:
    body: dict[str, Any] = {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-fable-5-1",
                            "content": list(content) or [{"type": "text", "text": "ok"}], "stop_reason": stop,
                            "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 5}}
    if changed is not None:
        body["input_transformations"] = changed
    return body


def dropped(path: str, reason: str = "prefix_binding_mismatch", kind: str = "thinking_dropped") -> dict[str, Any]:
    return {"type": kind, "path": path, "reason": reason}


def sse(message: dict[str, Any]) -> str:
    """Returns the event stream of ``message``: ``input_transformations`` on ``message_start``."""
    start = {**message, "content": [], "stop_reason": None}
    events: list[dict[str, Any]] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        if block["type"] == "thinking":
            events += [{"type": "content_block_start", "index": index,
                        "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
                       {"type": "content_block_delta", "index": index,
                        "delta": {"type": "signature_delta", "signature": block["signature"]}}]
        elif block["type"] == "tool_use":
            events += [{"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}},
                       {"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}}]
        else:
            events += [{"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                       {"type": "content_block_delta", "index": index,
                        "delta": {"type": "text_delta", "text": block["text"]}}]
        events.append({"type": "content_block_stop", "index": index})
    events += [{"type": "message_delta", "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": 5}}, {"type": "message_stop"}]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def cassette(tmp_path: Path, *pairs: tuple[dict[str, Any], Any], status: int = 200, streamed: bool = False,
             name: str = "rec.yaml") -> Path:
    """Writes a cassette as pydantic-ai records them: the request under ``parsed_body``, a JSON
    answer under ``parsed_body``, a streamed one as text under ``body.string``."""
    interactions = []
    for req, resp in pairs:
        if streamed:
            answer_part = {"headers": {"content-type": ["text/event-stream; charset=utf-8"]},
                           "body": {"string": sse(resp)}}
        else:
            answer_part = {"headers": {"content-type": ["application/json"]}, "parsed_body": resp}
        interactions.append({
            "request": {"headers": {"content-type": ["application/json"], "host": ["api.anthropic.com"]},
                        "method": "POST", "parsed_body": {**req, "stream": streamed}, "uri": URL},
            "response": {**answer_part, "status": {"code": status, "message": "OK" if status == 200 else "Bad Request"}}})
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))
    return path


def judged(path: Path) -> list[Judgement]:
    result = analyze_file(path)
    assert result.error is None, result.error
    return result.judgements


# F1 of the research: the task in flight (a tool round) keeps its thinking, the client folds the
# settled turn before it into a summary of its own: the block's prefix changed.
FIRST = request([user("What does utils.py do?"), answer("A", "It parses config files."), user("Fix the failing test.")])
FIRST_REPLY = reply(thinking("B"), {"type": "tool_use", "id": "toolu_01", "name": "run_tests", "input": {}},
                    stop="tool_use")
FOLDED = request([user("[Summary] utils.py parses config files."), user("Fix the failing test."), calls("B"), result()])


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_a_dropped_block_of_the_task_in_flight_is_lost_reasoning(tmp_path: Path, streamed: bool) -> None:
    path = cassette(tmp_path, (FIRST, FIRST_REPLY), (FOLDED, reply(changed=[dropped("messages.2.content.0")])),
                    streamed=streamed)
    first, second = judged(path)
    assert first.verdict == "not-judged"  # nothing dropped, no context management
    assert second.verdict == "live-reasoning-lost" and second.verdict in FAILING
    assert (second.live_start, second.history, second.strategy) == (0, 4, "block_binding drop_block")
    assert "messages.2.content.0: the service dropped this thinking block of the task in flight" in second.evidence[0]
    assert "prefix_binding_mismatch" in second.evidence[0] and "the task in flight lost its reasoning" in second.evidence[0]
    assert second.evidence[1] == ("the client's first change since interaction 0, the previous request that carried "
                                  "that block: messages.0.content.0 differs")
    assert main(["analyze", str(path)]) == 1


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
def test_a_dropped_block_of_settled_history_is_settled_only(tmp_path: Path, streamed: bool,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # The client rebuilt its system prompt between two questions: the earlier answer's block drops.
    first = request([user("What is the capital of France?")])
    second = request([user("What is the capital of France?"), answer("A"), user("And of Germany?")],
                     system=SYSTEM + " Today is Tuesday.")
    path = cassette(tmp_path, (first, reply(thinking("A"), {"type": "text", "text": "Paris."})),
                    (second, reply(changed=[dropped("messages.1.content.0")])), streamed=streamed)
    found = judged(path)[1]
    assert (found.verdict, found.live_start) == ("settled-only", 2)
    assert "of settled history" in found.evidence[0] and "only settled reasoning was lost" in found.evidence[0]
    assert found.evidence[1].endswith("interaction 0, the previous request that carried that block: `system` differs")
    assert main(["analyze", str(path)]) == 0
    assert "1 settled-only" in capsys.readouterr().out


def test_the_stream_carries_the_entries_on_message_start_and_a_fallback_replaces_them() -> None:
    message = reply(thinking("B"), changed=[dropped("messages.1.content.0")])
    assert reassemble(sse(message))["input_transformations"] == [dropped("messages.1.content.0")]
    fallback = sse(message).replace('"usage": {"output_tokens": 5}}',
                                    '"usage": {"output_tokens": 5}, "input_transformations": []}')
    assert reassemble(fallback)["input_transformations"] == []


def test_a_block_let_through_with_a_failed_check(tmp_path: Path) -> None:
    allowed = [dropped("messages.2.content.0", kind="thinking_mismatch_allowed")]
    path = cassette(tmp_path, (FIRST, FIRST_REPLY), (FOLDED, reply(changed=allowed)))
    found = judged(path)[1]
    assert found.verdict == "live-reasoning-stale" and found.verdict in FAILING
    assert "failed but was not enforced, so the block reached the model" in found.evidence[0]
    settled = request([user("What is the capital of France?"), answer("A"), user("And of Germany?")])
    allowed = [dropped("messages.1.content.0", kind="thinking_mismatch_allowed")]
    found = judged(cassette(tmp_path, (settled, reply(changed=allowed)), name="settled.yaml"))[0]
    assert found.verdict == "settled-only" and "only settled reasoning is affected" in found.evidence[0]
    assert "no earlier request of this recording carried that block" in found.evidence[1]


def test_each_reason_is_named_and_only_a_prefix_mismatch_looks_for_the_change(tmp_path: Path) -> None:
    entries = [dropped("messages.2.content.0", reason=r) for r in
               ("model_binding_mismatch", "organization_binding_mismatch", "end_user_binding_mismatch", "new_reason")]
    found = judged(cassette(tmp_path, (FOLDED, reply(changed=entries))))[0]
    assert found.verdict == "live-reasoning-lost" and len(found.evidence) == 4
    assert "cannot read a block another model produced" in found.evidence[0]
    assert "another organization" in found.evidence[1] and "another end user" in found.evidence[2]
    assert "reason `new_reason`, not one this judge knows" in found.evidence[3]


def test_an_entry_that_names_no_thinking_block_is_inconsistent(tmp_path: Path) -> None:
    entries = [dropped("messages.3.content.0"), dropped("messages.9.content.0"), dropped("system.0"),
               {"type": "image_resized", "path": "messages.0.content.0"}]
    found = judged(cassette(tmp_path, (FOLDED, reply(changed=entries))))[0]
    assert found.verdict == "inconsistent"
    assert "where the request has a tool_result block" in found.evidence[0]
    assert "where the request has no such block" in found.evidence[1]
    assert "not messages.<i>.content.<j>" in found.evidence[2]
    assert "`image_resized`, not one this judge models" in found.evidence[3]


def test_an_empty_list_reports_nothing(tmp_path: Path) -> None:
    found = judged(cassette(tmp_path, (FOLDED, reply(changed=[]))))[0]
    assert found.verdict == "not-judged"


def test_a_drop_beside_context_management_takes_the_worse_verdict(tmp_path: Path) -> None:
    edits = {"edits": [{"type": "clear_tool_uses_20250919"}]}
    body = {**reply(changed=[dropped("messages.2.content.0")]), "context_management": {"applied_edits": []}}
    found = judged(cassette(tmp_path, ({**FOLDED, "context_management": edits}, body)))[0]
    assert found.verdict == "live-reasoning-lost"
    assert found.strategy == "clear_tool_uses_20250919+block_binding drop_block"


def test_response_only_entries_cannot_be_placed(tmp_path: Path) -> None:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(reply(thinking("C"), changed=[dropped("messages.1.content.0")])))
    (found,) = judged(path)
    assert found.verdict == "cannot-tell" and "thinking_dropped (prefix_binding_mismatch) at messages.1.content.0" \
        in found.evidence[1]
    stream = tmp_path / "answer.sse"
    stream.write_text(sse(reply(thinking("C"), changed=[dropped("messages.1.content.0")])))
    assert judged(stream)[0].verdict == "cannot-tell"


# Rejections: (error message, rule named, the message of the history it points at, its block).
TOOL_HISTORY = [user("List /data."), calls("A", "toolu_019ETtGZ"), result("toolu_019ETtGZ"),
                answer("B", "40,000 files."), user("Delete the .tmp files.")]
REJECTIONS = [
    ("messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_019ETtGZ. Each "
     "`tool_result` block must have a corresponding `tool_use` block in the previous message.",
     "orphaned tool_result (toolu_019ETtGZ)", "messages.2.content.0 (tool_result toolu_019ETtGZ) in settled history"),
    ("messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_019ETtGZ, "
     "toolu_02. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
     "tool_use without tool_result (toolu_019ETtGZ, toolu_02)", "messages.1 (assistant message) in settled history"),
    ("messages.3.content.1: source tool `srvtoolu_01JjfQsd` not found for tool use block",
     "missing source tool of a caller (srvtoolu_01JjfQsd)", "messages.3.content.1 (text block) in settled history"),
    ("messages.1: `web_search` tool use with id `srvtoolu_01UkjByN` was found without a corresponding "
     "`web_search_tool_result` block", "server tool use without its result (srvtoolu_01UkjByN)", "messages.1"),
    ("messages.3.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation. "
     "Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\". That setting "
     "requires the `thinking-binding-controls-2026-08-01` value in the `anthropic-beta` header. Content before this "
     "block differs from when it was created, first at `messages.2.content.0`.",
     "thinking block bound to a different conversation", "messages.3.content.0 (thinking) in settled history"),
    ("messages.3.content.0: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be "
     "modified. These blocks must remain as they were in the original response.", "thinking block modified",
     "messages.3.content.0"),
    ("messages.3.content.0: Invalid `signature` in `thinking` block", "thinking block signature invalid",
     "messages.3.content.0"),
    ("messages.3.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. When `thinking` is "
     "enabled, a final `assistant` message must start with a thinking block.",
     "final assistant message without its thinking", "messages.3.content.0"),
    ("messages.1.content.1: `tool_use` ids must be unique", "duplicate tool_use id",
     "messages.1.content.1 (tool_use toolu_019ETtGZ) in settled history"),
    ("messages.1.content.1: tool_use ids must be unique", "duplicate tool_use id",
     "messages.1.content.1 (tool_use toolu_019ETtGZ) in settled history"),
    ("messages.2: Did not find 1 `tool_result` block(s) at the beginning of this message. Messages following "
     "`tool_use` blocks must begin with a matching number of `tool_result` blocks.", "tool_use without tool_result",
     "messages.2 (user message) in settled history"),
    ("messages.2: Did not find 1 tool_result block(s) at the beginning of this message. Messages following tool_use "
     "blocks must begin with a matching number of tool_result blocks.", "tool_use without tool_result",
     "messages.2 (user message) in settled history"),
]


def error_body(message: str, code: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": "invalid_request_error", "message": message}
    if code:
        error["details"] = {"error_code": code}
    return {"type": "error", "error": error, "request_id": "req_011placeholder"}


@pytest.mark.parametrize("message, rule, place", REJECTIONS, ids=[r[1].split(" (")[0] for r in REJECTIONS])
def test_a_rejection_names_the_rule_and_the_message(tmp_path: Path, message: str, rule: str, place: str) -> None:
    path = cassette(tmp_path, (request(TOOL_HISTORY), error_body(message)), status=400)
    (found,) = judged(path)
    assert found.verdict == "broken-history" and found.verdict in FAILING
    assert f"status 400: invalid_request_error): {rule}; the history must keep this rule" in found.evidence[0]
    assert any(line.startswith(f"it points at {place}") for line in found.evidence), found.evidence
    assert main(["analyze", str(path)]) == 1


def test_a_rejection_is_placed_against_the_task_in_flight(tmp_path: Path) -> None:
    inside = error_body("messages.3.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01. "
                        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message.")
    found = judged(cassette(tmp_path, (FOLDED, inside), status=400))[0]
    assert "it points at messages.3.content.0 (tool_result toolu_01) in the task in flight (from message 0)" \
        in found.evidence
    beyond = error_body("messages.9: `tool_use` ids were found without `tool_result` blocks immediately after: t1.")
    found = judged(cassette(tmp_path, (FOLDED, beyond), status=400, name="beyond.yaml"))[0]
    assert found.verdict == "broken-history"
    assert "it points at messages.9, which the request does not have (4 messages)" in found.evidence


def test_the_bound_conversation_rejection_says_what_changed(tmp_path: Path) -> None:
    first = request(TOOL_HISTORY[:4])
    edited = [*TOOL_HISTORY[:2], {**result("toolu_019ETtGZ"), "content": [{"type": "tool_result",
                                                                           "tool_use_id": "toolu_019ETtGZ",
                                                                           "content": "[cleared]"}]}, *TOOL_HISTORY[3:]]
    path = cassette(tmp_path, (first, reply(thinking("C"), {"type": "text", "text": "ok"})),
                    (request(edited), error_body(REJECTIONS[4][0])), status=400)
    found = judged(path)[1]
    assert found.verdict == "broken-history"
    assert "the service says the content before it first differs at messages.2.content.0" in found.evidence
    assert "the service says the request was sent without the `thinking-binding-controls-2026-08-01` beta header" \
        in found.evidence
    assert found.evidence[-1] == ("the client's first change since interaction 0, the previous request that carried "
                                  "that block: messages.2.content.0 differs")


@pytest.mark.parametrize("code", ["compaction_block_misplaced", "compaction_incomplete_turn",
                                  "compaction_block_ambiguous", "compaction_content_mismatch",
                                  "compaction_signature_invalid", "compaction_tool_changes_mismatch"])
def test_a_compaction_error_names_its_rule(tmp_path: Path, code: str) -> None:
    body = error_body("The compaction request ends on an `assistant` turn that is not finished.", code)
    found = judged(cassette(tmp_path, (request(TOOL_HISTORY, compaction={"type": "on_demand"}), body), status=400))[0]
    assert found.verdict == "broken-history" and f"invalid_request_error/{code}): {code}" in found.evidence[0]
    assert "the error message names no message of the request" in found.evidence


def test_a_rejection_for_another_reason_is_not_a_broken_history(tmp_path: Path) -> None:
    body = error_body("thinking.adaptive.block_binding: Extra inputs are not permitted")
    found = judged(cassette(tmp_path, (request(TOOL_HISTORY), body), status=400))[0]
    assert found.verdict == "not-judged"
    managed = request(TOOL_HISTORY, context_management={"edits": []})
    found = judged(cassette(tmp_path, (managed, body), status=400, name="managed.yaml"))[0]
    assert found.verdict == "rejected"


@pytest.mark.parametrize("message, rule, place", REJECTIONS[:3], ids=["orphaned", "unanswered", "caller"])
def test_a_response_only_error_body_is_judged_too(tmp_path: Path, message: str, rule: str, place: str) -> None:
    path = tmp_path / "error.json"
    path.write_text(json.dumps(error_body(message)))
    (found,) = judged(path)
    assert found.verdict == "broken-history" and rule in found.evidence[1]
    assert found.evidence[-1].startswith(f"it points at {place.split(' ')[0]}; without the request")
    other = tmp_path / "overloaded.json"
    other.write_text(json.dumps({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
    assert judged(other)[0].verdict == "not-judged"


def test_a_log_line_without_url_or_status_is_judged_by_its_error_body(tmp_path: Path) -> None:
    """A JSON-lines log that writes neither a status nor a URL (its status reads as 200): the service's
    error body, bare or in a gateway's envelope naming a 4xx code, is still the rejection it says."""
    message = REJECTIONS[0][0]
    envelope = {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": json.dumps(error_body(message))}}
    path = tmp_path / "day.jsonl"
    path.write_text("".join(json.dumps({"request": request(TOOL_HISTORY), "response": body}) + "\n"
                            for body in (envelope, error_body(message))))
    found = judged(path)
    assert [j.verdict for j in found] == ["broken-history", "broken-history"], [j.evidence for j in found]
    assert main(["analyze", str(path)]) == 1
    served = {"error": {"code": 503, "status": "UNAVAILABLE", "message": json.dumps(error_body(message))}}
    path.write_text(json.dumps({"request": request(TOOL_HISTORY), "response": served}) + "\n")
    assert judged(path)[0].verdict != "broken-history"  # (a 5xx the gateway names is no rejection of the history)


def test_explain_shows_the_verdict_of_a_dropped_block(tmp_path: Path) -> None:
    path = cassette(tmp_path, (FIRST, FIRST_REPLY), (FOLDED, reply(changed=[dropped("messages.2.content.0")])))
    text, verdict = explain_interaction(path, 1)
    assert verdict == "live-reasoning-lost" and "the task in flight lost its reasoning" in text
    assert main(["explain", str(path), "--interaction", "1"]) == 1


def test_the_guard_alerts_on_a_dropped_block_of_the_task_in_flight() -> None:
    seen: list[Judgement] = []
    guard = Guard(policy="log", on_judgement=seen.append)
    body = json.dumps(FOLDED).encode()
    guard.judge(URL, "POST", body, json.dumps(reply(changed=[dropped("messages.2.content.0")])).encode(), 200,
                "application/json")
    stream = sse(reply(changed=[dropped("messages.2.content.0")]))
    guard.judge(URL, "POST", body, stream.encode(), 200, "text/event-stream")
    guard.judge(URL, "POST", body, json.dumps(error_body(REJECTIONS[0][0])).encode(), 400, "application/json")
    guard.judge(URL, "POST", body, json.dumps(reply()).encode(), 200, "application/json")
    assert [j.verdict for j in seen] == ["live-reasoning-lost", "live-reasoning-lost", "broken-history", "not-judged"]


def test_ranges_over_workers_name_the_change_as_a_serial_run_does(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.provider.analyze import analyze_stream
    from conformance.provider.analyze.judging import FileEnd

    def line(req: dict[str, Any], resp: dict[str, Any]) -> str:
        return json.dumps({"url": URL, "request": req, "response": resp, "status": 200})

    filler = [line(request([user(f"question {n}")]), reply()) for n in range(60)]
    path = tmp_path / "day.jsonl"
    path.write_text("\n".join([line(FIRST, FIRST_REPLY), *filler,
                               line(FOLDED, reply(changed=[dropped("messages.2.content.0")])), *filler]) + "\n")

    def records(jobs: int) -> list[Any]:
        return [e.to_dict() for e in analyze_stream([path], jobs=jobs) if not isinstance(e, FileEnd)]

    serial = records(1)
    monkeypatch.setenv("CONFORMANCE_ANALYZE_SPLIT", "4096")
    assert records(2) == serial
    lost = [e for e in serial if e["verdict"] == "live-reasoning-lost"]
    assert len(lost) == 1 and lost[0]["evidence"][1].endswith("carried that block: messages.0.content.0 differs")
