"""Verdicts that can be trusted: "unchanged" is JSON equality with types kept, well-formed output is
really well-formed, a programming error is a crash, and declared unanswered calls come back."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from conformance import (
    LoadResult, RunOptions, Scenario, Truth, call_guarded, check_scenario, from_callable, run)
from conformance.engine.invariants import (BY_ID, fields_preserved, idempotent, latest_turn_intact,
                                           live_untouched_suffix, message_diff, output_unreadable, output_well_formed,
                                           reasoning_kept_intact, reference_exact, unanswered_kept)
from conformance.engine.spec import Expectations
from conformance.engine.target import Observation, is_crash
from conformance.engine.transcript import canonical, same_json

from .zoo._history import live_start

# --- same_json and canonical ----------------------------------------------------------------------

DIFFERENT = [
    (0, False), (0, 0.0), (0, "0"), (0, None), (1, True), (1, 1.0), (0.0, False), (0.0, -0.0), ("", None),
    ([], {}), ([], None), ({}, None), ([0], [False]), ({"limit": 0}, {"limit": False}),
    ({"limit": 0}, {"limit": 0.0}), ({"a": 1}, {"a": 1, "b": None}), ({"a": [1, 2]}, {"a": [2, 1]}),
    ({"a": {"b": 0}}, {"a": {"b": "0"}}), ("é", "e\u0301"),
]
SAME = [
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ((1, 2), [1, 2]), (float("nan"), float("nan")),
    ({"x": {"z": 0, "y": [False, 0.0]}}, {"x": {"y": [False, 0.0], "z": 0}}), (True, True), (None, None),
]


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_values_that_python_may_call_equal_are_different_json(a: Any, b: Any) -> None:
    assert not same_json(a, b) and not same_json(b, a)
    assert canonical(a) != canonical(b)


@pytest.mark.parametrize(("a", "b"), SAME)
def test_key_order_and_array_spelling_are_not_changes(a: Any, b: Any) -> None:
    assert same_json(a, b) and same_json(b, a)
    assert canonical(a) == canonical(b)


def _random_json(rng: random.Random, depth: int = 0) -> Any:
    atoms = [0, 1, -1, 0.0, 1.0, 0.5, True, False, None, "", "0", "a", "é"]
    roll = rng.random()
    if depth > 3 or roll < 0.5:
        return rng.choice(atoms)
    if roll < 0.75:
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice("abcdef"): _random_json(rng, depth + 1) for _ in range(rng.randrange(4))}


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


def test_same_json_agrees_with_canonical_text_on_random_values() -> None:
    rng = random.Random(7)
    values = [_random_json(rng) for _ in range(400)]
    for a, b in zip(values, values[1:] + values[:1]):
        assert same_json(a, b) == (canonical(a) == canonical(b)), (a, b)
    for a in values:
        assert same_json(a, _shuffled(a, rng)) and same_json(a, json.loads(json.dumps(a)))


class _Resolving(dict):  # type: ignore[type-arg]
    """A message whose reads resolve a placeholder it holds (what JSON writes is the placeholder)."""

    def __getitem__(self, key: Any) -> Any:
        value = dict.__getitem__(self, key)
        return "the user's own text" if value == "ref:0" else value

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default


class _EqualToAll(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


def test_a_subclass_is_the_json_it_writes_not_what_its_reads_or_equality_say() -> None:
    sent = _Resolving(role="user", content="ref:0")
    assert sent.get("content") == "the user's own text" and json.loads(json.dumps(sent))["content"] == "ref:0"
    assert not same_json({"role": "user", "content": "the user's own text"}, sent)
    assert not same_json("the user's own text", _EqualToAll("garbage"))
    assert not same_json(_EqualToAll("a"), _EqualToAll("b")) and same_json(_EqualToAll("a"), "a")


def test_canonical_text_never_raises_on_values_that_are_not_json() -> None:
    assert canonical({1: "a", "b": {2}}) != canonical({"1": "a", "b": [2]})
    assert "non-JSON" in canonical({"when": object()})


# --- input mutation -------------------------------------------------------------------------------

HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "List the failed jobs."},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "jobs",
                                       "input": {"status": "failed", "limit": 0, "ratio": 0.0}}]},
]


def _rewrites_zero_as_false(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = copy.deepcopy(history)
    history[1]["content"][0]["input"]["limit"] = False
    return out


def _reorders_keys_in_place(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    block_input = history[1]["content"][0]["input"]
    for key in sorted(block_input, reverse=True):
        block_input[key] = block_input.pop(key)
    return copy.deepcopy(history)


def test_rewriting_zero_as_false_in_place_is_a_mutation() -> None:
    assert call_guarded(from_callable(_rewrites_zero_as_false), HISTORY, {}).mutated


def test_reordering_keys_in_place_is_not_a_mutation() -> None:
    obs = call_guarded(from_callable(_reorders_keys_in_place), HISTORY, {})
    assert obs.returned and not obs.mutated


# --- every check that says "unchanged" keeps types -------------------------------------------------

def _scenario(history: list[dict[str, Any]], live_start: int, unanswered: tuple[str, ...] = (),
              expect: Expectations | None = None) -> Scenario:
    return Scenario("t.case", "a case", "t", history, Truth(live_start, unanswered), expect=expect or Expectations())


def _with_false(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = copy.deepcopy(history)
    out[1]["content"][0]["input"]["limit"] = False
    return out


def test_live_span_with_zero_become_false_fails_and_with_keys_reordered_passes() -> None:
    scenario = _scenario(HISTORY, 0)
    assert live_untouched_suffix(scenario, Observation(output=_with_false(HISTORY)))
    reordered = json.loads(json.dumps(HISTORY, sort_keys=True))
    assert not live_untouched_suffix(scenario, Observation(output=reordered))


THOUGHT = {"type": "thinking", "thinking": "Count first.", "signature": "sig"}
REASONED: list[dict[str, Any]] = [
    {"role": "user", "content": "Count the rows."},
    {"role": "assistant", "content": [THOUGHT, {"type": "tool_use", "id": "toolu_2", "name": "count",
                                                "input": {"sample": 0, "exact": True}}]},
]


def test_latest_turn_with_a_retyped_value_is_not_intact() -> None:
    scenario = _scenario(REASONED, 0)
    changed = copy.deepcopy(REASONED)
    changed[1]["content"][1]["input"]["exact"] = 1
    assert latest_turn_intact(scenario, Observation(output=changed))
    assert not latest_turn_intact(scenario, Observation(output=copy.deepcopy(REASONED)))


def test_reasoning_with_a_retyped_field_is_not_kept_intact() -> None:
    history = copy.deepcopy(REASONED)
    history[1]["content"][0]["budget"] = 0
    retyped = copy.deepcopy(history)
    retyped[1]["content"][0]["budget"] = False
    assert reasoning_kept_intact(_scenario(history, 2), Observation(output=retyped))
    assert not reasoning_kept_intact(_scenario(history, 2), Observation(output=copy.deepcopy(history)))


def test_a_kept_block_with_a_retyped_field_is_reported() -> None:
    scenario = _scenario(REASONED, 2)
    changed = copy.deepcopy(REASONED)
    changed[1]["content"][1]["input"]["sample"] = 0.0
    assert fields_preserved(scenario, Observation(output=changed))
    assert not fields_preserved(scenario, Observation(output=copy.deepcopy(REASONED)))


def test_a_second_pass_that_retypes_a_value_is_not_idempotent() -> None:
    first = copy.deepcopy(REASONED)
    obs = Observation(output=first, second=Observation(output=_retyped(first)))
    assert idempotent(_scenario(REASONED, 2), obs)
    same = Observation(output=first, second=Observation(output=json.loads(json.dumps(first, sort_keys=True))))
    assert not idempotent(_scenario(REASONED, 2), same)


def _retyped(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = copy.deepcopy(history)
    out[1]["content"][1]["input"]["sample"] = False
    return out


def test_the_reference_output_is_compared_with_types_kept() -> None:
    scenario = _scenario(REASONED, 2, expect=Expectations(reference_output=copy.deepcopy(REASONED)))
    problems = reference_exact(scenario, Observation(output=_retyped(REASONED)))
    assert problems and "output[1]" in problems[0]
    assert not reference_exact(scenario, Observation(output=json.loads(json.dumps(REASONED, sort_keys=True))))


def test_message_diff_names_the_block_whose_value_changed_type() -> None:
    lines = message_diff(REASONED[1], _retyped(REASONED)[1])
    assert lines[0].startswith("content[1] (tool_use toolu_2) changed")
    assert any("bool" in line for line in lines)


# --- well-formed output --------------------------------------------------------------------------

SETTLED: list[dict[str, Any]] = [
    {"role": "user", "content": "What is 2 + 2?"},
    {"role": "assistant", "content": [{"type": "text", "text": "4."}]},
    {"role": "user", "content": "And 3 + 3?"},
]

MALFORMED = {
    "empty string content": {"role": "assistant", "content": ""},
    "blank string content": {"role": "assistant", "content": "  \n"},
    "empty list content": {"role": "assistant", "content": []},
    "empty text block": {"role": "assistant", "content": [{"type": "text", "text": ""}]},
    "blank text block": {"role": "assistant", "content": [{"type": "text", "text": " "}]},
    "text that is not a string": {"role": "assistant", "content": [{"type": "text", "text": 0}]},
    "tool_use without id": {"role": "assistant", "content": [{"type": "tool_use", "name": "n", "input": {}}]},
    "tool_use with a number id": {"role": "assistant", "content": [{"type": "tool_use", "id": 7, "name": "n",
                                                                    "input": {}}]},
    "tool_use without name": {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]},
    "tool_use without input": {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n"}]},
    "tool_use with a string input": {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "n",
                                                                       "input": "{}"}]},
    "tool_result without tool_use_id": {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]},
    "block without type": {"role": "assistant", "content": [{"text": "4."}]},
    "block with an empty type": {"role": "assistant", "content": [{"type": "", "text": "4."}]},
    "block with a number type": {"role": "assistant", "content": [{"type": 1, "text": "4."}]},
    "block that is a string": {"role": "assistant", "content": ["4."]},
    "unknown role": {"role": "tool", "content": "4."},
    "content that is a mapping": {"role": "assistant", "content": {"type": "text", "text": "4."}},
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformation_the_target_introduced_fails(name: str) -> None:
    scenario = _scenario(SETTLED, 2)
    output = [SETTLED[0], MALFORMED[name], SETTLED[2]]
    problems = output_well_formed(scenario, Observation(output=output))
    assert problems and problems[0].startswith("output[1]"), problems


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformation_the_input_already_had_is_not_the_targets(name: str) -> None:
    history = [SETTLED[0], MALFORMED[name], SETTLED[2]]
    scenario = _scenario(history, 2)
    assert not output_well_formed(scenario, Observation(output=copy.deepcopy(history)))
    assert not output_well_formed(scenario, Observation(output=copy.deepcopy(history[1:])))
    doubled = [history[1], *copy.deepcopy(history)]
    assert output_well_formed(scenario, Observation(output=doubled)), "a defect copied twice is one too many"


def test_a_block_type_the_api_does_not_take_is_malformed_unless_the_history_holds_it() -> None:
    summary = {"role": "user", "content": [{"type": "summary", "text": "Earlier messages were omitted."}]}
    problems = output_well_formed(_scenario(SETTLED, 2), Observation(output=[summary, *SETTLED[1:]]))
    assert problems == ["output[0].content[0] is a `summary` block: a type the history does not hold and the "
                        "Messages API does not take (it answers 400)"]
    newer = [{"role": "user", "content": [{"type": "summary", "text": "from a newer API"}]}, *SETTLED[1:]]
    assert not output_well_formed(_scenario(newer, 2), Observation(output=[summary, *SETTLED[1:]]))  # held: taken
    server = {"role": "assistant", "content": [{"type": "web_fetch_tool_result", "tool_use_id": "s", "content": {}}]}
    assert not output_well_formed(_scenario(SETTLED, 2), Observation(output=[*SETTLED, server]))  # a server tool's


def test_an_inherited_defect_block_stays_exempt_when_its_message_is_trimmed() -> None:
    empty = {"type": "text", "text": ""}
    history = [{"role": "user", "content": "Hi"},
               {"role": "assistant", "content": [THOUGHT, empty, {"type": "text", "text": "Hello."}]},
               {"role": "user", "content": "Bye"}]
    trimmed = [history[0], {"role": "assistant", "content": [empty, {"type": "text", "text": "Hello."}]}, history[2]]
    assert not output_well_formed(_scenario(history, 2), Observation(output=trimmed))


def test_only_unreadable_output_stops_the_other_checks() -> None:
    scenario = _scenario(SETTLED, 2)
    blank = Observation(output=[SETTLED[0], MALFORMED["empty text block"], SETTLED[2]])
    strings = Observation(output=[SETTLED[0], MALFORMED["block that is a string"], SETTLED[2]])
    assert not output_unreadable(scenario, blank)
    assert output_unreadable(scenario, strings)
    assert output_unreadable(scenario, Observation(output={"role": "user"}))
    results = {r.invariant: r.outcome for r in check_scenario(from_callable(lambda h: blank.output, "blank"),
                                                                scenario, RunOptions(idempotence=False))}
    assert results["output.well-formed"] == "fail"
    assert results["live.untouched-suffix"] == "pass"


# --- crashes are not refusals --------------------------------------------------------------------

class TargetsOwnLookupError(KeyError):
    """A target's own error class derived from a programming error."""


