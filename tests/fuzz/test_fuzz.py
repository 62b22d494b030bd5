"""``conformance fuzz``: counterexamples are found, shrunk, written as scenario files that reproduce
under ``conformance run``; correct compactors pass; runs are deterministic; failures are replayed."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conformance import FuzzOptions, FuzzResult, RunOptions, from_callable, load, run, run_fuzz
from conformance.cli import main
from conformance.formats import get as get_format

pytest_plugins = ["pytester"]

from ..zoo import broken, correct

QUICK = FuzzOptions(examples=200, seed=0, database=None, time_limit=2.0)
BOTH = ("MUST", "SHOULD")
IN_PROCESS = RunOptions(in_process=True)  # worker processes are tested in test_worker


@cache
def fuzzed(name: str, examples: int = 200, shrink: bool = True,
           invariants: tuple[str, ...] | None = None) -> FuzzResult:
    """Returns the fuzz result of a compactor of the zoo, computed once per process. The calls run in
    this process (as test_zoo's do): what the fuzzer finds does not depend on where the target runs,
    and a worker process per compactor costs more than its examples; the worker route is tested below
    (crashes, hangs, a format, a target's own output). ``hangs`` alone runs in a worker, at a short
    limit: it never answers, and only a worker can be given up on."""
    func = getattr(broken, name, None) or getattr(correct, name)
    hangs = name == "hangs"
    limit = 0.02 if hangs else QUICK.time_limit
    options = FuzzOptions(examples=examples, seed=0, levels=BOTH, database=None, time_limit=limit, shrink=shrink,
                          invariants=invariants, in_process=not hangs)
    return run_fuzz(from_callable(func, name), options)


@pytest.mark.slow
def test_a_boundary_bug_is_caught_and_shrinks_to_at_most_ten_messages() -> None:
    result = fuzzed("boundary_off_by_one")
    assert not result.passed and result.scenario is not None
    assert "live.untouched-suffix" in {r.invariant for r in result.failures}
    assert len(result.scenario.history) <= 10


@pytest.mark.slow
@pytest.mark.parametrize("name", ["noop", "deep_copy"])
def test_correct_compactors_pass_must_and_should(name: str) -> None:
    result = fuzzed(name, 150)
    assert result.passed, [(r.invariant, r.message) for r in result.failures]
    assert result.examples == 150


@pytest.mark.slow
@pytest.mark.xdist_group("zoo")  # beside test_zoo, so the shipped verdicts are computed once
def test_kill_rate_of_fuzzing_alone_on_the_zoo(capsys: pytest.CaptureFixture[str],
                                               record_property: Any) -> None:
    """Every broken compactor of the zoo, fuzzed without the shipped scenarios (detection only, no
    shrinking), beside the shipped scenarios' verdicts (shared with test_zoo, computed once per
    process). ``python benchmarks/kill_rate.py`` measures it with 1000 examples."""
    from ..test_zoo import _results
    names = set(broken.CAUGHT_BY)
    # a kill counts only when the invariant that should catch the compactor's defect fails
    by_fuzz = {name for name in names
               if not fuzzed(name, 300, shrink=False, invariants=broken.CAUGHT_BY[name]).passed}
    by_shipped = {name for name in names if any(r.invariant in broken.CAUGHT_BY[name] and r.outcome in ("fail", "error")
                                                for r in _results(name, "broken"))}
    lines = [f"kill rate on the zoo ({len(names)} broken compactors, each by its own invariant):",
             *(f"  {label}: {len(killed)}/{len(names)} ({len(killed) / len(names):.0%})" for label, killed in
               (("shipped scenarios alone", by_shipped), ("fuzzing alone (300 examples, seed 0)", by_fuzz),
                ("both", by_shipped | by_fuzz)))]
    record_property("kill_rate", "\n".join(lines))
    with capsys.disabled():  # shown in the test output, not only on failure
        print("\n" + "\n".join(lines))
    assert len(by_fuzz) / len(names) >= 0.9, sorted(names - by_fuzz)


@pytest.mark.slow
def test_a_kill_counts_only_by_the_invariants_named() -> None:
    """A target that raises breaks ``call.completes`` and leaves every other check unrun: fuzzed for
    ``reasoning.kept-intact`` alone, it survives; for its own invariant, it is caught."""
    assert fuzzed("raises", 40, shrink=False, invariants=("reasoning.kept-intact",)).passed
    own = fuzzed("raises", 40, shrink=False, invariants=("call.completes",))
    assert not own.passed and {r.invariant for r in own.failures} == {"call.completes"}


@pytest.mark.slow
def test_same_seed_same_counterexample_and_another_seed_may_differ() -> None:
    options = replace(QUICK, in_process=True)  # the seed decides, wherever the target runs
    first = run_fuzz(from_callable(broken.strip_all_thinking), options)
    again = run_fuzz(from_callable(broken.strip_all_thinking), options)
    assert first.scenario is not None and again.scenario is not None
    assert (first.scenario.history, first.examples) == (again.scenario.history, again.examples)


@pytest.mark.slow
def test_a_known_failure_is_replayed_first_from_the_example_database(tmp_path: Path) -> None:
    # in this process: the database replays the failure wherever the target runs
    options = FuzzOptions(examples=300, seed=3, database=tmp_path / "db", time_limit=2.0, in_process=True)
    target = from_callable(broken.cap_live_task, "cap")
    found = run_fuzz(target, options)
    assert not found.passed and found.examples > 1
    assert any((tmp_path / "db").rglob("*"))
    replayed = run_fuzz(target, replace(options, seed=99))
    assert replayed.examples == 1
    assert replayed.scenario is not None and found.scenario is not None
    assert replayed.scenario.history == found.scenario.history


@pytest.mark.slow
def test_cli_writes_a_scenario_that_conformance_run_fails_the_same_way(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "found"
    code = main(["fuzz", "--target", "tests.zoo.broken:boundary_off_by_one", "--examples", "200", "--seed", "0",
                 "--out", str(out), "--no-cache"])
    printed = capsys.readouterr().out
    assert code == 1
    (written,) = out.glob("*.yaml")
    assert f"written: {written}" in printed and "reproduce: conformance run" in printed
    loaded = load([written])
    assert not loaded.errors and len(loaded.scenarios) == 1
    scenario = loaded.scenarios[0]
    assert scenario.family == "generated" and "boundary_off_by_one" in scenario.description
    report = run([from_callable(broken.boundary_off_by_one)], loaded.scenarios, options=IN_PROCESS)
    failing = {r.invariant for r in report.results if r.outcome == "fail"}
    assert "live.untouched-suffix" in failing and "live.untouched-suffix (fail)" in printed
    assert main(["run", "--no-provider", "--specs", str(written), "--target",
                 "tests.zoo.broken:boundary_off_by_one"]) == 1
    assert main(["run", "--no-provider", "--specs", str(written), "--target", "tests.zoo.correct:noop"]) == 0


@pytest.mark.slow
def test_cli_exit_zero_when_every_example_holds(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["fuzz", "--target", "tests.zoo.correct:noop", "--examples", "40", "--no-cache",
                 "--out", str(tmp_path)])
    assert code == 0
    assert "40 generated histories held every MUST invariant" in capsys.readouterr().out
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
@pytest.mark.parametrize("argv, message", [
    (["--format", "openai"], "unknown format 'openai'"),
    (["--format", "nonesuch"], "known: "),
    (["--examples", "0"], "--examples must be at least 1"),
])
def test_cli_usage_errors_exit_two(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--target", "tests.zoo.correct:noop", "--no-cache", *argv]) == 2
    assert message in capsys.readouterr().err


def test_cli_without_target_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz"]) == 2
    assert "--target" in capsys.readouterr().err


def test_no_silent_drop_does_not_blame_a_message_kept_whole() -> None:
    """Found by fuzzing a compactor that returns its input: a kept message whose only block also
    sits in an earlier, larger message was reported as a cut of that message."""
    from conformance import Scenario, Truth
    history = [
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "ok", "signature": "EuYB1"},
            {"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "toolu_01A", "name": "read_file", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01A", "content": "ok"}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "ok", "signature": "EuYB3"},
                                          {"type": "text", "text": "ok"}]},
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
    ]
    scenario = Scenario("generated.regression", "regression", "generated", history, Truth(6))
    for func in (correct.noop, lambda h: [h[0], {**h[1]}, h[2], {"role": "assistant", "content": [h[3]["content"][1]]},
                                          h[4], h[5]]):
        report = run([from_callable(func, "t")], [scenario], options=IN_PROCESS)
        assert not [r for r in report.results if r.invariant == "blocks.no-silent-drop" and r.outcome == "fail"]
    dropped = [*history[:5], {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}]
    dropped[1] = {"role": "assistant", "content": history[1]["content"][:2]}  # the tool_use is gone
    report = run([from_callable(lambda h: dropped, "drops")], [scenario], options=IN_PROCESS)
    assert [r for r in report.results if r.invariant == "blocks.no-silent-drop" and r.outcome == "fail"]


@pytest.mark.slow
def test_pytest_plugin_adds_one_fuzz_item_per_target(pytester: pytest.Pytester) -> None:
    from .._specs import GOOD
    folder = pytester.mkdir("specs")
    (folder / "tiny.yaml").write_text(GOOD, encoding="utf-8")
    (pytester.path / "targets.py").write_text(
        "def noop(history):\n    return list(history)\n"
        "def last_six(history):\n    return history[-6:]\n", encoding="utf-8")
    pytester.syspathinsert()
    common = ["--conformance-specs", str(folder), "-p", "no:cacheprovider", "-v"]
    result = pytester.runpytest("--conformance-target", "targets:noop", "--conformance-fuzz", "40", *common)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*fuzz[[]targets:noop[]] PASSED*"])
    result = pytester.runpytest("--conformance-target", "targets:last_six", "--conformance-fuzz", "300", *common)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*a generated history shrunk to * messages breaks a MUST invariant*",
                                 "*live.untouched-suffix (fail)*", "*reproduce: conformance run --no-provider --specs*"])
    assert list((pytester.path / "fuzz-failures").glob("*.yaml"))


@pytest.mark.slow
def test_reference_passes_a_few_hundred_generated_histories() -> None:
    import conformance_reference as reference
    result = run_fuzz(from_callable(reference.compact, "conformance_reference:compact"), FuzzOptions(examples=300, database=None))
    assert result.passed, [(r.invariant, r.message) for r in result.failures]


def _reference_failures(history: list, live_start: int, params: dict) -> list[str]:
    import conformance_reference as reference
    from conformance import Scenario, Truth
    scenario = Scenario("generated.finding", "finding", "generated", history, Truth(live_start), params=params)
    report = run([from_callable(reference.compact, "conformance_reference:compact")], [scenario], options=IN_PROCESS)
    return [f"{r.invariant}: {r.message}" for r in report.results if r.outcome == "fail"]


@pytest.mark.parametrize("opening", [
    [{"role": "system", "content": "ok"}, {"role": "user", "content": "ok"}],
    [{"role": "user", "content": "ok"}, {"role": "user", "content": "and this"}],
])
def test_reference_keeps_the_whole_task_a_prefill_continues(opening: list) -> None:
    history = [*opening, {"role": "assistant", "content": '{"answer": '}]
    assert _reference_failures(history, 0, {"keep_turns": 0}) == []


def test_reference_is_idempotent_on_a_compaction_anchor_that_reasoned() -> None:
    history = [
        {"role": "user", "content": "ok"},
        {"role": "assistant", "content": [{"type": "redacted_thinking", "data": "EmwKAhgB"},
                                          {"type": "compaction", "content": "Summary: ok"},
                                          {"type": "text", "text": "ok"}]},
        {"role": "user", "content": "next"},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        {"role": "user", "content": "more"},
    ]
    assert _reference_failures(history, 4, {"keep_turns": 1}) == []


def clear_chat_tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A compactor that speaks Chat Completions and clears every tool message, live ones included."""
    return [{**m, "content": "[cleared]"} if m["role"] == "tool" else m for m in messages]


@pytest.mark.slow
def test_fuzz_in_a_format_catches_a_compactor_written_in_it_and_reproduces(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    target = from_callable(clear_chat_tool_results, "clear_chat_tool_results")
    # in this process: a format in a worker is tested below (test_fuzz_in_a_format_runs_in_a_worker)
    options = FuzzOptions(examples=200, seed=1, database=None, format="openai-chat", idempotence=False,
                          in_process=True)
    found = run_fuzz(target, options)
    assert not found.passed and "live.untouched-suffix" in {r.invariant for r in found.failures}
    assert found.scenario is not None and get_format("openai-chat").why_not(found.scenario.history) is None
    held = run_fuzz(from_callable(lambda messages: messages, "noop"), replace(options, examples=60))
    assert held.passed and held.examples == 60  # only expressible histories are counted as examples


@pytest.mark.slow
def test_cli_fuzz_in_a_format_names_it_in_the_reproduce_line(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fuzz", "--target", "tests.fuzz.test_fuzz:clear_chat_tool_results", "--format", "openai-chat",
                 "--examples", "200", "--seed", "1", "--no-cache", "--out", str(tmp_path)])
    assert code == 1
    printed = capsys.readouterr().out
    assert "--format openai-chat" in printed
    [written] = tmp_path.glob("*.yaml")
    assert "--format openai-chat" in written.read_text(encoding="utf-8")  # the file's own reproduce line
    assert main(["run", "--no-provider", "--specs", str(written), "--format", "openai-chat",
                 "--target", "tests.fuzz.test_fuzz:clear_chat_tool_results"]) == 1


@pytest.mark.slow
def test_pytest_plugin_fuzzes_a_target_in_its_format(pytester: pytest.Pytester) -> None:
    from .._specs import GOOD
    folder = pytester.mkdir("specs")
    (folder / "tiny.yaml").write_text(GOOD, encoding="utf-8")
    (pytester.path / "chat.py").write_text(
        "def same(messages):\n    return messages\n"
        "def clear(messages):\n"
        "    return [{**m, 'content': '[cleared]'} if m['role'] == 'tool' else m for m in messages]\n",
        encoding="utf-8")
    pytester.syspathinsert()
    common = ["--conformance-specs", str(folder), "--conformance-format", "openai-chat", "-p", "no:cacheprovider",
              "-v", "--conformance-fuzz-seed", "1"]
    # histories it cannot carry are no examples: most drawn are not, so 40 examples meet many of them
    result = pytester.runpytest("--conformance-target", "chat:same", "--conformance-fuzz", "40", *common)
    result.stdout.fnmatch_lines(["*fuzz[[]chat:same[]] PASSED*"])
    result = pytester.runpytest("--conformance-target", "chat:clear", "--conformance-fuzz", "200", *common)
    result.stdout.fnmatch_lines(["*fuzz[[]chat:clear[]] FAILED*", "*reproduce: conformance run*--format openai-chat*"])


def chatty_thinking_reader(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Prints every thinking text it is given (from Python and straight to fd 2), then drops them."""
    import os
    texts = [b.get("thinking") for m in history if isinstance(m["content"], list)
             for b in m["content"] if isinstance(b, dict) and b.get("type") == "thinking"]
    print("CHATTY", texts)
    os.write(2, b"CHATTY-FD\n")
    return broken.strip_all_thinking(history)


@pytest.mark.slow
def test_a_fuzzed_targets_own_output_reaches_neither_terminal_nor_log(capfd: pytest.CaptureFixture[str]) -> None:
    result = run_fuzz(from_callable(chatty_thinking_reader, "chatty"), QUICK)
    assert not result.passed
    out, err = capfd.readouterr()
    assert "CHATTY" not in out + err


@pytest.mark.slow
@pytest.mark.parametrize("name, message", [
    ("segfaults", "signal SIGSEGV"), ("exits", "exit code 3"), ("sleeps", "no answer within 0.5 s"),
    ("dies_every_other_call", "exit code 4"),
])
def test_a_target_that_crashes_or_hangs_is_a_shrunk_counterexample(name: str, message: str, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The target runs in a worker process: its crash or hang fails the example instead of ending
    the fuzz run, and the written scenario reproduces under ``conformance run``."""
    out = tmp_path / "found"
    target = f"tests.zoo.hostile:{name}"
    code = main(["fuzz", "--target", target, "--examples", "50", "--time-limit", "0.5", "--no-cache",
                 "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 1 and "call.completes (error)" in printed and message in printed
    (written,) = out.glob("*.yaml")
    assert main(["run", "--no-provider", "--specs", str(written), "--target", target, "--time-limit", "0.5"]) == 1
    assert "call.completes (error)" in capsys.readouterr().out


@pytest.mark.slow
def test_shrinking_a_hang_stops_at_its_time_budget() -> None:
    """Every try of a target that always hangs costs the time limit: shrinking stops at its budget
    with the smallest failing history found so far."""
    from ..zoo import hostile

    options = FuzzOptions(examples=50, seed=0, database=None, time_limit=0.2, shrink_seconds=0.0)
    result = run_fuzz(from_callable(hostile.sleeps, "sleeps"), options)
    assert not result.passed and result.examples == 1
    assert [r.invariant for r in result.failures] == ["call.completes"]


@pytest.mark.slow
def test_fuzz_in_process_calls_the_target_here() -> None:
    import os

    seen: set[int] = set()

    def records_its_process(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        seen.add(os.getpid())
        return list(history)

    options = replace(QUICK, examples=20)
    assert run_fuzz(from_callable(records_its_process, "here"), replace(options, in_process=True)).passed
    assert seen == {os.getpid()}
    assert run_fuzz(from_callable(correct.noop, "noop"), options).passed  # shipped to a worker


@pytest.mark.slow
def test_fuzz_in_a_format_runs_in_a_worker(tmp_path: Path) -> None:
    from ..zoo import hostile

    options = FuzzOptions(examples=20, seed=1, database=None, format="openai-chat", time_limit=0.5)
    found = run_fuzz(from_callable(hostile.segfaults, "segfaults"), options)
    assert not found.passed and "signal SIGSEGV" in found.failures[0].message


@pytest.mark.slow
def test_cli_fuzz_in_process_is_an_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code = main(["fuzz", "--target", "tests.zoo.correct:noop", "--examples", "20", "--no-cache", "--in-process",
                 "--out", str(tmp_path)])
    assert code == 0 and "20 generated histories held" in capsys.readouterr().out
