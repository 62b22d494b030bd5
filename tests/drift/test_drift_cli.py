"""The drift command end to end on fixture recordings: outputs, exit codes, streams, the baseline Delta."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.drift import delta, normalise, recordings
from conformance.report import jsonl

from .builders import BASELINE, SERVER, folders


def test_a_stream_reads_as_the_message_it_assembles_to() -> None:
    message = normalise.cassette(recordings.read(BASELINE / SERVER / "sse-probe.yaml"))[0]["body"]
    assert [b["type"] for b in message["content"]] == ["text", "tool_use"]
    assert message["content"][0]["text"] == "Let me look."
    assert message["content"][1]["input"] == {"path": "src"}
    assert message["stop_reason"] == "tool_use"
    assert message["context_management"] == {"applied_edits": []}


def test_a_stream_and_the_same_message_as_json_do_not_drift(tmp_path: Path) -> None:
    baseline, current = folders(tmp_path)
    path = current / SERVER / "sse-probe.yaml"
    from .builders import load, save
    data = load(path)
    message = normalise.reassemble(data["interactions"][0]["response"]["body"]["string"])
    data["interactions"][0]["response"]["body"]["string"] = json.dumps(message)
    data["interactions"][0]["response"]["headers"]["content-type"] = ["application/json"]
    save(path, data)
    code = main(["drift", "--baseline", str(baseline), "--current", str(current)])
    assert code == 0


def test_breaking_drift_exits_1_and_writes_every_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    baseline, current = folders(tmp_path, edit=lambda b: b.update(stop_reason="refusal"))
    out = tmp_path / "out"
    out.mkdir()
    code = main(["drift", "--baseline", str(baseline), "--current", str(current), "--json", str(out / "d.json"),
                 "--markdown", str(out / "d.md"), "--report", str(out / "report")])
    assert code == 1
    printed = capsys.readouterr().out
    assert "BREAKING" in printed and "stop_reason" in printed and printed.rstrip().endswith("BREAKING DRIFT")
    data = json.loads((out / "d.json").read_text())
    assert data["counts"] == {"breaking": 1, "additive": 0, "noise": 0}
    assert (out / "d.md").read_text().startswith("# Drift: BREAKING DRIFT")
    lines = jsonl.read(out / "report" / "results.jsonl")
    assert not jsonl.validate(lines)
    assert lines[0]["command"] == "drift" and lines[-1]["drift"]["breaking"] == 1 and lines[-1]["exit_code"] == 1
    assert [line["category"] for line in lines if line["record"] == "drift"] == ["breaking"]
    page = (out / "report" / "index.html").read_text()
    assert "<h1>BREAKING DRIFT</h1>" in page and "Drift: BREAKING DRIFT" in page
    assert lines[-1]["gating_failures"] == 0  # breaking drift is counted in the drift counts, not as a check
    assert "drift: <b>1</b> breaking · 0 additive · 0 noise" in page and "gating failures" not in page
    assert "## Drift: BREAKING DRIFT" in (out / "report" / "summary.md").read_text()


def test_additive_drift_exits_0(tmp_path: Path) -> None:
    baseline, current = folders(tmp_path, edit=lambda b: b.update(service_note="new"))
    assert main(["drift", "--baseline", str(baseline), "--current", str(current)]) == 0


def test_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    assert main(["drift", "--baseline", str(BASELINE), "--current", str(tmp_path / "nope")]) == 2


def test_baseline_update_is_a_json_delta_that_reproduces_the_current_recordings(tmp_path: Path) -> None:
    baseline, current = folders(tmp_path, edit=lambda b: b["content"].append({"type": "text", "text": "more"}))
    target = tmp_path / "update.json"
    assert main(["drift", "--baseline", str(baseline), "--current", str(current),
                 "--update-baseline-delta", str(target)]) == 0
    raw = target.read_bytes()
    assert not raw.startswith(b"\x80")  # not a pickle
    assert isinstance(json.loads(raw), dict)
    before, after = delta.snapshots(baseline, current)
    assert before != after
    assert delta.apply(before, delta.read_delta(target)) == after
