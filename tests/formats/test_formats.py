"""Message formats: lossless round trips (property-based and on every shipped history), named
reasons for what a format cannot carry, and a target that returns its input unchanged passes every
MUST through each format."""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance import LoadResult, RunOptions, from_callable, run
from conformance.errors import UsageError
from conformance.formats import FORMATS, FormatError, get
from conformance.formats.base import canonical
from conformance.formats.wrap import adapted, in_format, mark, wrap

NAMES = sorted(FORMATS)
CONVERTED = [n for n in NAMES if n != "anthropic"]
OPTIONS = RunOptions(reference_targets=frozenset(), time_limit=5.0, in_process=True)

_text = st.text(max_size=12)
_ids = st.sampled_from(["toolu_a", "toolu_b", "toolu_c", "call_1"])
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
                     max_leaves=6)
_text_block = st.builds(lambda t: {"type": "text", "text": t}, _text)
_thinking = st.builds(lambda t, s: {"type": "thinking", "thinking": t, "signature": s}, _text, _text)
_redacted = st.builds(lambda d: {"type": "redacted_thinking", "data": d}, _text)
_tool_use = st.builds(lambda i, n, a: {"type": "tool_use", "id": i, "name": n, "input": a},
                      _ids, st.sampled_from(["read", "grep"]), st.dictionaries(_text, _json, max_size=3))


@st.composite
def _tool_result(draw: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": draw(_ids),
                             "content": draw(_text | st.lists(_text_block, max_size=2))}
    flag = draw(st.sampled_from([None, True, False]))
    if flag is not None:
        block["is_error"] = flag
    return block


def _history(reasoning: bool) -> st.SearchStrategy[list[dict[str, Any]]]:
    assistant_blocks = _text_block | _tool_use | (_thinking | _redacted if reasoning else _text_block)
    assistant = st.builds(lambda c: {"role": "assistant", "content": c}, _text | st.lists(assistant_blocks, max_size=4))
    user = st.builds(lambda c: {"role": "user", "content": c}, _text | st.lists(_text_block | _tool_result(), max_size=3))
    turns = st.lists(st.tuples(user, assistant).map(list), max_size=4).map(lambda pairs: sum(pairs, []))
    # mostly alternating, as providers require; sometimes one side twice in a row
    return turns | st.lists(user | assistant, max_size=6)


FOR_FORMAT = {name: _history(reasoning=name != "openai-chat") for name in NAMES}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_expressible_history_round_trips(name: str, data: st.DataObject) -> None:
    fmt = get(name)
    history = data.draw(FOR_FORMAT[name])
    if fmt.why_not(history) is not None:
        return
    items = fmt.to_format(history)
    assert canonical(fmt.back(items, history)) == canonical(history)
    # without the history it came from, only what the format cannot tell apart may differ
    assert canonical(fmt.back(fmt.to_format(history))) == canonical([fmt.normalise(m) for m in history])


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_history_seen_once_serves_the_check_and_the_conversion_back(name: str, data: st.DataObject) -> None:
    fmt = get(name)
    history = data.draw(FOR_FORMAT[name])
    seen = fmt.see(history)
    assert seen.why == fmt.why_not(history)
    if seen.why is not None:
        return
    # what a target might return: a suffix of the history, then messages of its own
    output = history[data.draw(st.integers(0, len(history))):] + data.draw(FOR_FORMAT[name])
    if fmt.why_not(output) is None:
        items = fmt.to_format(output)
        assert repr(fmt.back(items, history, seen)) == repr(fmt.back(items, history))  # key order too


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_shipped_history_round_trips_or_has_a_named_reason(name: str, shipped: LoadResult) -> None:
    fmt = get(name)
    expressible = 0
    for scenario in shipped.scenarios:
        why = fmt.why_not(scenario.history)
        if why is not None:
            assert len(why) > 15, (scenario.id, why)
            continue
        expressible += 1
        back = fmt.back(fmt.to_format(scenario.history), scenario.history)
        assert canonical(back) == canonical(scenario.history), scenario.id
    assert expressible >= 10


