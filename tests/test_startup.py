"""What a command imports at start, and the work it does not repeat: the main job imports neither SDK
nor any other command's modules, the shipped reference runs with no worker process, and each SDK's
recordings replay without the other SDK."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import conformance.engine.worker.jobs as jobs
from conformance import LoadResult, from_callable, resolve
from conformance.cli import OWN_COMMANDS, build_parser, command_of, format_help
from conformance.provider import side_results, verify_results
from conformance.engine.runner import RunOptions, run, runs_here

from ._specs import GOOD
from .conftest import ROOT

# Modules the main job (``conformance run``, with or without the replay) never needs in its own
# process: the SDKs, the report validator, the fuzzer, the other commands' packages.
NOT_NEEDED = ("anthropic", "openai", "jsonschema", "rich", "hypothesis", "deepdiff", "vcr", "langchain_core",
              "conformance.egress", "conformance.fuzz", "conformance.formats", "conformance.matrix",
              "conformance.peers", "conformance.drift", "conformance.provider", "conformance_reference")

_IMPORTED = """
import json, sys
{code}
print("\\nMODULES " + json.dumps(sorted(sys.modules)))
"""


def imported_by(code: str, cwd: Path = ROOT) -> list[str]:
    """Returns the modules a fresh interpreter holds after running ``code`` (from the checkout)."""
    done = subprocess.run([sys.executable, "-c", _IMPORTED.format(code=code)], capture_output=True, text=True,
                          cwd=cwd, timeout=120, env={**_env(), "PYTHONPATH": str(ROOT)}, check=False)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("MODULES ")), None)
    assert line is not None, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads(line.removeprefix("MODULES "))


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def unneeded(modules: list[str], allowed: tuple[str, ...] = ()) -> list[str]:
    """Returns the modules of ``modules`` that are (or are inside) one of ``NOT_NEEDED``."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_NEEDED)
                  and not any(m == a or m.startswith(a + ".") for a in allowed))


def _run(tmp: Path, *options: str) -> str:
    spec = tmp / "tiny.yaml"
    spec.write_text(GOOD, encoding="utf-8")
    return ("from conformance.cli import main\n"
            f"main(['run', '--no-progress', '--specs', {str(spec)!r}, *{list(options)!r}])")


@pytest.mark.slow
def test_importing_the_command_imports_no_other_commands_module() -> None:
    assert unneeded(imported_by("import conformance.cli")) == []


@pytest.mark.slow
def test_run_without_the_replay_imports_no_sdk_and_no_other_commands_module(tmp_path: Path) -> None:
    modules = imported_by(_run(tmp_path, "--no-provider", "--target", "conformance_reference:compact"))
    assert "conformance.engine.runner" in modules  # the run did run
    assert unneeded(modules, allowed=("conformance_reference",)) == []


@pytest.mark.slow
def test_the_import_check_sees_a_module_a_run_did_import(tmp_path: Path) -> None:
    modules = imported_by(_run(tmp_path, "--no-provider", "--format", "anthropic"))
    assert "conformance.formats" in unneeded(modules, allowed=("conformance_reference",))


