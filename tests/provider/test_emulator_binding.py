"""The emulator runs the prefix check of preserved thinking as the documentation describes it: per
model family, under ``error`` and ``drop_block``, with and without the binding beta header, plain and
streamed; server-side clearing and compaction never fail it."""

from __future__ import annotations

import copy
import json
from typing import Any

import anthropic
import httpx2
import pytest

from conformance.provider.anthropic import emulator_binding as binding
from conformance.provider.anthropic.emulator import Emulator

CHECKING = "claude-fable-5-1"
THINKING = {"type": "enabled", "budget_tokens": 1024}
TOOLS = [{"name": "search", "input_schema": {"type": "object"}}]
HEAD = ("messages.{path}: Invalid `signature` in `thinking` block. The block is bound to a different conversation. "
        "Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\".")


def _post(emulator: Emulator, messages: list, model: str = CHECKING, betas: tuple[str, ...] = (),
          behavior: str | None = None, **extra: Any) -> httpx2.Response:
    thinking: dict[str, Any] = dict(THINKING)
    if behavior is not None:
        thinking["block_binding"] = {"prefix_mismatch_behavior": behavior}
    headers = {"x-api-key": "k", **({"anthropic-beta": ",".join(betas)} if betas else {})}
    return httpx2.post(f"{emulator.url}/v1/messages", headers=headers,
                       json={"model": model, "max_tokens": 16, "messages": messages, "thinking": thinking,
                             "system": "You are terse.", "tools": TOOLS, **extra})


def _conversation(emulator: Emulator, model: str = CHECKING) -> list[dict[str, Any]]:
    """Returns a history of two settled tasks, each answered with thinking, and a third request."""
    history: list[dict[str, Any]] = []
    for question in ("What is open?", "Who is on call?"):
        history.append({"role": "user", "content": question})
        answer = _post(emulator, history, model).json()
        history.append({"role": "assistant", "content": answer["content"]})
    history.append({"role": "user", "content": "And now?"})
    return history


