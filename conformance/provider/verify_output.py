"""Write the ``Report`` of ``verify``: the terminal tables and the ``--json`` records of its
replayed recordings (``Report.probes``)."""

from __future__ import annotations

import json

from ..engine.command_report import Report
from .table import render


def terminal(report: Report) -> str:
    """Returns the terminal output of ``report``: probe table, strategy table, problems and a count line."""
    return render(report.probes)


def json_text(report: Report) -> str:
    """Returns the ``--json`` output of ``report``: its records as one indented JSON array, no final newline."""
    return json.dumps([r.to_dict() for r in report.probes], indent=2)
