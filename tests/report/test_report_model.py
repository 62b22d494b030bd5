"""The one report model: every writer takes a ``Report``; the probe table of a stream keeps its
first rows in probe order; results.jsonl written a line at a time is whole or absent."""

from __future__ import annotations

import json
import random
import typing
from pathlib import Path

import pytest

from conformance.engine import command_report
from conformance.engine.command_report import Report
from conformance.egress.run import EgressReport
from conformance.report import folder, jsonfile, jsonl, model, open_report, terminal, write_all
from conformance.engine.results import CheckResult
from conformance.engine.runner import RunReport


def _probe(key: str, target: str = "anthropic", outcome: str = "pass") -> CheckResult:
    return CheckResult(target, key, "clear-tool-uses", "probe.verdict", "MUST", outcome,  # type: ignore[arg-type]  # any outcome string, as a record read back would carry
                       "", {"verdict": "settled-only"}, "probe")


def test_every_writer_takes_the_one_report_type() -> None:
    writers = [write_all, open_report, jsonfile.write, jsonfile.dumps, jsonfile.as_data, terminal.render,
               model.build, folder.redactor_for, folder.Folder.__init__]
    for writer in writers:
        assert typing.get_type_hints(writer)["report"] is Report, writer
    assert RunReport is Report and issubclass(EgressReport, Report)
    assert set(EgressReport.__dataclass_fields__) - set(Report.__dataclass_fields__) == {"conversations", "surface"}
    assert EgressReport().command == "egress" and set(command_report.COMMANDS) >= {Report().command, "analyze"}


def test_the_exit_code_rule_and_a_command_s_own_code() -> None:
    failing = CheckResult("t", "s", "f", "live.untouched", "MUST", "fail")
    reference = CheckResult("t", "s", "f", "reference.output", "REFERENCE", "fail")
    assert Report().exit_code == 0 and Report(results=[failing]).exit_code == 1
    assert Report(results=[reference]).exit_code == 0
    assert Report(results=[reference], reference_targets=frozenset({"t"})).exit_code == 1
    assert Report(results=[failing], code=2).exit_code == 2


def test_the_probe_table_keeps_its_first_rows_in_probe_order_whatever_the_order_of_arrival() -> None:
    keys = [f"file.jsonl#{n}" for n in range(model.MAX_PROBE_ROWS * 3)]
    shuffled = random.Random(7).sample(keys, len(keys))
    tally = model.tally_of([_probe(k, outcome="fail" if n % 3 else "pass") for n, k in enumerate(shuffled)])
    table = tally.table()
    assert [row["probe"] for row in table["rows"]] == sorted(keys)[: model.MAX_PROBE_ROWS] and table["cut"]
    assert tally.count == len(keys) and tally.gating == tally.outcomes["fail"] == len(keys) * 2 // 3
    whole = model.tally_of([_probe("a"), _probe("a", "emulator", "fail"), _probe("b")]).table()
    assert not whole["cut"] and [r["probe"] for r in whole["rows"]] == ["a", "b"]
    assert {t: c["outcome"] for t, c in whole["rows"][0]["cells"].items()} == {"anthropic": "pass", "emulator": "fail"}


def test_a_report_past_the_rows_kept_says_where_the_rest_are(tmp_path: Path) -> None:
    probes = [_probe(f"p{n:05}") for n in range(model.MAX_PROBE_ROWS + 1)]
    write_all(tmp_path, Report("verify", probes=probes))
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.count("| `p0") == model.MAX_PROBE_ROWS and f"p{model.MAX_PROBE_ROWS:05}" not in summary
    assert f"the first {model.MAX_PROBE_ROWS} are shown; results.jsonl holds every one" in summary
    assert f"the first {model.MAX_PROBE_ROWS} probes are shown" in (tmp_path / "index.html").read_text()
    lines = jsonl.read(tmp_path / "results.jsonl")
    assert len(lines) == len(probes) + 2 and lines[-1]["counts"]["pass"] == len(probes)


def test_past_the_rows_kept_the_banner_counts_every_contradicted_recording(tmp_path: Path) -> None:
    probes = [_probe(f"p{n:05}", outcome="fail" if n in (0, model.MAX_PROBE_ROWS + 1) else "pass")
              for n in range(model.MAX_PROBE_ROWS + 2)]  # one failure in the rows shown, one past them
    write_all(tmp_path, Report("verify", probes=probes))
    page = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert "2 provider records contradict their prediction (1 in the rows shown" in page


def test_records_added_to_an_open_report_are_written_as_they_come(tmp_path: Path) -> None:
    opened = open_report(tmp_path, Report("analyze"))
    for n in range(3):
        opened.add(_probe(f"f#{n}"))
    assert not (tmp_path / "results.jsonl").exists()  # whole or absent: it appears at the end
    opened.finish(1)
    lines = jsonl.read(tmp_path / "results.jsonl")
    assert [line.get("seq") for line in lines] == [None, 1, 2, 3, None]
    assert lines[0]["command"] == "analyze" and lines[-1]["exit_code"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html", "results.jsonl", "summary.md"]


def test_a_record_that_breaks_the_schema_leaves_no_results_file(tmp_path: Path) -> None:
    opened = open_report(tmp_path, Report("analyze"))
    opened.add(_probe("f#0"))
    with pytest.raises(ValueError, match="does not match its schema: line 3"):
        opened.add(_probe("f#1", outcome="maybe"))
    assert list(tmp_path.iterdir()) == []
    assert json.loads(jsonfile.dumps(Report(probes=[_probe("x")], code=0)))["records"][0]["scenario"] == "x"
