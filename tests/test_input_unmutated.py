"""``input.unmutated`` sees a list of the history that became a tuple in place, or the other way:
the same JSON, but no longer the list its owner appends to."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from conformance import call_guarded, from_callable
from conformance.engine.target import describe_mutation

History = list[dict[str, Any]]

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
