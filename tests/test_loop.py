"""The agent loop and the provider's prefix check, on the research note's examples: each client edit
the docs call invalid fails the check it breaks, each one they call valid passes; a refusal at any
call leaves the other calls judged."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from conformance import RunOptions, check_scenario, from_callable
from conformance.engine import loop, prefix_check
from conformance.engine.spec import Expectations, Scenario, Truth

Message = dict[str, Any]


def think(sig: str) -> Message:
    return {"type": "thinking", "thinking": "", "signature": sig}


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def answer(sig: str, text: str) -> Message:
    return {"role": "assistant", "content": [think(sig), {"type": "text", "text": text}]}


def step(sig: str, n: int) -> list[Message]:
    return [{"role": "assistant", "content": [think(sig), {"type": "tool_use", "id": f"toolu_{n}", "name": "run",
                                                           "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": "ok"}]}]


# two settled tasks, then a task in flight of three steps
SCRIPT: list[Message] = [user("What does utils.py do?"), answer("SIG_A", "It parses config files."),
                         user("And main.py?"), answer("SIG_B", "It starts the server."),
                         user("Fix the failing test."), *step("SIG_C", 1), *step("SIG_D", 2), *step("SIG_E", 3)]
LIVE = 4


def problems(compact: Any, history: list[Message] = SCRIPT) -> dict[str, list[str]]:
    """Returns the prefix-check failures of ``compact`` played over ``history``, by invariant, both modes."""
    out: dict[str, list[str]] = {}
    for mode in loop.MODES:
        played = loop.play(history, mode, lambda messages: loop.Answer(compact(list(messages))))
        assert not played.stopped
        for problem in prefix_check.prefix_problems(history, played):
            out.setdefault(problem.invariant, []).append(problem.message)
    return out


def strip(message: Message) -> Message | None:
    if isinstance(message["content"], str):
        return message
    kept = [b for b in message["content"] if b["type"] != "thinking"]
    return {**message, "content": kept} if kept else None


def boundary(history: list[Message]) -> int:
    """The script's truth: the task in flight starts at its request (LIVE), or at the last request."""
    return max(i for i, m in enumerate(history) if m["role"] == "user" and isinstance(m["content"], str))


def test_keeping_everything_passes() -> None:
    assert problems(list) == {}


def test_stripping_settled_reasoning_at_every_call_passes() -> None:  # S2: a leading run removed, never put back
    def compact(history: list[Message]) -> list[Message]:
        start = boundary(history)
        return [m for m in map(strip, history[:start]) if m is not None] + history[start:]
    assert problems(compact) == {}


def test_a_summary_written_at_the_task_boundary_passes() -> None:  # S1
    def compact(history: list[Message]) -> list[Message]:
        start = boundary(history)
        return ([user("[summary of the settled tasks]")] if start else []) + history[start:]
    assert problems(compact) == {}


def test_a_summary_with_kept_settled_reasoning_fails_the_prefix() -> None:  # F1: keep-tail with a client summary
    def compact(history: list[Message]) -> list[Message]:
        start = boundary(history)
        keep = 2 if len(history) - start < 4 else 0  # the window shrinks as the task grows
        return [user("[summary]")] + history[max(0, start - keep):]
    found = problems(compact)
    assert "thinking.prefix-unchanged" in found
    first = found["thinking.prefix-unchanged"][0]
    assert "replays request[" in first and "produced at call" in first and "first at request[" in first
    assert "400" in first and "drop_block" in first and "task boundary" in first


def test_shortening_a_settled_tool_result_mid_task_fails_the_blocks_after_it() -> None:  # F2
    history = [user("List /data."), *step("SIG_A", 1), answer("SIG_B", "40,000 files."), user("Delete the .tmp files."),
               *step("SIG_C", 2), *step("SIG_D", 3)]

    def compact(h: list[Message]) -> list[Message]:
        if len(h) < 7:
            return list(h)
        return [h[0], h[1], {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                                          "content": "[cleared]"}]}, *h[3:]]
    found = problems(compact, history)
    assert found.keys() == {"thinking.prefix-unchanged"}
    assert all("SIG_A" not in m for m in found["thinking.prefix-unchanged"])  # no signature is quoted


def test_stripping_then_putting_back_fails_the_chain() -> None:  # F4
    def compact(history: list[Message]) -> list[Message]:
        start = boundary(history)
        if start == len(history) - 1:  # the task's first call: settled reasoning stripped
            return [m for m in map(strip, history[:start]) if m is not None] + history[start:]
        return list(history)  # later calls: put back
    found = problems(compact)
    assert found.keys() == {"thinking.chain-unbroken"}
    assert "put back" in found["thinking.chain-unbroken"][0]


