"""``conformance analyze`` on recordings built here: each verdict, the evidence, errors and exit codes.

The histories are built so the task in flight is known by construction (``LIVE`` below), never by
asking the code under test where it starts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from conformance.cli import main
from conformance.provider.analyze import Judgement, analyze_file, analyze_paths, exit_code, register
from conformance.provider.analyze import registry
from conformance.provider.recordings import Interaction

URL = "https://api.anthropic.com/v1/messages"
REASONING = "PLANTED-REASONING-7f3a: first I will look at the log"
KEY = "sk-ant-api03-PLANTEDKEYPLANTEDKEY0123"


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def final(text: str = "done", thinking: str | None = None) -> dict[str, Any]:
    blocks = [{"type": "thinking", "thinking": thinking, "signature": "sig"}] if thinking else []
    return {"role": "assistant", "content": [*blocks, {"type": "text", "text": text}]}


def call(tool_id: str, thinking: str | None = None) -> dict[str, Any]:
    blocks = [{"type": "thinking", "thinking": thinking, "signature": "sig"}] if thinking else []
    return {"role": "assistant", "content": [*blocks, {"type": "tool_use", "id": tool_id, "name": "read", "input": {"p": tool_id}}]}


def result(tool_id: str, tokens: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "x" * (4 * tokens)}]}


# A settled task (a1: 1000 tokens, a2: 2000), then the task in flight from message 6 (b1: 4000).
HISTORY = [user("task A"), call("a1"), result("a1", 1000), call("a2"), result("a2", 2000), final(),
           user("task B"), call("b1"), result("b1", 4000)]
LIVE = 6


def message(*blocks: dict[str, Any], applied: Sequence[dict[str, Any]] = (), stop: str = "end_turn",
            iterations: Sequence[dict[str, Any]] | None = None) -> dict[str, Any]:
    usage: dict[str, Any] = {"input_tokens": 100, "output_tokens": 5}
    if iterations is not None:
        usage["iterations"] = list(iterations)
    return {"type": "message", "role": "assistant", "model": "claude-sonnet-4-6", "stop_reason": stop,
            "content": list(blocks) or [{"type": "text", "text": "ok"}],
            "context_management": {"applied_edits": list(applied)}, "usage": usage}


def request(messages: list[dict[str, Any]], *edits: dict[str, Any], **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "claude-sonnet-4-6", "max_tokens": 1024, "messages": messages, **extra}
    if edits:
        body["context_management"] = {"edits": list(edits)}
    return body


def tool_edit(keep: int = 1, **more: Any) -> dict[str, Any]:
    return {"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": keep}, **more}


def cleared(uses: int, tokens: int) -> dict[str, Any]:
    return {"type": "clear_tool_uses_20250919", "cleared_tool_uses": uses, "cleared_input_tokens": tokens}


def cassette(tmp_path: Path, *pairs: tuple[dict[str, Any], Any], url: str = URL, status: int = 200,
             name: str = "rec.yaml") -> Path:
    interactions = [{"request": {"method": "POST", "uri": url, "body": json.dumps(req),
                                 "headers": {"x-api-key": [KEY], "content-type": ["application/json"]}},
                     "response": {"status": {"code": status, "message": "OK"}, "headers": {},
                                  "body": {"string": json.dumps(resp)}}} for req, resp in pairs]
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"version": 1, "interactions": interactions}))
    return path


def judged(path: Path) -> list[Judgement]:
    result = analyze_file(path)
    assert result.error is None, result.error
    return result.judgements


def one(tmp_path: Path, req: dict[str, Any], resp: Any, **kwargs: Any) -> Judgement:
    (found,) = judged(cassette(tmp_path, (req, resp), **kwargs))
    return found


def test_documented_set_named_and_settled(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(2, 3000)]))
    assert (found.verdict, found.live_start, found.history) == ("settled-only", LIVE, len(HISTORY))
    assert "the documented rule names [a1, a2]" in found.evidence[0] and "3% + 24 tokens an item" in found.evidence[0]


def test_a_cleared_result_of_the_task_in_flight_is_reached(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(1, 4000)]))
    assert found.verdict == "reached-live-task"
    assert "does not fit" in found.evidence[0] and "result of b1" in found.evidence[1]


def test_a_turn_continued_after_pause_turn_is_in_flight(tmp_path: Path) -> None:
    # the paused turn is sent back last, as the docs say: the model continues it, so b1 is live
    paused = {"role": "assistant", "content": [
        {"type": "text", "text": "Let me search the web for that."},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}]}
    found = one(tmp_path, request([*HISTORY, paused], tool_edit(keep=1)), message(applied=[cleared(1, 4000)]))
    assert (found.verdict, found.live_start) == ("reached-live-task", LIVE)


def test_a_result_of_an_excluded_tool_is_no_candidate(tmp_path: Path) -> None:
    def used(tool_id: str, name: str) -> dict[str, Any]:
        return {"role": "assistant", "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": {}}]}
    # a1 (a settled result of the excluded tool) weighs what was reported; only b1 (live, its estimate
    # 30% under its real count, as dense code or JSON is) can have been cleared
    history = [user("task A"), used("a1", "search"), result("a1", 2000), final(), user("task B"), used("b1", "read"),
               result("b1", 1400), used("b2", "read"), result("b2", 10)]
    edit = tool_edit(keep=1, exclude_tools=["search"])
    found = one(tmp_path, request(history, edit), message(applied=[cleared(1, 2000)]))
    assert found.verdict == "reached-live-task" and "result of b1" in found.evidence[-1]
    found = one(tmp_path, request(history[:5], edit), message(applied=[cleared(1, 2000)]), name="only-excluded.yaml")
    assert found.verdict == "inconsistent"  # (the one result there is the excluded tool's)
    # a live result of the excluded tool that weighs what a settled one does: a server that broke the
    # rule cannot pass as settled
    history = [user("task A"), used("a1", "read"), result("a1", 2000), final(), user("task B"), used("b1", "search"),
               result("b1", 2000), used("b2", "read"), result("b2", 10)]
    found = one(tmp_path, request(history, edit), message(applied=[cleared(1, 2000)]), name="live-excluded.yaml")
    assert found.verdict == "cannot-tell"


def test_a_token_count_of_a_finished_conversation_is_settled(tmp_path: Path) -> None:
    # counting right after the answer: the last assistant message is finished, not continued
    edit = tool_edit(keep=0, trigger={"type": "input_tokens", "value": 1000})
    found = one(tmp_path, request([*HISTORY, final("B done")], edit),
                {"input_tokens": 600, "context_management": {"original_input_tokens": 7600}}, url=COUNT_URL)
    assert (found.verdict, found.live_start) == ("settled-only", len(HISTORY) + 1)


def test_loose_fit_states_its_tolerance(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(2, 4500)]))
    assert found.verdict == "cannot-tell"  # loosely, [a1, b1] and [a2, b1] fit 4500 tokens too
    history = [*HISTORY[:8], result("b1", 40000)]
    found = one(tmp_path, request(history, tool_edit(keep=1)), message(applied=[cleared(2, 4500)]))
    assert found.verdict == "settled-only" and "a factor of 2" in found.evidence[0]


def test_sets_that_disagree_about_the_task_in_flight_cannot_be_told(tmp_path: Path) -> None:
    history = [*HISTORY[:8], result("b1", 2000)]  # b1 now weighs what a2 weighs
    found = one(tmp_path, request(history, tool_edit(keep=1)), message(applied=[cleared(1, 2000)]))
    assert found.verdict == "cannot-tell"
    assert "cannot be told" in found.evidence[-1] and "[a2]" in found.evidence[-1] and "[b1]" in found.evidence[-1]


def test_an_edit_that_reports_no_items_but_tokens_is_inconsistent(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(0, 4000)]))
    assert found.verdict == "inconsistent" and "no items cleared alongside tokens" in found.evidence[-1]
    found = one(tmp_path, request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(0, 0)]))
    assert found.verdict == "no-edit"


def test_a_live_turn_whose_thinking_has_empty_text_is_a_turn_with_thinking(tmp_path: Path) -> None:
    """On current models a thinking block's text may be empty (the signature carries the reasoning):
    its size is unknown, so a report that fits no settled turn is the live one's."""
    live_call = {"role": "assistant", "content": [{"type": "thinking", "thinking": "", "signature": "sig"},
                                                  {"type": "tool_use", "id": "b1", "name": "read", "input": {}}]}
    history = [user("task A"), final(thinking="a" * 400), user("task B"), final(thinking="b" * 400),
               user("task C"), live_call, result("b1", 10)]  # the task in flight from message 4
    report = {"type": "clear_thinking_20251015", "cleared_thinking_turns": 1, "cleared_input_tokens": 900}
    found = one(tmp_path, request(history, thinking_edit(keep=1)), message(applied=[report]))
    assert (found.verdict, found.live_start) == ("reached-live-task", 4)
    assert "thinking of turn 3" in found.evidence[-1]
    report["cleared_input_tokens"] = 100  # what a settled turn weighs: either may have gone
    assert one(tmp_path, request(history, thinking_edit(keep=1)), message(applied=[report])).verdict == "cannot-tell"


