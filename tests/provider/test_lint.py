"""lint-config exit codes and what it says about each edit."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.cli import main
from conformance.provider.anthropic import emulator
from conformance.provider.anthropic import emulator_edits as edits
from conformance.provider.anthropic import semantics as sem
from conformance.provider.anthropic.lint import Finding, as_request, checked_safer_config, lint, smallest_reached, witness
from conformance.provider.probes import load_probes
from conformance.provider.verify import verify
from .._yaml import load_yaml

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs" / "provider"
CASSETTES = ROOT / "cassettes" / "emulator"


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_thinking_keep_all_is_safe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_thinking_20251015, keep: all}\n")
    assert main(["lint-config", path]) == 0
    assert "does not reach" in capsys.readouterr().out


def test_thinking_keep_one_reaches_a_task_whose_results_carry_text(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_thinking_20251015, keep: {type: thinking_turns, value: 1}}\n")
    assert main(["lint-config", path, "--max-task-steps", "1"]) == 0
    assert main(["lint-config", path]) == 1
    out = capsys.readouterr().out
    assert "2 tool steps with thinking whose tool results carry text" in out


@pytest.mark.slow
def test_default_tool_clearing_reaches_from_four_steps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.json", json.dumps({"context_management": {"edits": [{"type": "clear_tool_uses_20250919"}]}}))
    assert main(["lint-config", path]) == 1
    out = capsys.readouterr().out
    prose = " ".join(out.split())  # lines wrap at 100 columns
    assert "4 tool steps" in prose and "100000 input tokens" in prose and "--task-size N" in prose
    assert max(len(line) for line in out.splitlines()) <= 100


def test_keep_covering_the_longest_task_is_safe(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_tool_uses_20250919, keep: {type: tool_uses, value: 6}}\n")
    assert main(["lint-config", path, "--max-task-steps", "6"]) == 0
    assert main(["lint-config", path, "--max-task-steps", "7"]) == 1


def test_settled_history_crosses_the_trigger_so_keep_alone_sets_the_smallest_task() -> None:
    tools = {"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 9},
             "keep": {"type": "tool_uses", "value": 2}}
    assert smallest_reached(tools, None) == (3, True)
    tokens = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1000},
              "keep": {"type": "tool_uses", "value": 1}, "clear_at_least": {"type": "input_tokens", "value": 5000},
              "exclude_tools": ["other"], "clear_tool_inputs": True}
    assert smallest_reached(tokens, None) == (2, True)
    assert smallest_reached(tokens, 1) == (None, True)


def test_threshold_compaction_reaches_and_names_the_alternative(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: compact_20260112}\n")
    assert main(["lint-config", path, "--json", "-"]) == 1
    [finding] = json.loads(capsys.readouterr().out)
    assert finding["reaches"] and "150000" in finding["smallest_task"] and "settled answer" in finding["avoid"]


def test_on_demand_compaction_reaches_a_task_from_its_request() -> None:
    findings, rejected = lint({"compaction": {"type": "summarize"}})
    assert rejected is None and findings[0].reaches and findings[0].smallest_steps == 0
    assert "new request, before any tool step" in findings[0].smallest_task
    assert "right after a settled answer, before the next request" in findings[0].avoid
    assert findings[0].reading == sem.REQUEST_READING


def test_threshold_compaction_that_fires_on_a_new_request_reaches_it() -> None:
    """Under the old reading (only model work counts) this was safe up to the first step: a false green."""
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 60_000}}
    assert smallest_reached(edit, None) == (0, True)
    found = witness(edit, 0)
    assert found.span.tool_use_ids == () and found.span.from_message == len(found.messages) - 1
    [finding] = lint({"edits": [edit]})[0]
    assert finding.smallest_steps == 0 and "fires on that request" in finding.smallest_task


@pytest.mark.slow
def test_the_reading_is_stated_where_the_answer_is(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """verify and lint-config give clear_thinking(keep 1) one answer, and both state the reading it rests on."""
    config = {"edits": [{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}}]}
    [finding] = lint(config)[0]
    results = [r for r in verify([CASSETTES], load_probes([SPECS])[0])
               if r.outcome == "pass" and r.details["config"] == "clear_thinking(keep 1)"]
    reached = [r.details["live_task"]["tool_steps"] for r in results if r.details["reached_live"]]
    assert finding.reaches and reached and finding.smallest_steps == min(reached) == 2
    assert all(sem.TURN_READING in r.details["readings"] for r in results)
    assert main(["lint-config", write(tmp_path, "c.json", json.dumps(config)), "--json", "-"]) == 1
    assert json.loads(capsys.readouterr().out)[0]["reading"] == sem.TURN_READING
    assert main(["lint-config", write(tmp_path, "c.json", json.dumps(config))]) == 1
    assert " ".join(sem.TURN_READING.split()) in " ".join(capsys.readouterr().out.split())


def test_a_safer_clear_tool_uses_keeps_the_feature_or_asks_for_the_task_size(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_tool_uses_20250919, keep: {type: tool_uses, value: 3}}\n")
    assert main(["lint-config", path]) == 1
    out = capsys.readouterr().out
    assert "edits: []" not in out and "safer configuration: needs the task size" in out and "--task-size N" in out
    assert main(["lint-config", path, "--task-size", "8"]) == 1
    out = capsys.readouterr().out
    block = out.split("safer configuration (lints clean for tasks up to --task-size 8 tool steps):\n", 1)[1]
    safer = load_yaml(textwrap.dedent(block.split("\nlint-config:")[0]))
    assert safer == {"edits": [{"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 8}}]}
    assert main(["lint-config", write(tmp_path, "s.json", json.dumps(safer)), "--task-size", "8"]) == 0
    excluded = {"edits": [{"type": "clear_tool_uses_20250919", "exclude_tools": ["read"], "keep": {"type": "tool_uses", "value": 1}}]}
    findings, _ = lint(excluded, 4)
    assert checked_safer_config(excluded, findings, 4) == {"edits": [{**excluded["edits"][0], "keep": {"type": "tool_uses", "value": 4}}]}


@pytest.mark.parametrize("text", [
    "edits:\n  - {type: clear_tool_uses_20250919, keep: 3}\n",
    "edits:\n  - {type: forget_everything}\n",
    "{not yaml",
])
def test_invalid_configs_exit_2(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint-config", write(tmp_path, "c.yaml", text)]) == 2
    assert "lint-config" in capsys.readouterr().err


def test_configs_the_api_rejects_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = ("edits:\n  - {type: clear_tool_uses_20250919}\n"
            "  - {type: clear_thinking_20251015, keep: {type: thinking_turns, value: 1}}\n")
    assert main(["lint-config", write(tmp_path, "c.yaml", text)]) == 2
    assert "must be listed first" in capsys.readouterr().err


def test_a_keep_beyond_the_search_still_reaches_without_a_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_tool_uses_20250919, keep: {type: tool_uses, value: 250}}\n")
    assert main(["lint-config", path]) == 1
    out = capsys.readouterr().out
    assert "251 tool steps" in out and "None" not in out
    assert main(["lint-config", path, "--max-task-steps", "250"]) == 0
    assert "none up to 250 tool steps" in capsys.readouterr().out


def test_max_task_steps_below_one_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_tool_uses_20250919}\n")
    assert main(["lint-config", path, "--max-task-steps", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err


# --- one source of truth: lint against the semantics, verify's recordings and the emulator ---

def _signed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Returns the messages with every thinking block carrying the emulator's own signature."""
    return [{**m, "content": [{**b, "signature": emulator.sign(b["thinking"])} if b.get("type") == "thinking" else b
                              for b in m["content"]]} if isinstance(m.get("content"), list) else m
            for m in messages]


