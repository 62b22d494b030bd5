"""The published matrix: rendered from its record, not stale against the peers installed, each
failing cell reproduced on its smallest scenario; and the command on a small subset."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conformance import LoadResult, RunOptions, run
from conformance.cli import main
from conformance.formats import get
from conformance.formats.wrap import mark
from conformance.matrix import END, START, build, markdown, readme_block, rows_counter
from conformance.matrix.html import page
from conformance.peers import Peer, all_peers

from ..conftest import ROOT, shipped_specs

RECORD = ROOT / "docs" / "matrix.json"
OPTIONS = RunOptions(reference_targets=frozenset(), idempotence=False, time_limit=30.0, in_process=True)
_PUBLISHED: dict[str, Any] = json.loads(RECORD.read_text(encoding="utf-8"))  # read once: a test per row
ROWS: list[dict[str, Any]] = _PUBLISHED["rows"]


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """Returns the published record, as read when the module was (the tests only read it)."""
    return _PUBLISHED


def _installed_or_skip(peer: Peer) -> None:
    if not peer.installed and not os.environ.get("CI"):
        pytest.skip(f"{peer.library} is not installed")


def test_the_published_files_are_rendered_from_the_record(record: dict[str, Any]) -> None:
    assert (ROOT / "docs" / "matrix.md").read_text(encoding="utf-8") == markdown(record) + "\n"
    assert (ROOT / "docs" / "matrix.html").read_text(encoding="utf-8") == page(record)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme_block(record) in readme
    assert readme.count(START) == 1 and readme.count(END) == 1


@pytest.mark.slow
def test_the_record_has_a_row_per_peer_with_its_settings_and_version(record: dict[str, Any]) -> None:
    keys = ("peer", "library", "component", "setting", "format", "callable")
    assert [{k: r[k] for k in keys} for r in record["rows"]] == [
        {k: getattr(p, "name" if k == "peer" else k) for k in keys} for p in all_peers()]
    for row, peer in zip(record["rows"], all_peers(), strict=True):
        _installed_or_skip(peer)
        assert row["installed"] and row["version"] == peer.version, f"{peer.name}: run `conformance matrix`"
    assert len(record["rows"]) >= 10 and len(rows_counter(record)) >= 6


def test_the_record_is_of_every_shipped_scenario(record: dict[str, Any], shipped: LoadResult) -> None:
    assert record["scenarios"] == len(shipped.scenarios)


@pytest.mark.slow
@pytest.mark.parametrize("row", ROWS, ids=[r["peer"] for r in ROWS])
def test_every_failing_cell_fails_on_its_smallest_scenario(row: dict[str, Any], shipped: LoadResult) -> None:
    by_id = {s.id: s for s in shipped.scenarios}
    peer = {p.name: p for p in all_peers()}[row["peer"]]
    _installed_or_skip(peer)
    cells = row["smallest"]
    scenarios = mark([by_id[s] for s in sorted(set(cells.values()))], get(peer.format))
    report = run([peer.target()], scenarios, options=OPTIONS)
    failed = {(r.scenario, r.invariant) for r in report.results if r.level == "MUST" and r.outcome in ("fail", "error")}
    assert {(s, inv) for inv, s in cells.items()} <= failed


def test_a_row_that_passes_still_passes_the_real_failures(record: dict[str, Any], shipped: LoadResult) -> None:
    peers = {p.name: p for p in all_peers()}
    subset = [s for s in shipped.scenarios if s.family == "real-failures"]
    for row in record["rows"]:
        if row.get("failures"):
            continue
        peer = peers[row["peer"]]
        _installed_or_skip(peer)
        report = run([peer.target()], mark(subset, get(peer.format)), options=OPTIONS)
        assert report.failures() == [], row["peer"]


@pytest.mark.slow
def test_a_missing_library_is_a_row_not_an_error(shipped: LoadResult) -> None:
    ghost = Peer("ghost.Trimmer", "no-such-library", "Trimmer", "defaults", "anthropic", "no_such_module:trim",
                 "no_such_module")
    real = next(p for p in all_peers() if p.name == "langchain-core.trim_messages.last")
    _installed_or_skip(real)
    subset = [s for s in shipped.scenarios if s.id.startswith("real-failures.f01")]
    matrix = build([ghost, real], subset, today="2000-01-01")
    ghost_row, real_row = matrix["rows"]
    assert ghost_row["installed"] is False and "not installed" in markdown(matrix)
    assert real_row["failures"] and real_row["reproduces"] == ["F01"]
    assert "conformance explain real-failures.f01" in markdown(matrix)


def test_a_library_that_cannot_run_here_is_listed_with_why_and_is_no_row() -> None:
    from conformance.matrix.not_measured import NOT_MEASURED

    text = markdown({"checked": "2000-01-01", "scenarios": 0, "rows": []})
    assert "## Not measured" in text
    peer_libraries = {p.library for p in all_peers()}
    for library, version, _what, why in NOT_MEASURED:
        assert f"| {library} | {version} |" in text and why in text
        assert library not in peer_libraries


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, Path, Path]:
    """Returns the exit code of ``matrix PEER --specs real-failures.yaml --out DIR --readme README``
    for the autogen-core buffered context, DIR and README (run once: the tests only read them)."""
    peer = next(p for p in all_peers() if p.name == "autogen-core.BufferedChatCompletionContext")
    _installed_or_skip(peer)
    out = tmp_path_factory.mktemp("written")
    readme = out / "README.md"
    readme.write_text(f"# x\n\n{START}\nOLD-BLOCK\n{END}\nafter\n", encoding="utf-8")
    spec = ROOT / "specs" / "real-failures.yaml"
    code = main(["matrix", peer.name, "--specs", str(spec), "--out", str(out), "--readme", str(readme)])
    return code, out, readme


@pytest.mark.slow
def test_the_command_writes_the_files_and_the_readme_block(written: tuple[int, Path, Path], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    peer = next(p for p in all_peers() if p.name == "autogen-core.BufferedChatCompletionContext")
    code, out, readme = written
    assert code == 0
    written_record = json.loads((out / "matrix.json").read_text(encoding="utf-8"))
    assert [r["peer"] for r in written_record["rows"]] == [peer.name]
    assert "OLD-BLOCK" not in readme.read_text(encoding="utf-8") and "after" in readme.read_text(encoding="utf-8")
    assert (out / "matrix.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    assert main(["matrix", "no-such-peer", "--out", str(tmp_path)]) == 2
    assert "unknown peer" in capsys.readouterr().err


def test_a_verdict_says_when_nothing_was_checked_or_changed() -> None:
    from conformance.matrix.rows import verdict

    base = {"installed": True, "failures": {}, "failing_scenarios": 0}
    assert verdict({**base, "expressible": 0, "changed": 0}) == "no scenario expressible in its format"
    assert verdict({**base, "expressible": 9, "changed": 0}) == "passes every MUST (it changed no history)"
    assert verdict({**base, "expressible": 9, "changed": 3}) == "passes every MUST"
    assert verdict({**base, "installed": False}) == "not installed"


@pytest.mark.slow
def test_check_is_green_on_the_same_matrix_and_names_a_changed_cell(written: tuple[int, Path, Path],
                                                                    tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    peer = next(p for p in all_peers() if p.name == "autogen-core.BufferedChatCompletionContext")
    code, out, _ = written  # the files the command wrote (a README besides changes none of them)
    assert code == 0
    for name in ("matrix.json", "matrix.md", "matrix.html"):
        (tmp_path / name).write_bytes((out / name).read_bytes())
    spec = ROOT / "specs" / "real-failures.yaml"
    args = ["matrix", peer.name, "--specs", str(spec), "--out", str(tmp_path), "--readme", ""]
    capsys.readouterr()
    assert main([*args, "--check"]) == 0
    assert "the same as" in capsys.readouterr().out
    published = json.loads((tmp_path / "matrix.json").read_text(encoding="utf-8"))
    published["checked"] = "2000-01-01"  # a date alone is not a change
    published["rows"][0]["failing_scenarios"] += 1  # the peer now fails one scenario fewer than published
    (tmp_path / "matrix.json").write_text(json.dumps(published), encoding="utf-8")
    before = (tmp_path / "matrix.md").read_text(encoding="utf-8")
    assert main([*args, "--check"]) == 1
    out = capsys.readouterr().out
    assert f"{peer.name}: failing_scenarios" in out and "checked" not in out.split("against", 1)[1]
    assert (tmp_path / "matrix.md").read_text(encoding="utf-8") == before  # --check writes nothing


def test_check_is_no_pass_when_a_peer_is_not_installed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.matrix import check_against

    row = {"peer": "lib.Component", "installed": True, "failing_scenarios": 3}
    (tmp_path / "matrix.json").write_text(json.dumps({"scenarios": 5, "rows": [row]}), encoding="utf-8")
    fresh = {"scenarios": 5, "rows": [{**row, "installed": False, "failing_scenarios": None}]}
    assert check_against(fresh, tmp_path / "matrix.json") == 2
    assert "not installed" in capsys.readouterr().err
    assert check_against({"scenarios": 5, "rows": [row]}, tmp_path / "matrix.json") == 0
    changed = {"scenarios": 5, "rows": [{**row, "failing_scenarios": 4}, {**row, "peer": "b", "installed": False}]}
    assert check_against(changed, tmp_path / "matrix.json") == 1  # a changed row outranks an unchecked one


GHOST = Peer("ghost.Trimmer", "no-such-library", "Trimmer", "defaults", "anthropic", "no_such_module:trim",
             "no_such_module")


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def fake_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout with the published files, which ``--publish`` writes into."""
    root = tmp_path / "checkout"
    (root / "docs").mkdir(parents=True)
    for name in ("matrix.json", "matrix.md", "matrix.html"):
        (root / "docs" / name).write_bytes((ROOT / "docs" / name).read_bytes())
    (root / "README.md").write_text(f"# x\n\n{START}\nOLD-BLOCK\n{END}\nafter\n", encoding="utf-8")
    monkeypatch.setattr("conformance.matrix.command.checkout", lambda: root)
    return root