def test_a_gap_in_the_middle_of_the_chain_fails() -> None:
    def compact(history: list[Message]) -> list[Message]:
        out = list(history)
        for i, m in enumerate(out):  # the first step's thinking goes once a later step exists
            if isinstance(m["content"], list) and m["content"][0] == think("SIG_C") and len(history) > 8:
                out[i] = strip(m)
        return out
    found = problems(compact)
    assert "thinking.chain-unbroken" in found and "missing from the middle" in found["thinking.chain-unbroken"][0]


def test_an_edited_thinking_block_fails_replayed_intact() -> None:
    def compact(history: list[Message]) -> list[Message]:
        return [{**m, "content": [{**b, "thinking": "edited"} if b["type"] == "thinking" else b for b in m["content"]]}
                if isinstance(m["content"], list) else m for m in history]
    assert "thinking.replayed-intact" in problems(compact)


def test_cache_control_and_key_order_are_not_edits() -> None:
    def compact(history: list[Message]) -> list[Message]:
        out = [dict(reversed(list(m.items()))) for m in history]
        if isinstance(history[0]["content"], str):  # (a stateful agent sends its own output back)
            out[0] = {"role": "user", "content": [{"type": "text", "text": history[0]["content"],
                                                   "cache_control": {"type": "ephemeral"}}]}
        return out
    assert problems(compact) == {}


def test_the_newest_compaction_block_restarts_the_comparison() -> None:
    summary = {"role": "assistant", "content": [{"type": "compaction", "content": "summary", "encrypted_content": "x"}]}
    history = [user("Start."), answer("SIG_A", "Done."), user("Next."), summary, *step("SIG_B", 1), *step("SIG_C", 2)]

    def compact(h: list[Message]) -> list[Message]:  # what precedes the compaction block is pruned
        at = next((i for i, m in enumerate(h) if m is summary), None)
        return h[at:] if at is not None and len(h) > at + 2 else list(h)
    assert problems(compact, history) == {}

    def edit_after(h: list[Message]) -> list[Message]:  # an edit after the compaction block still counts
        out = compact(h)
        if len(out) > 4:
            out[2] = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}]}
        return out
    assert "thinking.prefix-unchanged" in problems(edit_after, history)


def test_turns_cut_after_the_compaction_block_that_stood_before_the_thinking_at_birth_fail() -> None:
    summary = {"role": "assistant", "content": [{"type": "compaction", "content": "summary", "encrypted_content": "x"}]}
    history = [user("Start."), summary, user("Settled request."), answer("SIG_A", "Settled answer."),
               user("Fix the test."), *step("SIG_B", 1), *step("SIG_C", 2), *step("SIG_D", 3)]

    def pinned_window(h: list[Message]) -> list[Message]:  # the compaction block pinned, then the last 6 messages
        at = next((i for i, m in enumerate(h) if m is summary), None)
        return [h[at], *h[-6:]] if at is not None and len(h) > at + 7 else list(h)
    # the thinking of the task's steps was produced with the same compaction block before it: cutting
    # the turns between that block and the task is a client's edit, not the API's summary
    assert "thinking.prefix-unchanged" in problems(pinned_window, history)


def test_a_compaction_block_the_client_rewrote_restarts_nothing() -> None:
    summary = {"role": "assistant", "content": [{"type": "compaction", "content": "summary", "encrypted_content": "x"}]}
    history = [user("Start."), summary, user("Settled request."), answer("SIG_A", "Settled answer."),
               user("Fix the test."), *step("SIG_B", 1), *step("SIG_C", 2), *step("SIG_D", 3)]

    def reworded_window(h: list[Message]) -> list[Message]:  # the block's text changed at each slide
        at = next((i for i, m in enumerate(h) if m is summary), None)
        if at is None or len(h) <= at + 7:
            return list(h)
        block = {**summary["content"][0], "content": f"summary ({len(h) - 7} turns dropped)"}
        return [{"role": "assistant", "content": [block]}, *h[-6:]]
    # only a compaction block the API wrote (one of the script's) starts the provider's comparison anew
    assert "thinking.prefix-unchanged" in problems(reworded_window, history)


def _scenario(history: list[Message], refusal_allowed: bool) -> Scenario:
    return Scenario("loop.refuses-last", "test", "loop", history, Truth(LIVE),
                    expect=Expectations(refusal_allowed=refusal_allowed))


def test_a_refusal_at_the_last_call_leaves_the_earlier_calls_judged() -> None:
    def retrims_then_refuses(history: list[Message]) -> list[Message]:
        if len(history) == len(SCRIPT):
            raise ValueError("over budget")  # a refusal, allowed by the scenario
        start = boundary(history)
        keep = max(0, 4 - (len(history) - start))  # settled history shrinks as the task grows
        return [m for m in map(strip, history[max(0, start - keep):start]) if m is not None] + history[start:]
    results = check_scenario(from_callable(retrims_then_refuses), _scenario(SCRIPT, True), RunOptions(in_process=True))
    outcome = {r.invariant: r.outcome for r in results}
    assert outcome["call.completes"] == "pass" and outcome["thinking.prefix-unchanged"] == "fail"


