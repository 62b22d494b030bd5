"""``tools.caller-use-kept`` case by case: a client call made by code a server tool ran (its
``caller.tool_id`` naming that server tool use) needs that server tool use before it."""

from __future__ import annotations

import copy
from typing import Any

from conformance import Scenario
from conformance.engine.invariants import BY_ID, caller_use_kept
from conformance.engine.spec import Truth
from conformance.engine.target import Observation

Message = dict[str, Any]
RUN = {"type": "server_tool_use", "id": "srvtoolu_run", "name": "code_execution", "input": {"code": "await f()"}}
ASK = {"role": "user", "content": "total the sales"}
THEN = {"role": "user", "content": "thanks; next"}


def _call(use_id: str, caller: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": "query_sales", "input": {"region": "emea"}, "caller": caller}


def _made_by(server_id: str) -> dict[str, str]:
    return {"type": "code_execution_20250825", "tool_id": server_id}


def _run(*, with_use: bool = True) -> list[Message]:
    """Returns a settled programmatic run: the code's use beside its call, the result, the code's result."""
    return [ASK, {"role": "assistant", "content": [*([RUN] if with_use else []), _call("toolu_a", _made_by("srvtoolu_run"))]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "12 rows"}]},
            {"role": "assistant", "content": [
                {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_run",
                 "content": {"type": "code_execution_result", "stdout": "emea\n", "stderr": "", "return_code": 0,
                             "content": []}},
                {"type": "text", "text": "EMEA sold most."}]}, THEN]


def _scenario(history: list[Message]) -> Scenario:
    return Scenario("t.case", "a case", "t", history, Truth(len(history) - 1, ()))


def test_it_is_a_must_of_the_catalog() -> None:
    assert BY_ID["tools.caller-use-kept"].level == "MUST"


def test_the_run_kept_whole_passes_and_the_use_pruned_fails_naming_both() -> None:
    history = _run()
    assert not caller_use_kept(_scenario(history), Observation(output=copy.deepcopy(history)))
    pruned = [m for m in _run(with_use=False)]
    problems = caller_use_kept(_scenario(history), Observation(output=pruned))
    assert len(problems) == 1
    assert "toolu_a" in problems[0] and "srvtoolu_run" in problems[0] and "source tool not found" in problems[0]


def test_the_run_dropped_whole_passes() -> None:
    history = _run()
    assert not caller_use_kept(_scenario(history), Observation(output=[THEN]))


def test_a_later_call_of_the_same_code_needs_the_use_of_an_earlier_message() -> None:
    later = {"role": "assistant", "content": [_call("toolu_b", _made_by("srvtoolu_run"))]}
    history = [*_run()[:3], later]
    assert not caller_use_kept(_scenario(history), Observation(output=copy.deepcopy(history)))
    assert caller_use_kept(_scenario(history), Observation(output=[ASK, later]))  # window edge inside the run


def test_a_use_after_its_call_does_not_count() -> None:
    history = _run()
    moved = copy.deepcopy(history)
    moved[1]["content"].reverse()  # the call before the use that made it
    assert caller_use_kept(_scenario(history), Observation(output=moved))


def test_direct_callers_and_callers_without_a_tool_id_are_not_pairs() -> None:
    history = [ASK, {"role": "assistant", "content": [_call("toolu_d", {"type": "direct"}),
                                                      _call("toolu_e", {"type": "code_execution_20250825"}),
                                                      _call("toolu_f", "code")]}]
    assert not caller_use_kept(_scenario(history), Observation(output=copy.deepcopy(history)))


def test_a_call_the_input_already_left_without_its_use_is_not_the_targets_doing() -> None:
    history = _run(with_use=False)
    assert not caller_use_kept(_scenario(history), Observation(output=copy.deepcopy(history)))