def _edited(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    edited = copy.deepcopy(history)
    edited[0]["content"] = "What is open? (reworded)"
    return edited


def test_the_families_that_run_the_check() -> None:
    assert all(binding.runs_check(m) for m in ("claude-fable-5-1", "claude-fable-5-2", "claude-mythos-5-2",
                                               "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5",
                                               "claude-opus-5-5-20260901"))
    assert not any(binding.runs_check(m) for m in ("claude-mythos-5-1", "claude-opus-5", "claude-sonnet-5",
                                                   "claude-haiku-4-5", "claude-opus-5-5-x", "m"))


@pytest.mark.slow
def test_an_append_only_conversation_passes() -> None:
    with Emulator() as emulator:
        history = _conversation(emulator)
        answer = _post(emulator, history, betas=(binding.BETA,), behavior="error")
    assert answer.status_code == 200 and answer.json()["input_transformations"] == []


@pytest.mark.slow
@pytest.mark.parametrize("header", [True, False])
def test_an_edit_before_thinking_is_the_documented_400_under_error(header: bool) -> None:
    with Emulator() as emulator:
        history = _conversation(emulator)
        betas = (binding.BETA,) if header else ()
        refused = _post(emulator, _edited(history), betas=betas, behavior="error" if header else None)
    assert refused.status_code == 400
    error = refused.json()["error"]
    tail = "" if header else f" {binding.ERROR_NEEDS_BETA}"
    assert error == {"type": "invalid_request_error", "message": HEAD.format(path="1.content.0") + tail
                     + " Content before this block differs from when it was created, first at `messages.0.content.0`."}


@pytest.mark.slow
def test_a_system_change_names_the_system_prompt() -> None:
    with Emulator() as emulator:
        history = _conversation(emulator)
        refused = _post(emulator, history, betas=(binding.BETA,), behavior="error", system="You are verbose.")
    assert refused.json()["error"]["message"].endswith(binding.SYSTEM_CHANGED)


@pytest.mark.slow
def test_drop_block_drops_the_blocks_after_the_edit_and_none_before() -> None:
    with Emulator() as emulator:
        history = _conversation(emulator)
        edited = copy.deepcopy(history)
        edited[2]["content"] = "Who is on call? (reworded)"  # after the first answer's thinking, before the second's
        answer = _post(emulator, edited, betas=(binding.BETA,), behavior="drop_block").json()
        hidden = _post(emulator, edited, behavior=None, thinking={**THINKING,
                                                                  "block_binding": {"prefix_mismatch_behavior": "drop_block"}})
    assert answer["input_transformations"] == [
        {"type": "thinking_dropped", "path": "messages.3.content.0", "reason": "prefix_binding_mismatch"}]
    assert hidden.status_code == 400 and hidden.json()["error"]["message"] == (
        "thinking.enabled.block_binding: Extra inputs are not permitted")


@pytest.mark.slow
def test_the_report_arrives_on_message_start_when_streamed() -> None:
    with Emulator() as emulator:
        history = _conversation(emulator)
        with anthropic.Anthropic(api_key="k", base_url=emulator.url, max_retries=0,
                                 _strict_response_validation=True) as client:
            with client.beta.messages.stream(model=CHECKING, max_tokens=16, messages=_edited(history),  # type: ignore[arg-type]
                                             system="You are terse.", tools=TOOLS,  # type: ignore[arg-type]
                                             thinking={**THINKING, "block_binding": {"prefix_mismatch_behavior": "drop_block"}},  # type: ignore[arg-type]
                                             betas=[binding.BETA]) as stream:
                events = list(stream)
    start = next(e for e in events if e.type == "message_start")
    paths = [t.path for t in start.message.input_transformations or []]
    assert paths == ["messages.1.content.0", "messages.3.content.0"]


def test_a_model_without_the_check_ignores_it() -> None:
    with Emulator() as emulator:
        history = _conversation(emulator, model="claude-opus-5")
        answer = _post(emulator, _edited(history), model="claude-opus-5", betas=(binding.BETA,), behavior="error")
    assert answer.status_code == 200 and answer.json()["input_transformations"] == []


@pytest.mark.slow
def test_a_gap_in_the_chain_fails_a_put_back_and_a_leading_removal_does_not() -> None:
    with Emulator() as emulator:
        history = _conversation(emulator)
        history.append({"role": "assistant", "content": _post(emulator, history).json()["content"]})
        history.append({"role": "user", "content": "Last one."})
        strip = lambda m: {**m, "content": [b for b in m["content"] if b["type"] != "thinking"]}  # noqa: E731
        leading = [history[0], strip(history[1]), *history[2:]]
        gap = [*history[:3], strip(history[3]), *history[4:]]
        assert _post(emulator, leading, betas=(binding.BETA,), behavior="error").status_code == 200
        refused = _post(emulator, gap, betas=(binding.BETA,), behavior="error")
    assert refused.json()["error"]["message"] == HEAD.format(path="5.content.0") + " " + binding.CHAIN_BROKEN


@pytest.mark.slow
def test_cache_control_and_key_order_are_not_part_of_the_prefix() -> None:
    with Emulator() as emulator:
        history = _conversation(emulator)
        marked = copy.deepcopy(history)
        marked[0]["content"] = [{"text": "What is open?", "type": "text", "cache_control": {"type": "ephemeral"}}]
        answer = _post(emulator, marked, betas=(binding.BETA,), behavior="error")
    assert answer.status_code == 200


@pytest.mark.slow
def test_server_side_clearing_never_fails_the_check_and_the_fault_does() -> None:
    result = {"type": "tool_result", "content": "hit " * 400}
    with Emulator() as emulator, Emulator(faults=["edits-invalidate-thinking"]) as faulty:
        outcomes = []
        for server in (emulator, faulty):
            history: list[dict[str, Any]] = []
            for n in range(3):
                history.append({"role": "user", "content": f'Call the `search` tool with {{"query": "{n}"}}, then answer.'})
                call = _post(server, history).json()["content"]
                history.append({"role": "assistant", "content": call})
                history.append({"role": "user", "content": [{**result, "tool_use_id": call[-1]["id"]}]})
                history.append({"role": "assistant", "content": _post(server, history).json()["content"]})
            history.append({"role": "user", "content": "Done?"})
            edit = {"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 1},
                    "keep": {"type": "tool_uses", "value": 1}}
            answer = _post(server, history, betas=(binding.BETA, "context-management-2025-06-27"), behavior="drop_block",
                           context_management={"edits": [edit]}).json()
            outcomes.append(answer)
    assert outcomes[0]["context_management"]["applied_edits"][0]["cleared_tool_uses"] == 2
    assert outcomes[0]["input_transformations"] == []
    assert [t["path"] for t in outcomes[1]["input_transformations"]] == [
        "messages.1.content.0", "messages.5.content.0", "messages.9.content.0"]


def test_a_compaction_block_restarts_the_prefix() -> None:
    with Emulator() as emulator:
        history = [{"role": "user", "content": "big " * 60000}]
        edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50000}}
        answer = _post(emulator, history, betas=(binding.BETA, "compact-2026-01-12"), behavior="error",
                       context_management={"edits": [edit]}).json()
        assert [b["type"] for b in answer["content"]][:2] == ["compaction", "thinking"]
        pruned = [{"role": "user", "content": "(earlier turns pruned)"},
                  {"role": "assistant", "content": answer["content"]}, {"role": "user", "content": "Go on."}]
        again = _post(emulator, pruned, betas=(binding.BETA,), behavior="error")
    assert again.status_code == 200, again.json()
    assert again.json()["input_transformations"] == []