def test_a_search_that_stops_short_gives_no_verdict_the_sets_left_could_contradict(tmp_path: Path) -> None:
    steps = [m for n in range(40) for m in (call(f"t{n:02d}"), result(f"t{n:02d}", 10 if n < 37 else 1000))]
    history = [user("task A"), *steps[:74], final(), user("task B"), *steps[74:]]  # t37-t39 in flight
    found = one(tmp_path, request(history, tool_edit(keep=0)), message(applied=[cleared(6, 2040)]))
    assert found.verdict == "cannot-tell" and "too many to read them all" in found.evidence[0]


def test_clearing_into_the_kept_uses_is_inconsistent(tmp_path: Path) -> None:
    history = HISTORY[:7]  # the task in flight is its request alone
    found = one(tmp_path, request(history, tool_edit(keep=1)), message(applied=[cleared(2, 3000)]))
    assert found.verdict == "inconsistent" and any("leaves at most 1" in e for e in found.evidence)


def test_a_report_no_set_fits_is_inconsistent_when_live_results_exist(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, tool_edit(keep=0)), message(applied=[cleared(1, 9000)]))
    assert found.verdict == "inconsistent" and "no set of that size fits" in found.evidence[0]


def test_a_report_of_an_edit_not_requested_is_inconsistent(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, {"type": "compact_20260112"}), message(applied=[cleared(1, 1000)]))
    assert found.verdict == "inconsistent" and "no such edit" in found.evidence[0]


