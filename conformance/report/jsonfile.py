"""The ``--json`` file: one record per (scenario, invariant), a summary, and each distinct traceback once."""

from __future__ import annotations

from ..engine.loop import prompt_cache

import json
from pathlib import Path
from typing import Any

from ..engine.command_report import Report
from ..engine.results import summarize


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


def as_data(report: Report) -> dict[str, Any]:
    """Returns the report as JSON-ready data: ``targets``, ``records`` (its results, then its provider
    records), ``summary``, ``tracebacks``, ``spec_errors``."""
    results = [*report.results, *report.probes]
    records = [r.to_dict() for r in results]
    summary = summarize(results)
    summary["not_run"] = sum(1 for r in results if r.outcome == "skip" and r.details.get("blocked_by"))
    cache = prompt_cache(report.observations)
    if cache:  # what a prompt cache makes of each target's requests in the agent loop, by mode
        summary["prompt_cache"] = {target: {mode: {"calls": use.calls, "sent": use.sent, "reused": use.reused,
                                                   "written": use.written} for mode, use in modes.items()}
                                   for target, modes in cache.items()}
    return {
        "targets": report.targets,
        "records": records,
        "summary": summary,
        "tracebacks": _tracebacks(records),
        "spec_errors": [{"path": e.path, "line": e.line, "field": e.field, "message": e.message}
                        for e in report.spec_errors],
    }


STDOUT = "-"  # ``--json -``: the document goes to standard output instead of the tables


def dumps(report: Report) -> str:
    """Returns the JSON report as text ending in a newline (what ``write`` writes, ``--json -`` prints)."""
    data = as_data(report)
    data["exit_code"] = report.exit_code
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def write(path: str | Path, report: Report) -> None:
    """Writes the JSON report to ``path`` (``-``: prints it on standard output); raises ``OSError``
    when it cannot be written."""
    text = dumps(report)
    if str(path) == STDOUT:
        print(text, end="")
    else:
        Path(path).write_text(text, encoding="utf-8")
