"""Targets run in worker processes: hangs are killed at the limit, crashes become error records,
a hung target ends promptly, --maxfail stops early, and parallel runs equal serial ones."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest

from conformance import CATALOG, LoadResult, RunOptions, Scenario, from_callable, load_file, resolve, run
from conformance.report import jsonfile, terminal
from conformance import progress
from conformance.engine.results import CheckResult
from conformance.engine.stop_rules import ItemSummary, walk
from conformance.engine.worker import Pool, parse_size

from .._specs import GOOD
from ..zoo import broken, hostile

FAST = RunOptions(time_limit=0.5, jobs=2)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> list[Scenario]:
    """Returns six small scenarios (the two tiny ones, three times over under other ids)."""
    path = tmp_path_factory.mktemp("specs") / "tiny.yaml"
    path.write_text(GOOD, encoding="utf-8")
    base = load_file(path).scenarios
    return [replace(s, id=f"{s.id}.{k}") for k in range(3) for s in base]


def _by_scenario(results: list[CheckResult], invariant: str) -> dict[str, CheckResult]:
    return {r.scenario: r for r in results if r.invariant == invariant}


@pytest.mark.slow
@pytest.mark.parametrize("func", [hostile.sleeps, hostile.spins])
def test_a_call_past_the_limit_is_killed_and_the_run_moves_on(tiny: list[Scenario], func: object) -> None:
    # the target never answers: it is killed at whatever limit, so a short one
    report = run([from_callable(func)], tiny[:2], options=replace(FAST, time_limit=0.2, give_up_after=None))
    completes = _by_scenario(report.results, "call.completes")
    assert set(completes) == {s.id for s in tiny[:2]}
    assert all(r.outcome == "error" and "hung" in r.message and "0.2 s" in r.message for r in completes.values())
    assert report.exit_code == 1


@pytest.mark.slow
@pytest.mark.parametrize("func, how", [(hostile.exits, "exit code 3"), (hostile.segfaults, "signal SIGSEGV")])
def test_a_worker_that_dies_is_an_error_record_and_a_fresh_worker_goes_on(tiny: list[Scenario], func: object,
                                                                          how: str) -> None:
    target = from_callable(func)
    reference = resolve("conformance_reference:compact")
    report = run([target, reference], tiny[:2], options=FAST)
    mine = [r for r in report.results if r.target == target.name]
    assert mine and all(r.outcome in ("error", "skip") for r in mine)
    errors = [r for r in mine if r.outcome == "error"]
    assert [r.invariant for r in errors] == ["call.completes"] * 2 and all(how in r.message for r in errors)
    theirs = [r for r in report.results if r.target == reference.name]
    assert theirs and all(r.outcome in ("pass", "skip") for r in theirs)


def test_a_memory_hog_gets_memory_error_under_the_limit(tiny: list[Scenario]) -> None:
    options = replace(FAST, time_limit=5.0, memory_limit=parse_size("256M"))
    report = run([from_callable(hostile.eats_memory)], tiny[:1], options=options)
    (completes,) = [r for r in report.results if r.invariant == "call.completes"]
    assert completes.outcome in ("fail", "error")
    assert "MemoryError" in completes.message or "died" in completes.message


def test_memory_error_raised_by_the_target_is_its_failure(tiny: list[Scenario]) -> None:
    report = run([from_callable(hostile.raises_memory_error)], tiny[:1], options=FAST)
    (completes,) = [r for r in report.results if r.invariant == "call.completes"]
    assert completes.outcome == "error" and "MemoryError: out of memory (on purpose)" in completes.message


@pytest.mark.slow
def test_a_target_that_keeps_timing_out_is_given_up(tiny: list[Scenario]) -> None:
    options = replace(FAST, time_limit=0.3, give_up_after=3)
    report = run([from_callable(hostile.sleeps)], tiny, options=options)
    completes = [_by_scenario(report.results, "call.completes")[s.id] for s in tiny]
    assert [r.outcome for r in completes] == ["error"] * 6
    assert all("hung" in r.message for r in completes[:3])
    assert all("given up after 3 of its scenarios timed out" in r.message for r in completes[3:])
    assert all(r.details.get("given_up") for r in completes[3:]) and not any(r.details.get("given_up")
                                                                              for r in completes[:3])
    assert len({r.scenario for r in report.results}) == len(tiny)  # header and footer counts add up


def test_a_target_whose_worker_keeps_dying_is_given_up(tiny: list[Scenario]) -> None:
    report = run([from_callable(hostile.exits)], tiny, options=replace(FAST, give_up_after=3))
    completes = [_by_scenario(report.results, "call.completes")[s.id] for s in tiny]
    assert [r.outcome for r in completes] == ["error"] * 6
    assert all("exit code 3" in r.message for r in completes[:3])
    assert all("given up after 3 of its scenarios killed their worker" in r.message for r in completes[3:])


@pytest.mark.slow
def test_a_hang_on_the_second_call_fails_idempotence_only(tiny: list[Scenario]) -> None:
    report = run([from_callable(hostile.hangs_on_second_call)], tiny[:1], options=replace(FAST, give_up_after=None))
    outcome = {r.invariant: r for r in report.results}
    assert outcome["call.completes"].outcome == "pass"
    assert outcome["output.idempotent"].outcome == "fail" and "hang" in outcome["output.idempotent"].message


def test_output_that_cannot_cross_processes_is_still_checked(tiny: list[Scenario]) -> None:
    report = run([from_callable(hostile.returns_a_generator)], tiny[:1], options=FAST)
    outcome = {r.invariant: r for r in report.results}
    assert outcome["output.well-formed"].outcome == "fail" and "generator" in outcome["output.well-formed"].message


@pytest.mark.slow
def test_mutation_is_caught_in_the_worker(tiny: list[Scenario]) -> None:
    report = run([from_callable(broken.mutate_input)], tiny, options=FAST)
    assert any(r.invariant == "input.unmutated" and r.outcome == "fail" for r in report.results)


def test_a_lambda_runs_in_process(tiny: list[Scenario]) -> None:
    report = run([from_callable(lambda history: list(history), "lambda")], tiny[:2], options=FAST)
    assert {r.outcome for r in report.results} <= {"pass", "skip"}


@pytest.mark.parametrize("maxfail", [1, 2])
def test_maxfail_stops_after_that_many_failing_scenarios(tiny: list[Scenario], maxfail: int) -> None:
    target = from_callable(broken.strip_all_thinking)
    serial = run([target], tiny, options=replace(FAST, jobs=1, maxfail=maxfail))
    parallel = run([target], tiny, options=replace(FAST, jobs=2, maxfail=maxfail))
    failing = {r.scenario for r in serial.results if r.level == "MUST" and r.outcome == "fail"}
    assert len(failing) == maxfail
    assert serial.stopped and "not run" in serial.stopped
    assert serial.results == parallel.results and serial.stopped == parallel.stopped


@pytest.mark.slow
def test_parallel_results_and_reports_equal_the_serial_run(shipped: LoadResult, tmp_path: Path) -> None:
    families: dict[str, list[Scenario]] = {}
    for scenario in shipped.scenarios:  # the first three of every family: how items are split and merged
        families.setdefault(scenario.family, []).append(scenario)  # is what is tested, not each scenario
    scenarios = [s for found in families.values() for s in found[:3]]
    assert len(families) > 10 and len(scenarios) > 30
    targets = [resolve("conformance_reference:compact"), from_callable(broken.essay_whitelist, "essay")]
    reports = {jobs: run(targets, scenarios, options=RunOptions(jobs=jobs)) for jobs in (1, 2)}
    in_process = run(targets, scenarios, options=RunOptions(in_process=True))
    assert reports[1].failures() and reports[1].results == reports[2].results == in_process.results
    assert terminal.render(reports[1]) == terminal.render(reports[2])
    for jobs, report in reports.items():
        jsonfile.write(tmp_path / f"{jobs}.json", report)
    assert (tmp_path / "1.json").read_text() == (tmp_path / "2.json").read_text()


def test_the_stop_rules_read_items_in_run_order() -> None:
    ok, slow, bad = ItemSummary(False, False), ItemSummary(True, True), ItemSummary(False, True)
    names = ["a"] * 5 + ["b"] * 2
    state = walk(names, {0: slow, 1: slow, 2: slow, 5: ok}, maxfail=None, give_up_after=3)
    assert sorted(state.hung) == [3, 4] and not state.complete  # b's first item is known, its second not
    assert list(state.given_up) == ["a"]
    state = walk(names, {0: ok, 1: bad, 3: bad, 4: bad}, maxfail=2, give_up_after=3)
    assert state.stopped_at is None  # item 2 is not known yet: a serial run might stop elsewhere
    state = walk(names, {0: ok, 1: bad, 2: ok, 3: bad, 4: bad}, maxfail=2, give_up_after=3)
    assert state.stopped_at == 3 and state.decided(4) and not state.decided(3)


def test_the_give_up_budget_counts_timeouts_and_deaths_whatever_lies_between() -> None:
    ok, slow, dead = ItemSummary(False, False), ItemSummary(True, True), ItemSummary(False, True, died=True)
    names = ["a"] * 9
    state = walk(names, {0: slow, 1: ok, 2: ok, 3: dead, 4: ok, 5: ok, 6: ok, 7: slow, 8: ok}, None, 3)
    assert sorted(state.hung) == [8] and state.ran == list(range(8))
    assert state.given_up == {"a": "not run: the target was given up after 3 of its scenarios timed out or "
                                    "killed their worker (2 timed out, 1 killed it)"}
    state = walk(names, {i: ok for i in range(9)}, None, 3)  # answers, however slowly: never given up
    assert not state.hung and not state.given_up and state.complete
    state = walk(names, {0: slow, 1: slow, **{i: ok for i in range(2, 9)}}, None, 3)
    assert not state.hung and state.complete  # within the budget: every scenario runs
    assert not walk(names, {i: slow for i in range(9)}, None, None).hung  # no budget


def test_parse_size_reads_units() -> None:
    assert parse_size("2G") == 2 * 2**30 and parse_size("512MiB") == 512 * 2**20
    with pytest.raises(ValueError):
        parse_size("12")


def test_the_pool_reports_each_way_a_job_can_end() -> None:
    with Pool(2) as pool:
        pool.submit("sum", sum, ([1, 2, 3],))
        pool.submit("boom", int, ("not a number",))
        events = {e.key: e for _ in range(2) for e in pool.wait()}
        while len(events) < 2:
            events.update({e.key: e for e in pool.wait()})
    assert events["sum"].kind == "done" and events["sum"].value == 6
    assert events["boom"].kind == "failed" and "ValueError" in events["boom"].reason


def test_a_target_module_made_after_the_workers_started_is_found(tiny: list[Scenario], tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    run([resolve("conformance_reference:compact")], tiny[:1], options=FAST)  # the fork server is up by now
    (tmp_path / "late_target.py").write_text("def compact(history):\n    return list(history)\n",
                                             encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    report = run([resolve("late_target:compact")], tiny[:2], options=FAST)
    assert report.results and {r.outcome for r in report.results} <= {"pass", "skip"}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [False, True])
def test_progress_fits_100_columns_and_stays_quiet_for_a_short_run(terminal: bool,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    ticks = [0.0, 0.5, 2.0, 8.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: ticks.pop(0) if len(ticks) > 1 else ticks[0])
    stream = _Terminal() if terminal else io.StringIO()
    shown = progress.Progress(stream)
    shown(1, 500)  # at 0.5 s: nothing yet
    assert stream.getvalue() == "" or terminal
    shown(2, 500)
    shown(3, 500)
    shown.close()
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", stream.getvalue())  # the bar's cursor moves
    lines = [line for line in text.replace("\r", "\n").splitlines() if line.strip()]
    assert all(len(line) <= 100 for line in lines)
    assert bool(lines) == terminal  # off a terminal (a log, a pipe) no progress line at all


def test_no_progress_callback_when_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress.sys, "stderr", io.StringIO())
    callback, close = progress.progress_callback(True)
    assert callback is None
    close()
    monkeypatch.setattr(progress.sys, "stderr", _Terminal())
    callback, close = progress.progress_callback(True)
    assert isinstance(callback, progress.Progress)
    close()


@pytest.mark.slow
def test_a_targets_own_output_stays_off_the_terminal_and_reaches_its_record_redacted(tmp_path: Path) -> None:
    """A target that prints (from Python and from C, on stdout and stderr) the reasoning text it
    was given, then raises: nothing of it reaches the terminal; the error record holds the end of
    what it wrote, the reasoning text replaced by its hash."""
    import subprocess
    import sys

    secret = "a private chain of thought that must never be printed anywhere at all"
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "one.yaml").write_text(_THINKING_SPEC.format(secret=secret), encoding="utf-8")
    (tmp_path / "chatty.py").write_text(
        "import os, sys\n"
        "def compact(history):\n"
        "    texts = [b.get('thinking') for m in history if isinstance(m['content'], list)\n"
        "             for b in m['content'] if b.get('type') == 'thinking']\n"
        "    print('MARKER-OUT', texts)\n"
        "    print('MARKER-ERR', texts, file=sys.stderr)\n"
        "    os.write(1, b'MARKER-FD\\n')\n"
        "    raise ValueError('no')\n", encoding="utf-8")
    out = tmp_path / "results.jsonl"
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--target", "chatty:compact",
                           "--specs", str(tmp_path / "specs"), "--jobs", "1", "--json", str(out)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "MARKER" not in done.stdout + done.stderr
    assert secret[:30] not in done.stdout + done.stderr
    records = out.read_text(encoding="utf-8")
    assert "MARKER-OUT" in records and "MARKER-ERR" in records and "MARKER-FD" in records
    assert secret[:30] not in records


_THINKING_SPEC = """\
format_version: 1
scenarios:
  - id: chatty.thinking-in-flight
    description: a task in flight with a thinking block
    family: tiny
    history:
      - {{role: user, content: "look it up"}}
      - role: assistant
        content:
          - {{type: thinking, thinking: "{secret}", signature: sig-1}}
          - {{type: tool_use, id: toolu_1, name: search, input: {{q: x}}}}
      - role: user
        content:
          - {{type: tool_result, tool_use_id: toolu_1, content: found}}
    truth: {{live_start: 0}}