def test_count_tokens_runs_the_same_check() -> None:
    with Emulator() as emulator:
        history = _conversation(emulator)
        counted = httpx2.post(f"{emulator.url}/v1/messages/count_tokens",
                              headers={"x-api-key": "k", "anthropic-beta": binding.BETA},
                              json={"model": CHECKING, "messages": _edited(history), "system": "You are terse.",
                                    "tools": TOOLS, "thinking": {**THINKING, "block_binding": {
                                        "prefix_mismatch_behavior": "error"}}})
    assert counted.status_code == 400 and "bound to a different conversation" in json.dumps(counted.json())


def test_a_tampered_bound_signature_is_refused_even_under_drop_block() -> None:
    with Emulator() as emulator:
        history = _conversation(emulator)
        block = history[1]["content"][0]
        assert block["signature"].startswith(binding.SIGNATURE_PREFIX)
        block["signature"] = block["signature"][:-1] + ("0" if block["signature"][-1] != "0" else "1")
        refused = _post(emulator, history, betas=(binding.BETA,), behavior="drop_block")
    assert refused.status_code == 400
    assert refused.json()["error"]["message"] == "messages.1.content.0: Invalid `signature` in `thinking` block"


def test_a_block_sent_back_after_a_drop_stays_dropped_and_the_new_one_holds() -> None:
    with Emulator() as emulator:
        edited = _edited(_conversation(emulator))
        first = _post(emulator, edited, betas=(binding.BETA,), behavior="drop_block").json()
        edited += [{"role": "assistant", "content": first["content"]}, {"role": "user", "content": "Next."}]
        again = _post(emulator, edited, betas=(binding.BETA,), behavior="drop_block").json()
    assert [t["path"] for t in first["input_transformations"]] == ["messages.1.content.0", "messages.3.content.0"]
    # the blocks produced before the edit fail on every request; the one produced after it is bound to it
    assert [t["path"] for t in again["input_transformations"]] == ["messages.1.content.0", "messages.3.content.0"]


def test_the_rest_of_the_turns_thinking_run_goes_with_a_failing_block() -> None:
    asked = {"role": "user", "content": "What is open?"}
    base = {"model": CHECKING, "system": "s", "tools": [], "thinking": {"type": "adaptive", "block_binding": {
        "prefix_mismatch_behavior": "drop_block"}}}
    first = {"type": "thinking", "thinking": "a"}
    first["signature"] = binding.sign("a", binding.prefix({**base, "messages": [asked]},
                                                          [asked, {"role": "assistant", "content": []}], 1, 0))
    reworded = {"role": "user", "content": "What is open now?"}
    answer = {"role": "assistant", "content": [first, {"type": "thinking", "thinking": "b"},
                                                {"type": "text", "text": "x"}]}
    body = {**base, "messages": [reworded, answer, {"role": "user", "content": "more"}]}
    # the second block is bound to the reworded request: alone it passes
    answer["content"][1]["signature"] = binding.sign("b", binding.prefix(body, body["messages"], 1, 1))
    assert binding.mismatch(binding.birth(answer["content"][1]["signature"], "b") or {},
                            binding.prefix(body, body["messages"], 1, 1), body["messages"]) is None
    found = binding.check(body, {binding.BETA})
    assert found.dropped == ["messages.1.content.0", "messages.1.content.1"] and found.error is None
