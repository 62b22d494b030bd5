"""``--json -`` on ``run``, ``drift`` and ``egress``: the JSON document on stdout instead of the
tables, the same content as ``--json FILE`` writes, and the exit code of the same run without it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.cli import main

from ._specs import GOOD, write
from .drift.builders import BASELINE, folders

REPO = Path(__file__).resolve().parents[1]


def _twice(capsys: pytest.CaptureFixture[str], argv: list[str], tmp_path: Path) -> tuple[int, Any, Any]:
    """Runs ``argv`` without ``--json``, with ``--json FILE`` and with ``--json -``; asserts the three
    exit codes agree and returns (exit code, the document printed, the document written)."""
    plain = main(argv)
    tables = capsys.readouterr().out
    written_to = tmp_path / "written.json"
    to_file = main([*argv, "--json", str(written_to)])
    capsys.readouterr()
    code = main([*argv, "--json", "-"])
    printed = capsys.readouterr().out
    assert tables.strip() and not tables.lstrip().startswith(("{", "["))  # without --json: the tables
    document = json.loads(printed)  # the whole of stdout is one JSON document: no table beside it
    assert code == plain == to_file
    return code, document, json.loads(written_to.read_text(encoding="utf-8"))


def _checks(document: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted((r["scenario"], r["invariant"], r["outcome"]) for r in document["records"])


@pytest.mark.slow
@pytest.mark.parametrize(("target", "expected"), [(None, 0), ("tests.zoo.broken:strip_all_thinking", 1)])
def test_run_json_dash_prints_the_document_with_the_same_exit_code(
        target: str | None, expected: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    specs = tmp_path / "specs"
    specs.mkdir()
    write(specs, "tiny.yaml", GOOD)
    argv = ["run", "--no-provider", "--no-progress", "--specs", str(specs), *(["--target", target] if target else [])]
    code, printed, written = _twice(capsys, argv, tmp_path)
    assert code == expected and printed["exit_code"] == expected == written["exit_code"]
    assert _checks(printed) == _checks(written) and printed["records"]
    assert printed["summary"] == written["summary"]


@pytest.mark.parametrize(("edit", "expected"), [(lambda b: b.update(service_note="new"), 0),
                                                (lambda b: b.update(stop_reason="refusal"), 1)])
def test_drift_json_dash_prints_the_document_with_the_same_exit_code(
        edit: Any, expected: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline, current = folders(tmp_path, edit=edit)
    code, printed, written = _twice(capsys, ["drift", "--baseline", str(baseline), "--current", str(current)], tmp_path)
    assert code == expected and printed == written
    assert printed["exit_code"] == expected and printed["counts"]["breaking"] == expected
    assert not (Path.cwd() / "-").exists() and BASELINE.is_dir()


@pytest.mark.parametrize(("target", "expected"), [("tests.egress.zoo:log_line", 0), ("tests.egress.zoo:first_40", 1)])
def test_egress_json_dash_prints_the_document_with_the_same_exit_code(
        target: str, expected: int, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    argv = ["egress", "--target", target, "--surface", "log", "--no-progress", "--in-process"]
    code, printed, written = _twice(capsys, argv, tmp_path)
    assert code == expected and printed["exit_code"] == expected == written["exit_code"]
    assert _checks(printed) == _checks(written) and printed["records"]
    assert not (REPO / "-").exists()
