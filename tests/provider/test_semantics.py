"""The documented edit semantics on small literal histories."""

from __future__ import annotations

from typing import Any

import pytest

from conformance.provider.anthropic import semantics as sem


def tool_call(n: int, name: str = "search") -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": [{"type": "tool_use", "id": f"t{n}", "name": name, "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": sem.filler(100 * n)}]}]


def history(*names: str) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for n, name in enumerate(names, start=1):
        messages += tool_call(n, name)
    return messages


def test_filler_estimates_to_the_requested_size() -> None:
    assert sem.estimate_text(sem.filler(1234)) == 1234
    assert sem.estimate_text("abc " + sem.filler(50, 3)) == 51


def test_tool_loop_is_one_turn_and_a_new_request_opens_the_next() -> None:
    messages = history("a", "b") + [{"role": "assistant", "content": "done"}, {"role": "user", "content": "next"},
                                    {"role": "assistant", "content": "ok"}]
    turns = sem.assistant_turns(messages)
    assert [t.messages for t in turns] == [(1, 3, 5), (7,)]


def test_clear_tool_uses_clears_oldest_first_and_keeps_the_latest() -> None:
    request = {"messages": history("s", "s", "s", "s")}
    plan = sem.plan_clear_tool_uses({"type": sem.CLEAR_TOOL_USES, "trigger": {"type": "tool_uses", "value": 1},
                                     "keep": {"type": "tool_uses", "value": 2}}, request)
    assert [s.tool_use_id for s in plan.cleared] == ["t1", "t2"]
    assert plan.tokens == 300


def test_exclude_tools_removes_candidates_before_keep_counts() -> None:
    request = {"messages": history("x", "s", "x", "s")}
    plan = sem.plan_clear_tool_uses({"type": sem.CLEAR_TOOL_USES, "trigger": {"type": "tool_uses", "value": 1},
                                     "keep": {"type": "tool_uses", "value": 1}, "exclude_tools": ["x"]}, request)
    assert [s.tool_use_id for s in plan.cleared] == ["t2"]


def test_clear_at_least_too_high_means_no_clearing() -> None:
    request = {"messages": history("s", "s", "s")}
    edit = {"type": sem.CLEAR_TOOL_USES, "trigger": {"type": "tool_uses", "value": 1},
            "keep": {"type": "tool_uses", "value": 1}, "clear_at_least": {"type": "input_tokens", "value": 301}}
    assert not sem.plan_clear_tool_uses(edit, request).applies
    edit["clear_at_least"]["value"] = 300
    assert sem.plan_clear_tool_uses(edit, request).applies


def test_triggers_are_exceeded_not_reached() -> None:
    assert not sem.trigger_fires({"type": "tool_uses", "value": 3}, 0, 3)
    assert sem.trigger_fires({"type": "tool_uses", "value": 3}, 0, 4)
    assert sem.trigger_fires({"type": "input_tokens", "value": 10}, 11, 0)


@pytest.mark.parametrize(("keep", "expected"), [({"type": "thinking_turns", "value": 1}, 1), ("all", None),
                                                ({"type": "all"}, None)])
def test_thinking_keep_spellings(keep: Any, expected: int | None) -> None:
    assert sem.thinking_keep({"type": sem.CLEAR_THINKING, "keep": keep}) == expected


@pytest.mark.parametrize(("request_", "betas", "code"), [
    ({"compaction": {"type": "summarize"}, "messages": history("s")[:2]}, [sem.ON_DEMAND_BETA], "compaction_incomplete_turn"),
    ({"compaction": {"type": "summarize"}, "context_management": {"edits": []}, "messages": []},
     [sem.ON_DEMAND_BETA], "invalid_request_error"),
    ({"context_management": {"edits": [{"type": sem.CLEAR_TOOL_USES}]}, "messages": []}, [], "invalid_request_error"),
    ({"context_management": {"edits": [{"type": sem.CLEAR_THINKING}]}, "messages": []}, [sem.CONTEXT_BETA],
     "invalid_request_error"),
    ({"context_management": {"edits": [{"type": sem.COMPACT, "trigger": {"type": "input_tokens", "value": 49999}}]},
      "messages": []}, [sem.COMPACT_BETA], "invalid_request_error"),
])
def test_documented_rejections(request_: dict[str, Any], betas: list[str], code: str) -> None:
    rejected = sem.rejection(request_, betas)
    assert rejected is not None and rejected[0] == code


def test_compaction_after_results_reaches_the_live_task() -> None:
    request = {"compaction": {"type": "summarize"}, "messages": history("s")}
    prediction = sem.predict(request, [sem.ON_DEMAND_BETA], sem.Span(0, ("t1",)))
    assert prediction.verdict == "reached-live-task" and prediction.summarized


SEARCH = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "x"}}
FOUND = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}


@pytest.mark.parametrize(("content", "open_"), [
    ([SEARCH], True),
    ([SEARCH, FOUND, {"type": "text", "text": "done"}], False),
    ([{**SEARCH, "type": "mcp_tool_use", "server_name": "s"}], True),
    ([{"type": "text", "text": "done"}], False),
])
def test_an_unanswered_server_tool_call_is_an_open_turn(content: list[dict[str, Any]], open_: bool) -> None:
    messages = [{"role": "user", "content": "look it up"}, {"role": "assistant", "content": content}]
    assert sem.open_tool_call(messages) is open_
    rejected = sem.rejection({"compaction": {"type": "summarize"}, "messages": messages}, [sem.ON_DEMAND_BETA])
    assert (rejected is not None and rejected[0] == "compaction_incomplete_turn") is open_


def _settled_then_request() -> list[dict[str, Any]]:
    return history("s") + [{"role": "assistant", "content": "done"}, {"role": "user", "content": "next task"}]


def test_a_summary_of_only_the_request_of_a_task_reaches_it() -> None:
    """The request is part of the task in flight: folding it before any step is not settled-only."""
    messages = _settled_then_request()
    span = sem.Span(len(messages) - 1)
    assert sem.verdict_for(span, [], [], True, messages) == "reached-live-task"
    reach = sem.live_reach(span, [], [], True, messages)
    assert reach.parts == ("request",) and reach.request_messages == (len(messages) - 1,)
    assert reach.words() == [f"summarised the request of the task in flight (message {len(messages) - 1})"]
    # the same history cut after the settled answer: nothing in flight, the summary is settled-only
    assert sem.verdict_for(sem.Span(len(messages) - 1), [], [], True, messages[:-1]) == "settled-only"


def test_clearing_names_results_and_inputs_not_the_request() -> None:
    messages = history("s", "s")
    span = sem.Span(0, ("t1", "t2"))
    reach = sem.live_reach(span, ["t1"], [], False, messages, ["t1"])
    assert reach.parts == ("tool_results", "tool_inputs") and reach.request_messages == ()
    assert reach.words() == ["cleared the tool results of t1", "cleared the tool inputs of t1"]
    folded = sem.live_reach(span, [], [], True, messages)
    assert folded.parts == ("request", "tool_calls", "tool_results")


def test_the_prediction_names_what_of_the_task_was_folded() -> None:
    messages = _settled_then_request()
    request = {"compaction": {"type": "summarize"}, "messages": messages}
    prediction = sem.predict(request, [sem.ON_DEMAND_BETA], sem.Span(len(messages) - 1))
    assert prediction.verdict == "reached-live-task" and prediction.live_reached == ["request"]
    settled = sem.predict({**request, "messages": messages[:-1]}, [sem.ON_DEMAND_BETA], sem.Span(len(messages) - 1))
    assert settled.verdict == "settled-only" and settled.live_reached == []
