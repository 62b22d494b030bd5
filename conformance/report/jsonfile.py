"""The ``--json`` file: one record per (scenario, invariant) and a summary."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..results import CheckResult, summarize
from ..runner import RunReport


def as_data(report: RunReport, probe_results: Sequence[CheckResult] = ()) -> dict[str, Any]:
    """Returns the run as JSON-ready data: ``records``, ``summary``, ``spec_errors``, ``exit_code``."""
    records = [r.to_dict() for r in (*report.results, *probe_results)]
    return {
        "targets": report.targets,
        "records": records,
        "summary": summarize([*report.results, *probe_results]),
        "spec_errors": [{"path": e.path, "line": e.line, "field": e.field, "message": e.message}
                        for e in report.spec_errors],
    }


def write(path: str | Path, report: RunReport, probe_results: Sequence[CheckResult] = (),
          exit_code: int | None = None) -> None:
    """Writes the JSON report to ``path``."""
    data = as_data(report, probe_results)
    data["exit_code"] = report.exit_code if exit_code is None else exit_code
    Path(path).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
