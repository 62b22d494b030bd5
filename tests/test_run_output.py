"""What ``conformance run`` prints: the spec folder first, failures grouped by invariant, one
verdict line per target and for the provider recordings, then the total; passes counted only on an
output; a changed input said precisely; a known-gaps file written from the failures."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.cli import main
from conformance.engine.expectations import load_gaps
from conformance.engine.invariants import BY_ID

from ._specs import GOOD, write
from .conftest import ROOT

BROKEN = "tests.zoo.broken"


@pytest.fixture
def specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    write(folder, "tiny.yaml", GOOD)
    return folder


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["run", "--no-progress", *args])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


@pytest.mark.slow
def test_the_default_run_gives_each_part_its_own_verdict_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _run(capsys)
    assert code == 0
    assert lines[0].startswith("specs: ") and "(the shipped specs)" in lines[0]
    reference = next(k for k, line in enumerate(lines) if line.startswith("conformance_reference:compact: "))
    assert lines[reference].startswith("conformance_reference:compact: CONFORMS (")
    provider = lines[reference + 1]
    assert provider.startswith("provider recordings: ") and len(lines) == reference + 3
    assert " match their predictions; " in provider and provider.endswith(" configurations reach into a task "
                                                                          "in flight")
    assert lines[-1].startswith("total: ") and "-- CONFORMS; every recording as predicted" in lines[-1]
    # never a bare verdict right under the strategy rows that say YES
    table_end = next(k for k in range(reference, 0, -1) if lines[k].strip() == "")
    assert all("CONFORM" not in line for line in lines[table_end - 3:table_end])


def test_several_targets_get_one_verdict_line_each_then_the_total(specs: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _run(capsys, "--no-provider", "--specs", str(specs), "--target", "conformance_reference:compact",
                          "--target", f"{BROKEN}:strip_all_thinking")
    assert code == 1
    assert lines[-3].startswith("conformance_reference:compact: CONFORMS (")
    assert lines[-2].startswith(f"{BROKEN}:strip_all_thinking: DOES NOT CONFORM (") and " fail" in lines[-2]
    assert lines[-1].startswith("total: ") and lines[-1].endswith("-- DOES NOT CONFORM")


def test_a_target_that_always_raises_passes_nothing(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _run(capsys, "--no-provider", "--specs", str(specs), "--target", f"{BROKEN}:raises")
    assert code == 1
    verdict = " ".join(" ".join(lines[-3:-1]).split())  # (a verdict line wider than 100 columns wraps)
    assert verdict.startswith(f"{BROKEN}:raises: DOES NOT CONFORM (2 errors, 0 pass, ")
    assert "no output from 2 of 2 calls" in verdict
    assert lines[-1].startswith("total: 2 errors, 0 pass, ")
    header = next(line for line in lines if line.startswith("invariant "))
    assert header.split()[-1] == "no-output"
    unmutated = next(line for line in lines if line.startswith("input.unmutated "))
    assert unmutated.split()[1] == "0" and unmutated.split()[-1] == "2"  # 0 pass, 2 without an output


def test_plurals_read_right(specs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = _run(capsys, "--no-provider", "--specs", str(specs), "-k", "inflight",
                          "--target", f"{BROKEN}:raises")
    text = " ".join(" ".join(lines).split())
    assert code == 1 and f"target {BROKEN}:raises: 1 scenario, " in text
    assert "1 error, 0 pass" in text and "no output from 1 of 1 call)" in text
    assert "1 errors" not in text and "1 scenarios" not in text and "1 calls" not in text


@pytest.mark.slow
def test_a_changed_input_says_which_message_and_what_changed(specs: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "meddler.py").write_text(
        "def compact(history):\n"
        "    history[0]['content'] = 'rewritten'\n"
        "    history[3]['content'][0]['thinking'] = 'a brand new secret plan'\n"
        "    history[4]['content'][0]['content'] = 0.0\n"
        "    return [dict(m) for m in history]\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    code, lines, _ = _run(capsys, "--no-provider", "--specs", str(specs), "-k", "inflight",
                          "--target", "meddler:compact")
    text = "\n".join(lines)
    assert code == 1 and "input.unmutated (fail)" in text
    assert """input[0]['content']: "first" -> "rewritten\"""" in text
    assert """input[4]['content'][0]['content']: "a b" -> 0.0""" in text
    assert "input[3]['content'][0]['thinking']" in text
    assert "secret plan" not in text and "plan 2" not in text  # reasoning shows as hash and length


