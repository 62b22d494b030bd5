"""A call's time limit counts the target's own time: not the seconds a first call spends importing
its library, nor those it waits for a CPU; a target that sleeps or spins is still given up."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from conformance import from_callable, resolve
from conformance.engine.clock import CallTime, busy_note, call_within, runqueue_seconds
from conformance.engine.runner import RunOptions, run
from conformance.engine.spec import Scenario, load_file
from conformance.engine.target import call_guarded

from ._specs import GOOD

SLOW_IMPORT = "import time\ntime.sleep({seconds})\n"
TARGET = """
def compact(history, **kwargs):
    import {module}  # the library a first call imports
    return list(history)
"""


@pytest.fixture()
def tiny(tmp_path: Path) -> list[Scenario]:
    path = tmp_path / "tiny.yaml"
    path.write_text(GOOD, encoding="utf-8")
    return load_file(path).scenarios


def _importing_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, seconds: float) -> str:
    (tmp_path / f"{name}_library.py").write_text(SLOW_IMPORT.format(seconds=seconds), encoding="utf-8")
    (tmp_path / f"{name}.py").write_text(TARGET.format(module=f"{name}_library"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return f"{name}:compact"


@pytest.mark.slow
def test_a_first_import_past_the_limit_is_not_counted_in_process(tiny: list[Scenario], tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    target = resolve(_importing_target(tmp_path, monkeypatch, "imports_in_process", 0.8))
    obs = call_guarded(target, tiny[0].history, tiny[0].params, 0.3)
    assert obs.returned and obs.timing is not None
    assert obs.timing.imports >= 0.8 and obs.timing.own < 0.3 + 0.25  # the import was not the call's time
    again = call_guarded(target, tiny[0].history, tiny[0].params, 0.3)  # imported now: nothing to allow
    assert again.returned and again.timing is not None and again.timing.imports < 0.1


@pytest.mark.slow
def test_a_first_import_past_the_limit_is_not_counted_in_a_worker(tiny: list[Scenario], tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    name = _importing_target(tmp_path, monkeypatch, "imports_in_a_worker", 2.0)  # past the parent's backstop
    report = run([resolve(name)], tiny[:1], options=RunOptions(time_limit=0.3, jobs=1, idempotence=False))
    (completes,) = [r for r in report.results if r.invariant == "call.completes"]
    assert completes.outcome == "pass", completes.message  # the parent did not kill it at 0.3 + grace
    (obs,) = report.observations.values()
    assert obs.timing is not None and obs.timing.imports >= 2.0


@pytest.mark.slow
def test_a_target_that_sleeps_past_the_limit_is_still_given_up(tiny: list[Scenario]) -> None:
    def sleeps(history: list[object]) -> list[object]:
        time.sleep(2)
        return list(history)

    obs = call_guarded(from_callable(sleeps), tiny[0].history, {}, 0.3)
    assert obs.timed_out and obs.timing is not None and obs.timing.wall < 1.5
    assert obs.error is not None and obs.error.startswith("no answer within 0.3 s")


@pytest.mark.slow
def test_a_target_that_spins_past_the_limit_is_still_given_up() -> None:
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    try:
        timing, _ = call_within(spin, 0.3)
    finally:
        stop.set()
    assert not timing.finished and timing.wall < 0.3 + timing.waited + 1.0


@pytest.mark.slow
def test_the_allowance_is_reported_as_it_grows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _importing_target(tmp_path, monkeypatch, "imports_reported", 0.6)
    heard: list[float] = []

    def work() -> None:
        import imports_reported_library  # noqa: F401 - the import is what is timed

    timing, _ = call_within(work, 0.2, on_allowance=heard.append)
    assert timing.finished and timing.imports >= 0.6
    assert heard and heard == sorted(heard) and heard[-1] >= 0.2


def test_the_wait_for_a_cpu_is_read_from_the_scheduler() -> None:
    assert runqueue_seconds(threading.get_native_id()) >= 0.0
    assert runqueue_seconds(2**31 - 1) == 0.0 and runqueue_seconds(None) == 0.0


def test_a_run_says_when_calls_lost_time_to_the_machine_or_to_imports() -> None:
    quick = CallTime(0.01)
    assert busy_note([quick, None, replace(quick, waited=0.2)]) == ""
    note = busy_note([quick, CallTime(6.0, waited=3.5), CallTime(2.0, waited=0.7), CallTime(4.0, imports=2.5)])
    assert note.startswith("note: 2 calls waited for a CPU (the machine was busy; the longest 3.5 s)")
    assert "1 call imported modules (a worker's first call; the longest 2.5 s)" in note
    assert note.endswith("the per-call time limit counts neither")
    assert CallTime(6.0, waited=3.5, imports=1.0).own == pytest.approx(1.5)


def test_the_busy_script_runs_a_command_under_load_and_stops_its_burners() -> None:
    import subprocess
    import sys

    from .conftest import ROOT

    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "busy.py"), "--cores", "1", "--seconds", "30",
                           "--times", "2", "--", sys.executable, "-c", "import sys; sys.exit(3)"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 3, done.stderr
    assert done.stderr.count("exit 3 in") == 2 and "with 1 of 1 burners still running" in done.stderr


def test_a_target_whose_import_fails_shows_its_frames_not_the_import_timers(
        tiny: list[Scenario], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import conformance.engine.clock as clock

    (tmp_path / "fails_at_import_library.py").write_text("x = 1\nraise ValueError('at import')\n", encoding="utf-8")
    (tmp_path / "fails_at_import.py").write_text(TARGET.format(module="fails_at_import_library"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    obs = call_guarded(resolve("fails_at_import:compact"), tiny[0].history, {}, 5.0)
    assert obs.error_type == "ValueError" and obs.error_traceback is not None
    assert "fails_at_import_library.py" in obs.error_traceback and clock.__file__ not in obs.error_traceback


def test_a_thread_whose_call_ended_in_time_runs_the_next_call() -> None:
    seen: list[int] = []
    first, thread = call_within(lambda: seen.append(threading.get_ident()), 5.0)
    second, again = call_within(lambda: seen.append(threading.get_ident()), 5.0)
    assert first.finished and second.finished
    assert thread is again and seen == [thread.ident, thread.ident] and thread.ident != threading.get_ident()


def test_a_thread_given_up_on_runs_no_other_call_and_ends_with_its_own() -> None:
    release = threading.Event()
    stuck, thread = call_within(lambda: release.wait(10), 0.1)
    try:
        assert not stuck.finished and thread.is_alive()
        later, other = call_within(lambda: None, 5.0)
        assert later.finished and other is not thread
    finally:
        release.set()
    thread.join(5.0)
    assert not thread.is_alive()


def test_a_forked_child_runs_its_calls_on_threads_of_its_own() -> None:
    import os

    call_within(lambda: None, 5.0)  # a thread of this process waits for the next call
    child = os.fork()
    if child == 0:  # (the parent's waiting thread does not exist here)
        timing, _ = call_within(lambda: None, 2.0)
        os._exit(0 if timing.finished else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_thread_runs_calls_of_one_name_only() -> None:
    _, mine = call_within(lambda: None, 5.0, "target:a")
    _, other = call_within(lambda: None, 5.0, "target:b")
    _, again = call_within(lambda: None, 5.0, "target:a")
    assert other is not mine and again is mine


def test_a_call_that_raises_past_its_own_catch_ends_its_thread_and_the_next_call_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[type[BaseException]] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: seen.append(args.exc_type))

    def raises() -> None:
        raise KeyError("past the call's own catch")

    timing, thread = call_within(raises, 5.0, "target:raises")
    thread.join(5.0)
    assert timing.finished and not thread.is_alive() and seen == [KeyError]
    later, other = call_within(lambda: None, 5.0, "target:raises")
    assert later.finished and other is not thread
