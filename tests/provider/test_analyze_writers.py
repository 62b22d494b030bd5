"""The writers of ``analyze``, ``verify`` and ``drift`` take the command's ``Report`` and its records."""

from __future__ import annotations

import io
import json

import pytest

from conformance.engine.command_report import Report
from conformance.drift import output as drift_output
from conformance.provider.analyze.judging import FileEnd
from conformance.provider.analyze.model import ERROR, Judgement
from conformance.provider.analyze.output import JsonSink, TableSink, json_record, write
from conformance.provider.analyze.render import judgement_result, unreadable_result
from conformance.provider.recordings import RecordingError
from conformance.provider.verify_output import json_text
from conformance.engine.results import CheckResult


def _judgement(verdict: str = "settled-only", error: str | None = None) -> Judgement:
    return Judgement("a.yaml", 3, "anthropic", "/v1/messages", verdict, model="m", strategy="s", live_start=1,
                     history=2, evidence=[] if error else ["one", "two"], error=error)


@pytest.mark.parametrize("verdict, error", [("settled-only", None), ("reached-live-task", None), (ERROR, "bad body")])
def test_the_json_record_of_a_judgement_is_its_to_dict_key_for_key(verdict: str, error: str | None) -> None:
    found = _judgement(verdict, error)
    record = json_record(judgement_result(found))
    assert list(record.items()) == list(found.to_dict().items())


@pytest.mark.parametrize("line, said", [(3, "line 3: no YAML"), (0, "no YAML")])
def test_the_json_record_of_an_unreadable_file_names_its_line(line: int, said: str) -> None:
    record = json_record(unreadable_result("x:y.yaml", RecordingError("x:y.yaml", "no YAML", line)))
    assert record["file"] == "x:y.yaml" and record["index"] is None and record["error"] == said


def test_the_table_and_json_writers_take_the_report_and_its_records() -> None:
    report, table, array = Report("analyze"), io.StringIO(), io.StringIO()
    events = [_judgement(), FileEnd("a.yaml", 1), FileEnd("empty.yaml"),
              FileEnd("bad.yaml", error=RecordingError("bad.yaml", "no YAML", 2))]
    code = write(events, [TableSink(table, report), JsonSink(array, report)])
    assert code == 0 and report.probes == ()  # the records streamed through, none kept
    assert "empty.yaml\n  no interactions\n" in table.getvalue() and "bad.yaml:2: no YAML\n" in table.getvalue()
    assert table.getvalue().endswith("analyze: 3 file(s), 1 interaction(s): 1 judged (1 settled-only), "
                                     "0 without context management or a judge, 1 unreadable\n")
    assert [r["error"] for r in json.loads(array.getvalue())] == [None, "line 2: no YAML"]


def test_the_verify_json_is_the_report_s_records() -> None:
    result = CheckResult(target="t", scenario="s", family="f", invariant="i", level="MUST", outcome="pass",
                         kind="probe")
    assert json.loads(json_text(Report("verify", probes=[result]))) == [result.to_dict()]


def test_a_drift_writer_refuses_a_report_without_drift_data() -> None:
    with pytest.raises(ValueError, match="no drift data"):
        drift_output.terminal(Report("drift"))