def test_no_edit(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, tool_edit()), message())
    assert found.verdict == "no-edit" and found.strategy == "clear_tool_uses_20250919"


THINKING = [user("task A"), final("A done", thinking="t" * 400), user("task B"), call("b1", thinking="u" * 2000),
            result("b1", 10)]


def thinking_edit(keep: int = 1) -> dict[str, Any]:
    return {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": keep}}


def turns(count: int, tokens: int) -> dict[str, Any]:
    return {"type": "clear_thinking_20251015", "cleared_thinking_turns": count, "cleared_input_tokens": tokens}


def test_thinking_of_a_settled_turn(tmp_path: Path) -> None:
    found = one(tmp_path, request(THINKING, thinking_edit(), thinking={"type": "enabled", "budget_tokens": 1024}),
                message(applied=[turns(1, 100)]))
    assert found.verdict == "settled-only" and found.live_start == 2 and "turns [1]" in found.evidence[0]


def test_thinking_of_the_turn_in_flight(tmp_path: Path) -> None:
    found = one(tmp_path, request(THINKING, thinking_edit(), thinking={"type": "enabled", "budget_tokens": 1024}),
                message(applied=[turns(1, 500)]))
    assert found.verdict == "reached-live-task" and "thinking of turn 2" in found.evidence[-1]


def test_scrubbed_thinking_sizes_cannot_single_out_a_turn(tmp_path: Path) -> None:
    history = [user("task A"), final("A", thinking="[scrubbed:0123456789ab]"), user("task B"),
               call("b1", thinking="[scrubbed:ba9876543210]"), result("b1", 10)]
    found = one(tmp_path, request(history, thinking_edit(), thinking={"type": "enabled", "budget_tokens": 1024}),
                message(applied=[turns(1, 100)]))
    assert found.verdict == "cannot-tell" and any("scrubbed" in e for e in found.evidence)


def compaction_block(text: str = "summary") -> dict[str, Any]:
    return {"type": "compaction", "content": text}


def test_threshold_compaction_inside_a_tool_loop_names_what_it_folded(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50000}}),
                message(compaction_block(), {"type": "text", "text": "B done"},
                        iterations=[{"type": "compaction", "input_tokens": 60000}, {"type": "message", "input_tokens": 300}]))
    assert found.verdict == "reached-live-task"
    assert "the compaction pass cost 60000 input tokens" in found.evidence[0]
    assert "then the answer was computed from 300" in found.evidence[0]
    assert "the request (message 6), 1 tool use(s) b1, 1 tool result(s)" in found.evidence[1]


