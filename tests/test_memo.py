"""The checks' facts: computed once per observation inside the runner's block, afresh outside it."""

from __future__ import annotations

from typing import Any

from conformance.engine._memo import of_history, of_object, of_pair, shared_facts


def _counting() -> tuple[list[int], Any]:
    calls: list[int] = []

    def fact(history: list[Any]) -> int:
        calls.append(1)
        return sum(history)

    return calls, fact


def test_outside_a_block_a_fact_is_computed_every_time_so_a_list_refilled_in_place_is_read_again() -> None:
    calls, fact = _counting()
    history = [1, 2, 3]
    assert of_history(fact, history) == 6
    history[:] = [4, 5, 6]  # the same object, the same length, other values
    assert of_history(fact, history) == 15
    assert len(calls) == 2


def test_inside_a_block_a_fact_of_the_same_list_is_computed_once_and_dropped_at_its_end() -> None:
    calls, fact = _counting()
    history = [1, 2, 3]
    with shared_facts():
        assert of_history(fact, history) == of_history(fact, history) == 6
        assert of_history(fact, [1, 2, 3]) == 6  # an equal list that is another object: computed again
        history.append(4)
        assert of_history(fact, history) == 10  # another length: computed again
    assert len(calls) == 3
    history[:] = [0, 0, 0, 0]
    with shared_facts():  # a new observation's block reads the list afresh
        assert of_history(fact, history) == 0
    assert len(calls) == 4


def test_a_pair_fact_is_shared_for_the_very_same_pair_alone() -> None:
    seen: list[tuple[int, int]] = []

    def fact(a: list[int], b: list[int]) -> int:
        seen.append((len(a), len(b)))
        return len(a) + len(b)

    first, second = [1], [2, 3]
    with shared_facts():
        assert of_pair(fact, first, second) == of_pair(fact, first, second) == 3
        assert of_pair(fact, second, first) == 3
    assert of_pair(fact, first, second) == 3
    assert len(seen) == 3


def test_a_fact_of_one_object_is_kept_by_the_outermost_block_across_the_blocks_inside_it() -> None:
    calls: list[int] = []

    def fact(message: dict[str, Any]) -> int:
        calls.append(1)
        return len(message["content"])

    message = {"role": "user", "content": "abc"}
    assert of_object(fact, message) == 3 and of_object(fact, message) == 3 and len(calls) == 2  # (no block)
    with shared_facts():
        for _ in range(3):  # the agent loop's calls, each in a block of its own
            with shared_facts():
                assert of_object(fact, message) == 3
        assert of_object(fact, {"role": "user", "content": "abcd"}) == 4  # another object: its own fact
    assert len(calls) == 4
    message["content"] = "abcdef"  # changed after the block: read again
    with shared_facts():
        assert of_object(fact, message) == 6
