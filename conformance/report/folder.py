"""The ``--report`` folder written as the records come: results.jsonl a line at a time, then
summary.md and index.html from the tallies, so its memory does not grow with the provider records.

The results of the targets (a scenario or a conversation per target) are a report's own, held in
memory as before; the provider records (``Report.probes``, or ``add``) stream: each is redacted,
written and folded into a ``model.ProbeTally``, and kept no longer.
"""

from __future__ import annotations

from pathlib import Path

from ..engine.redaction import Redactor, secrets_in
from ..engine.command_report import Report
from ..engine.results import CheckResult
from . import html, jsonl, markdown, model
from .runinfo import header


def redactor_for(report: Report) -> Redactor:
    """Returns a ``Redactor`` for a report: every reasoning text of its scenarios' inputs and
    references and of its targets' outputs."""
    found: list[str] = []
    for scenario in report.scenarios:
        found.extend(secrets_in(scenario.history))
        found.extend(secrets_in(scenario.expect.reference_output or []))
    for obs in report.observations.values():
        found.extend(secrets_in(obs.output))
        second = obs.second
        if second is not None:
            found.extend(secrets_in(second.output))
    return Redactor(found)


class Folder:
    """A report folder being written (a ``command_report.RecordSink``): ``add`` a provider record at a
    time, then ``finish``. Reasoning text never reaches the files."""

    def __init__(self, directory: str | Path, report: Report) -> None:
        """Creates ``directory`` when missing and writes the header, the report's results and its
        provider records; raises ``OSError``, or ``ValueError`` if a record breaks the schema."""
        self.out = Path(directory)
        self.out.mkdir(parents=True, exist_ok=True)
        self.report = report
        self.redactor = redactor_for(report)
        self.results = [self.redactor.result(r) for r in report.results]
        self.probes = model.ProbeTally()
        self.header = header(report.command, list(report.targets), len(report.scenarios))
        self.lines = jsonl.LineWriter(self.out / "results.jsonl")
        self.lines.write(self.header)
        for result in self.results:
            self.lines.write(jsonl.result_line(self.lines.lines, result))
        for probe in report.probes:
            self.add(probe)

    def add(self, result: CheckResult) -> None:
        """Writes one provider record; raises ``ValueError`` if it breaks the schema."""
        redacted = self.redactor.result(result)
        self.lines.write(jsonl.result_line(self.lines.lines, redacted))
        self.probes.add(redacted)

    def finish(self, exit_code: int | None = None) -> None:
        """Writes the drift lines and the footer, then summary.md and index.html (``exit_code``: the
        report's ``exit_code`` when None); raises ``OSError``, or ``ValueError`` on a schema break."""
        code = self.report.exit_code if exit_code is None else exit_code
        view = model.build(self.report, self.results, self.probes, code)
        drift = self.report.drift
        for change in (drift or {}).get("changes", []):
            self.lines.write(jsonl.drift_line(self.lines.lines, change))
        self.lines.write(jsonl.footer(view["totals"], view["gating"], code, self.report.spec_errors, drift))
        self.lines.close()
        (self.out / "summary.md").write_text(markdown.render(view), encoding="utf-8")
        (self.out / "index.html").write_text(html.render(view, self.header), encoding="utf-8")