def test_compaction_of_the_request_alone_reaches_the_task(tmp_path: Path) -> None:
    found = one(tmp_path, request([user("long question")], {"type": "compact_20260112"}),
                message(compaction_block(), {"type": "text", "text": "answer"},
                        iterations=[{"type": "compaction", "input_tokens": 160000}, {"type": "message"}]))
    assert found.verdict == "reached-live-task" and "the request (message 0)" in found.evidence[1]


def test_on_demand_compaction_after_a_settled_answer(tmp_path: Path) -> None:
    history = HISTORY[:6]
    found = one(tmp_path, request(history, compaction={}),
                message(compaction_block(), stop="compaction", iterations=[{"type": "compaction", "input_tokens": 900}]))
    assert (found.verdict, found.live_start, found.strategy) == ("settled-only", 6, "on-demand compaction")


@pytest.mark.parametrize("extra, iterations, stop, says", [
    ({"compaction": {}}, [{"type": "message"}], "compaction", "no compaction pass"),
    ({"compaction": {}}, None, "end_turn", "stop_reason 'end_turn'"),
    ({"context_management": {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 100000}}]}},
     [{"type": "compaction", "input_tokens": 60000}], "end_turn", "below the trigger 100000"),
])
def test_compaction_reports_that_do_not_add_up(tmp_path: Path, extra: dict[str, Any], iterations: Any, stop: str,
                                               says: str) -> None:
    history = HISTORY[:6] if "compaction" in extra else HISTORY[:7]  # (a threshold is reached by a request to answer)
    found = one(tmp_path, request(history, **extra), message(compaction_block(), stop=stop, iterations=iterations))
    assert found.verdict in ("inconsistent" if "compaction" in extra else "reached-live-task")
    assert any(says in e for e in found.evidence), found.evidence


def test_a_compaction_pass_without_a_block_is_inconsistent(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY[:6], {"type": "compact_20260112"}),
                message(iterations=[{"type": "compaction", "input_tokens": 200000}, {"type": "message"}]))
    assert found.verdict == "inconsistent"


def test_a_carried_block_inside_the_task_drops_its_request(tmp_path: Path) -> None:
    history = [user("task"), {"role": "assistant", "content": [compaction_block(), {"type": "tool_use", "id": "t1",
                                                                                     "name": "read", "input": {}}]},
               result("t1", 10)]
    found = one(tmp_path, request(history, {"type": "compact_20260112"}), message())
    assert found.verdict == "reached-live-task" and "the request (message 0)" in found.evidence[0]


def _paused() -> dict[str, Any]:
    return {"role": "assistant", "content": [compaction_block("the user asked B"), {"type": "tool_use", "id": "t1",
                                                                                     "name": "read", "input": {}}]}


def test_a_carried_block_that_starts_the_task_follows_the_chain(tmp_path: Path) -> None:
    first = (request([user("task B")], {"type": "compact_20260112"}),
             message(*_paused()["content"], stop="tool_use", iterations=[{"type": "compaction", "input_tokens": 200000},
                                                                          {"type": "message"}]))
    second = (request([_paused(), result("t1", 10)], {"type": "compact_20260112"}), message())
    earlier, later = judged(cassette(tmp_path, first, second))
    assert earlier.verdict == "reached-live-task"
    assert later.verdict == "reached-live-task" and "from interaction 0" in later.evidence[0]
    (alone,) = judged(cassette(tmp_path, second, name="alone.yaml"))
    assert alone.verdict == "cannot-tell" and "not produced in this recording" in alone.evidence[0]


