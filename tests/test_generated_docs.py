"""Every generated file of docs/ and block of README.md is an entry of tools/generated_docs.py, the
one check CI runs: it passes on the checkout and fails, naming the file, on a stale copy."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import ROOT, generated_docs_tool

QUICK = ("data", "measured")


@pytest.fixture(scope="module")
def tool() -> ModuleType:
    return generated_docs_tool()


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the checkout's docs/ and README.md, beside its specs and benchmarks."""
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    for folder in ("specs", "benchmarks"):
        (tmp_path / folder).symlink_to(ROOT / folder, target_is_directory=True)
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.slow
def test_the_checkout_passes_the_check_of_what_runs_no_target(tool: ModuleType,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert tool.main(["--check", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "current" in out and "regenerate by hand with `python benchmarks/kill_rate.py`" in out


@pytest.mark.slow
def test_stale_files_fail_the_check_by_name_and_write_makes_them_current(
        tool: ModuleType, copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _edit(copy / "docs" / "invariants.md", "| `call.completes` | MUST |", "| `call.completes` | SHOULD |")
    _edit(copy / "docs" / "egress.md", "## Checks", "## The checks")
    _edit(copy / "docs" / "matrix.md", "## Per peer", "## Each peer")
    _edit(copy / "README.md", "<!-- matrix:start -->\nChecked on", "<!-- matrix:start -->\nRun on")
    (copy / "docs" / "coverage.md").write_text("# an old page\n", encoding="utf-8")
    entries = tool.select([], QUICK)
    assert tool.check(entries, copy) == 1
    out = capsys.readouterr().out
    for line in ("invariants: docs/invariants.md is stale", "egress-catalog: docs/egress.md is stale",
                 "matrix-pages: docs/matrix.md is stale", "matrix-pages: README.md is stale",
                 "coverage: docs/coverage.md is stale"):
        assert line in out
    assert "egress-matrix-page:" not in out  # the one left as it was
    assert tool.write(tool.select([], ("data",)), copy) == 0
    assert tool.check(entries, copy) == 0
    for rel in ("docs/invariants.md", "docs/egress.md", "docs/matrix.md", "docs/coverage.md", "README.md"):
        assert (copy / rel).read_text(encoding="utf-8") == (ROOT / rel).read_text(encoding="utf-8"), rel


def test_a_block_without_its_markers_is_an_error_naming_them(tool: ModuleType, copy: Path) -> None:
    _edit(copy / "docs" / "invariants.md", "<!-- catalog:end -->", "")
    with pytest.raises(ValueError, match="docs/invariants.md has no single <!-- catalog:start -->"):
        tool.BY_NAME["invariants"].check(copy)


def test_measured_figures_are_not_compared_but_the_pages_shape_is(
        tool: ModuleType, copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fuzz, bench = tool.BY_NAME["fuzz"], tool.BY_NAME["benchmarks-analyze"]
    page = copy / "docs" / "fuzz.md"
    rows = [line for line in page.read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    _edit(page, rows[0], rows[0].replace("|", "| 9 |", 1))  # another machine's figures
    assert fuzz.check(copy) == 0
    _edit(page, "## Kill rates", "## Kill rate")  # laid out as no version of the benchmark prints it
    assert fuzz.check(copy) == 1
    assert "docs/fuzz.md is not laid out as benchmarks/kill_rate.py prints it" in capsys.readouterr().out
    assert bench.check(copy) == 0
    _edit(copy / "docs" / "benchmarks-analyze.md", "python benchmarks/bench_analyze.py",
          "python benchmarks/bench_gone.py")
    assert bench.check(copy) == 1
    assert "names benchmarks/bench_gone.py, which does not exist" in capsys.readouterr().out


def test_the_records_are_checked_and_written_by_their_own_commands(
        tool: ModuleType, copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(tool, "_cli", lambda *argv: calls.append(argv) or 1)
    docs = str(copy / "docs")
    assert tool.check([tool.BY_NAME["matrix"], tool.BY_NAME["egress-matrix"]], copy) == 1
    assert calls == [("matrix", "--check", "--out", docs), ("egress-matrix", "--check", "--out", docs)]
    out = capsys.readouterr().out
    assert "regenerate with `conformance matrix --publish`" in out and "`conformance egress-matrix`" in out
    calls.clear()
    tool.write([tool.BY_NAME["matrix"]], copy)
    assert calls == [("matrix", "--out", docs, "--readme", str(copy / "README.md"))]


def test_a_measured_page_is_not_written_and_an_unknown_name_is_refused(
        tool: ModuleType, copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tool.write([tool.BY_NAME["fuzz"]], copy) == 2
    assert "run `python benchmarks/kill_rate.py`" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        tool.main(["--check", "no-such-page"])
    assert exit_.value.code == 2


def test_every_page_that_says_it_is_generated_is_an_entry(tool: ModuleType) -> None:
    listed = {path for entry in tool.ENTRIES for path in entry.paths}
    for page in sorted((ROOT / "docs").glob("*.md")):
        head = page.read_text(encoding="utf-8")[:2000].lower()
        if "generated by" in head or "printed by" in head or "do not edit" in head:
            assert f"docs/{page.name}" in listed, page.name
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count(":start -->") == 2 and {"README.md"} <= listed


def test_ci_runs_the_one_check_and_no_generator_check_beside_it() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python tools/generated_docs.py --check\n" in ci
    assert "matrix --check" not in ci and "coverage" not in ci
