"""docs/matrix.html: the peer matrix as one self-contained page in the report's style."""

from __future__ import annotations

from html import escape
from typing import Any

from .rows import explain_command, verdict
from ..report.html_style import CSS


def _failure_cell(row: dict[str, Any], invariant: str) -> str:
    n = row.get("failures", {}).get(invariant)
    if not row["installed"]:
        return '<td class="na">—</td>'
    if not n:
        return '<td class="cell o-pass">0</td>'
    smallest = row["smallest"][invariant]
    title = escape(f"smallest: {smallest} — {explain_command(row, smallest)}")
    return f'<td class="cell o-fail" title="{title}">{n}</td>'


def page(matrix: dict[str, Any]) -> str:
    """Returns the HTML page of the matrix record."""
    invariants = sorted({inv for row in matrix["rows"] for inv in row.get("failures", {})})
    head = "".join(f"<th><code>{escape(inv)}</code></th>" for inv in invariants)
    body = []
    for row in matrix["rows"]:
        ok = row["installed"] and not row.get("failures")
        klass = "o-pass" if ok else "o-skip" if not row["installed"] else "o-fail"
        body.append(
            f'<tr><th class="rowh">{escape(row["library"])} <small>{escape(row["version"] or "—")}</small><br>'
            f'<code>{escape(row["component"])}</code><br><small>{escape(row["setting"])}</small></th>'
            f'<td class="{klass}">{escape(verdict(row))}</td>'
            + "".join(_failure_cell(row, inv) for inv in invariants)
            + f"<td>{escape(', '.join(row.get('reproduces', [])) or '—')}</td></tr>")
    cells = []
    for row in matrix["rows"]:
        for inv, smallest in row.get("smallest", {}).items():
            command = escape(explain_command(row, smallest))
            cells.append(f"<li><code>{escape(row['peer'])}</code> × <code>{escape(inv)}</code>: "
                         f"<code>{escape(smallest)}</code> — <code>{command}</code></li>")
    return "\n".join([
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8"><title>Peer matrix</title>',
        f"<style>{CSS}</style></head><body><main>",
        f"<h2>Peer matrix <small>checked on {escape(matrix['checked'])} · "
        f"{matrix['scenarios']} scenarios</small></h2>",
        "<p class='desc'>MUST failures by invariant (scenarios); a cell's tooltip names its smallest scenario.</p>",
        f"<table><thead><tr><th>peer</th><th>verdict</th>{head}<th>reproduces</th></tr></thead>",
        "<tbody>", *body, "</tbody></table>",
        "<h2>The smallest scenario of each failing cell</h2>", "<ul class='checks'>", *cells, "</ul>",
        "</main></body></html>", ""])
