"""Drift reports for people: terminal lines, Markdown and an HTML section, from the drift data."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._html import Markup, render
from .._markdown import cell as _cell
from .._text import fit, plural
from .compare import CATEGORIES

MAX_LINES = 60


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(change: Mapping[str, Any]) -> str:
    """Returns one human line for a classified change: category, probe, path, rule and values."""
    values = ""
    if change.get("before") is not None or change.get("after") is not None:  # nothing to show: no "null → null"
        values = f": {_short(change.get('before'))} → {_short(change.get('after'))}"
    path = f" {change['path']}" if change.get("path") else ""
    return f"{change['category'].upper():9} {change['probe']}{path} ({change['rule']}){values}"


def verdict(drift: Mapping[str, Any]) -> str:
    """Returns the headline: breaking drift or not."""
    c = drift["counts"]
    return "BREAKING DRIFT" if c["breaking"] else ("ADDITIVE DRIFT" if c["additive"] else "NO DRIFT")


def terminal(drift: Mapping[str, Any], verbose: bool = False) -> str:
    """Returns the terminal summary: breaking and additive changes (noise only when ``verbose``)."""
    c = drift["counts"]
    lines = [f"drift: {drift['baseline']} -> {drift['current']}: {len(drift['probes'])} probes"]
    shown = [ch for ch in drift["changes"] if verbose or ch["category"] != "noise"]
    for change in shown[:MAX_LINES]:
        lines.append("  " + describe(change))
    if len(shown) > MAX_LINES:
        lines.append(f"  ... {len(shown) - MAX_LINES} more in the JSON report")
    unjudged = drift.get("unjudged_baseline") or []
    if unjudged:
        lines.append(f"  note: {plural(len(unjudged), 'baseline recording')} cannot be judged by the analyzer; only their "
                     f"bodies are compared (first: {unjudged[0]})")
    lines.append(f"{c['breaking']} breaking, {c['additive']} additive, {c['noise']} noise -- {verdict(drift)}")
    return "\n".join(fit(lines))


def markdown_lines(drift: Mapping[str, Any], heading: str = "#") -> list[str]:
    """Returns the Markdown of a drift run as lines: counts, per-probe table, then the changes."""
    c = drift["counts"]
    lines = [f"{heading} Drift: {verdict(drift)}", "",
             (f"**{c['breaking']} breaking** · {c['additive']} additive · {c['noise']} noise · "
              f"{len(drift['probes'])} probes (`{_cell(drift['baseline'])}` → `{_cell(drift['current'])}`)"), ""]
    unjudged = drift.get("unjudged_baseline") or []
    if unjudged:
        lines += [f"{plural(len(unjudged), 'baseline recording')} cannot be judged by the analyzer; only their bodies are "
                  f"compared: {_cell('; '.join(unjudged[:5]))}", ""]
    rows = [p for p in drift["probes"] if p["status"] != "unchanged" or p.get("counts", {}).get("breaking")]
    if rows:
        lines += ["| probe | status | verdict | breaking | additive | noise |", "|---|---|---|---|---|---|"]
        for p in rows:
            pc = p.get("counts", {})
            before, after = p.get("verdict_before"), p.get("verdict_after")
            shown = "–" if before is None and after is None else (
                _cell(after) if before == after else f"{_cell(before)} → {_cell(after)}")
            lines.append(f"| `{_cell(p['probe'])}` | {p['status']} | {shown} | {pc.get('breaking', 0)} | "
                         f"{pc.get('additive', 0)} | {pc.get('noise', 0)} |")
        lines.append("")
    for category in ("breaking", "additive"):
        changes = [ch for ch in drift["changes"] if ch["category"] == category]
        if changes:
            lines += [f"{heading}# {category.capitalize()} changes", ""]
            lines += [f"- `{_cell(ch['probe'])}` `{_cell(ch['path'])}`: {_cell(ch['rule'])}"
                      + (f" ({_cell(_short(ch.get('before')))} → {_cell(_short(ch.get('after')))})"
                         if ch.get("before") is not None or ch.get("after") is not None else "")
                      for ch in changes[:MAX_LINES]]
            lines.append("")
    return lines


def markdown(drift: Mapping[str, Any]) -> str:
    """Returns the whole Markdown drift report."""
    return "\n".join(markdown_lines(drift)).rstrip() + "\n"


def to_json(drift: Mapping[str, Any]) -> str:
    """Returns the drift data as indented JSON text."""
    return json.dumps(drift, indent=2, ensure_ascii=False, default=str) + "\n"


def html_section(drift: Mapping[str, Any]) -> Markup:
    """Returns the drift section of index.html, rendered from ``templates/section.html.j2`` (every
    value escaped)."""
    changes = [(ch, _short(ch.get("before")), _short(ch.get("after")))
               for ch in sorted(drift["changes"], key=lambda ch: CATEGORIES.index(ch["category"]))]
    return render("conformance.drift", "section.html.j2", compact=True, verdict=verdict(drift),
                  counts=drift["counts"], probes=len(drift["probes"]), changes=changes)