def test_a_chain_that_ends_settled(tmp_path: Path) -> None:
    first = (request([user("A"), final("A done")], compaction={}),
             message(compaction_block("A was answered"), stop="compaction", iterations=[{"type": "compaction"}]))
    second = (request([{"role": "assistant", "content": [compaction_block("A was answered")]}, user("B")],
                      {"type": "compact_20260112"}), message())
    earlier, later = judged(cassette(tmp_path, first, second))
    assert (earlier.verdict, later.verdict) == ("settled-only", "settled-only")
    assert "interaction 0's history, all settled" in later.evidence[0]


COUNT_URL = "https://api.anthropic.com/v1/messages/count_tokens"


@pytest.mark.parametrize("history, original, now, verdict", [
    (HISTORY, 8000, 8000, "no-edit"),
    (HISTORY[:7], 8000, 5000, "settled-only"),
    (HISTORY, 8000, 1000, "reached-live-task"),
    (HISTORY, 8000, 7000, "cannot-tell"),
])
def test_count_tokens_with_edits(tmp_path: Path, history: list[dict[str, Any]], original: int, now: int,
                                 verdict: str) -> None:
    edit = tool_edit(keep=0, trigger={"type": "input_tokens", "value": 1000})
    found = one(tmp_path, request(history, edit), {"input_tokens": now,
                                                   "context_management": {"original_input_tokens": original}},
                url=COUNT_URL)
    assert found.verdict == verdict and found.strategy.startswith("count_tokens")


@pytest.mark.parametrize("history, original, now, verdict", [
    (HISTORY, 8000, 8000, "no-edit"),
    (HISTORY[:7], 8000, 5000, "settled-only"),
    (HISTORY, 8000, 1000, "reached-live-task"),
])
def test_count_tokens_told_by_its_answer_without_the_url(tmp_path: Path, history: list[dict[str, Any]],
                                                         original: int, now: int, verdict: str) -> None:
    """A log that redacts the URL (or keeps none) still holds a token count's answer: its shape tells it."""
    edit = tool_edit(keep=0, trigger={"type": "input_tokens", "value": 1000})
    req, resp = request(history, edit), {"input_tokens": now, "context_management": {"original_input_tokens": original}}
    redacted = one(tmp_path, req, resp, url="**REDACTED**")
    lines = tmp_path / "log.jsonl"
    lines.write_text(json.dumps({"request": req, "response": resp}) + "\n")
    (unnamed,) = judged(lines)
    for found in (redacted, unnamed):
        assert found.verdict == verdict and found.strategy.startswith("count_tokens"), found


def test_a_rejected_request(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, tool_edit()), {"type": "error", "error": {"type": "invalid_request_error",
                                                                                      "message": "bad"}}, status=400)
    assert found.verdict == "rejected" and found.evidence == ["status 400: invalid_request_error"]


@pytest.mark.parametrize("extra, label", [
    ({}, ""),
    ({"thinking": {"type": "disabled"}}, ""),
    ({"thinking": {"type": "enabled", "budget_tokens": 2048}}, "preserved thinking"),
    ({"thinking": {"type": "adaptive"}}, "preserved thinking"),
], ids=["no-thinking", "thinking-off", "thinking-on", "adaptive"])
def test_a_broken_history_is_labelled_by_what_the_request_asks_for(tmp_path: Path, extra: dict[str, Any],
                                                                  label: str) -> None:
    """A rejection judged without context management names preserved thinking only where the request turns it on."""
    refused = {"type": "error", "error": {"type": "invalid_request_error",
                                          "message": "messages.8: `tool_use` ids were found without `tool_result` "
                                                     "blocks immediately after: b1."}}
    found = one(tmp_path, request([*HISTORY[:8], user("any news?")], **extra), refused, status=400)
    assert found.verdict == "broken-history" and found.strategy == label


def test_without_context_management_counted_not_judged(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY), message())
    assert found.verdict == "not-judged" and not found.judged


