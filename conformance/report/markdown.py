"""summary.md: the run at a glance for a CI job summary, targets side by side.

Every string from data is escaped: Markdown table cells lose pipes and newlines, HTML is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from .._text import plural
from .._markdown import cell
from ..engine.results import NO_OUTPUT, OUTCOMES, SHOWN

MAX_FAILURES = 40
MAX_DIFF_LINES = 12
_MARK = {"pass": "✅", "fail": "❌", "error": "💥", "skip": "➖", "xfail": "⚠️", "xpass": "❗"}


def _fraction(pair: Sequence[int] | None) -> str:
    if not pair:
        return "–"
    return f"{pair[0]}/{pair[1]}" if pair[1] else "–"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _targets(view: Mapping[str, Any]) -> list[str]:
    rows = []
    shown = OUTCOMES + ((NO_OUTPUT,) if any(t["summary"]["outcomes"].get(NO_OUTPUT) for t in view["targets"]) else ())
    for t in view["targets"]:
        outcomes = t["summary"]["outcomes"]
        rows.append([f"`{cell(t['name'])}`", t["verdict"]] + [str(outcomes.get(o, 0)) for o in shown]
                    + [str(t["gating"])])
    note = [f"({NO_OUTPUT}: checks that passed on a call that returned nothing; not counted as passes)", ""] \
        if NO_OUTPUT in shown else []
    return ["## Targets", ""] + _table(["target", "verdict", *shown, "gating failures"], rows) + [""] + note


def _by_target(title: str, column: str, table: Mapping[str, Mapping[str, Sequence[int]]],
               targets: Sequence[str]) -> list[str]:
    if not table:
        return []
    rows = [[f"`{cell(name)}`"] + [_fraction(table[name].get(t)) for t in targets] for name in sorted(table)]
    return [f"## {title} (passing / checked)", ""] + _table([column, *[f"`{cell(t)}`" for t in targets]],
                                                            rows) + [""]


def _invariants(view: Mapping[str, Any], targets: Sequence[str]) -> list[str]:
    if not view["invariants"]:
        return []
    rows = [[f"`{cell(i['id'])}`", i["level"]] + [_fraction(i["cells"].get(t)) for t in targets]
            for i in view["invariants"]]
    return ["## Invariants (passing / checked)", ""] + _table(
        ["invariant", "level", *[f"`{cell(t)}`" for t in targets]], rows) + [""]


def _matrix(view: Mapping[str, Any], targets: Sequence[str]) -> list[str]:
    if not view["scenarios"] or len(targets) < 2:
        return []
    rows = [[f"`{cell(s['id'])}`"] + [_MARK[s["cells"][t]["outcome"]] for t in targets] for s in view["scenarios"]]
    return ["<details><summary>Scenarios × targets</summary>", ""] + _table(
        ["scenario", *[f"`{cell(t)}`" for t in targets]], rows) + ["", "</details>", ""]


def _probe_cell(c: Mapping[str, Any]) -> str:
    """Returns one provider cell: a strategy that reached live work is a finding even when predicted."""
    label = cell(c["verdict"] or c["outcome"]) + (" (emulator)" if c.get("emulator") else "")
    if c.get("reached_live") and c["outcome"] == "pass":
        return f"⚠️ finding: {label}"
    return f"{_MARK[c['outcome']]} {label}"


def _probes(view: Mapping[str, Any]) -> list[str]:
    probes = view["probes"]
    if not probes["rows"]:
        return []
    strategies = probes["strategies"]
    rows = []
    for row in probes["rows"]:
        cells = []
        for s in strategies:
            c = row["cells"].get(s)
            cells.append("–" if c is None else _probe_cell(c))
        rows.append([f"`{cell(row['probe'])}`", *cells])
    more = ["", f"- … and more: the first {len(rows)} are shown; results.jsonl holds every one"] if probes.get("cut") else []
    return ["## Provider probes", ""] + _table(["probe", *[f"`{cell(s)}`" for s in strategies]], rows) + more + [""]


def _drift(view: Mapping[str, Any]) -> list[str]:
    drift = view.get("drift")
    if not drift:
        return []
    from ..drift.render import markdown_lines  # the drift section has one owner
    return markdown_lines(drift, heading="##")


def _failures(view: Mapping[str, Any]) -> list[str]:
    failures = view["failures"]
    if not failures:
        return []
    lines = [f"## Failures ({sum(len(f['results']) for f in failures)} checks)", ""]
    shown = 0
    for failure in failures:
        for r in failure["results"]:
            if shown == MAX_FAILURES:
                lines.append("- … and more: see index.html or results.jsonl")
                return lines + [""]
            shown += 1
            lines.append(f"- **[{r['level']}]** `{cell(r['target'])}` · `{cell(r['scenario'])}` · "
                         f"`{cell(r['invariant'])}` ({r['outcome']}): {cell(r['message'])}")
            diff = r.get("details", {}).get("diff") or []
            if diff:
                body = "\n".join(html.escape(str(d)) for d in diff[:MAX_DIFF_LINES])
                lines += ["  <details><summary>diff</summary>", "", "  <pre>" + body + "</pre>", "  </details>"]
    return lines + [""]


def render(view: Mapping[str, Any]) -> str:
    """Returns summary.md for a report view built by ``model.build``."""
    targets = [t["name"] for t in view["targets"]]
    totals = view["totals"]
    counts = ", ".join(f"{totals[o]} {o}" for o in SHOWN if totals.get(o)) or "no checks"
    lines = [f"# context-conformance: {view['verdict']}", "",
             (f"{view['checks']} checks ({counts}) · {plural(len(targets), 'target')} · "
              f"{len(view['scenarios'])} scenarios · exit code {view['exit_code']}"), ""]
    for error in view["spec_errors"]:
        lines.append(f"- spec error: {cell(error)}")
    if view["spec_errors"]:
        lines.append("")
    if targets:
        lines += _targets(view)
        lines += _by_target("Families", "family", view["families"], targets)
        lines += _invariants(view, targets)
        lines += _matrix(view, targets)
    lines += _probes(view)
    lines += _drift(view)
    lines += _failures(view)
    return "\n".join(lines).rstrip() + "\n"