@pytest.mark.parametrize("prefix_check", [True, False])
def test_older_models_drop_the_loop_checks(prefix_check: bool) -> None:
    results = check_scenario(from_callable(list), _scenario(SCRIPT, False),
                             RunOptions(in_process=True, prefix_check=prefix_check))
    assert any(r.invariant.startswith("thinking.") for r in results) is prefix_check


def _mid_loop(returns: Any) -> Any:
    """Returns a target that keeps the whole history of the script, and on any shorter one (every
    call of the loop before the last) does what ``returns`` does with it."""
    def target(history: list[Message]) -> Any:
        return list(history) if len(history) == len(SCRIPT) else returns(history)
    return target


def _crashes(history: list[Message]) -> Any:
    return history[len(history)]  # IndexError: a programming error, never a refusal


def _refuses(history: list[Message]) -> Any:
    raise ValueError("cannot tell where the task begins")


@pytest.mark.parametrize(("returns", "check", "words"), [
    (_crashes, "call.completes", "crashed with IndexError"),
    (lambda history: "history", "output.well-formed", "returned a str, not a list of messages"),
    (lambda history: [user("x")] * 1000, "output.well-formed", "returned 1000 messages for an input of 1"),
])
def test_a_call_of_the_loop_that_fails_fails_every_call_though_the_run_call_passes(
        returns: Any, check: str, words: str) -> None:
    results = check_scenario(from_callable(_mid_loop(returns)), _scenario(SCRIPT, False), RunOptions(in_process=True))
    by_id = {r.invariant: r for r in results}
    assert by_id["call.completes"].outcome == "pass" and by_id["output.well-formed"].outcome == "pass"
    found = by_id["loop.every-call"]
    assert found.outcome == "fail"
    assert found.message.startswith(f"call 1 (stateless, the request before messages[1]) fails {check}: ")
    assert words in found.message
    # the prefix checks had no request to judge: skipped, with the call that stopped the loop named
    assert by_id["thinking.prefix-unchanged"].outcome == "skip" and "call 1" in by_id["thinking.prefix-unchanged"].message


def test_a_refusal_in_the_loop_is_sent_on_as_it_came_and_fails_nothing() -> None:
    results = check_scenario(from_callable(_mid_loop(_refuses)), _scenario(SCRIPT, False), RunOptions(in_process=True))
    assert [r.invariant for r in results if r.outcome in ("fail", "error")] == []
    by_id = {r.invariant: r for r in results}
    assert by_id["loop.every-call"].outcome == "pass" and by_id["thinking.prefix-unchanged"].outcome == "pass"


def test_a_declined_call_sends_the_last_request_and_the_messages_since() -> None:
    calls = iter([loop.Answer([user("[summary]")]), loop.Answer(None, "ValueError: over budget")])
    played = loop.play(SCRIPT[:4], "stateless", lambda messages: next(calls, loop.Answer(None, "unused")),
                       final=loop.Answer(list(SCRIPT[:4])))
    assert [s.request for s in played.steps] == [[user("[summary]")], [user("[summary]"), *SCRIPT[1:3]],
                                                 list(SCRIPT[:4])]
    assert [s.declined for s in played.steps] == ["", "ValueError: over budget", ""] and not played.stopped


def test_refusing_the_short_first_calls_does_not_hide_the_later_ones() -> None:
    def refuses_short_then_rewrites(history: list[Message]) -> list[Message]:
        if len(history) < 3:
            raise ValueError("too short to compact")  # a deliberate refusal at the first call of the loop
        start = boundary(history)
        keep = 2 if len(history) - start < 4 else 0  # F1: the window shrinks as the task grows
        return [user("[summary]")] + history[max(0, start - keep):]
    results = check_scenario(from_callable(refuses_short_then_rewrites), _scenario(SCRIPT, False),
                             RunOptions(in_process=True))
    by_id = {r.invariant: r for r in results}
    assert by_id["call.completes"].outcome == "pass"
    assert by_id["thinking.prefix-unchanged"].outcome == "fail"


def test_a_target_that_declines_every_call_has_the_loop_checks_skipped_saying_so() -> None:
    results = check_scenario(from_callable(_refuses), _scenario(SCRIPT, True), RunOptions(in_process=True))
    by_id = {r.invariant: r for r in results}
    for check in ("loop.every-call", "thinking.prefix-unchanged"):
        assert by_id[check].outcome == "skip"
        assert by_id[check].message == ("not run: the target declined every call of the agent loop "
                                        "(ValueError: cannot tell where the task begins)")