class TargetsOwnRefusal(ValueError):
    """A target's own refusal."""


def _unbound() -> None:
    if False:  # noqa: SIM108 - the name is never bound: UnboundLocalError
        name = 1
    name  # noqa: B018 - reading the unbound name is the point


CRASHES = [IndexError("i"), KeyError("k"), TypeError("t"), AttributeError("a"), NameError("n"),
           AssertionError(), ZeroDivisionError(), RecursionError(), OverflowError(), StopIteration(),
           UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"), ImportError("m"), TargetsOwnLookupError("x"),
           SystemExit(1), KeyboardInterrupt()]
REFUSALS = [ValueError("v"), RuntimeError("r"), NotImplementedError(), TargetsOwnRefusal("budget"),
            Exception("e"), OSError("o")]


@pytest.mark.parametrize("exc", CRASHES, ids=lambda e: type(e).__name__)
def test_a_programming_error_is_a_crash(exc: BaseException) -> None:
    assert is_crash(exc)


@pytest.mark.parametrize("exc", REFUSALS, ids=lambda e: type(e).__name__)
def test_a_deliberate_error_is_a_refusal(exc: BaseException) -> None:
    assert not is_crash(exc)


def test_unbound_local_is_a_crash() -> None:
    with pytest.raises(UnboundLocalError) as info:
        _unbound()
    assert is_crash(info.value)