@pytest.mark.parametrize("req, resp, says", [
    (request(HISTORY, {"type": "clear_everything_20991231"}), message(),
     "edit `clear_everything_20991231` at context_management.edits[0] is not a type this judge models"),
    (request(HISTORY, tool_edit()), message(applied=[{"type": "forget_20991231"}]),
     "applied edit `forget_20991231` at context_management.applied_edits[0] is not a type this judge models"),
])
def test_an_unmodelled_edit_type_is_named_and_cannot_be_told(tmp_path: Path, req: Any, resp: Any, says: str) -> None:
    found = one(tmp_path, req, resp)
    assert found.verdict == "cannot-tell" and says in found.evidence and found.error is None


def test_an_unmodelled_type_does_not_hide_a_modelled_finding(tmp_path: Path) -> None:
    req = request(HISTORY, tool_edit(keep=1), {"type": "forget_20991231"})
    found = one(tmp_path, req, message(applied=[cleared(1, 4000)]))
    assert found.verdict == "reached-live-task" and any("forget_20991231" in line for line in found.evidence)


@pytest.mark.parametrize("req, resp, says", [
    (request(HISTORY, tool_edit()), {**message(), "content": [{"text": "no type"}]}, "content[0]"),
    ({"model": "m", "context_management": {"edits": []}}, message(), "no 'messages' list"),
])
def test_unreadable_interactions_are_errors_and_the_rest_run(tmp_path: Path, req: Any, resp: Any, says: str) -> None:
    path = cassette(tmp_path, (req, resp), (request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(2, 3000)])))
    bad, good = judged(path)
    assert bad.verdict == "error" and says in (bad.error or "") and (bad.file, bad.index) == (str(path), 0)
    assert good.verdict == "settled-only"
    assert exit_code(analyze_paths([path])) == 0  # listed and counted; the settled verdict still stands


class Raising:
    provider = "anthropic"

    def claims(self, item: Interaction) -> bool:
        return True

    def judge(self, item: Interaction, earlier: Sequence[Interaction]) -> Judgement:
        raise RuntimeError("boom")


def test_a_judge_that_raises_is_an_error_of_that_interaction(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_registered", [])
    register(Raising())
    (found,) = judged(cassette(tmp_path, (request(HISTORY, tool_edit()), message())))
    assert found.verdict == "error" and "raised RuntimeError (test_analyze.py:" in (found.error or "")
    assert "boom" not in (found.error or "")


class Other:
    provider = "elsewhere"

    def claims(self, item: Interaction) -> bool:
        return item.host == "llm.example"

    def judge(self, item: Interaction, earlier: Sequence[Interaction]) -> Judgement:
        return Judgement(item.file, item.index, self.provider, item.endpoint, "settled-only", evidence=[str(len(earlier))])


def test_a_registered_judge_plugs_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_registered", [])
    register(Other())
    path = cassette(tmp_path, ({"input": []}, {"output": []}), ({"input": []}, {"output": []}),
                    url="https://llm.example/v9/respond")
    assert [(j.provider, j.verdict, j.evidence) for j in judged(path)] == [
        ("elsewhere", "settled-only", ["0"]), ("elsewhere", "settled-only", ["1"])]
    unclaimed = cassette(tmp_path, ({"input": []}, {"output": []}), url="https://unknown.example/x", name="u.yaml")
    assert [(j.provider, j.verdict) for j in judged(unclaimed)] == [("unknown", "not-judged")]


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["analyze", *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def _words(text: str) -> str:
    """Returns ``text`` with its line breaks and runs of spaces as single spaces (a long tmp path
    wraps a line at 100 columns)."""
    return " ".join(text.split())


def test_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settled = cassette(tmp_path, (request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(2, 3000)])), name="s.yaml")
    reached = cassette(tmp_path, (request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(1, 4000)])), name="r.yaml")
    counted = cassette(tmp_path, (request(HISTORY), message()), name="n.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("interactions: 7\n")
    assert _cli([str(settled)], capsys)[0] == 0
    assert _cli([str(settled), str(reached)], capsys)[0] == 1
    assert _cli([str(counted)], capsys)[0] == 2  # nothing to judge is not a pass
    code, out = _cli([str(settled), str(broken)], capsys)
    out = _words(out)
    assert code == 0 and f"{broken}: 'interactions' is not a list" in out and ", 1 unreadable" in out
    code, out = _cli([str(reached), str(broken)], capsys)  # an unreadable file hides no finding
    out = _words(out)
    assert code == 1 and "REACHED-LIVE-TASK" in out and f"Unreadable {broken}: 'interactions' is not a list" in out
    lines = tmp_path / "log.jsonl"
    lines.write_text("{not json\n{}\n")
    code, out = _cli([str(lines)], capsys)
    out = _words(out)
    assert code == 2 and f"{lines}#0: line 1 is not JSON" in out and "2 unreadable" in out
    assert f"{lines}#1: line 2 has no request or response" in out
    assert _cli([str(broken)], capsys)[0] == 2  # nothing could be judged
    assert _cli([str(tmp_path / "missing.yaml")], capsys)[0] == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _cli([str(empty)], capsys)[0] == 2


@pytest.mark.slow
def test_table_summary_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = cassette(tmp_path, (request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(1, 4000)])),
                    (request(HISTORY), message()))
    code, out = _cli([str(path)], capsys)
    assert code == 1 and out.splitlines()[0] == str(path)
    assert "reached-live-task" in out and "Findings" in out
    assert out.splitlines()[-1] == ("analyze: 1 file(s), 2 interaction(s): 1 judged (1 reached-live-task), "
                                    "1 without context management or a judge, 0 unreadable")
    code, out = _cli([str(path), "--json", "-"], capsys)
    records = json.loads(out)
    assert code == 1 and [set(r) for r in records] == [{"file", "index", "provider", "endpoint", "model", "strategy",
                                                        "live_start", "history", "verdict", "evidence", "error"}] * 2
    assert [(r["index"], r["verdict"], r["live_start"]) for r in records] == [(0, "reached-live-task", 6),
                                                                             (1, "not-judged", None)]


