"""The two MUSTs of the blind spots, case by case: server tool pairs matched by id whatever their
kind, and opaque provider blocks byte-identical wherever they are kept, with or without an id."""

from __future__ import annotations

import copy
from typing import Any

from conformance import Scenario
from conformance.engine.invariants import opaque_kept_intact, results_answer_previous, server_results_kept
from conformance.engine.spec import Truth
from conformance.engine.target import Observation
from conformance.engine.transcript import is_opaque

Message = dict[str, Any]


def _scenario(history: list[Message]) -> Scenario:
    return Scenario("t.case", "a case", "t", history, Truth(len(history), ()))


def _use(use_id: str, kind: str = "server_tool_use", name: str = "tool_search_tool_regex") -> dict[str, Any]:
    return {"type": kind, "id": use_id, "name": name, "input": {"query": "billing"}}


def _result(use_id: str, kind: str = "tool_search_tool_result") -> dict[str, Any]:
    return {"type": kind, "tool_use_id": use_id, "content": {"type": "tool_search_tool_search_result"}}


def _answer(*blocks: dict[str, Any]) -> Message:
    return {"role": "assistant", "content": [*blocks, {"type": "text", "text": "done"}]}


ASK = {"role": "user", "content": "find the billing tool"}
THEN = {"role": "user", "content": "thanks; next"}


def test_a_dropped_result_of_a_kind_never_named_fails_in_settled_history() -> None:
    history = [ASK, _answer(_use("srvtoolu_1"), _result("srvtoolu_1", "zephyr_20270301_tool_result")), THEN]
    dropped = [ASK, _answer(_use("srvtoolu_1")), THEN]
    problems = server_results_kept(_scenario(history), Observation(output=dropped))
    assert problems and "srvtoolu_1" in problems[0] and "has no result" in problems[0]
    assert not server_results_kept(_scenario(history), Observation(output=copy.deepcopy(history)))


def test_a_use_type_never_named_is_paired_by_id() -> None:
    use = _use("srvtoolu_2", kind="orrery_tool_use", name="orrery_lookup")
    history = [ASK, _answer(use, _result("srvtoolu_2", "orrery_lookup_tool_result")), THEN]
    assert not server_results_kept(_scenario(history), Observation(output=copy.deepcopy(history)))
    assert not results_answer_previous(_scenario(history), Observation(output=copy.deepcopy(history)))
    orphaned = [ASK, _answer(_result("srvtoolu_2", "orrery_lookup_tool_result")), THEN]
    assert server_results_kept(_scenario(history), Observation(output=orphaned))


def test_a_paused_turn_and_its_continuation_pair_and_a_cut_between_them_fails() -> None:
    paused = {"role": "assistant", "content": [{"type": "text", "text": "searching"}, _use("srvtoolu_3")]}
    continued = _answer(_result("srvtoolu_3"))
    history = [ASK, paused, continued, THEN]
    assert not server_results_kept(_scenario(history), Observation(output=copy.deepcopy(history)))
    assert server_results_kept(_scenario(history), Observation(output=[continued, THEN]))  # the result orphaned
    assert server_results_kept(_scenario(history), Observation(output=[ASK, paused, THEN]))  # the use left open


def test_a_pair_the_input_left_open_does_not_count() -> None:
    paused = {"role": "assistant", "content": [{"type": "text", "text": "searching"}, _use("srvtoolu_4")]}
    history = [ASK, paused]  # paused on the server tool: it goes back as it is
    assert not server_results_kept(_scenario(history), Observation(output=copy.deepcopy(history)))


COMPACTION = {"type": "compaction", "content": "Summary: the loader retries five times."}
SIGNED = {**COMPACTION, "encrypted_content": "EqQBCkYIBRgC", "signature": "EuYBCkQIBRgC"}


def test_a_compaction_block_without_an_id_is_matched_by_content() -> None:
    history = [{"role": "assistant", "content": [COMPACTION]}, ASK, _answer(SIGNED), THEN]
    kept = copy.deepcopy(history[1:])  # the plain one dropped, the signed one kept as it was
    assert not opaque_kept_intact(_scenario(history), Observation(output=kept))
    nulled = [{"role": "assistant", "content": [{**COMPACTION, "encrypted_content": None}]}, *history[1:]]
    problems = opaque_kept_intact(_scenario(history), Observation(output=nulled))
    assert len(problems) == 1 and "output[0].content[0] (compaction)" in problems[0]


def test_a_rewritten_or_made_up_opaque_block_fails() -> None:
    history = [ASK, _answer(SIGNED), THEN]
    rewritten = [ASK, _answer({**SIGNED, "content": "Summary: retries five times."}), THEN]
    assert opaque_kept_intact(_scenario(history), Observation(output=rewritten))
    twice = [ASK, _answer(SIGNED), THEN, _answer(SIGNED)]  # one input block cannot stand for two
    assert opaque_kept_intact(_scenario(history), Observation(output=twice))
    retyped = [ASK, _answer({**SIGNED, "signature": None}), THEN]
    assert opaque_kept_intact(_scenario(history), Observation(output=retyped))


def test_each_copy_of_an_opaque_block_in_the_input_stands_for_one_in_the_output() -> None:
    doubled = {"role": "assistant", "content": [SIGNED, SIGNED, {"type": "text", "text": "done"}]}
    history = [ASK, doubled, THEN, _answer(SIGNED), THEN]  # three copies, two of them in one message
    three = [ASK, _answer(SIGNED), THEN, _answer(SIGNED), THEN, _answer(SIGNED)]
    assert not opaque_kept_intact(_scenario(history), Observation(output=three))
    problems = opaque_kept_intact(_scenario(history), Observation(output=[*three, THEN, _answer(SIGNED)]))
    assert len(problems) == 1 and problems[0].startswith("output[7].content[0] (compaction)")
    text_only = [ASK, {"role": "assistant", "content": [{"type": "text", "text": "done"}]}, THEN]
    assert opaque_kept_intact(_scenario(text_only), Observation(output=[ASK, _answer(SIGNED), THEN]))


def test_what_counts_as_opaque() -> None:
    assert is_opaque(COMPACTION) and is_opaque({"type": "redacted_thinking", "data": "EmwK"})
    assert is_opaque({"type": "web_search_tool_result", "tool_use_id": "s", "content": [
        {"type": "web_search_result", "url": "u", "encrypted_content": "Emw"}]})
    assert is_opaque({"type": "thinking", "thinking": "t", "signature": "Eu"})
    assert not is_opaque({"type": "tool_use", "id": "t", "name": "sign", "input": {"signature": "Jo"}})
    assert not is_opaque({"type": "tool_result", "tool_use_id": "t", "content": [{"type": "x", "signature": "s"}]})
    assert not is_opaque({"type": "image", "source": {"type": "base64", "data": "iVBOR"}})
    assert not is_opaque({"type": "text", "text": "hello"})
