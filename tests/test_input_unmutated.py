"""``input.unmutated`` sees every change a target makes to the history it was given: on a thread it
left running or a timer it set (after the call returned), on its second call or a call of the agent
loop, and a list that became a tuple (the same JSON, but no longer the list its owner appends to)."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any

import pytest

from conformance import RunOptions, Scenario, Truth, call_guarded, check_scenario, from_callable, run
from conformance.engine.results import CheckResult
from conformance.engine.target import describe_mutation

History = list[dict[str, Any]]

# two tasks: the second (from message 4) is in flight, its tool call awaiting the result that ends it
HISTORY: History = [
    {"role": "user", "content": "List the failed jobs."},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "jobs", "input": {"limit": 0}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "none"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "No failed jobs."}]},
    {"role": "user", "content": "Now list the running ones."},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_2", "name": "jobs", "input": {"limit": 0}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "job 7"}]},
]
SCENARIO = Scenario("t.mutation", "two tasks, a tool call in flight", "t", HISTORY, Truth(4, (), (0, 4)))


def _unmutated(target: Callable[..., Any], options: RunOptions = RunOptions()) -> CheckResult:
    """Returns the ``input.unmutated`` record of ``target`` on the scenario, checked in this process."""
    results = check_scenario(from_callable(target), copy.deepcopy(SCENARIO), options)
    return next(r for r in results if r.invariant == "input.unmutated")


def _clear_last(history: History) -> None:
    """Empties the content list of the history's last message, in place."""
    history[-1]["content"].clear()


def _lines(record: CheckResult) -> list[str]:
    return [record.message, *record.details.get("diff", [])]


class _LateThread:
    """A compactor that returns a correct copy, but its first call leaves a thread that empties the
    last message of the history it was given once the next call lets it (an ``Event``), after the
    first call returned; the next call waits for that thread before it returns."""

    def __init__(self) -> None:
        self.go = threading.Event()
        self.thread: threading.Thread | None = None
        self.changed: list[int] = []  # the lengths of the histories the thread emptied a message of

    def __call__(self, history: History) -> History:
        out = copy.deepcopy(history)
        if self.thread is None:
            def later() -> None:
                self.go.wait(10)
                _clear_last(history)
                self.changed.append(len(history))

            self.thread = threading.Thread(target=later, daemon=True)
            self.thread.start()
        elif not self.go.is_set():
            self.go.set()
            self.thread.join(10)
        return out


def test_a_thread_that_changes_the_history_after_the_call_returned_fails_input_unmutated() -> None:
    target = _LateThread()
    record = _unmutated(target)
    assert target.changed == [len(HISTORY)]  # the thread did empty the first call's last message
    assert record.outcome == "fail"
    assert "the call changed the history it was given (after it returned):" in _lines(record)
    assert "input[6]['content'][0]: (tool_result toolu_2) -> (absent)" in _lines(record)


def test_a_timer_set_to_change_the_history_shortly_after_the_call_fails_input_unmutated() -> None:
    set_timers: list[threading.Timer] = []

    def sets_a_timer(history: History) -> History:
        if not set_timers:  # the first call only: the scenario's other calls may well end before it fires
            set_timers.append(threading.Timer(0.01, _clear_last, (history,)))
            set_timers[0].start()
        return copy.deepcopy(history)

    record = _unmutated(sets_a_timer)
    assert record.outcome == "fail" and "the call changed the history it was given (after it returned):" in _lines(record)


@pytest.mark.slow
def test_a_timer_set_to_change_the_history_is_caught_in_a_worker_process() -> None:
    report = run([from_callable(timer_on_every_call)], [SCENARIO], options=RunOptions(jobs=1))
    assert [r.outcome for r in report.results if r.invariant == "input.unmutated"] == ["fail"]


def timer_on_every_call(history: History) -> History:
    """Returns a correct copy, and sets a timer that empties the given history's last message."""
    threading.Timer(0.01, _clear_last, (history,)).start()
    return copy.deepcopy(history)


