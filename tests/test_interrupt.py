"""Ctrl-C stops a run cleanly: how far it got, the summary of what finished, exit 130, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import conformance.engine.runner as runner
from conformance.cli import main

from .conftest import ROOT

SPEC = ROOT / "specs" / "real-failures.yaml"

# Calls the reference (one call a scenario: no second call, no agent loop), and on its fourth call presses Ctrl-C: SIGINT to the whole process group, as
# a terminal sends it (the command and its workers).
TARGET = '''
import os, signal, time
from conformance_reference import compact as _real

def compact(history, **kwargs):
    with open(os.environ["CALLS_FILE"], "a") as calls:
        calls.write("x\\n")
    with open(os.environ["CALLS_FILE"]) as calls:
        if len(calls.readlines()) == 4:
            os.killpg(os.getpgid(0), signal.SIGINT)
            time.sleep(60)  # the command kills this worker when it stops: no time limit is reached
    return _real(history, **kwargs)
'''


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups are POSIX")
def test_ctrl_c_in_a_run_with_workers_reports_what_finished(tmp_path: Path) -> None:
    (tmp_path / "presses_ctrl_c.py").write_text(TARGET, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CALLS_FILE": str(tmp_path / "calls")}
    # Ctrl-C as a terminal's: a command started in the background of a shell without job control
    # inherits SIGINT ignored (and keeps it ignored), whatever started this test
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from conformance.cli import main; sys.exit(main())")
    # A limit far past any call's time on a busy machine: only the interruption can end this run early
    # (with the default 5 s, three slow calls could give the target up before its fourth call).
    done = subprocess.run([sys.executable, "-P", "-c", code, "run", "--no-progress", "-j", "1", "--time-limit", "90",
                           "--no-idempotence", "--models", "older", "--specs", str(SPEC), "--target", "presses_ctrl_c:compact"],
                          cwd=tmp_path, env=env, text=True, capture_output=True, timeout=120,
                          start_new_session=True, check=False)
    assert done.returncode == 130, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "interrupted (Ctrl-C): 3 of " in done.stdout and " scenarios finished" in done.stdout
    assert "presses_ctrl_c:compact: NO VERDICT, interrupted (" in done.stdout
    assert "-- NO VERDICT (interrupted)" in done.stdout and "CONFORMS" not in done.stdout
    assert "WorkerError" not in done.stdout and "died" not in done.stdout  # the interrupt is no failure


def test_ctrl_c_in_process_after_some_calls(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    real, calls = runner.observe, []

    def observe(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return real(*args, **kwargs)  # type: ignore[arg-type]  # passed on as the runner called it

    monkeypatch.setattr(runner, "observe", observe)
    json_file = tmp_path / "r.json"
    code = main(["run", "--no-provider", "--no-progress", "--in-process", "--specs", str(SPEC),
                 "--target", "tests.zoo.broken:keep_last_n", "--json", str(json_file)])
    captured = capsys.readouterr()
    assert code == 130
    assert "interrupted (Ctrl-C): 5 of " in captured.out
    lines = captured.out.splitlines()
    assert any(line.startswith("target tests.zoo.broken:keep_last_n: 5 scenarios") for line in lines)
    assert not json_file.exists() and "no --json, --report or --write-gaps written" in captured.err


def test_ctrl_c_before_the_run_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    import conformance.run_command as run_command

    def load(*args: object, **kwargs: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(run_command, "load", load)
    assert main(["run", "--no-provider", "--in-process"]) == 130
    assert capsys.readouterr().err == "conformance: interrupted\n"


def test_a_failure_found_before_ctrl_c_is_still_a_failure(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    real, calls = runner.observe, []

    def observe(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) == 20:
            raise KeyboardInterrupt
        return real(*args, **kwargs)  # type: ignore[arg-type]  # passed on as the runner called it

    monkeypatch.setattr(runner, "observe", observe)
    code = main(["run", "--no-provider", "--no-progress", "--in-process", "--specs", str(SPEC),
                 "--target", "tests.zoo.broken:raises"])
    out = capsys.readouterr().out
    assert code == 130 and "tests.zoo.broken:raises: DOES NOT CONFORM (" in out


def test_the_library_call_raises_keyboard_interrupt_unless_asked_to_keep_what_finished(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance import load, resolve

    real, calls = runner.observe, []

    def observe(*args: object, **kwargs: object) -> object:
        calls.append(1)
        if len(calls) % 3 == 0:
            raise KeyboardInterrupt
        return real(*args, **kwargs)  # type: ignore[arg-type]  # passed on as the runner called it

    monkeypatch.setattr(runner, "observe", observe)
    scenarios = load([SPEC]).scenarios
    options = runner.RunOptions(in_process=True)
    with pytest.raises(KeyboardInterrupt):
        runner.run([resolve("conformance_reference:compact")], scenarios, options=options)
    report = runner.run([resolve("conformance_reference:compact")], scenarios, options=options,
                        keep_on_interrupt=True)
    assert report.interrupted and len(report.scenarios) == 2 and report.stopped.startswith("interrupted")