"""


@pytest.mark.slow
def test_an_output_far_longer_than_its_input_is_not_read_further(tiny: list[Scenario]) -> None:
    report = run([from_callable(hostile.floods)], tiny[:2], options=FAST)
    shape = _by_scenario(report.results, "output.well-formed")
    assert all(r.outcome == "fail" and "1000000 messages" in r.message for r in shape.values())
    looped = {inv.id for inv in CATALOG if inv.loop}
    others = [r for r in report.results if r.invariant not in ("call.completes", "input.unmutated",
                                                               "output.well-formed")]
    # nor does the agent loop go on from it, where it plays: its first call gives no request
    stopped = [r for r in others if r.invariant in looped and "1000000 messages" in r.message
               and "not read further" in r.message]
    assert stopped and all(r.outcome == "skip" and (r in stopped or r.details.get("blocked_by") == "output.well-formed")
                           for r in others)
    assert all(isinstance(obs.output, str) for obs in report.observations.values())  # never sent back


@pytest.mark.slow
def test_a_thread_a_target_leaves_behind_writes_nowhere(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "tiny.yaml").write_text(GOOD, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--target", "tests.zoo.hostile:prints_from_a_thread",
                           "--specs", str(tmp_path / "specs"), "--jobs", "1"],
                          capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "STRAY-THREAD-OUTPUT" not in done.stdout + done.stderr


GIVE_UP = RunOptions(time_limit=0.5, jobs=2)
# for targets given up on: an answer the limit cuts short only gives the target up sooner
HOSTILE = RunOptions(time_limit=0.25, jobs=2)


@pytest.mark.slow
@pytest.mark.parametrize("name, idempotence", [
    ("answers_three_then_hangs", True), ("answers_three_then_hangs", False),
    ("alternates_hang_and_answer", True), ("alternates_hang_and_answer", False),
    ("dies_every_other_call", False), ("exits", True), ("segfaults", True), ("hangs_holding_the_gil", True),
])
def test_a_hostile_target_is_given_up_on_the_shipped_scenarios_after_a_few(shipped: LoadResult, name: str,
                                                                          idempotence: bool) -> None:
    """Whatever it answers between its hangs or deaths, only a few of the shipped scenarios run:
    the rest are error records at once, the reason is said once, and the exit code is 1."""
    scenarios = shipped.scenarios
    target = resolve(f"tests.zoo.hostile:{name}")
    report = run([target], scenarios, options=replace(HOSTILE, idempotence=idempotence))
    assert report.exit_code == 1
    assert list(report.given_up) == [target.name]
    completes = _by_scenario(report.results, "call.completes")
    assert set(completes) == {s.id for s in scenarios}  # every scenario has its record
    given_up = [r for r in completes.values() if r.details.get("given_up")]
    assert all(r.outcome == "error" and "given up after 3 of its scenarios" in r.message for r in given_up)
    assert len(scenarios) - len(given_up) <= 16  # the scenarios that ran: three bad ones and what lay between
    text = terminal.render(report)
    assert text.count("given up after") == 1 and f"{len(given_up)} more scenarios not run" in text


@pytest.mark.slow
def test_a_correct_but_slow_target_is_never_given_up(tiny: list[Scenario]) -> None:
    report = run([from_callable(hostile.sleeps_a_little)], tiny, options=replace(GIVE_UP, give_up_after=1))
    assert not report.given_up and report.exit_code == 0
    assert {r.outcome for r in report.results} <= {"pass", "skip"} and len(report.observations) == len(tiny)


@pytest.mark.slow
def test_a_target_with_timeouts_within_the_budget_runs_every_scenario(tiny: list[Scenario]) -> None:
    inflight = [s for s in tiny if len(s.history) == 5]
    settled = [s for s in tiny if len(s.history) != 5]
    chosen = [inflight[0], settled[0], settled[1], inflight[1], settled[2]]  # two timeouts, three answers
    report = run([from_callable(hostile.hangs_on_five_messages)], chosen, options=GIVE_UP)
    assert not report.given_up and "given up" not in terminal.render(report)
    completes = _by_scenario(report.results, "call.completes")
    assert [completes[s.id].outcome for s in chosen] == ["error", "pass", "pass", "error", "pass"]
    assert report.exit_code == 1  # the two timeouts fail call.completes


@pytest.mark.slow
def test_a_timeout_that_is_a_known_gap_spends_no_budget(tiny: list[Scenario], tmp_path: Path) -> None:
    from conformance.engine.expectations import load_gaps

    inflight = [s for s in tiny if len(s.history) == 5]
    gaps_file = tmp_path / "gaps.yaml"
    name = "tests.zoo.hostile:hangs_on_five_messages"
    gaps_file.write_text(f"format_version: 1\ntarget: '{name}'\ngaps:\n" + "".join(
        f"  - {{scenario: {s.id}, invariants: [call.completes], reason: known to hang}}\n"
        for s in inflight), encoding="utf-8")
    gaps = load_gaps(gaps_file, [s.id for s in tiny], ["call.completes"], targets=[name])
    report = run([resolve(name)], tiny, gaps=gaps, options=replace(GIVE_UP, give_up_after=2))
    assert not report.given_up and report.exit_code == 0


_REAP_SCRIPT = """\
import os, sys
from conformance.cli import main

