"""Write the ``Report`` of ``drift``: the terminal summary, the ``--json`` document and the
``--markdown`` file, each from the report's drift data (``Report.drift``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..engine.command_report import Report
from . import render


def _drift(report: Report) -> Mapping[str, Any]:
    """Returns the drift data of ``report``; raises ``ValueError`` when it holds none."""
    if report.drift is None:
        raise ValueError(f"the report of {report.command} holds no drift data")
    return report.drift


def terminal(report: Report, verbose: bool = False) -> str:
    """Returns the terminal summary of ``report`` (noise only when ``verbose``); raises ``ValueError``
    when it holds no drift data."""
    return render.terminal(_drift(report), verbose=verbose)


def json_text(report: Report) -> str:
    """Returns the ``--json`` document of ``report``: its drift data as indented JSON text; raises
    ``ValueError`` when it holds none."""
    return render.to_json(_drift(report))


def markdown(report: Report) -> str:
    """Returns the ``--markdown`` file of ``report``; raises ``ValueError`` when it holds no drift data."""
    return render.markdown(_drift(report))
