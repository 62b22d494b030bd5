"""live.untouched-suffix names its difference after aligning output and task in flight: a message
removed, inserted or changed, as a reader would say it."""

from __future__ import annotations

from typing import Any

from conformance.engine.invariants import describe_live_difference


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _call(n: int) -> dict[str, Any]:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{n}", "name": "ls", "input": {}}]}


def _result(n: int, text: str = "a b") -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": text}]}


SETTLED = [_user("first"), {"role": "assistant", "content": "done"}]
LIVE = [_user("second"), _call(1), _result(1), _call(2), _result(2)]


def test_dropped_tool_results_are_removed_not_a_role_change() -> None:
    lines = describe_live_difference(LIVE, [*SETTLED, LIVE[0], LIVE[1], LIVE[3]], 2)
    assert lines == ["input[4] (user: tool_result toolu_1), message 2 of the task in flight, was removed; "
                     "output[4] is input[5]"]
    both = describe_live_difference(LIVE, [*SETTLED, *LIVE[:2]], 2)  # the output is shorter than the task
    assert both == ["input[4] (user: tool_result toolu_1), message 2 of the task in flight, was removed, "
                    "and 2 after it: input[5] (assistant: tool_use toolu_2), input[6] (user: tool_result toolu_2); "
                    "the output ends at output[3]"]
    assert "became" not in lines[0]


def test_the_first_message_of_the_task_removed_with_the_settled_history_kept() -> None:
    lines = describe_live_difference(LIVE, [*SETTLED, *LIVE[1:]], 2)
    assert lines == ["input[2] (user: text), message 0 of the task in flight, was removed; output[2] is input[3]"]


def test_a_message_put_inside_the_task_is_inserted() -> None:
    out = [*SETTLED, *LIVE[:2], _user("summary of earlier work"), *LIVE[2:]]
    assert describe_live_difference(LIVE, out, 2) == [
        "output[4] (user: text) was inserted into the task in flight before input[4] (message 2 of it)"]
    assert describe_live_difference(LIVE, [*SETTLED, *LIVE, _user("x")], 2) == [
        "output[7] (user: text) was inserted into the task in flight after its last message, input[6]"]


def test_a_message_edited_in_place_is_changed_with_what_changed() -> None:
    out = [*SETTLED, *LIVE[:2], _result(1, "[cleared]"), *LIVE[3:]]
    lines = describe_live_difference(LIVE, out, 2)
    assert lines[0] == "output[4] is input[4] (message 2 of the task in flight), changed:"
    assert lines[1] == "  content[0] (tool_result toolu_1) changed:"