def _raiser(exc: BaseException) -> Any:
    def compact(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        raise exc
    return compact


@pytest.mark.parametrize(("exc", "completes", "others"), [
    (ValueError("over budget"), "pass", "skip"),
    (IndexError("list index out of range"), "error", "skip"),  # a crash: the checks needing output not run
    (TargetsOwnLookupError("k"), "error", "skip"),
])
def test_where_refusal_is_allowed_only_a_deliberate_error_is_a_refusal(exc: Exception, completes: str,
                                                                        others: str) -> None:
    scenario = _scenario(SETTLED, 2, expect=Expectations(refusal_allowed=True))
    results = check_scenario(from_callable(_raiser(exc), "t"), scenario, RunOptions(idempotence=False))
    by_id = {r.invariant: r for r in results}
    assert by_id["call.completes"].outcome == completes
    assert by_id["input.unmutated"].outcome == "pass"
    assert {r.outcome for r in results if BY_ID[r.invariant].needs_output} == {others}
    crashed = completes == "error"  # a not-run check names the crash that blocked it; a refusal's skip does not
    assert all(bool(r.details.get("blocked_by")) == crashed for r in results if BY_ID[r.invariant].needs_output)


# --- declared unanswered calls -------------------------------------------------------------------

PENDING = {"type": "tool_use", "id": "toolu_9", "name": "deploy", "input": {"replicas": 0, "dry_run": False}}
AWAITING: list[dict[str, Any]] = [
    {"role": "user", "content": "Check the queue."},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_dead", "name": "queue", "input": {}}]},
    {"role": "user", "content": "Never mind. Deploy a dry run."},
    {"role": "assistant", "content": [{"type": "text", "text": "Deploying."}, PENDING]},
]
AWAITING_SCENARIO = _scenario(AWAITING, 2, ("toolu_dead", "toolu_9"))


def test_the_call_the_history_ends_on_comes_back_last_and_unchanged() -> None:
    assert not unanswered_kept(AWAITING_SCENARIO, Observation(output=copy.deepcopy(AWAITING)))
    assert not unanswered_kept(AWAITING_SCENARIO, Observation(output=copy.deepcopy(AWAITING[2:])))


def test_a_dropped_pending_call_fails() -> None:
    dropped = copy.deepcopy(AWAITING)
    dropped[3]["content"] = dropped[3]["content"][:1]
    problems = unanswered_kept(AWAITING_SCENARIO, Observation(output=dropped))
    assert problems and "toolu_9" in problems[0]
    assert unanswered_kept(AWAITING_SCENARIO, Observation(output=copy.deepcopy(AWAITING[:3])))


def test_a_pending_call_with_a_retyped_input_fails() -> None:
    retyped = copy.deepcopy(AWAITING)
    retyped[3]["content"][1]["input"]["replicas"] = False
    problems = unanswered_kept(AWAITING_SCENARIO, Observation(output=retyped))
    assert problems and "changed" in problems[0]


def test_a_pending_call_followed_by_a_message_the_target_added_fails() -> None:
    appended = [*copy.deepcopy(AWAITING), {"role": "user", "content": "[compacted]"}]
    assert unanswered_kept(AWAITING_SCENARIO, Observation(output=appended))


def test_a_live_unanswered_call_that_is_not_last_must_come_back_unchanged() -> None:
    history = [*copy.deepcopy(AWAITING), {"role": "user", "content": "Also: how long will it take?"}]
    scenario = _scenario(history, 2, ("toolu_dead", "toolu_9"))
    assert not unanswered_kept(scenario, Observation(output=copy.deepcopy(history[2:])))
    assert unanswered_kept(scenario, Observation(output=[history[2], history[4]]))


def test_the_unanswered_check_applies_to_every_shipped_scenario_that_declares_calls(shipped: LoadResult) -> None:
    declaring = [s for s in shipped.scenarios if s.truth.unanswered]
    assert declaring
    assert all(s.expect.invariants is None or "tools.unanswered-kept" in s.expect.invariants for s in declaring)
    assert not any("tools.unanswered-kept" in s.expect.skip for s in declaring)
    assert BY_ID["tools.unanswered-kept"].level == "MUST"


# --- correct compactors that differ only where JSON does not care ---------------------------------

def _sorted_keys_round_trip(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns the history re-serialised with sorted keys: the same JSON."""
    return json.loads(json.dumps(history, sort_keys=True))


def _refuses_unpaired_results(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns the history, or refuses with ValueError when a result from the task in flight on
    answers a call made before the message just before it (an interleaved or reordered history)."""
    calls: dict[str, int] = {}
    start = live_start(history)
    for i, message in enumerate(history):
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block["type"] == "tool_use":
                calls[block["id"]] = i
            elif block["type"] == "tool_result" and calls.get(block["tool_use_id"], i - 1) != i - 1 and i >= start:
                raise ValueError("a tool result answers a call made before the message just before it")
    return list(history)


@pytest.mark.slow
@pytest.mark.parametrize("func", [_sorted_keys_round_trip, _refuses_unpaired_results])
def test_a_correct_compactor_passes_every_must(func: Any, shipped: LoadResult) -> None:
    report = run([from_callable(func)], shipped.scenarios, options=RunOptions(time_limit=2, in_process=True))
    bad = [f"{r.scenario} {r.invariant}: {r.message}" for r in report.results
           if r.level == "MUST" and r.outcome not in ("pass", "skip")]
    assert not bad, "\n".join(bad[:10])
    declined = [r for r in report.results if r.invariant == "call.completes" and r.message.startswith("declined")]
    assert bool(declined) == (func is _refuses_unpaired_results)


def test_an_output_list_refilled_in_place_is_checked_afresh() -> None:
    """A target may return one list object, refilled at each call: facts of an earlier call's
    output are never reused for the next."""
    from conformance import Observation, RunOptions, Scenario, Truth, check_scenario, from_callable

    history = [{"role": "user", "content": "q"},
               {"role": "assistant", "content": [{"type": "thinking", "thinking": "plan", "signature": "s"},
                                                 {"type": "text", "text": "a"}]}]
    scenario = Scenario("x.refilled", "d", "x", history, Truth(2))
    target = from_callable(lambda h: h, "same_list")
    options = RunOptions(idempotence=False, reference_targets=frozenset())
    shared = copy.deepcopy(history)
    first = check_scenario(target, scenario, options, Observation(output=shared))
    assert all(r.outcome != "fail" for r in first if r.invariant == "reasoning.kept-intact")
    shared[1] = {"role": "assistant", "content": [{"type": "thinking", "thinking": "PLAN", "signature": "s"},
                                                  {"type": "text", "text": "a"}]}  # same list, same length
    second = check_scenario(target, scenario, options, Observation(output=shared))
    assert any(r.outcome == "fail" for r in second if r.invariant == "reasoning.kept-intact")


# --- what a target handed back unchanged is the caller's own message ----------------------------------

def _returns_what_it_was_given(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return history[1:]


def _returns_them_in_a_list_of_its_own_class(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    class Kept(list[Any]):
        note = "kept"

    return Kept(history)


def test_messages_a_target_returns_unchanged_are_the_callers_own_objects() -> None:
    history = copy.deepcopy(HISTORY)
    obs = call_guarded(from_callable(_returns_what_it_was_given), history, {}, kept=[])
    assert obs.returned and not obs.mutated and obs.output == history[1:]
    assert all(out is mine for out, mine in zip(obs.output, history[1:]))  # (the target was handed copies)
    kept = call_guarded(from_callable(_returns_them_in_a_list_of_its_own_class), history, {}, kept=[])
    assert type(kept.output).__name__ == "Kept" and kept.output.note == "kept" and kept.output[0] is history[0]


def _reorders_keys_and_returns_them(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    _reorders_keys_in_place(history)
    return history


def _rewrites_zero_as_false_and_returns_it(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    history[1]["content"][0]["input"]["limit"] = False
    return history


def test_a_target_that_changes_its_input_in_place_keeps_what_it_changed_in_the_output() -> None:
    history = copy.deepcopy(HISTORY)
    reordered = call_guarded(from_callable(_reorders_keys_and_returns_them), history, {}, kept=[])
    assert not reordered.mutated and reordered.output[1] is not history[1]  # the same JSON, not the same data
    assert list(reordered.output[1]["content"][0]["input"]) == ["status", "ratio", "limit"]
    rewritten = call_guarded(from_callable(_rewrites_zero_as_false_and_returns_it), history, {}, kept=[])
    assert rewritten.mutated and rewritten.output[1]["content"][0]["input"]["limit"] is False
    assert history == HISTORY and list(history[1]["content"][0]["input"]) == ["status", "limit", "ratio"]


def test_a_target_that_changes_messages_after_it_returned_them_is_observed_as_it_left_them() -> None:
    """A later call that edits the messages an earlier one returned (a reference the target kept)
    shows in the earlier output, as the target left it, not in the scenario's untouched messages."""
    from conformance.engine.runner import observe

    returned: list[list[dict[str, Any]]] = []

    def edits_what_it_returned_before(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for earlier in returned:
            for message in earlier:
                message["content"] = "[edited later]"
        returned.append(history)
        return history

    history = copy.deepcopy(HISTORY)
    obs = observe(from_callable(edits_what_it_returned_before), _scenario(history, 2), RunOptions())
    assert obs.second is not None and obs.output is not None
    assert all(m["content"] == "[edited later]" for m in obs.output)
    assert history == HISTORY
    plain = call_guarded(from_callable(_returns_what_it_was_given), history, {})
    assert plain.output == history[1:] and not any(out is mine for out in plain.output for mine in history)