def test_what_a_format_cannot_carry_is_named() -> None:
    thinking = [{"role": "user", "content": "q"},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}]}]
    assert "carry no reasoning" in str(get("openai-chat").why_not(thinking))
    assert get("openai-responses").why_not(thinking) is None
    redacted = [{"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]}]
    assert "redacted" in str(get("google-genai").why_not(redacted))
    server = [{"role": "assistant", "content": [{"type": "server_tool_use", "id": "s", "name": "web", "input": {}}]}]
    for name in ("openai-chat", "openai-responses", "bedrock", "google-genai"):
        assert "server_tool_use" in str(get(name).why_not(server)), name
    two = [{"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]
    assert "consecutive" in str(get("openai-responses").why_not(two))


def test_strings_and_single_text_blocks_the_format_cannot_tell_apart_are_not_expressible() -> None:
    history = [{"role": "user", "content": "same"}, {"role": "assistant", "content": "ok"},
               {"role": "user", "content": [{"type": "text", "text": "same"}]}]
    assert "cannot tell apart" in str(get("bedrock").why_not(history))
    assert get("openai-chat").why_not(history) is None


def test_seeing_a_history_names_two_items_the_format_cannot_tell_apart() -> None:
    history = [{"role": "user", "content": "same"}, {"role": "assistant", "content": "ok"},
               {"role": "user", "content": [{"type": "text", "text": "same"}]}]
    for name in NAMES:
        assert get(name).see(history).why == get(name).why_not(history), name
    assert "message 2 differs" in str(get("bedrock").see(history).why)


def test_shapes_match_the_sdk_field_names() -> None:
    history = [{"role": "user", "content": "go"},
               {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "sig"},
                                                 {"type": "tool_use", "id": "toolu_1", "name": "read",
                                                  "input": {"path": "a"}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "body"}]}]
    assert get("openai-responses").to_format(history)[1:] == [
        {"type": "reasoning", "id": "rs_1_0", "summary": [], "content": [{"type": "reasoning_text", "text": "t"}],
         "encrypted_content": "sig"},
        {"type": "function_call", "call_id": "toolu_1", "name": "read", "arguments": '{"path": "a"}'},
        {"type": "function_call_output", "call_id": "toolu_1", "output": "body"}]
    assert get("bedrock").to_format(history)[1:] == [
        {"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "t", "signature": "sig"}}},
                                          {"toolUse": {"toolUseId": "toolu_1", "name": "read", "input": {"path": "a"}}}]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "toolu_1", "content": [{"text": "body"}]}}]}]
    assert get("google-genai").to_format(history)[1:] == [
        {"role": "model", "parts": [{"text": "t", "thought": True, "thoughtSignature": "c2ln"},
                                    {"functionCall": {"id": "toolu_1", "name": "read", "args": {"path": "a"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "toolu_1", "name": "read",
                                                         "response": {"output": "body"}}}]}]
    plain = [history[0], {"role": "assistant", "content": history[1]["content"][1:]}, history[2]]
    assert get("openai-chat").to_format(plain)[1:] == [
        {"role": "assistant", "tool_calls": [{"id": "toolu_1", "type": "function",
                                              "function": {"name": "read", "arguments": '{"path": "a"}'}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": "body"}]
    lc = get("langchain").to_format(history)
    assert [type(m).__name__ for m in lc] == ["HumanMessage", "AIMessage", "ToolMessage"]
    assert lc[1].tool_calls[0]["args"] == {"path": "a"} and lc[2].tool_call_id == "toolu_1"


@pytest.mark.parametrize("name", CONVERTED)
def test_output_that_is_not_the_format_is_a_format_error(name: str) -> None:
    fmt = get(name)
    with pytest.raises(FormatError):
        fmt.back("not a list")
    with pytest.raises(FormatError):
        fmt.back([42])


def _same(messages: list[Any]) -> list[Any]:
    return messages


@pytest.fixture(scope="module")
def noop_runs(shipped: LoadResult) -> Callable[[str], Any]:
    """Returns format name -> the report of a target returning its input through it, each run once,
    when a test first asks (so xdist workers run only the formats of their own tests)."""
    @cache
    def of(name: str) -> Any:
        targets, scenarios, _ = in_format([from_callable(_same, "same")], shipped.scenarios, name)
        return run(targets, scenarios, options=OPTIONS)
    return of


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_a_target_that_returns_its_input_passes_every_must_through_the_format(
        name: str, noop_runs: Callable[[str], Any], shipped: LoadResult) -> None:
    report = noop_runs(name)
    assert report.failures() == []
    fmt = get(name)
    expressible = {s.id for s in shipped.scenarios if adapted(s, fmt) is not None}  # reasoning it lacks removed
    passed = {r.scenario for r in report.results if r.outcome == "pass" and r.level == "MUST"}
    assert passed == expressible
    skipped = {r.scenario for r in report.results if r.outcome == "skip" and "not expressible" in r.message}
    assert skipped == {s.id for s in shipped.scenarios} - expressible  # skipped, with the reason, never dropped


def test_a_target_that_mutates_its_input_in_the_format_is_caught(shipped: LoadResult) -> None:
    def clear_in_place(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for m in messages:
            if m["role"] == "tool":
                m["content"] = "[cleared]"
        return messages

    scenario = next(s for s in shipped.scenarios if s.id == "real-failures.f01-last-n-cut-leaves-leading-results")
    target = wrap(from_callable(clear_in_place, "clear"), get("openai-chat"))
    report = run([target], [scenario], options=OPTIONS)
    assert ("input.unmutated", "fail") in {(r.invariant, r.outcome) for r in report.results}


def _clear_tool_messages(messages: list[Any]) -> list[Any]:
    for m in messages:
        if type(m).__name__ == "ToolMessage":
            m.content = "[cleared]"  # an attribute of the library's object
    return messages


def _add_to_call_arguments(messages: list[Any]) -> list[Any]:
    for m in messages:
        for call in getattr(m, "tool_calls", None) or []:
            call["args"]["injected"] = 1  # a value nested inside the object
    return messages


@pytest.mark.parametrize("change", [_clear_tool_messages, _add_to_call_arguments])
def test_a_langchain_target_that_changes_its_objects_in_place_is_caught(change: Callable[[list[Any]], list[Any]],
                                                                        shipped: LoadResult) -> None:
    """The library's objects are compared with the history converted again, not with a deep copy."""
    pytest.importorskip("langchain_core")
    scenario = next(s for s in shipped.scenarios if s.id == "real-failures.f01-last-n-cut-leaves-leading-results")
    target = wrap(from_callable(change, change.__name__), get("langchain"))
    report = run([target], [scenario], options=OPTIONS)
    assert ("input.unmutated", "fail") in {(r.invariant, r.outcome) for r in report.results}


def test_an_unknown_format_or_nothing_expressible_is_a_usage_error(shipped: LoadResult) -> None:
    with pytest.raises(UsageError, match="unknown format"):
        in_format([], shipped.scenarios, "openai-chatt")
    thinking_only = [s for s in shipped.scenarios if adapted(s, get("openai-chat")) is None][:3]
    with pytest.raises(UsageError, match="carry no reasoning|not carried"):
        in_format([], thinking_only, "openai-chat")
    assert all(s.expect.skip for s in mark(thinking_only, get("openai-chat")))


@pytest.mark.slow
def test_the_pytest_plugin_runs_a_target_in_its_format(pytester: pytest.Pytester, shipped: LoadResult) -> None:
    from ..conftest import SPECS

    (pytester.path / "chat_targets.py").write_text("def same(messages):\n    return messages\n", encoding="utf-8")
    pytester.syspathinsert()
    spec = SPECS / "real-failures.yaml"
    result = pytester.runpytest("--conformance-target", "chat_targets:same", "--conformance-format", "openai-chat",
                                "--conformance-specs", str(spec), "-p", "no:cacheprovider", "-rs")
    scenarios = [s for s in shipped.scenarios if s.path == str(spec)]
    expressible = sum(1 for s in scenarios if adapted(s, get("openai-chat")) is not None)
    assert 0 < expressible < len(scenarios)
    result.assert_outcomes(passed=expressible, skipped=len(scenarios) - expressible)
    result.stdout.fnmatch_lines(["*not expressible as Chat Completions messages*"])


@pytest.mark.slow
def test_the_command_line_shows_what_the_format_skips(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    from ..conftest import SPECS

    target = tmp_path / "chat_noop.py"
    target.write_text("def same(messages):\n    return messages\n", encoding="utf-8")
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        code = main(["run", "--target", "chat_noop:same", "--format", "openai-chat", "--no-provider",
                     "--specs", str(SPECS / "real-failures.yaml")])
    finally:
        sys.path.remove(str(tmp_path))
    out = capsys.readouterr().out
    assert code == 0
    assert "format openai-chat:" in out and "skipped: thinking block: Chat Completions messages carry no reasoning" in out
    assert main(["run", "--format", "nope", "--no-provider"]) == 2


def test_genai_output_in_the_sdk_snake_case_spelling_reads_the_same() -> None:
    fmt = get("google-genai")
    history = [{"role": "user", "content": "go"},
               {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "sig"},
                                                 {"type": "tool_use", "id": "t1", "name": "read", "input": {}}]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}]
    snake = [{"role": c["role"], "parts": [{{"functionCall": "function_call", "functionResponse": "function_response",
                                             "thoughtSignature": "thought_signature"}.get(k, k): v for k, v in p.items()}
                                           for p in c["parts"]]} for c in fmt.to_format(history)]
    assert snake[1]["parts"][0]["thought_signature"] == "c2ln"
    assert fmt.back(snake, history) == history


def test_a_format_whose_package_is_missing_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "langchain_core" else real(name, *a))
    with pytest.raises(UsageError, match="needs langchain_core"):
        get("langchain")
    assert get("openai-chat").name == "openai-chat"


def test_a_scenario_held_without_reasoning_keeps_its_truth_and_catches_what_the_twin_catches(
        shipped: LoadResult) -> None:
    fmt = get("openai-chat")
    scenario = next(s for s in shipped.scenarios if s.id == "reasoning.interleaved-thinking-loop-in-flight")
    assert fmt.why_not(scenario.history) is not None
    held = adapted(scenario, fmt)
    assert held is not None and "reasoning-removed" in held.features
    assert len(held.history) == len(scenario.history) and held.truth == scenario.truth
    assert not any(b.get("type") in ("thinking", "redacted_thinking")
                   for m in held.history if isinstance(m["content"], list) for b in m["content"])
    assert held.expect.reference_output is None  # the reference's stated output is for the original

    def clear_tool_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**m, "content": "[cleared]"} if m["role"] == "tool" else m for m in messages]

    targets, scenarios, note = in_format([from_callable(clear_tool_messages, "clear")], [scenario], "openai-chat")
    report = run(targets, scenarios, options=OPTIONS)
    assert "live.untouched-suffix" in {r.invariant for r in report.failures()}
    assert ", 1 of them with their reasoning blocks removed (the format has no place for them)" in note
    assert held.description.endswith("(run with its reasoning blocks removed: the format has no place for them)")


def test_a_scenario_whose_messages_hold_only_reasoning_stays_skipped() -> None:
    from conformance import Scenario, Truth

    history = [{"role": "user", "content": "q"},
               {"role": "assistant", "content": [{"type": "thinking", "thinking": "t", "signature": "s"}]}]
    scenario = Scenario("x.only-reasoning", "d", "x", history, Truth(0))
    assert adapted(scenario, get("openai-chat")) is None  # removing it would remove a message


@pytest.mark.slow
@pytest.mark.parametrize("hostile", ["segfaults", "exits"])
def test_a_target_in_another_format_runs_in_a_worker(hostile: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A target wrapped in a format is called in a worker as any other: its crash is an error record
    of the run, which goes on, never the end of the harness's process."""
    import pickle
    from pathlib import Path

    from conformance.cli import main
    from conformance.engine.target import resolve

    wrapped = wrap(resolve(f"tests.zoo.hostile:{hostile}"), get("openai-chat"))
    assert pickle.loads(pickle.dumps(wrapped)).name == wrapped.name  # it can travel to a worker
    edges = Path(__file__).resolve().parents[2] / "specs" / "edges.yaml"
    code = main(["run", "--no-provider", "--no-progress", "--specs", str(edges), "--format", "openai-chat",
                 "--target", f"tests.zoo.hostile:{hostile}", "--time-limit", "2"])
    out = capsys.readouterr().out
    assert code == 1 and "call.completes" in out and "DOES NOT CONFORM" in out, out


@pytest.mark.parametrize("name", ["openai-chat", "langchain"])
def test_messages_a_target_hands_back_unchanged_in_its_format_are_the_callers_own(name: str, shipped: LoadResult) -> None:
    """What the checks note of a message object on one call of the agent loop is found again on the next."""
    fmt = get(name)
    if fmt.requires is not None:
        pytest.importorskip(fmt.requires)
    scenario = next(s for s in shipped.scenarios if s.id == "real-failures.f01-last-n-cut-leaves-leading-results")
    history = list(scenario.history)
    output = wrap(from_callable(lambda items: items, "identity"), fmt).func(history)
    assert output == history and all(out is mine for out, mine in zip(output, history))


def test_what_a_target_returns_after_changing_its_input_in_place_is_read_as_returned(shipped: LoadResult) -> None:
    """Its input, changed, is the history it was given; the messages it returned are read as they are."""
    def clear_in_place_return_before(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        before = copy.deepcopy(messages)
        for m in messages:
            if m["role"] == "tool":
                m["content"] = "[cleared]"
        return before

    scenario = next(s for s in shipped.scenarios if s.id == "real-failures.f01-last-n-cut-leaves-leading-results")
    history = copy.deepcopy(scenario.history)
    output = wrap(from_callable(clear_in_place_return_before, "clear"), get("openai-chat")).func(history)
    assert output == scenario.history and history != scenario.history


@pytest.mark.parametrize(("name", "items", "reasoning"), [
    ("openai-responses", [
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "a summary of it"}],
         "encrypted_content": "gAAAA-ciphertext"},
        {"type": "reasoning", "id": "rs_2", "summary": [],
         "content": [{"type": "reasoning_text", "text": "the raw thought"}], "encrypted_content": "sig-2"},
        {"type": "function_call", "call_id": "c", "name": "ls", "arguments": "{}"}],
     ["a summary of it", "gAAAA-ciphertext", "the raw thought"]),
    ("bedrock", [
        {"role": "user", "content": [{"text": "hi"}]},
        {"role": "assistant", "content": [{"reasoningContent": {"reasoningText": {"text": "the raw thought",
                                                                                     "signature": "sig"}}},
                                          {"reasoningContent": {"redactedContent": b"opaque-bytes"}},
                                          {"text": "answer"}]}],
     ["the raw thought", "opaque-bytes"]),
    ("google-genai", [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "the raw thought", "thought": True}, {"text": "answer"}]}],
     ["the raw thought"]),
    ("openai-chat", [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "answer"}], []),
])
def test_each_format_names_the_reasoning_its_own_items_carry(name: str, items: list[Any], reasoning: list[str]) -> None:
    assert get(name).reasoning_in(items) == reasoning


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_reading_the_reasoning_of_malformed_items_never_raises(name: str) -> None:
    garbage: list[Any] = [None, 3, "text", {"type": "reasoning", "summary": "not a list", "content": 5},
                          {"role": "assistant", "content": [{"reasoningContent": 7}]}, {"parts": "x"}]
    assert all(isinstance(text, str) for text in get(name).reasoning_in(garbage))
    assert get(name).reasoning_in("not a list") == []
