"""Shapes of agent traffic the OpenAI judge must read as it is: calls the client runs that are not
function calls (Codex's freeform ``apply_patch``, computer use, shell), each answered by its own
output item; a compaction item in the middle of one response, after a preamble, with the work going
on after it; a stateless loop that carries back a compaction item standing for its task's own
request. Every recording is built here, and the task in flight starts where the test put the
new user request; a settled task never reads as one in flight, and the reverse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.provider.analyze import analyze_file
from conformance.provider.analyze.source import splits
from conformance.provider.openai import semantics as sem
from conformance.provider.openai.rules import Exchange, judge

from ..test_analyze_stream import events

URL = "https://api.openai.com/v1/responses"
THRESHOLD = {"context_management": [{"type": "compaction", "compact_threshold": 1000}]}
COMPACTION = {"type": "compaction", "id": "cmp_1", "encrypted_content": "gAAAAAopaque"}
REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"}
USAGE = {"input_tokens": 3000, "output_tokens": 40, "total_tokens": 3040}


def message(role: str, text: str, **fields: Any) -> dict[str, Any]:
    part = "input_text" if role == "user" else "output_text"
    return {"type": "message", "role": role, **fields, "content": [{"type": part, "text": text}]}


SETTLED_TASK = [message("user", "Task A: summarise README.md"), message("assistant", "It describes the project.")]
NEW_REQUEST = message("user", "Task B: fix the failing test")  # the task in flight opens here
PREAMBLE = message("assistant", "I'll patch the test first.")  # a GPT-5 preamble before its call

# (call, the output the client sends back for it, the id that pairs them): the SDK's input items
CLIENT_RUN = {
    "custom_tool_call": ({"type": "custom_tool_call", "call_id": "call_1", "name": "apply_patch",
                          "input": "*** Begin Patch\n*** End Patch"},
                         {"type": "custom_tool_call_output", "call_id": "call_1", "output": "Done!"}, "call_1"),
    "computer_call": ({"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
                       "action": {"type": "screenshot"}, "pending_safety_checks": []},
                      {"type": "computer_call_output", "call_id": "call_1",
                       "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}}, "call_1"),
    "local_shell_call": ({"type": "local_shell_call", "id": "lsh_1", "call_id": "call_1", "status": "completed",
                          "action": {"type": "exec", "command": ["pytest", "-q"], "env": {}}},
                         {"type": "local_shell_call_output", "id": "call_1", "output": "1 failed"}, "call_1"),
    "shell_call": ({"type": "shell_call", "call_id": "call_1", "action": {"commands": ["pytest -q"]},
                    "status": "completed"},
                   {"type": "shell_call_output", "call_id": "call_1",
                    "output": [{"stdout": "1 failed", "stderr": "", "outcome": {"type": "exit", "exit_code": 1}}]},
                   "call_1"),
    "apply_patch_call": ({"type": "apply_patch_call", "call_id": "call_1", "status": "completed",
                          "operation": {"type": "update_file", "path": "tests/test_x.py", "diff": "@@\n-a\n+b"}},
                         {"type": "apply_patch_call_output", "call_id": "call_1", "status": "completed"}, "call_1"),
    "mcp_approval_request": ({"type": "mcp_approval_request", "id": "mcpr_1", "server_label": "deploy",
                              "name": "restart", "arguments": "{}"},
                             {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
                             "mcpr_1"),
    "tool_search_call": ({"type": "tool_search_call", "call_id": "call_1", "execution": "client",
                          "arguments": {"query": "patch"}, "status": "completed"},
                         {"type": "tool_search_output", "call_id": "call_1", "execution": "client", "tools": [],
                          "status": "completed"}, "call_1"),
}


def _log(tmp_path: Path, exchanges: list[tuple[dict[str, Any], dict[str, Any]]]) -> Path:
    """Returns a JSON-lines recording of the (request, response) pairs."""
    path = tmp_path / "log.jsonl"
    path.write_text("".join(json.dumps({"url": URL, "request": q, "response": r, "status": 200}) + "\n"
                            for q, r in exchanges))
    return path


def _response(output: list[dict[str, Any]], n: int = 0) -> dict[str, Any]:
    return {"id": f"resp_{n}", "object": "response", "status": "completed", "model": "gpt-5-codex",
            "output": output, "usage": USAGE}


@pytest.mark.parametrize("kind", sorted(CLIENT_RUN))
def test_a_call_the_client_runs_keeps_its_task_in_flight(kind: str) -> None:
    call, output, key = CLIENT_RUN[kind]
    items = [*SETTLED_TASK, NEW_REQUEST, REASONING, PREAMBLE, call, output]
    assert sem.live_start(items) == 2 == sem.live_start_converted(items)
    assert sem.open_calls(items[:-1]) == [key] and sem.open_calls(items) == []
    # the call and its output tell apart from another call's of the same kind (compact matches by them)
    assert sem.fingerprint(call) != sem.fingerprint({**call, "call_id": "call_2", "id": "other"})


@pytest.mark.parametrize("kind", sorted(CLIENT_RUN))
def test_threshold_compaction_over_a_client_run_call_reaches_the_task(kind: str, tmp_path: Path) -> None:
    call, output, _ = CLIENT_RUN[kind]
    request = {"model": "gpt-5-codex", "store": False, **THRESHOLD,
               "input": [*SETTLED_TASK, NEW_REQUEST, REASONING, PREAMBLE, call, output]}
    [found] = analyze_file(_log(tmp_path, [(request, _response([COMPACTION, message("assistant", "Fixed.")]))])
                           ).judgements
    assert found.verdict == "reached-live-task", found.evidence
    assert found.live_start == 2


@pytest.mark.parametrize("kind", sorted(CLIENT_RUN))
def test_a_compaction_after_a_client_run_call_left_open_reaches_the_task(kind: str) -> None:
    call, _, _ = CLIENT_RUN[kind]
    found = judge(Exchange("responses", THRESHOLD, [*SETTLED_TASK, NEW_REQUEST],
                           {"output": [PREAMBLE, call, COMPACTION], "usage": USAGE}))
    assert found.verdict == "reached-live-task"
    assert "a tool call whose output was not sent" in found.reasons[-1]


def test_hosted_calls_stay_assistant_work_that_settles_with_the_answer() -> None:
    hosted = [{"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}},
              {"type": "tool_search_call", "id": "ts_1", "execution": "server", "arguments": {}, "status": "completed"},
              {"type": "tool_search_output", "id": "tso_1", "execution": "server", "tools": [], "status": "completed"}]
    items = [*SETTLED_TASK, NEW_REQUEST, PREAMBLE, *hosted, message("assistant", "Fixed.")]
    assert sem.live_start(items) == len(items) == sem.live_start_converted(items)
    assert sem.open_calls(items) == []
    found = judge(Exchange("responses", THRESHOLD, [*SETTLED_TASK, NEW_REQUEST],
                           {"output": [PREAMBLE, *hosted, message("assistant", "Fixed."), COMPACTION], "usage": USAGE}))
    assert found.verdict == "settled-only", found.reasons


# A client-run tool search as the SDK's input items carry it back: ``execution`` is optional on
# both (clients and round-trips drop it); the output the client builds answers the call's
# ``call_id``, and says ``execution: "client"`` where the client kept it. A search the server runs
# carries ``call_id: null`` on both items.
SEARCH_CALL, SEARCH_OUTPUT = (CLIENT_RUN["tool_search_call"][0], CLIENT_RUN["tool_search_call"][1])
ECHOED = {
    "the call without execution": ({k: v for k, v in SEARCH_CALL.items() if k != "execution"}, SEARCH_OUTPUT),
    "neither with execution": ({k: v for k, v in SEARCH_CALL.items() if k != "execution"},
                               {k: v for k, v in SEARCH_OUTPUT.items() if k != "execution"}),
    "the output without execution": (SEARCH_CALL, {k: v for k, v in SEARCH_OUTPUT.items() if k != "execution"}),
}


@pytest.mark.parametrize("shape", sorted(ECHOED))
def test_a_client_run_tool_search_echoed_without_execution_stays_the_clients(shape: str, tmp_path: Path) -> None:
    call, output = ECHOED[shape]
    in_flight = [*SETTLED_TASK, NEW_REQUEST, REASONING, PREAMBLE, call, output]
    assert sem.live_start(in_flight) == 2 == sem.live_start_converted(in_flight)
    assert sem.open_calls(in_flight[:-1]) == ["call_1"] and sem.open_calls(in_flight) == []
    assert sem.live_start(in_flight[:-1]) == 2  # waiting on the search's output: still in flight
    answered = [*in_flight, message("assistant", "Fixed.")]  # the final answer settles it
    assert sem.live_start(answered) == len(answered) == sem.live_start_converted(answered)
    bare = sem.skeleton(in_flight)  # what a compaction item made over it stands for
    assert bare is not None and sem.live_start([*bare, message("assistant", "Fixed.")]) == len(bare) + 1
    assert sem.live_start(bare) == 2
    request = {"model": "gpt-5.4", "store": False, **THRESHOLD, "input": in_flight}
    [found] = analyze_file(_log(tmp_path, [(request, _response([COMPACTION, message("assistant", "Fixed.")]))])
                           ).judgements
    assert (found.verdict, found.live_start) == ("reached-live-task", 2), found.evidence


def test_a_tool_search_without_execution_takes_its_partners_word_and_a_hosted_one_stays_hosted() -> None:
    said_by_output = (ECHOED["the call without execution"][0], {**SEARCH_OUTPUT, "execution": "server"})
    anonymous = ({"type": "tool_search_call", "id": "ts_1", "call_id": None, "arguments": {}, "status": "completed"},
                 {"type": "tool_search_output", "id": "tso_1", "call_id": None, "tools": [], "status": "completed"})
    for call, output in (said_by_output, anonymous):  # the server ran it: the preamble is the answer
        items = [*SETTLED_TASK, NEW_REQUEST, PREAMBLE, call, output]
        assert sem.live_start(items) == len(items) == sem.live_start_converted(items)
        assert sem.open_calls(items) == []


CALL = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read_log", "arguments": "{}"}
SEARCH = {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search"}}
COMMENTARY = message("assistant", "I'll read the log first.", phase="commentary")
ANSWER = message("assistant", "The PSP had an outage.", phase="final_answer")


@pytest.mark.parametrize(("out", "verdict"), [
    ([PREAMBLE, COMPACTION, CALL], "reached-live-task"),  # a call follows the item: the preamble was no answer
    ([COMMENTARY, COMPACTION, SEARCH, ANSWER], "reached-live-task"),  # the answer comes after the item
    ([REASONING, PREAMBLE, COMPACTION, REASONING, ANSWER], "reached-live-task"),
    ([COMMENTARY, COMPACTION], "reached-live-task"),  # commentary is no final answer
    ([COMMENTARY, SEARCH, ANSWER, COMPACTION], "settled-only"),  # the item follows the final answer
    ([PREAMBLE, COMPACTION], "settled-only"),  # an unlabelled last message before the item is the answer
    ([ANSWER, COMPACTION, {"type": "hologram"}], "settled-only"),  # nothing the rule reads after it
])
def test_a_compaction_item_mid_response_is_judged_by_what_follows_it_too(out: list[dict[str, Any]],
                                                                         verdict: str) -> None:
    found = judge(Exchange("responses", THRESHOLD, [*SETTLED_TASK, NEW_REQUEST], {"output": out, "usage": USAGE}))
    assert found.verdict == verdict, found.reasons
    assert found.reached == (list(range(2, 3 + out.index(COMPACTION))) if verdict == "reached-live-task" else [])


@pytest.mark.parametrize(("out", "verdict"), [
    ([COMMENTARY, COMPACTION, CALL], "reached-live-task"),
    ([PREAMBLE, COMPACTION, SEARCH, ANSWER], "reached-live-task"),
    ([COMMENTARY, COMPACTION], "cannot-tell"),  # no answer before it, nothing after: what it folded is unknown
    ([ANSWER, COMPACTION], "settled-only"),
])
def test_a_response_recorded_alone_is_judged_by_what_follows_its_compaction_item(
        out: list[dict[str, Any]], verdict: str, tmp_path: Path) -> None:
    path = tmp_path / "response.json"
    path.write_text(json.dumps(_response(out)))
    [found] = analyze_file(path).judgements
    assert found.verdict == verdict, found.evidence


CALL_OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "ERROR psp timeout"}


def _loop(first_output: list[dict[str, Any]], carried: dict[str, Any] = COMPACTION,
          **first_request: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Returns a stateless (store false) loop of two calls: the first asks task B and gets
    ``first_output``; the second carries back ``carried`` (the client drops what precedes it) and,
    after it, what followed the compaction item in the first output and the call's output."""
    after = first_output[first_output.index(COMPACTION) + 1:]
    first = {"model": "gpt-5.4", "store": False, **THRESHOLD, "input": [*SETTLED_TASK, NEW_REQUEST], **first_request}
    second = {"model": "gpt-5.4", "store": False, **THRESHOLD,
              "input": [carried, *after, *([CALL_OUTPUT] if CALL in after else [NEW_REQUEST])]}
    return [(first, _response(first_output, 0)), (second, _response([ANSWER], 1))]