@pytest.mark.parametrize("flags", [[], ["--publish"], ["--out", "elsewhere"]])
def test_a_missing_peer_writes_no_file_and_exits_2(flags: list[str], fake_checkout: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    here = tmp_path / "project"
    here.mkdir()
    monkeypatch.chdir(here)
    real = next(p for p in all_peers() if p.name == "autogen-core.BufferedChatCompletionContext")
    monkeypatch.setattr("conformance.peers.select", lambda names: [real, GHOST])
    before = _snapshot(fake_checkout)
    assert main(["matrix", *flags]) == 2
    err = capsys.readouterr().err
    assert "1 library not installed (no-such-library), so 1 peer cannot run and no file was written" in err
    assert 'pip install -e ".[peers]"' in err
    assert _snapshot(fake_checkout) == before and list(here.iterdir()) == []


def test_the_count_of_what_is_not_installed_is_of_what_it_lists(monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    twin = Peer("ghost.OtherTrimmer", "no-such-library", "OtherTrimmer", "defaults", "anthropic",
                "no_such_module:other", "no_such_module")
    other = Peer("phantom.Trimmer", "no-such-other-library", "Trimmer", "defaults", "anthropic",
                 "no_such_phantom:trim", "no_such_phantom")
    monkeypatch.setattr("conformance.peers.select", lambda names: [GHOST, twin, other])
    assert main(["matrix"]) == 2
    err = capsys.readouterr().err
    assert "2 libraries not installed (no-such-library, no-such-other-library), so 3 peers cannot run" in err


@pytest.mark.slow
def test_by_default_the_matrix_goes_to_the_terminal_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    peer = next(p for p in all_peers() if p.name == "autogen-core.BufferedChatCompletionContext")
    _installed_or_skip(peer)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text(f"{START}\nmine\n{END}\n", encoding="utf-8")
    before = _snapshot(tmp_path)
    spec = ROOT / "specs" / "real-failures.yaml"
    assert main(["matrix", peer.name, "--specs", str(spec)]) == 0
    assert f"| {peer.library} |" in capsys.readouterr().out
    assert _snapshot(tmp_path) == before and not (tmp_path / "docs").exists()


@pytest.mark.slow
def test_publish_writes_the_checkout_and_is_refused_outside_one(fake_checkout: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    peer = next(p for p in all_peers() if p.name == "autogen-core.BufferedChatCompletionContext")
    _installed_or_skip(peer)
    monkeypatch.chdir(tmp_path)
    spec = ROOT / "specs" / "real-failures.yaml"
    assert main(["matrix", peer.name, "--specs", str(spec), "--publish"]) == 0
    written = json.loads((fake_checkout / "docs" / "matrix.json").read_text(encoding="utf-8"))
    assert written["scenarios"] != json.loads(RECORD.read_text(encoding="utf-8"))["scenarios"]  # this run's
    assert "OLD-BLOCK" not in (fake_checkout / "README.md").read_text(encoding="utf-8")
    assert not (tmp_path / "docs").exists()
    capsys.readouterr()
    monkeypatch.setattr("conformance.matrix.command.checkout", lambda: None)
    assert main(["matrix", peer.name, "--publish"]) == 2
    assert "is not in a checkout of context-conformance; use --out DIR" in capsys.readouterr().err
    assert main(["matrix", peer.name, "--check"]) == 2


def test_the_checkout_is_found_from_the_package_not_the_current_folder(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.matrix import checkout

    monkeypatch.chdir(tmp_path)
    assert checkout() == ROOT


def test_one_matrix_command_runs_every_registered_suite_and_refuses_an_unknown_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    from conformance import registry
    from conformance.cli import main
    from conformance.matrix.suite import suite

    assert {"peers", "egress"} <= set(registry.names("matrix_suites"))
    assert (suite("peers").stem, suite("egress").stem) == ("matrix", "egress-matrix")
    assert main(["matrix", "--suite", "nope"]) == 2
    assert "unknown matrix_suite 'nope'; known: " in capsys.readouterr().err
    assert main(["matrix", "--suite", "egress", "--readme", "R.md", "--out", "x"]) == 2  # egress has no README block
    assert "the egress matrix has no README block" in capsys.readouterr().err


def test_a_broken_suite_of_another_package_stops_only_its_own_runs(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from conformance import registry
    from conformance.cli import main

    original = registry.entries
    broken = registry.Entry("matrix_suites", "broken", "no_such_module_here:SUITE", False)
    monkeypatch.setattr(registry, "entries",
                        lambda kind: (*original(kind), broken) if kind == "matrix_suites" else original(kind))
    assert main(["matrix", "--suite", "broken"]) == 2
    assert "broken" in capsys.readouterr().err
    assert main(["matrix", "--suite", "egress", "nope-no-such-component"]) == 2  # the egress suite still loads
    assert "nope-no-such-component" in capsys.readouterr().err


def test_the_legend_falls_back_when_the_one_citing_scenario_says_nothing() -> None:
    from conformance.matrix.html import page
    from conformance.engine.spec import Scenario

    record = json.loads((ROOT / "docs" / "matrix.json").read_text(encoding="utf-8"))
    fid = next(f for row in record["rows"] for f in row.get("reproduces", []))
    citing = [s for s in shipped_specs().scenarios if (s.source or {}).get("ref") == fid][:1]
    assert citing and isinstance(citing[0], Scenario)
    bare = [replace(citing[0], source={"ref": fid})]
    shown = page(record, bare)
    assert f'<tr id="fid-{fid}"><td><b>{fid}</b></td><td>not cited by any scenario of these specs</td>' \
           f'<td><code>{citing[0].id}</code></td>' in shown
