"""The reference compactor's own promises, beyond what the scenarios check."""

from __future__ import annotations

import copy

import pytest

import conformance_reference as reference
from conformance_reference import InterleavedTasks, LiveTaskOverBudget, ReorderedHistory, compact


def think(text: str) -> dict:
    return {"type": "thinking", "thinking": text, "signature": f"sig-{text}"}


def use(i: int) -> dict:
    return {"type": "tool_use", "id": f"toolu_{i:02d}", "name": "read", "input": {"n": i}}


def result(i: int) -> dict:
    return {"type": "tool_result", "tool_use_id": f"toolu_{i:02d}", "content": f"r{i}"}


def settled_task(k: int) -> list[dict]:
    return [{"role": "user", "content": f"task {k}"},
            {"role": "assistant", "content": [think(f"t{k}"), use(k)]},
            {"role": "user", "content": [result(k)]},
            {"role": "assistant", "content": [think(f"a{k}"), {"type": "text", "text": f"done {k}"}]}]


def live_task(steps: int) -> list[dict]:
    out = [{"role": "user", "content": "the live task"}]
    for s in range(steps):
        out += [{"role": "assistant", "content": [think(f"l{s}"), use(50 + s)]},
                {"role": "user", "content": [result(50 + s)]}]
    return out


def test_live_span_is_the_same_objects_in_order() -> None:
    history = settled_task(1) + settled_task(2) + live_task(6)
    out = compact(history, keep_turns=4)
    live = history[8:]
    assert len(out) >= len(live)
    assert all(a is b for a, b in zip(out[-len(live):], live))


def test_input_is_never_mutated() -> None:
    history = settled_task(1) + settled_task(2) + live_task(3)
    before = copy.deepcopy(history)
    compact(history, keep_turns=4)
    assert history == before


def test_settled_reasoning_goes_unknown_blocks_stay() -> None:
    history = settled_task(1)
    history[3]["content"].append({"type": "hologram_20270101", "payload": {"x": 1}})
    history += live_task(1)
    out = compact(history, keep_turns=10)
    kinds = [b["type"] for m in out[:4] for b in m["content"] if isinstance(m["content"], list)]
    assert "thinking" not in kinds and "hologram_20270101" in kinds


def test_window_opens_on_a_request_never_an_orphaned_result() -> None:
    history = settled_task(1) + settled_task(2) + live_task(1)
    out = compact(history, keep_turns=3)  # a count that would open on task 2's tool result
    assert out[0] == {"role": "user", "content": "the live task"}


def test_a_task_that_never_settles_is_never_trimmed() -> None:
    history = live_task(50)
    assert compact(history, keep_turns=4) == history


def test_budget_smaller_than_the_live_task_raises() -> None:
    history = settled_task(1) + live_task(20)
    with pytest.raises(LiveTaskOverBudget) as info:
        compact(history, budget_tokens=50)
    assert info.value.live_messages == 41


def test_budget_drops_oldest_settled_tasks_first() -> None:
    history = settled_task(1) + settled_task(2) + live_task(0)  # the task's first call
    full = compact(history, keep_turns=20)
    budget = reference.estimate_tokens(full[4:])  # room for task 2 and the live task, not task 1
    out = compact(history, keep_turns=20, budget_tokens=budget)
    assert out == full[4:]
    assert out[0]["content"] == "task 2"


def test_budget_cut_holds_for_the_whole_task_then_refuses() -> None:
    """The settled cut a budget makes at a task's first call is the cut of every later call of
    that task (its thinking is bound to it); once the task outgrows it, the reference refuses."""
    settled = settled_task(1) + settled_task(2)
    settled[0] = {"role": "user", "content": "task 1 " + "x" * 800}  # the oldest task is the large one
    cut = compact(settled + live_task(0), keep_turns=20)[4:-1]  # task 2 without its reasoning
    budget = reference.estimate_tokens(cut + live_task(3))  # room for task 2 beside 3 steps, never for task 1
    cuts = []
    for steps in range(4):
        out = compact(settled + live_task(steps), keep_turns=20, budget_tokens=budget)
        cuts.append(out[: len(out) - len(live_task(steps))])
    assert all(cut == cuts[0] for cut in cuts) and cuts[0][0]["content"] == "task 2"
    with pytest.raises(LiveTaskOverBudget) as info:
        compact(settled + live_task(4), keep_turns=20, budget_tokens=budget)
    assert info.value.settled_tokens == reference.estimate_tokens(cuts[0])
    assert "settled history it started with" in str(info.value)