def _verdicts(path: Path) -> list[tuple[str, int | None]]:
    return [(j.verdict, j.live_start) for j in analyze_file(path).judgements]


def test_a_carried_item_that_stands_for_its_tasks_request_is_followed_back_to_where_it_was_made(
        tmp_path: Path) -> None:
    loop = _loop([COMPACTION, CALL])  # compacted mid-task: the item holds task B's request
    assert _verdicts(_log(tmp_path, loop)) == [("reached-live-task", 2), ("reached-live-task", 1)]
    [found] = analyze_file(_log(tmp_path, loop[1:])).judgements  # the call that made the item not recorded
    assert found.verdict == "cannot-tell", found.evidence
    assert "not produced in this recording" in found.evidence[0]


def test_a_carried_item_is_followed_back_by_its_ciphertext_when_the_id_is_dropped(tmp_path: Path) -> None:
    loop = _loop([COMPACTION, CALL], carried={"type": "compaction", "encrypted_content": COMPACTION["encrypted_content"]})
    assert [v for v, _ in _verdicts(_log(tmp_path, loop))] == ["reached-live-task", "reached-live-task"]


def test_a_carried_item_made_by_a_chained_call_is_followed_through_the_chain(tmp_path: Path) -> None:
    loop = _loop([COMPACTION, CALL], previous_response_id="resp_a")
    loop[0][0]["input"] = [NEW_REQUEST]  # task A came through the chain
    opening = ({"model": "gpt-5.4", **THRESHOLD, "input": SETTLED_TASK[:1]}, {**_response(SETTLED_TASK[1:]), "id": "resp_a"})
    assert [v for v, _ in _verdicts(_log(tmp_path, [opening, *loop]))] == [
        "no-edit", "reached-live-task", "reached-live-task"]
    # without the chain's start in the recording, what the item stands for cannot be told
    assert [v for v, _ in _verdicts(_log(tmp_path, loop))] == ["cannot-tell", "cannot-tell"]