def test_a_crash_after_declined_calls_fails_every_call() -> None:
    def declines_then_crashes(history: list[Message]) -> list[Message]:
        if len(history) == 7:
            return history[len(history)]  # IndexError at a middle call of the loop: a crash
        raise ValueError("nothing settled to compact")  # a refusal at every other call, the run's own too
    results = check_scenario(from_callable(declines_then_crashes), _scenario(SCRIPT, True), RunOptions(in_process=True))
    by_id = {r.invariant: r for r in results}
    assert by_id["call.completes"].outcome == "pass"  # (the run's call declined, as allowed)
    assert by_id["loop.every-call"].outcome == "fail" and "crashed with IndexError" in by_id["loop.every-call"].message


def test_a_history_that_cannot_be_given_to_the_target_ends_the_loop() -> None:
    # (a prefix its message format cannot carry: no answer of the target, so nothing to send on)
    played = loop.play(SCRIPT[:4], "stateless", lambda messages: loop.Answer(None, "NotExpressible", not_given=True),
                       final=loop.Answer(list(SCRIPT[:4])))
    assert played.steps == () and played.stopped and not played.failed


def _cuts_live_before_the_last(history: list[Message]) -> list[Message]:
    """Keeps the whole history at the script's last call, and at every earlier one only its last
    message: the task in flight of those calls loses its request and its first steps."""
    return list(history) if len(history) == len(SCRIPT) else history[-1:]


def test_earlier_calls_of_the_task_in_flight_are_judged_without_declared_tasks() -> None:
    results = check_scenario(from_callable(_cuts_live_before_the_last), _scenario(SCRIPT, False),
                             RunOptions(in_process=True))
    by_id = {r.invariant: r for r in results}
    assert by_id["live.untouched-suffix"].outcome == "pass"  # (the scenario's own call keeps everything)
    found = by_id["loop.every-call"]
    assert found.outcome == "fail" and "fails live.untouched-suffix" in found.message
    # the calls of the settled tasks (answered by messages 1 and 3) have no declared truth: not judged
    assert "messages[1]" not in found.message and "messages[3]" not in found.message
    assert f"task in flight from input[{LIVE}]" in found.message


def test_a_progress_note_mid_task_moves_the_next_calls_task_start_after_it() -> None:
    # a text-only turn followed by more work is a progress note: the task goes on (the truth), yet the
    # request of the call after it ends with it, a turn that settles; judged from there, nothing of it
    # is in flight, and a window keeping only the note at that call cuts nothing live
    note = {"role": "assistant", "content": [{"type": "text", "text": "Halfway there."}]}
    history = [*SCRIPT[:LIVE + 3], note, *step("SIG_F", 4)]
    seen: list[int] = []

    def keeps_the_note_alone(given: list[Message]) -> list[Message]:
        seen.append(len(given))
        return given[-1:] if given[-1] == note else list(given)

    scenario = Scenario("loop.note", "test", "loop", history, Truth(LIVE), expect=Expectations())
    results = check_scenario(from_callable(keeps_the_note_alone), scenario, RunOptions(in_process=True))
    assert {r.invariant: r.outcome for r in results}["loop.every-call"] == "pass"
    assert history.index(note) + 1 in seen  # (the call after the note was made, and judged)


def test_the_earlier_calls_are_held_to_the_invariants_the_scenario_checks_and_no_other() -> None:
    only = Scenario("loop.only", "test", "loop", SCRIPT, Truth(LIVE),
                    expect=Expectations(invariants=("call.completes", "loop.every-call", "thinking.prefix-unchanged")))
    results = check_scenario(from_callable(_cuts_live_before_the_last), only, RunOptions(in_process=True))
    assert {r.invariant: r.outcome for r in results}["loop.every-call"] == "pass"
    skipped = replace(only, expect=Expectations(skip={"live.untouched-suffix": "not this scenario's"}))
    found = {r.invariant: r for r in check_scenario(from_callable(_cuts_live_before_the_last), skipped,
                                                    RunOptions(in_process=True))}["loop.every-call"]
    assert "live.untouched-suffix" not in found.message


def test_the_earlier_calls_of_a_scenario_that_allows_a_refusal_are_not_judged_without_declared_tasks() -> None:
    # (its order hides where its tasks begin: the loop replays requests no provider saw)
    results = check_scenario(from_callable(_cuts_live_before_the_last), _scenario(SCRIPT, True),
                             RunOptions(in_process=True))
    assert {r.invariant: r.outcome for r in results}["loop.every-call"] == "pass"
    declared = replace(_scenario(SCRIPT, True), truth=Truth(LIVE, tasks=(0, 2, LIVE)))
    results = check_scenario(from_callable(_cuts_live_before_the_last), declared, RunOptions(in_process=True))
    assert {r.invariant: r.outcome for r in results}["loop.every-call"] == "fail"  # (declared: judged)
