"""The ``--json`` file: one record per (scenario, invariant), a summary, and each distinct traceback once."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..results import CheckResult, summarize
from ..runner import RunReport


def _tracebacks(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Moves each record's traceback text into one table keyed by ``traceback_id``; returns the table.

    A record keeps its ``traceback_id``; the table holds the text once with the first scenario that
    raised it and how many records share it.
    """
    table: dict[str, dict[str, Any]] = {}
    for record in records:
        details = record["details"]
        text = details.pop("traceback", None)
        if text is None:
            continue
        key = details.get("traceback_id") or str(len(table))
        details["traceback_id"] = key
        entry = table.setdefault(key, {"text": text, "first": f"{record['target']} {record['scenario']}", "count": 0})
        entry["count"] += 1
    return table


def as_data(report: RunReport, probe_results: Sequence[CheckResult] = ()) -> dict[str, Any]:
    """Returns the run as JSON-ready data: ``records``, ``summary``, ``tracebacks``, ``spec_errors``."""
    results = [*report.results, *probe_results]
    records = [r.to_dict() for r in results]
    summary = summarize(results)
    summary["not_run"] = sum(1 for r in results if r.outcome == "skip" and r.details.get("blocked_by"))
    return {
        "targets": report.targets,
        "records": records,
        "summary": summary,
        "tracebacks": _tracebacks(records),
        "spec_errors": [{"path": e.path, "line": e.line, "field": e.field, "message": e.message}
                        for e in report.spec_errors],
    }


STDOUT = "-"  # ``--json -``: the document goes to standard output instead of the tables


def dumps(report: RunReport, probe_results: Sequence[CheckResult] = (), exit_code: int | None = None) -> str:
    """Returns the JSON report as text ending in a newline (what ``write`` writes, ``--json -`` prints)."""
    data = as_data(report, probe_results)
    data["exit_code"] = report.exit_code if exit_code is None else exit_code
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write(path: str | Path, report: RunReport, probe_results: Sequence[CheckResult] = (),
          exit_code: int | None = None) -> None:
    """Writes the JSON report to ``path`` (``-``: prints it on standard output); raises ``OSError``
    when it cannot be written."""
    text = dumps(report, probe_results, exit_code)
    if str(path) == STDOUT:
        print(text, end="")
    else:
        Path(path).write_text(text, encoding="utf-8")