@pytest.mark.slow
def test_a_chain_to_an_earlier_range_gives_the_serial_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    loop = _loop([COMPACTION, CALL], previous_response_id="resp_a")
    loop[0][0]["input"] = [NEW_REQUEST]
    opening = ({"model": "gpt-5.4", **THRESHOLD, "input": SETTLED_TASK[:1]}, {**_response(SETTLED_TASK[1:]), "id": "resp_a"})
    untouched = ({"model": "gpt-5.4", "input": "hi"}, _response([message("assistant", "hello")], 9))
    lines = [json.dumps({"url": URL, "request": q, "response": r, "status": 200}) for q, r in
             [opening, *[untouched] * 3, *loop, *[untouched] * 6]]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n")
    split = len("\n".join(lines[:4]))  # the chain's first link alone in the first range
    assert len(splits(path, split)) >= 2
    serial = events(path, 1, monkeypatch)
    assert [e["verdict"] for e in serial if isinstance(e, dict)][4:6] == ["reached-live-task", "reached-live-task"]
    assert events(path, 2, monkeypatch, split=split) == serial


def test_a_carried_item_of_a_settled_task_stays_settled_only(tmp_path: Path) -> None:
    # compacted after task B's answer; the next call opens a new request after the item
    assert [v for v, _ in _verdicts(_log(tmp_path, _loop([ANSWER, COMPACTION])))] == ["settled-only", "settled-only"]
    # compacted after task A's answer (the first call's input ends in it): task B starts after the item
    first = {"model": "gpt-5.4", "store": False, **THRESHOLD, "input": SETTLED_TASK[:1]}
    second = {"model": "gpt-5.4", "store": False, **THRESHOLD, "input": [COMPACTION, NEW_REQUEST, CALL, CALL_OUTPUT]}
    log = _log(tmp_path, [(first, _response([SETTLED_TASK[1], COMPACTION])), (second, _response([ANSWER], 1))])
    assert _verdicts(log) == [("settled-only", 0), ("settled-only", 1)]


def test_what_a_compaction_item_stands_for_is_kept_without_its_text() -> None:
    items = [*SETTLED_TASK, NEW_REQUEST, REASONING, PREAMBLE, CALL, CALL_OUTPUT]
    bare = sem.skeleton(items)
    assert bare is not None and len(bare) == len(items)
    assert not any(text in json.dumps(bare) for text in ("Task", "project", "patch", "read_log", "psp", "call_1"))
    for after in ([], [NEW_REQUEST], [CALL, CALL_OUTPUT], [message("assistant", "Fixed.")]):
        assert sem.live_start([*bare, *after]) == sem.live_start([*items, *after])
    assert sem.skeleton([*items, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{"}]) is None