@pytest.fixture(scope="module")
def few_cassettes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns a folder of two recordings of each provider (the other probes are skips)."""
    import shutil

    folder = tmp_path_factory.mktemp("cassettes")
    for server in ("emulator", "emulator-openai"):
        (folder / server).mkdir()
        for path in sorted((ROOT / "cassettes" / server).glob("*.yaml"))[:2]:
            shutil.copy(path, folder / server / path.name)
    return folder


@pytest.mark.slow
def test_the_default_run_imports_no_sdk_in_its_own_process(tmp_path: Path, few_cassettes: Path) -> None:
    """The recordings replay in processes of their own: this one imports neither SDK, nor vcrpy."""
    modules = imported_by(_run(tmp_path, "--cassettes", str(few_cassettes)))
    assert "conformance.engine.runner" in modules  # the run did run
    assert "openai" not in modules and "anthropic" not in modules and "vcr" not in modules


@pytest.fixture(scope="module")
def fresh_replay(few_cassettes: Path) -> dict[str, Any]:
    """Returns what a fresh process printed after ``replay_all`` of ``few_cassettes`` (its results and
    modules) and then after ``side_results`` of the Anthropic side (the count and its modules): one
    process of its own for both, each SDK imported once."""
    code = ("import json, sys\nfrom pathlib import Path\nfrom conformance.provider import replay_all, side_results\n"
            "from conformance.engine.worker import reaped\n"
            f"folder = Path({str(few_cassettes)!r})\n"
            "with reaped():\n    found = replay_all([folder])\n"
            "print('RESULTS ' + json.dumps({'results': [r.to_dict() for r in found], 'modules': sorted(sys.modules)}))\n"
            "side = side_results([folder], 'anthropic')\n"
            "print('SIDE ' + json.dumps({'count': len(side), 'modules': sorted(sys.modules)}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                          env={**_env(), "PYTHONPATH": str(ROOT)}, check=False)
    printed = {ln.split(" ", 1)[0]: json.loads(ln.split(" ", 1)[1]) for ln in done.stdout.splitlines()
               if ln.startswith(("RESULTS ", "SIDE "))}
    assert set(printed) == {"RESULTS", "SIDE"}, done.stdout[-2000:] + done.stderr[-2000:]
    return printed


@pytest.mark.slow
def test_the_replay_in_processes_of_their_own_equals_the_replay_here(few_cassettes: Path,
                                                                    fresh_replay: dict[str, Any]) -> None:
    from conformance.provider import replay_all

    assert replay_all([few_cassettes]) == verify_results([few_cassettes])  # (here: the SDKs are imported)
    modules = fresh_replay["RESULTS"]["modules"]
    assert "anthropic" in modules and "openai" not in modules  # openai's side: a process of its own
    assert fresh_replay["RESULTS"]["results"] == [r.to_dict() for r in verify_results([few_cassettes])]


@pytest.mark.slow
def test_the_anthropic_side_imports_no_openai_sdk(fresh_replay: dict[str, Any]) -> None:
    assert fresh_replay["SIDE"]["count"] == 2
    assert "anthropic" in fresh_replay["SIDE"]["modules"] and "openai" not in fresh_replay["SIDE"]["modules"]


@pytest.mark.slow
def test_the_replay_in_two_parts_equals_the_replay_in_one(few_cassettes: Path) -> None:
    whole = verify_results([few_cassettes])
    assert {r.outcome for r in whole} == {"pass", "skip"}
    mine = side_results([few_cassettes], "anthropic")
    theirs = side_results([few_cassettes], "openai")
    assert len(mine) == len(theirs) == 2 and not set(mine) & set(theirs)
    assert verify_results([few_cassettes], checked=mine) == whole
    assert verify_results([few_cassettes], checked={**mine, **theirs}) == whole


@pytest.mark.slow
def test_a_result_found_on_a_side_is_the_one_reported(few_cassettes: Path) -> None:
    from dataclasses import replace

    mine = side_results([few_cassettes], "anthropic")
    index = min(mine)
    changed = {index: replace(mine[index], outcome="fail", message="found on the side")}
    results = verify_results([few_cassettes], checked=changed)
    assert [r for r in results if r.message == "found on the side"] == [changed[index]]


def test_the_shipped_reference_runs_in_this_process_and_another_target_does_not(
        shipped: LoadResult, monkeypatch: pytest.MonkeyPatch) -> None:
    reference = resolve("conformance_reference:compact")
    assert runs_here(reference, RunOptions())
    assert not runs_here(reference, RunOptions(memory_limit=2**30))  # a cap is for a worker
    assert not runs_here(from_callable(reference.func, "mine:compact"), RunOptions())
    assert not runs_here(from_callable(lambda h: h, "conformance_reference:compact"), RunOptions())

    def no_pool(*args: object, **kwargs: object) -> object:
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(jobs, "Pool", no_pool)  # the one loop that starts the workers of a run
    scenarios = shipped.scenarios[:3]
    report = run([reference], scenarios)
    assert report.results and report.exit_code == 0
    with pytest.raises(AssertionError, match="worker pool"):
        run([from_callable(reference.func, "mine:compact")], scenarios)


def test_a_command_of_its_own_parses_as_with_every_command() -> None:
    assert command_of(["--version"]) is None and command_of(["run", "-k", "x"]) == "run"
    for command in OWN_COMMANDS:
        alone = build_parser(command).parse_args([command])
        full = build_parser().parse_args([command])
        assert vars(alone) == vars(full)
    everything = build_parser()
    sub = next(a for a in everything._actions if a.dest == "command")
    assert set(OWN_COMMANDS) < set(sub.choices)  # type: ignore[arg-type]  # argparse's stubs leave choices untyped


def test_the_format_names_in_the_help_are_the_formats() -> None:
    from conformance.formats import FORMATS

    assert format_help().endswith("one of: " + ", ".join(FORMATS))