def test_a_mutation_that_only_changes_a_type_is_shown_with_its_types() -> None:
    from conformance.engine.target import describe_mutation

    before = [{"role": "user", "content": [{"type": "text", "text": "x", "n": 0}]}]
    after = [{"role": "user", "content": [{"type": "text", "text": "x", "n": False}]}]
    assert describe_mutation(before, after) == ("input[0]['content'][0]['n']: 0 -> false",)
    assert describe_mutation(before, []) == ("the history went from 1 to 0 messages", "input[0] was removed")


@pytest.mark.slow
def test_a_broken_compactor_shows_each_invariant_once_with_its_smallest_scenario(
        capsys: pytest.CaptureFixture[str]) -> None:
    # (in process: the output is the subject here; a target's worker processes are test_worker's)
    code, lines, _ = _run(capsys, "--no-provider", "--in-process", "--target", f"{BROKEN}:keep_last_n")
    assert code == 1
    heads = [line for line in lines if line.startswith("[MUST] ")]
    invariants = [line.split(" :: ")[1].split(" ")[0] for line in heads]
    assert len(invariants) == len(set(invariants)) >= 2  # one failure shown per invariant
    assert any(line.startswith("live.untouched-suffix: ") and " scenarios; the smallest:" in line for line in lines)
    assert len(lines) < 135  # a table row per family and per invariant, one failure shown per invariant
    code, verbose, _ = _run(capsys, "--no-provider", "--in-process", "--target", f"{BROKEN}:keep_last_n", "-v")
    assert len([line for line in verbose if line.startswith("[MUST] ")]) > 3 * len(heads)
    assert max(len(line) for line in lines if not line.startswith("[")) <= 100


@pytest.mark.slow
def test_write_gaps_makes_the_same_run_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gaps = tmp_path / "gaps.yaml"
    spec = str(ROOT / "specs" / "real-failures.yaml")
    target = f"{BROKEN}:keep_last_n"
    code, _, err = _run(capsys, "--no-provider", "--in-process", "--specs", spec, "--target", target,
                        "--write-gaps", str(gaps))
    assert code == 1 and f"of {target} to {gaps}" in err
    from conformance.engine.spec import load

    ids = [s.id for s in load([spec]).scenarios]
    loaded = load_gaps(gaps, ids, list(BY_ID), targets=[target])
    assert loaded and all(g.invariants and g.target == target for g in loaded)
    code, lines, _ = _run(capsys, "--no-provider", "--in-process", "--specs", spec, "--target", target,
                          "--expectations", str(gaps))
    assert code == 0 and lines[-1].endswith(f"-- CONFORMS (with {sum(len(g.invariants) for g in loaded)} "
                                            "known-gap failures)")
    assert main(["run", "--no-provider", "--write-gaps", str(gaps), "--target", "a:b", "--target", "c:d"]) == 2


def test_the_spec_folder_line_names_an_unused_specs_folder_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                specs: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.run_command import spec_folder_line

    monkeypatch.chdir(tmp_path)  # holds a specs/ folder of its own
    (line,) = spec_folder_line(None)
    assert "(the shipped specs); ./specs is not run (--specs specs runs it)" in line
    code, lines, _ = _run(capsys, "--no-provider", "--specs", "specs")
    assert code == 0 and lines[0] == f"specs: {specs.resolve()}"