def test_a_change_made_only_by_a_call_of_the_agent_loop_fails_input_unmutated() -> None:
    def on_shorter_histories(history: History) -> History:  # the agent loop's calls hold a prefix
        out = copy.deepcopy(history)
        if len(history) < len(HISTORY):
            history[-1]["content"] = "edited"
        return out

    record = _unmutated(on_shorter_histories)
    assert record.outcome == "fail"
    assert "a call of the agent loop (on 1 message) changed the history it was given (while it ran):" in _lines(record)


def test_a_change_made_only_by_the_second_call_fails_input_unmutated() -> None:
    calls: list[int] = []

    def on_its_second_call(history: History) -> History:
        calls.append(len(history))
        out = copy.deepcopy(history)
        if len(calls) == 2:
            history[0]["content"] = "edited"
        return out

    record = _unmutated(on_its_second_call, RunOptions(invariants=frozenset({"input.unmutated", "output.idempotent"})))
    assert calls == [len(HISTORY), len(HISTORY)]  # the call, then the second call on its output
    assert record.outcome == "fail"
    assert "the second call (on its own output) changed the history it was given (while it ran):" in _lines(record)


def test_a_target_that_changes_nothing_still_passes_though_it_leaves_a_thread_reading_its_input() -> None:
    read: list[str] = []

    def reads_later(history: History) -> History:
        threading.Timer(0.01, lambda: read.append(str(history[-1]["content"]))).start()
        return copy.deepcopy(history)

    results = check_scenario(from_callable(reads_later), copy.deepcopy(SCENARIO), RunOptions())
    assert read and {r.outcome for r in results} <= {"pass", "skip"}


# --- a list that became a tuple, or the other way ----------------------------------------------------

def _content_as_tuple(history: History) -> History:
    out = copy.deepcopy(history)
    history[1]["content"] = tuple(history[1]["content"])
    return out


def _tool_input_list_as_tuple(history: History) -> History:
    out = copy.deepcopy(history)
    history[1]["content"][0]["input"]["ids"] = tuple(history[1]["content"][0]["input"]["ids"])
    return out


def _content_as_list(history: History) -> History:
    out = copy.deepcopy(history)
    history[1]["content"] = list(history[1]["content"])
    return out


WITH_IDS: History = [{"role": "user", "content": "Restart jobs 3 and 4."},
                     {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "restart",
                                                        "input": {"ids": [3, 4]}}]}]
WITH_TUPLES: History = [{"role": "user", "content": "Restart jobs 3 and 4."},
                        {"role": "assistant", "content": ({"type": "tool_use", "id": "toolu_1", "name": "restart",
                                                           "input": {"ids": (3, 4)}},)}]


@pytest.mark.parametrize(("target", "history"), [(_content_as_tuple, WITH_IDS), (_tool_input_list_as_tuple, WITH_IDS),
                                                 (_content_as_list, WITH_TUPLES)])
def test_a_list_that_becomes_a_tuple_in_place_or_back_is_a_mutation(target: Callable[[History], History],
                                                                     history: History) -> None:
    obs = call_guarded(from_callable(target), copy.deepcopy(history), {})
    assert obs.returned and obs.mutated
    assert any("(a list)" in line and "(a tuple)" in line for line in obs.mutation), obs.mutation


def test_a_history_given_with_tuples_and_left_alone_is_not_a_mutation() -> None:
    obs = call_guarded(from_callable(copy.deepcopy), copy.deepcopy(WITH_TUPLES), {})
    assert obs.returned and not obs.mutated


def test_a_type_only_change_is_described_with_both_types() -> None:
    after = copy.deepcopy(WITH_IDS)
    after[1]["content"][0]["input"]["ids"] = (3, 4)
    assert describe_mutation(WITH_IDS, after) == ("input[1]['content'][0]['input']['ids']: [3,4] (a list) -> [3,4] (a tuple)",)
