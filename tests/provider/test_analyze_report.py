"""``analyze --report``: the folder is written as the judgements come, and is what it was when every
judgement was held in memory first.

``analyze_report/`` holds the folder ``conformance analyze tests/provider/real tests/provider/dialects
--jobs 1 --report DIR`` wrote before the report was streamed, with what names the machine and the
moment (the header's versions, run info and start time, the page's meta line) blanked by
``normalised``.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tracemalloc
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.report import model as report_model

from .test_analyze import HISTORY, cleared, message, request, tool_edit
from .test_analyze_stream import _line

ROOT = Path(__file__).resolve().parents[2]
BEFORE = Path(__file__).parent / "analyze_report"
FILES = ("index.html", "results.jsonl", "summary.md")
_ENVIRONMENT = ("suite_version", "suite_commit", "run_info", "started")


def normalised(folder: Path) -> dict[str, str]:
    """Returns the report files of ``folder`` by name, with the header's environment fields and the
    page's meta line blanked."""
    lines = (folder / "results.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header.update({key: "-" for key in _ENVIRONMENT})
    page = (folder / "index.html").read_text(encoding="utf-8")
    return {"index.html": re.sub(r'<p class="meta">.*?</p>', '<p class="meta">-</p>', page),
            "results.jsonl": "\n".join([json.dumps(header, ensure_ascii=False), *lines[1:]]) + "\n",
            "summary.md": (folder / "summary.md").read_text(encoding="utf-8")}


@pytest.mark.slow
def test_the_folder_of_the_test_recordings_is_what_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)  # the records name the files as given: relative, as when the folder was kept
    code = main(["analyze", "tests/provider/real", "tests/provider/dialects", "--jobs", "1",
                 "--report", str(tmp_path / "report")])
    capsys.readouterr()
    assert code == 1
    assert sorted(p.name for p in (tmp_path / "report").iterdir()) == list(FILES)  # no partial file left
    now = normalised(tmp_path / "report")
    for name in FILES:
        assert now[name] == (BEFORE / name).read_text(encoding="utf-8"), name
    assert sum(1 for line in now["results.jsonl"].splitlines() if '"record": "result"' in line) > 50


def _log(path: Path, interactions: int) -> Path:
    """Writes a JSON-lines log of ``interactions`` Messages interactions, every other one clearing
    work of the task in flight (a finding), the rest without context management; returns its path."""
    url = "https://api.anthropic.com/v1/messages"
    reached = _line(url, request(HISTORY, tool_edit(keep=1)), message(applied=[cleared(1, 4000)]))
    plain = _line(url, request(HISTORY), message())
    path.write_text("".join(f"{reached if n % 2 else plain}\n" for n in range(interactions)), encoding="utf-8")
    return path


def _peak(log: Path, out: Path) -> int:
    """Returns the peak of memory allocated while ``analyze --report`` writes ``out`` from ``log``."""
    tracemalloc.start()
    try:
        code = main(["analyze", str(log), "--jobs", "1", "--window", "10", "--report", str(out)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 1
    return peak


# The interactions of the smaller log of the memory test: ten times the probe rows kept, so both logs
# fill the table and what still grows is only what the report must not keep. A report that keeps
# every record peaks about 1.7 times as high on three times this log (1.0 to 1.1 times when it
# keeps none), well past the test's 1.2.
SMALL_LOG = 500


@pytest.mark.slow
def test_the_report_of_three_times_the_interactions_takes_no_more_memory(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # the probe table keeps its first MAX_PROBE_ROWS rows by design: a small cap lets both sizes pass
    # it, so what is left to grow with the log is only what the report must not keep
    monkeypatch.setattr(report_model, "MAX_PROBE_ROWS", SMALL_LOG // 10)
    with open(os.devnull, "w", encoding="utf-8") as null:
        monkeypatch.setattr(sys, "stdout", null)  # the table goes nowhere, not into a captured buffer
        _peak(_log(tmp_path / "warm.jsonl", 20), tmp_path / "warm")  # first imports and caches
        small = _peak(_log(tmp_path / "small.jsonl", SMALL_LOG), tmp_path / "small")
        large = _peak(_log(tmp_path / "large.jsonl", 3 * SMALL_LOG), tmp_path / "large")
    results = (tmp_path / "large" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    half = 3 * SMALL_LOG // 2
    assert len(results) == 3 * SMALL_LOG + 2 and json.loads(results[-1])["counts"]["fail"] == half  # every record
    summary = (tmp_path / "large" / "summary.md").read_text(encoding="utf-8")
    assert f"{3 * SMALL_LOG} checks ({half} fail, {half} skip)" in summary and "results.jsonl holds every one" in summary
    assert large <= 1.2 * small, (small, large)


@pytest.mark.slow
def test_a_file_that_breaks_midway_keeps_its_judgements_in_the_report_as_in_json(tmp_path: Path,
                                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    import gzip

    whole = gzip.compress(_log(tmp_path / "day.jsonl", 400).read_bytes())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) * 3 // 4])  # ends before the end-of-stream marker
    code = main(["analyze", str(cut), "--jobs", "1", "--json", str(tmp_path / "r.json"),
                 "--report", str(tmp_path / "report")])
    capsys.readouterr()
    records = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    lines = [json.loads(line) for line in (tmp_path / "report" / "results.jsonl").read_text().splitlines()]
    results = [line for line in lines if line["record"] == "result"]
    assert records[-1]["index"] is None and "does not decompress" in records[-1]["error"]
    assert 100 < len(records) < 400 and len(results) == len(records)  # the judgements before the break, then it
    assert [r["scenario"] for r in results[:-1]] == [f"{r['file']}#{r['index']}" for r in records[:-1]]
    assert results[-1]["invariant"] == "analyze.readable" and results[-1]["outcome"] == "error"
    assert code == lines[-1]["exit_code"] == 1 and lines[-1]["counts"]["fail"] == len(records) // 2