def _emulated(body: dict[str, Any], betas: list[str], live_from: int) -> str:
    """Returns what the emulator does to the task in flight: ``rejected``, ``reached`` or ``spared``.

    The histories are the harness's own, so their thinking is signed as if the emulator wrote it:
    what is compared is the edit semantics, not the signature check.
    """
    body = {**body, "messages": _signed(body["messages"])}
    try:
        emulator.validate(body, set(betas), set(), counting=False)
    except emulator.ApiError:
        return "rejected"
    outcome = edits.apply(body, set())
    before, after = body["messages"][live_from:], outcome.messages[live_from:]
    if (outcome.compacted or body.get("compaction") is not None) and before:  # the task's request went too
        return "reached"
    return "reached" if before != after else "spared"


def _body(config: dict[str, Any], messages: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    request = as_request(config)
    betas = sorted({sem.BETA_FOR_EDIT[e["type"]] for e in sem.edits_of(request)}
                   | ({sem.ON_DEMAND_BETA} if "compaction" in request else set()))
    return {**request, "model": "m", "max_tokens": 16, "thinking": {"type": "enabled", "budget_tokens": 1024},
            "messages": messages}, betas


TOOL_USES_TRIGGER = {"edits": [{"type": "clear_tool_uses_20250919", "trigger": {"type": "tool_uses", "value": 10},
                           "keep": {"type": "tool_uses", "value": 3}}]}


def _seven_settled_then_four_live() -> tuple[list[dict[str, Any]], int]:
    """Returns 7 settled tool uses, a settled answer, then a task in flight of 4 steps, and where it starts."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "First request."}]
    for n in range(7):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_s{n}", "name": "read", "input": {}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_s{n}", "content": "ok"}]}]
    messages += [{"role": "assistant", "content": "Done."}, {"role": "user", "content": "Second request."}]
    start = len(messages) - 1
    for n in range(4):
        messages += [{"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_l{n}", "name": "read", "input": {}}]},
                     {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_l{n}", "content": "ok"}]}]
    return messages, start


def test_settled_tool_uses_crossing_the_trigger_reach_a_four_step_task(tmp_path: Path,
                                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    messages, start = _seven_settled_then_four_live()
    span = sem.Span(start, tuple(f"toolu_l{n}" for n in range(4)))
    request = {**as_request(TOOL_USES_TRIGGER), "messages": messages}
    assert sem.predict(request, [sem.CONTEXT_BETA], span).verdict == "reached-live-task"
    assert _emulated(*_body(TOOL_USES_TRIGGER, messages), start) == "reached"
    path = write(tmp_path, "c.json", json.dumps(TOOL_USES_TRIGGER))
    assert main(["lint-config", path, "--max-task-steps", "8"]) == 1
    out = capsys.readouterr().out
    assert "4 tool steps" in out and "settled ones included" in out


def test_lint_reaches_wherever_a_shipped_probe_was_predicted_to_reach() -> None:
    probes, errors = load_probes([SPECS], provider="anthropic")
    assert not errors
    checked = 0
    for probe in probes.values():
        request = probe.semantic_request()
        config = {k: request[k] for k in ("context_management", "compaction") if k in request}
        if probe.predict["verdict"] != "reached-live-task":
            continue
        steps = len(probe.live.tool_use_ids)
        findings, rejected = lint(config, steps)
        assert rejected is None, probe.id
        assert any(f.reaches and f.smallest_steps <= steps for f in findings), probe.id
        checked += 1
    assert checked >= 8


@pytest.mark.slow
def test_on_demand_compaction_gives_the_answer_of_verifys_strategy_table() -> None:
    probes, _ = load_probes([SPECS], provider="anthropic")
    results = verify([CASSETTES], probes)
    reached = [r.details["live_task"]["tool_steps"] for r in results
               if r.family == "compaction" and r.outcome == "pass" and r.details["reached_live"]]
    assert reached, "no recorded on-demand compaction reached a task in flight"
    [finding] = lint({"compaction": {"type": "summarize"}})[0]
    assert finding.reaches and finding.smallest_steps == min(reached) == 0


@pytest.mark.parametrize("limit", [None, 1, 5])
@pytest.mark.parametrize("config", [
    TOOL_USES_TRIGGER,
    {"edits": [{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}},
               {"type": "clear_tool_uses_20250919", "exclude_tools": ["read"]}, {"type": "compact_20260112"}]},
    {"compaction": {"type": "summarize"}},
    {"context_management": {"edits": [{"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 0},
                                       "clear_at_least": {"type": "input_tokens", "value": 5000}}]}},
])
def test_the_safer_configuration_lints_clean(config: dict[str, Any], limit: int | None, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    findings, _ = lint(config, limit)
    args = ["lint-config", write(tmp_path, "c.json", json.dumps(config))] + (["--max-task-steps", str(limit)] if limit else [])
    if not any(f.reaches for f in findings):  # keep 3 under a 1-step limit
        assert config is TOOL_USES_TRIGGER and limit == 1 and main(args) == 0
        return
    if any(f.needs_task_size for f in findings):  # no keep covers every length: the task size is asked for
        assert limit is None and checked_safer_config(config, findings, limit) is None
        assert main(args) == 1 and "safer configuration: needs the task size" in capsys.readouterr().out
        return
    safer = checked_safer_config(config, findings, limit)
    assert safer is not None
    again, rejected = lint(safer, limit)
    assert rejected is None and not any(f.reaches for f in again)
    assert main(args) == 1
    printed = capsys.readouterr().out
    block = printed.split("safer configuration (lints clean", 1)[1].split("\n", 1)[1].split("\nlint-config:")[0]
    assert load_yaml(textwrap.dedent(block)) == safer  # what is printed is what was checked


def test_a_safer_configuration_that_would_not_lint_clean_is_not_offered() -> None:
    bad = Finding("clear_tool_uses_20250919", "x", True, "1", "y", 1,
                  {"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 0}})
    assert checked_safer_config({"edits": [{"type": "clear_tool_uses_20250919"}]}, [bad], 5) is None


# --- the property: lint against the emulator on generated (configuration, history) pairs ---

TOOLS = ("read", "grep", "edit", "tool_0")  # tool_0 is the first name lint's witnesses try


@st.composite
def configs(draw: st.DrawFn) -> dict[str, Any]:
    edits_: list[dict[str, Any]] = []
    kind = draw(st.sampled_from(["tools", "thinking", "both", "compact", "on-demand"]))
    if kind in ("thinking", "both"):
        keep = draw(st.one_of(st.just("all"), st.builds(lambda v: {"type": "thinking_turns", "value": v},
                                                        st.integers(1, 4))))
        edits_.append({"type": "clear_thinking_20251015", "keep": keep})
    if kind in ("tools", "both"):
        edit: dict[str, Any] = {"type": "clear_tool_uses_20250919"}
        trigger = draw(st.sampled_from(["none", "tool_uses", "input_tokens"]))
        if trigger == "tool_uses":
            edit["trigger"] = {"type": "tool_uses", "value": draw(st.integers(0, 14))}
        elif trigger == "input_tokens":
            edit["trigger"] = {"type": "input_tokens", "value": draw(st.integers(0, 3000))}
        if draw(st.booleans()):
            edit["keep"] = {"type": "tool_uses", "value": draw(st.integers(0, 6))}
        if draw(st.booleans()):
            edit["clear_at_least"] = {"type": "input_tokens", "value": draw(st.integers(0, 2500))}
        if draw(st.booleans()):
            edit["exclude_tools"] = draw(st.lists(st.sampled_from(TOOLS), unique=True, max_size=2))
        edit["clear_tool_inputs"] = draw(st.sampled_from([False, True, ["grep"], None]))
        edits_.append(edit)
    if kind == "compact":
        edits_.append({"type": "compact_20260112", "trigger": {"type": "input_tokens",
                                                               "value": draw(st.integers(50_000, 52_000))}})
    if kind == "on-demand":
        return {"compaction": {"type": "summarize"}}
    return {"edits": edits_}


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[dict[str, Any]], int, int]:
    """Returns (messages, index of the live request, live tool steps): settled tasks, then a task in flight."""
    messages: list[dict[str, Any]] = []
    counter = iter(range(10_000))

    def step(thinking: bool) -> None:
        calls = [{"type": "tool_use", "id": f"toolu_{next(counter)}", "name": draw(st.sampled_from(TOOLS)),
                  "input": {"q": "x" * draw(st.integers(0, 40))}} for _ in range(draw(st.integers(1, 2)))]
        head = [{"type": "thinking", "thinking": "Think.", "signature": "s"}] if thinking else []
        messages.append({"role": "assistant", "content": head + calls})
        results: list[dict[str, Any]] = [
            {"type": "tool_result", "tool_use_id": c["id"], "content": sem.filler(draw(st.sampled_from([2, 40, 400, 1500])))}
            for c in calls]
        if draw(st.booleans()):
            results.append({"type": "text", "text": "Note."})
        messages.append({"role": "user", "content": results})

    for task in range(draw(st.integers(0, 3))):
        messages.append({"role": "user", "content": f"Request {task}."})
        for _ in range(draw(st.integers(0, 4))):
            step(draw(st.booleans()))
        if draw(st.booleans()):  # a big settled result, to cross compaction triggers
            messages.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_{next(counter)}", "name": "read", "input": {}}]})
            messages.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": messages[-1]["content"][0]["id"], "content": sem.filler(55_000)}]})
        answer = [{"type": "thinking", "thinking": "Done.", "signature": "s"}] if draw(st.booleans()) else []
        messages.append({"role": "assistant", "content": answer + [{"type": "text", "text": "Answer."}]})
    start = len(messages)
    messages.append({"role": "user", "content": "Live request."})
    thinking = draw(st.booleans())
    for _ in range(draw(st.integers(0, 6))):
        step(thinking)
    live_steps = sum(1 for m in messages[start:] if m["role"] == "assistant" for b in m["content"] if b["type"] == "tool_use")
    return messages, start, live_steps


# 400 derandomized cases catch each of these lint defects, tried by breaking lint: a smallest
# reaching task one step too long or too short, no search past three steps, witnesses that call
# an excluded tool (200 cases miss the last one)
@pytest.mark.slow
@settings(max_examples=400, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(config=configs(), history=histories())
def test_lint_agrees_with_the_emulator(config: dict[str, Any], history: tuple[list[dict[str, Any]], int, int]) -> None:
    _agrees(config, history)  # the emulator remembers its token counts


def _agrees(config: dict[str, Any], history: tuple[list[dict[str, Any]], int, int]) -> None:
    """Asserts lint and the emulator agree on one (configuration, history) pair."""
    messages, start, live_steps = history
    body, betas = _body(config, messages)
    emulated = _emulated(body, betas, start)
    findings, rejected = lint(config, max(1, live_steps))
    assert (rejected is not None) == (emulated == "rejected"), (rejected, emulated)
    if emulated == "reached":  # lint must never call safe what the emulator shows reaching
        assert any(f.reaches and f.smallest_steps is not None and f.smallest_steps <= live_steps for f in findings)
    for f in findings:  # every counterexample lint reports is one the emulator confirms
        if f.reaches and rejected is None:
            edit = next((e for e in sem.edits_of(as_request(config)) if e["type"] == f.edit), None)
            found = witness(edit or {}, f.smallest_steps)
            single = {"compaction": config["compaction"]} if edit is None else {"edits": [edit]}
            assert _emulated(*_body(single, found.messages), found.span.from_message) == "reached", f
    safer = checked_safer_config(config, findings, max(1, live_steps)) if rejected is None else None
    if rejected is None and any(f.reaches for f in findings):
        assert safer is not None


def test_a_witness_calls_a_tool_that_exclude_tools_does_not_list() -> None:
    edit = {"type": "clear_tool_uses_20250919", "exclude_tools": ["tool_0", "tool_1"],
            "keep": {"type": "tool_uses", "value": 1}}
    found = witness(edit, 2)
    names = {b["name"] for m in found.messages if isinstance(m["content"], list) for b in m["content"]
             if b["type"] == "tool_use"}
    assert names == {"tool_2"}
    assert smallest_reached(edit, None) == (2, True)


def test_lint_config_json_file_is_written_beside_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: compact_20260112}\n")
    out = tmp_path / "findings.json"
    assert main(["lint-config", path, "--json", str(out)]) == 1
    assert "reaches into a task in flight" in capsys.readouterr().out
    [finding] = json.loads(out.read_text())
    assert finding["reaches"]
    assert main(["lint-config", path, "--json", "-"]) == 1
    assert json.loads(capsys.readouterr().out)[0]["reaches"]


def test_labels_say_one_turn_and_an_eight_step_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "c.yaml", "edits:\n  - {type: clear_thinking_20251015, keep: {type: thinking_turns, value: 1}}\n"
                                     "  - {type: clear_tool_uses_20250919, keep: {type: tool_uses, value: 1}}\n")
    main(["lint-config", path, "--task-size", "8"])
    out = capsys.readouterr().out
    assert "keep 1 thinking turn" in out and "keep 1 thinking turns" not in out
    assert "keep 1 tool use," in out and "keep 1 tool uses" not in out
    assert "covers an 8-step task" in out and "a 8-step" not in out


@pytest.mark.parametrize(("edit", "steps"), [
    ({"type": "clear_tool_uses_20250919", "keep": {"type": "tool_uses", "value": 10.0}}, 11),
    ({"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 6.0}}, 7),
    ({"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 30000.0}}, 4),
])
def test_a_value_written_as_a_float_is_read_as_its_integer(edit: dict[str, Any], steps: int, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # JSON written from Python gives 10.0; the schema takes it as the integer 10, and so must the lint:
    # keep N reaches a task of N + 1 steps, a token trigger the settled history crosses leaves keep 3 (4 steps)
    path = write(tmp_path, "c.json", json.dumps({"edits": [edit]}))
    assert main(["lint-config", path, "--json", "-"]) == 1
    [found] = json.loads(capsys.readouterr().out)
    assert found["reaches"] is True and found["smallest_steps"] == steps