def descendants():
    parents = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as stat:
                parents[int(pid)] = int(stat.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            pass
    found, front = [], [os.getpid()]
    while front:
        parent = front.pop()
        kids = [pid for pid, ppid in parents.items() if ppid == parent]
        found += kids
        front += kids
    return found

if __name__ == "__main__":
    import json
    for argv in json.loads(sys.argv[1]):
        code = main(argv)
        print(json.dumps({"argv": argv[:1], "code": code, "left": descendants()}), flush=True)
"""


@pytest.mark.slow
def test_no_process_a_command_started_outlives_it(tmp_path: Path) -> None:
    """After ``main()`` returns, no child process of the calling process remains: not a worker (one
    killed at its limit, one that died, idle ones), not the process that replayed the recordings,
    not the fork server multiprocessing started for them."""
    import json
    import subprocess
    import sys

    if not Path("/proc/self/stat").exists():
        pytest.skip("reads the process table from /proc")
    specs = tmp_path / "tiny.yaml"
    specs.write_text(GOOD, encoding="utf-8")
    cassette = Path(__file__).resolve().parents[2] / "cassettes" / "emulator" / "clear-thinking.keep-one-turn.yaml"
    commands = [
        ["run", "--no-provider", "--specs", str(specs), "--target", "tests.zoo.hostile:exits"],
        ["run", "--no-provider", "--specs", str(specs), "--target", "tests.zoo.hostile:sleeps", "--time-limit", "0.3"],
        ["run", "--specs", str(specs), "--cassettes", str(cassette), "--jobs", "2"],
        ["fuzz", "--target", "tests.zoo.hostile:segfaults", "--no-cache", "--out", str(tmp_path / "found")],
        ["explain", "tiny.inflight", "--specs", str(specs), "--target", "conformance_reference:compact"],
    ]
    done = subprocess.run([sys.executable, "-c", _REAP_SCRIPT, json.dumps(commands)], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[2], timeout=300)
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [line["code"] for line in lines] == [1, 1, 0, 1, 0], done.stdout[-2000:] + done.stderr[-2000:]
    assert [line["left"] for line in lines] == [[]] * len(commands)
    assert "leaked" not in done.stderr  # the resource tracker had nothing left to clean
