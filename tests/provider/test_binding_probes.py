"""Probes of the prefix check of preserved thinking: the documented prediction, the probe file's
``client_edit``, and every binding probe caught by its id when the emulator breaks the check."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from conformance.provider.anthropic import semantics_binding as binding
from conformance.provider.anthropic.probes import Probe
from conformance.provider.probes import load_probes
from conformance.provider.verify import VERDICT, verify

from .conftest import SPECS

BETAS = [binding.BETA]


def _request(model: str = "claude-fable-5-1", behavior: str | None = "error") -> dict[str, Any]:
    thinking: dict[str, Any] = {"type": "adaptive"}
    if behavior is not None:
        thinking["block_binding"] = {"prefix_mismatch_behavior": behavior}
    think = {"type": "thinking", "thinking": "", "signature": "s"}
    messages = [{"role": "user", "content": "a"},
                {"role": "assistant", "content": [think, {"type": "text", "text": "b"}]},
                {"role": "user", "content": "c"},
                {"role": "assistant", "content": [think, {"type": "text", "text": "d"}]},
                {"role": "user", "content": "e"}]
    return {"model": model, "system": "s", "tools": [], "thinking": thinking, "messages": messages}


def _edit(request: dict[str, Any], index: int, text: str) -> dict[str, Any]:
    edited = copy.deepcopy(request)
    edited["messages"][index]["content"] = text
    return edited


def test_an_edit_fails_only_the_thinking_after_it() -> None:
    before = _request(behavior="drop_block")
    assert binding.predict(before, _edit(before, 2, "c2"), BETAS).dropped == ("messages.3.content.0",)
    assert binding.predict(before, _edit(before, 0, "a2"), BETAS).dropped == ("messages.1.content.0",
                                                                              "messages.3.content.0")
    assert binding.predict(before, _edit(before, 4, "e2"), BETAS) == binding.Binding(
        reason="no thinking block sent back follows a change")


def test_under_error_the_documented_message() -> None:
    before = _request(behavior=None)  # unset: error; without the header the message names it
    found = binding.predict(before, _edit(before, 2, "c2"), [])
    assert found.error == "invalid_request_error"
    assert found.message == (f"messages.3.content.0: {binding.HEAD} {binding.NEEDS_BETA} Content before this block "
                             "differs from when it was created, first at `messages.2.content.0`.")
    bound = _request()
    system = binding.predict(bound, {**bound, "system": "t"}, BETAS)
    assert system.message == (f"messages.1.content.0: {binding.HEAD} The `system` prompt differs from the one this "
                              "block was created with.")


def test_block_binding_without_the_header_is_refused_on_every_model() -> None:
    for model in ("claude-fable-5-1", "claude-opus-5"):
        found = binding.predict(_request(model), _request(model), [])
        assert found.message == "thinking.block_binding: Extra inputs are not permitted"


def test_models_without_the_check_and_what_is_not_prefix() -> None:
    before = _request(model="claude-mythos-5-1")
    assert binding.predict(before, _edit(before, 0, "a2"), BETAS).error is None
    fable = _request()
    marked = copy.deepcopy(fable)
    marked["messages"][0]["content"] = [{"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}}]
    assert binding.predict(fable, marked, BETAS).error is None


def _probe_text(**changes: str) -> str:
    text = (SPECS / "thinking-binding.yaml").read_text()
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new, 1)
    return text


@pytest.mark.parametrize(("old", "new", "said"), [
    ("    client_edit: *shorten-settled-result\n    live: *mid-task-live\n    count_tokens: false\n    predict:\n"
     "      verdict: live-reasoning-lost\n      dropped_thinking: [messages.5.content.0, messages.7.content.0]",
     "    client_edit: *shorten-settled-result\n    live: *mid-task-live\n    count_tokens: false\n    predict:\n"
     "      verdict: live-reasoning-lost\n      dropped_thinking: [messages.7.content.0]",
     "the documented semantics give ['messages.5.content.0', 'messages.7.content.0']"),
    ("shorten-settled-result: &shorten-settled-result {message: 2,", "shorten-settled-result: &shorten-settled-result {message: 3,",
     "points at no user message"),
    ("first at `messages\\.2\\.content\\.0`", "first at `messages\\.0\\.content\\.0`", "does not match the documented message"),
])
def test_a_probe_that_disagrees_with_the_documented_check_is_refused(tmp_path: Path, old: str, new: str,
                                                                     said: str) -> None:
    spec = tmp_path / "binding.yaml"
    spec.write_text(_probe_text(**{old: new}))
    _, errors = load_probes([spec])
    assert errors and said in str(errors[0]), [str(e) for e in errors]


def test_a_client_edit_needs_a_script(tmp_path: Path) -> None:
    spec = tmp_path / "binding.yaml"
    spec.write_text("""\
