"""docs/matrix.html: the peer matrix as one self-contained page in the report's style, rendered by
Jinja2 from ``templates/matrix.html.j2`` (the page's markup; this module gives it the record's values,
every one escaped: ``conformance._html``).

The table fits a 1400 px window (a peer's setting wraps under its name, a verdict stays on one line,
the F-ids wrap in their column), and a legend below it says what each F-id is: the real failure a
scenario reproduces, as its spec cites it (``source.ref``, ``source.url``, ``source.note``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._html import Markup, render
from .rows import explain_command, verdict
from ..report.html_style import CSS
from ..engine.spec import Scenario

# the page's own layout, on top of the report's style: the width of the window, not of a report
MATRIX_CSS = """
main{max-width:1400px;padding:16px 16px 60px}
table.matrix{width:100%;table-layout:fixed}
table.matrix th,table.matrix td{overflow-wrap:anywhere}
table.matrix col.peer{width:300px}table.matrix col.verdict{width:190px}table.matrix col.reproduces{width:280px}
table.matrix thead th code{font-size:11.5px}
table.matrix th.rowh{white-space:normal}table.matrix th.rowh small.setting{display:block;margin:2px 0 0}
table.matrix td.verdict{white-space:nowrap;font-size:12.5px}
table.matrix td.fids{text-align:left;font-size:12px;line-height:1.7}
a.fid{display:inline-block;margin:0 3px 0 0;padding:0 4px;border-radius:4px;background:var(--bg);color:inherit}
table.legend{width:100%;table-layout:fixed}table.legend td,table.legend th{text-align:left;vertical-align:top}
table.legend col.fid{width:60px}table.legend col.scenario{width:340px}table.legend col.peers{width:420px}
table.legend td small{color:var(--muted)}
table.legend td{overflow-wrap:anywhere}table.legend tr:target{background:#fff8c5}
"""


def sources(scenarios: Sequence[Scenario]) -> dict[str, list[Scenario]]:
    """Returns F-id -> the scenarios that cite it as their ``source.ref``, in F-id order."""
    found: dict[str, list[Scenario]] = {}
    for scenario in scenarios:
        ref = str((scenario.source or {}).get("ref", ""))
        if ref.startswith("F"):
            found.setdefault(ref, []).append(scenario)
    return dict(sorted(found.items()))


def _cell(row: dict[str, Any], invariant: str) -> dict[str, Any] | None:
    """Returns one failure cell: None for a peer not installed, else its count (0: none) and, for a
    failing one, the tooltip naming its smallest scenario."""
    if not row["installed"]:
        return None
    count = row.get("failures", {}).get(invariant)
    if not count:
        return {"count": 0}
    smallest = row["smallest"][invariant]
    return {"count": count, "title": f"smallest: {smallest} — {explain_command(row, smallest)}"}


def _cited(scenario: Scenario) -> dict[str, str]:
    source = scenario.source or {}
    return {"id": scenario.id, "note": str(source.get("note", "")), "url": str(source["url"]) if source.get("url") else ""}


def page(matrix: dict[str, Any], scenarios: Sequence[Scenario] | None = None) -> str:
    """Returns the HTML page of the matrix record; the F-id legend reads the ``source`` of
    ``scenarios`` (default: the shipped specs)."""
    if scenarios is None:
        from .._paths import shipped
        from ..engine.spec import load

        scenarios = load([shipped("specs")]).scenarios
    cited = sources(scenarios)
    invariants = sorted({inv for row in matrix["rows"] for inv in row.get("failures", {})})
    rows = [{**row, "klass": "o-skip" if not row["installed"] else "o-fail" if row.get("failures") else "o-pass",
             "verdict": verdict(row), "cells": [_cell(row, inv) for inv in invariants],
             "reproduces": row.get("reproduces", [])} for row in matrix["rows"]]
    reproduced = sorted({f for row in matrix["rows"] for f in row.get("reproduces", [])})
    legend = []
    for fid in reproduced:
        citing = [_cited(s) for s in cited.get(fid, [])]
        told = len(citing) != 1 or any(citing[0][field] for field in ("note", "url"))  # (else: nothing to show)
        legend.append({"fid": fid, "scenarios": citing if told else [], "named": citing,
                       "peers": [row["peer"] for row in matrix["rows"] if fid in row.get("reproduces", [])]})
    smallest = [{"peer": row["peer"], "invariant": inv, "scenario": name, "command": explain_command(row, name)}
                for row in matrix["rows"] for inv, name in row.get("smallest", {}).items()]
    return str(render("conformance.matrix", "matrix.html.j2", css=Markup(CSS + MATRIX_CSS), matrix=matrix,
                      invariants=invariants, rows=rows, cited=set(cited), legend=legend, smallest=smallest))