def test_reordered_store_raises() -> None:
    history = settled_task(1) + live_task(2)
    history[-2], history[-1] = history[-1], history[-2]
    with pytest.raises(ReorderedHistory):
        compact(history)


def test_interleaved_late_result_raises() -> None:
    history = [{"role": "user", "content": "A"},
               {"role": "assistant", "content": [use(1)]},
               {"role": "user", "content": [{"type": "text", "text": "meanwhile, B?"}]},
               {"role": "assistant", "content": [{"type": "text", "text": "B done"}]},
               {"role": "user", "content": [result(1)]}]
    with pytest.raises(InterleavedTasks):
        compact(history)


def test_progress_note_does_not_settle_the_task() -> None:
    history = settled_task(1) + [{"role": "user", "content": "go"},
                                 {"role": "assistant", "content": [{"type": "text", "text": "working..."}]},
                                 {"role": "assistant", "content": [think("x"), use(9)]},
                                 {"role": "user", "content": [result(9)]}]
    assert reference.task_boundary(history) == 4


def test_paused_server_tool_turn_is_live() -> None:
    paused = {"role": "assistant", "content": [
        {"type": "text", "text": "searching"},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}]}
    history = settled_task(1) + [{"role": "user", "content": "find it"}, paused]
    assert reference.task_boundary(history) == 4


def test_negative_window_is_rejected() -> None:
    with pytest.raises(ValueError):
        compact([], keep_turns=-1)


def notice(n: int) -> dict:
    return {"role": "user", "content": [{"type": "text", "text": f"[background task bg_{n} finished]"}]}


def test_a_settled_last_task_over_budget_is_trimmed_as_settled_not_refused() -> None:
    last = settled_task(2)
    last[3]["content"][0] = think("a" * 4000)  # its reasoning alone is over the budget
    history = settled_task(1) + last
    budget = reference.estimate_tokens([m for m in (reference.compactor._strip_reasoning(x) for x in last)])
    assert reference.estimate_tokens(last) > budget
    out = compact(history, budget_tokens=budget)  # nothing in flight: no LiveTaskOverBudget
    assert out == [reference.compactor._strip_reasoning(m) for m in last]
    assert compact(history, budget_tokens=1) == []  # even the last task goes when nothing of it fits


def test_a_task_in_flight_over_budget_still_raises() -> None:
    history = settled_task(1) + live_task(3)
    with pytest.raises(LiveTaskOverBudget):
        compact(history, budget_tokens=10)


def test_a_notice_between_call_and_result_in_flight_comes_back_as_it_came() -> None:
    live = live_task(2)
    live.insert(2, notice(1))  # between the first call and its result
    history = settled_task(1) + settled_task(2) + live
    out = compact(history, keep_turns=2)
    assert all(a is b for a, b in zip(out[-len(live):], live)) and len(out) >= len(live)


def test_the_window_never_opens_on_a_notice_inside_a_settled_step() -> None:
    task = settled_task(2)
    task.insert(2, notice(1))  # request, call, notice, result, answer
    history = settled_task(1) + task + settled_task(3) + live_task(1)
    out = compact(history, keep_turns=7)  # the count lands on the notice: the step goes whole
    assert out[0]["content"] == "task 3"
    out = compact(history, keep_turns=8)  # the count lands on the call: the step goes whole
    assert out[0]["content"] == "task 3"
    out = compact(history, keep_turns=9)  # the window opens on task 2's request: kept as it came
    assert out[0]["content"] == "task 2" and out[2] is task[2]


def test_budget_trimming_never_opens_on_a_notice_inside_a_step() -> None:
    task = settled_task(2)
    task.insert(2, notice(1))
    history = task + settled_task(3) + live_task(0)
    full = compact(history, keep_turns=20)
    budget = reference.estimate_tokens(full) - 1  # one token short: the oldest whole task goes
    assert compact(history, keep_turns=20, budget_tokens=budget)[0]["content"] == "task 3"


def test_a_paused_turn_of_a_made_up_server_kind_is_live() -> None:
    paused = {"role": "assistant", "content": [
        {"type": "text", "text": "looking it up"},
        {"type": "orrery_tool_use", "id": "srvtoolu_2", "name": "orrery_lookup_20270301", "input": {}}]}
    history = settled_task(1) + [{"role": "user", "content": "where is Mars?"}, paused]
    assert reference.task_boundary(history) == 4
