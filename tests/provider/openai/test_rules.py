"""The judge decides from structure alone: where the compaction item sits, what the compacted window
re-emits (by content, never by id), which suffix the reported usage counts. Each rule has a broken
answer it catches."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.provider.openai import semantics as sem
from conformance.provider.openai.rules import Exchange, error_matches, judge


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": text}


def answer(text: str, item_id: str = "msg_a") -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "id": item_id, "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def call(call_id: str = "call_1") -> dict[str, Any]:
    return {"type": "function_call", "call_id": call_id, "name": "read_file", "arguments": "{}"}


def output(call_id: str = "call_1") -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": "3 timeouts"}


def reasoning(item_id: str = "rs_1") -> dict[str, Any]:
    return {"type": "reasoning", "id": item_id, "summary": [], "encrypted_content": "opaque"}


COMPACTION = {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAAopaque"}
THRESHOLD = {"context_management": [{"type": "compaction", "compact_threshold": 100}]}
SETTLED = [user("which log?"), answer("payments-0900.log"), user("read it")]


def body(out: list[dict[str, Any]], input_tokens: int = 900, output_tokens: int = 400) -> dict[str, Any]:
    return {"output": out, "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


def test_the_live_task_is_the_transcript_rule_over_converted_items() -> None:
    assert sem.live_start(SETTLED) == 2
    assert sem.live_start(SETTLED[:2]) == 2
    assert sem.live_start([*SETTLED, call(), output()]) == 2
    assert sem.live_start([{"type": "message", "role": "system", "content": "be brief"}, *SETTLED]) == 3
    assert sem.live_start([user("a"), answer("b"), COMPACTION, user("c")]) == 3


@pytest.mark.parametrize(("out", "verdict"), [
    ([answer("done"), COMPACTION], "settled-only"),  # after the response's own final answer
    ([call(), COMPACTION], "reached-live-task"),  # after a call whose output was not sent
    ([COMPACTION, answer("done")], "reached-live-task"),  # before the final answer
    ([{"type": "web_search_call", "id": "ws_1", "status": "completed"}, COMPACTION,
      {"type": "web_search_call", "id": "ws_2", "status": "completed"}, answer("done")], "reached-live-task"),
    ([answer("done")], "no-edit"),
    ([answer("done"), COMPACTION, {**COMPACTION, "id": "cmp_2"}], "inconsistent"),
])
def test_threshold_compaction_is_judged_by_where_the_item_sits(out: list[dict[str, Any]], verdict: str) -> None:
    found = judge(Exchange("responses", THRESHOLD, SETTLED, body(out)))
    assert found.verdict == verdict, found.reasons
    assert found.reached_live == (verdict == "reached-live-task")


def test_a_compaction_below_its_own_threshold_is_inconsistent() -> None:
    found = judge(Exchange("responses", THRESHOLD, SETTLED, body([answer("done"), COMPACTION], 40, 20)))
    assert found.verdict == "inconsistent" and "below compact_threshold" in found.reasons[-1]


def test_a_compaction_nobody_asked_for_is_inconsistent() -> None:
    assert judge(Exchange("responses", {}, SETTLED, body([answer("done"), COMPACTION]))).verdict == "inconsistent"


def _reemitted(item: dict[str, Any], n: int) -> dict[str, Any]:
    content = item["content"]
    parts = [{"type": "input_text", "text": content}] if isinstance(content, str) else content
    return {**item, "id": f"msg_new{n}", "status": "completed", "content": parts}


def test_compact_folds_what_it_does_not_re_emit_matched_by_content_not_id() -> None:
    window = [user("which log?"), answer("payments-0900.log"), user("read it"), call(), output()]
    kept = [_reemitted(window[0], 0), _reemitted(window[2], 2), COMPACTION]
    found = judge(Exchange("compact", {}, window, {"output": kept}))
    assert found.verdict == "reached-live-task" and found.folded == [1, 3, 4] and found.reached == [3, 4]
    settled = window[:2]
    assert judge(Exchange("compact", {}, settled, {"output": [kept[0], COMPACTION]})).verdict == "settled-only"
    # a re-emitted message whose text changed is not the input item: the judge does not trust ids
    forged = [{**kept[0], "content": [{"type": "input_text", "text": "something else"}]}, COMPACTION]
    assert judge(Exchange("compact", {}, settled, {"output": forged})).verdict == "inconsistent"


def test_compact_drops_instructions_without_calling_them_folded() -> None:
    window = [{"type": "message", "role": "system", "content": "be brief"}, user("hi")]
    found = judge(Exchange("compact", {}, window, {"output": [_reemitted(window[1], 1), COMPACTION]}))
    assert found.verdict == "no-edit" and found.folded == []


def test_an_assistant_message_kept_without_its_reasoning_is_inconsistent() -> None:
    window = [user("which log?"), reasoning(), answer("payments-0900.log")]
    kept = [_reemitted(window[0], 0), window[2], COMPACTION]
    found = judge(Exchange("compact", {}, window, {"output": kept}))
    assert found.verdict == "inconsistent" and found.evidence["kept_without_reasoning"] == [2]
    both = [_reemitted(window[0], 0), window[1], window[2], COMPACTION]
    assert judge(Exchange("compact", {}, window, {"output": both})).verdict == "no-edit"


def test_a_compacted_window_must_end_in_one_compaction_item() -> None:
    window = SETTLED[:2]
    assert judge(Exchange("compact", {}, window, {"output": [COMPACTION, _reemitted(window[0], 0)]})).verdict == "inconsistent"
    assert judge(Exchange("compact", {}, window, {"output": [_reemitted(window[0], 0)]})).verdict == "inconsistent"


def test_a_rejection_is_matched_on_type_and_message() -> None:
    error = {"error": {"message": "No tool output found for function call call_1.", "type": "invalid_request_error",
                       "param": "input", "code": None}}
    found = judge(Exchange("compact", {}, [user("read"), call()], error, 400))
    assert found.verdict == "rejected"
    assert error_matches({"type": "invalid_request_error", "message": sem.NO_TOOL_OUTPUT}, found)
    assert not error_matches({"type": "invalid_request_error", "message": sem.TRIGGER_NOT_LAST}, found)
    assert not error_matches({"type": "server_error"}, found)


def test_a_trigger_folds_the_whole_input() -> None:
    trigger = {"type": "compaction_trigger"}
    mid = [user("read it"), call(), output(), trigger]
    assert judge(Exchange("responses", {}, mid, body([COMPACTION]))).verdict == "reached-live-task"
    settled = [user("which?"), answer("that one"), trigger]
    assert judge(Exchange("responses", {}, settled, body([COMPACTION]))).verdict == "settled-only"
    assert judge(Exchange("responses", {}, settled, body([answer("no")]))).verdict == "inconsistent"
    accepted = [user("which?"), trigger, user("and?")]
    assert judge(Exchange("responses", {}, accepted, body([answer("ok"), COMPACTION]))).verdict == "inconsistent"


def _truncation(reported: int, counts: dict[int, int]) -> str:
    items = [user("old"), answer("old answer"), user("task"), call(), output()]
    return judge(Exchange("responses", {"truncation": "auto"}, items, body([answer("done")], reported), 200,
                          counts)).verdict


def test_truncation_is_decided_by_which_suffix_the_usage_counts() -> None:
    counts = {0: 1000, 1: 700, 2: 650, 3: 90}
    assert _truncation(1000, counts) == "no-edit"
    assert _truncation(701, counts) == "settled-only"  # within the count tolerance
    assert _truncation(650, counts) == "settled-only"
    assert _truncation(90, counts) == "reached-live-task"
    assert _truncation(400, counts) == "inconsistent"  # no suffix has that count
    assert _truncation(90, {}) == "inconsistent"


def test_truncation_beside_a_threshold_that_did_not_fire_is_judged_as_truncation() -> None:
    items = [user("old"), answer("old answer"), user("task"), call(), output()]
    both = {"truncation": "auto", **THRESHOLD}
    found = judge(Exchange("responses", both, items, body([answer("done")], 90), 200, {0: 1000, 3: 90}))
    assert (found.verdict, found.mechanism) == ("reached-live-task", "truncation") and found.reached == [2]


def test_malformed_items_are_inconsistent_not_a_crash() -> None:
    bad = [user("x"), {"type": "function_call", "call_id": "c"}]  # no name, no arguments
    found = judge(Exchange("compact", {}, bad, {"output": [COMPACTION]}))
    assert found.verdict == "inconsistent" and "unreadable" in found.reasons[0]