def test_no_reasoning_text_or_key_in_output_json_or_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history = [user("task A"), final("A done", thinking=REASONING), user("task B"), call("b1", thinking=REASONING),
               result("b1", 10)]
    thinking = {"type": "enabled", "budget_tokens": 1024}
    path = cassette(tmp_path, (request(history, thinking_edit(), thinking=thinking), message(applied=[turns(1, 12)])),
                    (request(history, {"type": "clear_thinking_20251015", "keep": "weird"}, thinking=thinking), message()),
                    (request(history, {"type": "compact_20260112"}, thinking=thinking),
                     message({"type": "thinking", "thinking": REASONING, "signature": "s"}, compaction_block(REASONING))))
    report = tmp_path / "report"
    outputs = [_cli([str(path)], capsys)[1], _cli([str(path), "--json", "-"], capsys)[1],
               _cli([str(path), "--report", str(report)], capsys)[1]]
    outputs += [p.read_text() for p in sorted(report.iterdir())]
    assert len(outputs) == 6
    for text in outputs:
        assert "PLANTED-REASONING" not in text and KEY not in text and "first I will look" not in text


def test_unreadable_traffic_no_judge_claims_is_counted(tmp_path: Path) -> None:
    path = tmp_path / "other.yaml"
    path.write_text(yaml.safe_dump({"interactions": [{
        "request": {"method": "POST", "uri": "https://llm.example/v1/generate", "body": "multipart junk"},
        "response": {"status": {"code": 200}, "body": {"string": "{}"}}}]}))
    (found,) = judged(path)
    assert found.verdict == "not-judged" and "no judge claims this traffic" in found.evidence[0]


def test_a_messages_endpoint_answering_something_else_is_an_error(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, tool_edit()), {"object": "event-stream", "events": []})
    assert found.verdict == "error" and "not a Messages API message" in (found.error or "")


def test_an_unmodelled_response_block_is_named_and_no_edit_becomes_cannot_tell(tmp_path: Path) -> None:
    found = one(tmp_path, request(HISTORY, tool_edit(keep=1)),
                message({"type": "compaction_v2", "content": "?"}, {"type": "text", "text": "ok"}))
    assert found.verdict == "cannot-tell", found.evidence
    assert "response block `compaction_v2` at content[0] is not a type this judge models" in found.evidence
    known = one(tmp_path, request(HISTORY, tool_edit(keep=1)),
                message({"type": "web_search_tool_result", "content": []}, {"type": "text", "text": "ok"}))
    assert known.verdict == "no-edit", known.evidence
