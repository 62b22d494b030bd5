"""Renderers of a run: one module per format, each plain data in, text out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..redaction import redactor_for
from ..results import CheckResult
from . import html, jsonl, markdown, model

__all__ = ["write_all"]


def write_results(directory: str | Path, results: Sequence[CheckResult], exit_code: int, *, command: str,
                  drift: Mapping[str, Any] | None = None) -> None:
    """Writes the report folder of a command that runs no scenarios (``verify``, ``analyze``,
    ``drift``), as ``write_all`` does; the command layer hands it down to those commands."""
    from ..runner import RunReport

    write_all(directory, RunReport(), results, exit_code, command=command, drift=drift)


def write_all(directory: str | Path, report: Any, probe_results: Sequence[CheckResult], exit_code: int, *,
              command: str = "run", drift: Mapping[str, Any] | None = None) -> None:
    """Writes results.jsonl, summary.md and index.html into ``directory`` (created when missing).

    Reasoning text never reaches the files. Raises ``ValueError`` if a record breaks the schema.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    redactor = redactor_for(report)
    results = [redactor.result(r) for r in report.results]
    probes = [redactor.result(r) for r in probe_results]
    view = model.build(report, results, probes, exit_code, drift)
    lines = jsonl.records(report, [*results, *probes], exit_code, command=command, drift=drift, gating=view["gating"])
    jsonl.write(out / "results.jsonl", lines)
    (out / "summary.md").write_text(markdown.render(view), encoding="utf-8")
    (out / "index.html").write_text(html.render(view, lines[0]), encoding="utf-8")