format_version: 1
probes:
  - id: t.edit
    description: an edit without a script
    request: {model: claude-fable-5-1, max_tokens: 10}
    history: [{role: user, content: hi}]
    client_edit: {message: 0, block: 0, text: changed}
    live: {from_message: 0, tool_use_ids: [], thinking_turns: []}
    predict: {verdict: no-edit}
""")
    _, errors = load_probes([spec])
    assert [str(e) for e in errors] and "add `script`" in str(errors[0]) and ":7" in str(errors[0])


def test_the_request_sent_carries_the_edit_and_the_history_built_does_not(probes: dict[str, Probe]) -> None:
    probe = probes["thinking-binding.edit-settled-mid-task-error"]
    sent = probe.create_kwargs()["messages"]
    assert sent[2]["content"][0]["content"] == "[tool result cleared]"
    assert probe.messages()[2]["content"][0]["content"] == "INC-101 open; INC-102 open."
    system = probes["thinking-binding.edit-system-mid-task-error"]
    assert system.create_kwargs()["system"].endswith("INC-101 is the priority.")


# each binding probe -> the fault that breaks what it shows, and the verdict verify then finds
BROKEN_BY = {
    "thinking-binding.edit-settled-mid-task-error": ("prefix-check-off", "no-edit"),
    "thinking-binding.edit-settled-mid-task-drop-block": ("prefix-check-off", "no-edit"),
    "thinking-binding.edit-settled-at-task-boundary": ("prefix-check-off", "no-edit"),
    "thinking-binding.edit-system-mid-task-error": ("prefix-check-off", "no-edit"),
    "thinking-binding.model-without-the-check": ("prefix-check-every-model", "rejected"),
    "clear-tool-uses.preserved-thinking-never-invalidates": ("edits-invalidate-thinking", "live-reasoning-lost"),
    "compact.preserved-thinking-never-invalidates": ("edits-invalidate-thinking", "reached-live-task"),
}


def test_every_binding_probe_has_a_broken_target(probes: dict[str, Probe]) -> None:
    bound = {i for i, p in probes.items() if binding.behavior(p.request) is not None}
    assert bound == set(BROKEN_BY)


@pytest.mark.slow
@pytest.mark.parametrize("probe_id", sorted(BROKEN_BY))
def test_the_correct_emulator_passes_and_the_broken_one_fails_by_id(probe_id: str, record_with,
                                                                    probes: dict[str, Probe]) -> None:
    fault, verdict = BROKEN_BY[probe_id]
    good, _ = record_with([probe_id])
    [passed] = [r for r in verify([good], probes) if r.outcome != "skip"]
    assert passed.outcome == "pass" and passed.invariant == VERDICT, passed.message
    out, outcomes = record_with([probe_id], [fault])
    assert all(o.ok for o in outcomes), outcomes
    [result] = [r for r in verify([out / f"emulator+{fault}"], probes) if r.outcome != "skip"]
    assert (result.scenario, result.invariant, result.outcome) == (probe_id, VERDICT, "fail"), result.message
    assert result.details["verdict"] == verdict
    if fault == "edits-invalidate-thinking":
        assert "dropped_thinking" in result.message
