"""``conformance run --generated N`` is a thin alias of ``conformance fuzz --examples N``: the
scenarios run first, then each target is fuzzed, and either failing fails the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main

from ._specs import GOOD, write


@pytest.fixture
def specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)  # the example database and any counterexample stay in the test's folder
    folder = tmp_path / "specs"
    folder.mkdir()
    write(folder, "tiny.yaml", GOOD)
    return str(folder)


@pytest.mark.slow
def test_generated_fuzzes_each_target_after_the_scenarios(specs: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--no-provider", "--specs", specs, "--target", "tests.zoo.correct:noop",
                 "--target", "tests.zoo.correct:deep_copy", "--generated", "30", "--seed", "4"])
    printed = capsys.readouterr().out
    assert code == 0
    assert "fuzz tests.zoo.correct:noop: 30 generated histories held every MUST invariant (seed 4)" in printed
    assert "fuzz tests.zoo.correct:deep_copy: 30 generated histories" in printed


@pytest.mark.slow
def test_a_generated_counterexample_fails_a_run_the_scenarios_pass(specs: str, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    # keeps the last six messages: the tiny scenarios fit, longer tasks in flight do not
    assert main(["run", "--no-provider", "--specs", specs, "--target", "tests.zoo.broken:keep_last_n"]) == 0
    capsys.readouterr()
    code = main(["run", "--no-provider", "--specs", specs, "--target", "tests.zoo.broken:keep_last_n",
                 "--generated", "200"])
    printed = capsys.readouterr().out
    assert code == 1
    assert "counterexample after" in printed and "reproduce: conformance run" in printed
    assert list((tmp_path / "fuzz-failures").glob("generated.h*.yaml"))


def test_generated_without_the_flag_runs_no_fuzzing(specs: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--no-provider", "--specs", specs, "--target", "tests.zoo.correct:noop"]) == 0
    assert "generated histories" not in capsys.readouterr().out
