"""docs/matrix.html: the peer matrix as one self-contained page in the report's style.

The table fits a 1400 px window (a peer's setting wraps under its name, a verdict stays on one line,
the F-ids wrap in their column), and a legend below it says what each F-id is: the real failure a
scenario reproduces, as its spec cites it (``source.ref``, ``source.url``, ``source.note``).
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from .rows import explain_command, verdict
from ..report.html_style import CSS
from ..spec import Scenario

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


def _failure_cell(row: dict[str, Any], invariant: str) -> str:
    n = row.get("failures", {}).get(invariant)
    if not row["installed"]:
        return '<td class="na">—</td>'
    if not n:
        return '<td class="cell o-pass">0</td>'
    smallest = row["smallest"][invariant]
    title = escape(f"smallest: {smallest} — {explain_command(row, smallest)}")
    return f'<td class="cell o-fail" title="{title}">{n}</td>'


def _anchor(fid: str) -> str:
    return f"fid-{escape(fid)}"


def _fid_links(fids: Sequence[str], known: set[str]) -> str:
    if not fids:
        return "—"
    return " ".join(f'<a class="fid" href="#{_anchor(f)}">{escape(f)}</a>' if f in known else escape(f) for f in fids)


def _header(invariant: str) -> str:
    family, dot, rest = invariant.partition(".")
    return f"<th><code>{escape(family)}{dot}<wbr>{escape(rest)}</code></th>"


def sources(scenarios: Sequence[Scenario]) -> dict[str, list[Scenario]]:
    """Returns F-id -> the scenarios that cite it as their ``source.ref``, in F-id order."""
    found: dict[str, list[Scenario]] = {}
    for scenario in scenarios:
        ref = str((scenario.source or {}).get("ref", ""))
        if ref.startswith("F"):
            found.setdefault(ref, []).append(scenario)
    return dict(sorted(found.items()))


def _legend(matrix: dict[str, Any], cited: dict[str, list[Scenario]]) -> list[str]:
    reproduced = sorted({f for row in matrix["rows"] for f in row.get("reproduces", [])})
    if not reproduced:
        return []
    by_peer = {f: [row["peer"] for row in matrix["rows"] if f in row.get("reproduces", [])] for f in reproduced}
    lines = ["<h2 id='f-ids'>What the F-ids are</h2>",
             "<p class='desc'>An F-id names a real failure of a compactor in the wild, reported in a public "
             "issue or pull request; the scenario that cites it as its <code>source.ref</code> reproduces it in "
             "Anthropic Messages shape. A peer “reproduces” an F-id when it fails a MUST on that scenario. "
             "Show one with <code>conformance explain SCENARIO</code>.</p>",
             "<table class='legend'><colgroup><col class='fid'><col><col class='scenario'><col class='peers'>"
             "</colgroup><thead><tr><th>F-id</th><th>the failure reported</th><th>scenario</th>"
             "<th>peers that reproduce it</th></tr></thead><tbody>"]
    for fid in reproduced:
        scenarios = cited.get(fid, [])
        what = "<br>".join(
            escape(str((s.source or {}).get("note", ""))) + (
                f' (<a href="{escape(str((s.source or {})["url"]))}">report</a>)' if (s.source or {}).get("url") else "")
            for s in scenarios) or "not cited by any scenario of these specs"
        named = "<br>".join(f"<code>{escape(s.id)}</code>" for s in scenarios) or "—"
        peers = (f"{len(by_peer[fid])} of {len(matrix['rows'])}<br>"
                 f"<small>{escape(', '.join(by_peer[fid]))}</small>")
        lines.append(f'<tr id="{_anchor(fid)}"><td><b>{escape(fid)}</b></td><td>{what}</td>'
                     f"<td>{named}</td><td>{peers}</td></tr>")
    lines.append("</tbody></table>")
    return lines


def page(matrix: dict[str, Any], scenarios: Sequence[Scenario] | None = None) -> str:
    """Returns the HTML page of the matrix record; the F-id legend reads the ``source`` of
    ``scenarios`` (default: the shipped specs)."""
    if scenarios is None:
        from .._paths import shipped
        from ..spec import load

        scenarios = load([shipped("specs")]).scenarios
    cited = sources(scenarios)
    invariants = sorted({inv for row in matrix["rows"] for inv in row.get("failures", {})})
    head = "".join(_header(inv) for inv in invariants)
    body = []
    for row in matrix["rows"]:
        ok = row["installed"] and not row.get("failures")
        klass = "o-pass" if ok else "o-skip" if not row["installed"] else "o-fail"
        body.append(
            f'<tr><th class="rowh">{escape(row["library"])} <small>{escape(row["version"] or "—")}</small><br>'
            f'<code>{escape(row["component"])}</code><small class="setting">{escape(row["setting"])}</small></th>'
            f'<td class="verdict {klass}">{escape(verdict(row))}</td>'
            + "".join(_failure_cell(row, inv) for inv in invariants)
            + f'<td class="fids">{_fid_links(row.get("reproduces", []), set(cited))}</td></tr>')
    cells = []
    for row in matrix["rows"]:
        for inv, smallest in row.get("smallest", {}).items():
            command = escape(explain_command(row, smallest))
            cells.append(f"<li><code>{escape(row['peer'])}</code> × <code>{escape(inv)}</code>: "
                         f"<code>{escape(smallest)}</code> — <code>{command}</code></li>")
    columns = "<col class='peer'><col class='verdict'>" + "<col>" * len(invariants) + "<col class='reproduces'>"
    return "\n".join([
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8"><title>Peer matrix</title>',
        f"<style>{CSS}{MATRIX_CSS}</style></head><body><main>",
        f"<h2>Peer matrix <small>checked on {escape(matrix['checked'])} · "
        f"{matrix['scenarios']} scenarios</small></h2>",
        "<p class='desc'>MUST failures by invariant (scenarios); a cell's tooltip names its smallest scenario. "
        "<b>reproduces</b>: the real failures (<a href='#f-ids'>F-ids</a>) whose scenarios the peer fails.</p>",
        f"<table class='matrix'><colgroup>{columns}</colgroup>",
        f"<thead><tr><th>peer</th><th>verdict</th>{head}<th>reproduces</th></tr></thead>",
        "<tbody>", *body, "</tbody></table>",
        *_legend(matrix, cited),
        "<h2>The smallest scenario of each failing cell</h2>", "<ul class='checks'>", *cells, "</ul>",
        "</main></body></html>", ""])
